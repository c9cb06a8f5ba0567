"""An older request the agent did nothing about before the user wrote again says so on its line; one
answered, acted on, worked at, aborted (the user steering) or said to be impossible says nothing more (reader
reviews 58, 59: request status; pairwise check 60 and code review 25: an abort, a silent call, "I couldn't
find any other callers" are no missing answer)."""

from __future__ import annotations

from compaction.history.sources.task import task_facts
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult
from tests.unit.test_session59_mends import _context


def _asked(text: str) -> Message:
    return Message(0, Role.USER, text)


def _said(text: str) -> Message:
    return Message(0, Role.ASSISTANT, text)


def _looked() -> list[Message]:
    """A call with no words of the agent's, and its result."""
    c = ToolCall("bash", {"command": "ls src"}, "c1", ToolKind.SHELL, command="ls src")
    return [Message(0, Role.ASSISTANT, "", [c]),
            Message(0, Role.TOOL, tool_results=[ToolResult("cache.py", "c1", "bash", exit_code=0)])]


def _failed_call() -> Message:
    """What the tool said when the model's API failed: no word or call of the agent's."""
    return Message(0, Role.TOOL, "litellm.RateLimitError: 429 Quota exceeded")


def _lines(msgs: list[Message]) -> list[str]:
    return [f.text for f in task_facts(_context(msgs, "/repo")) if f.text.startswith("Then asked")]


def test_a_reply_that_never_came_is_told(shared_transcripts) -> None:
    """aider-monochromatic r8-r11: the user asked what the repo does four times; the model's API failed each time
    (credentials, a 404, two 429s), and aider started again before each next ask (a round each)."""
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.steering import role_preset
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "more-agents" / "aider-monochromatic.md"))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd=None, n_rounds=len(t.rounds), target_tokens=None)
    lines = [f.text for f in task_facts(ctx) if f.text.startswith("Then asked")]
    assert "Then asked: What's this repo doing? → no answer before r9" in lines, lines
    assert "Then asked: Tell me what you know about this. → no answer before r12" in lines, lines
    # sent at r9 and again at r10: what came of its last sending
    assert "Then asked: What is this repo doing? → no answer before r11" in lines, lines


def test_an_aborted_a_silent_or_a_two_message_ask_is_no_missing_answer() -> None:
    lines = _lines([_asked("build the parser for the config files"), _said("Done: the parser is built."),
                    _asked("do we need to update README.md as well?"), _said("[error: Request was aborted.]"),
                    _asked("what does the lexer do?"), *_looked(),
                    _asked("are there other callers of parse_config?"),
                    _said("I searched the repo. I couldn't find any other callers: only main.py uses it."),
                    _asked("stop doing that!"), _failed_call(), _asked("just write a little poem"),
                    _said("Roses are red."), _asked("now write the docs")])
    assert lines[0] == "Then asked: do we need to update README.md as well?", lines  # aborted: the user steering
    assert lines[1] == "Then asked: what does the lexer do?", lines  # worked at: a call of its own
    assert lines[2] == "Then asked: are there other callers of parse_config?", lines  # an answer
    assert lines[3] == "Then asked: stop doing that!", lines  # two messages of one turn: answered after the second


def test_a_line_typed_for_the_tool_has_no_outcome_and_a_path_is_no_such_line() -> None:
    from compaction.history.sources.task import _TOOL_LINE_RE

    assert _TOOL_LINE_RE.match("!npm run check") and _TOOL_LINE_RE.match("/add src/app.py")
    assert not _TOOL_LINE_RE.match("/Users/me/app/log.txt shows a crash on start")
