"""An older request nothing came of (given up, no answer before the user wrote again) says so on its line;
one answered, acted on or aborted (the user steering) says nothing more (reader reviews 58, 59: request
status; pairwise check 60: an abort is no outcome)."""

from __future__ import annotations

from compaction.history.sources.task import task_facts
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult
from tests.unit.test_session59_mends import _changed, _context


def _asked(text: str) -> Message:
    return Message(0, Role.USER, text)


def _said(text: str) -> Message:
    return Message(0, Role.ASSISTANT, text)


def _looked() -> list[Message]:
    """A call with no words of the agent's, and its result."""
    c = ToolCall("bash", {"command": "ls src"}, "c1", ToolKind.SHELL, command="ls src")
    return [Message(0, Role.ASSISTANT, "", [c]),
            Message(0, Role.TOOL, tool_results=[ToolResult("cache.py", "c1", "bash", exit_code=0)])]


def _lines(msgs: list[Message]) -> list[str]:
    return [f.text for f in task_facts(_context(msgs, "/repo")) if f.text.startswith("Then asked")]


def test_a_reply_that_never_came_is_told_and_an_aborted_one_is_not() -> None:
    lines = _lines([_asked("build the parser for the config files"), _said("Done: the parser is built."),
                    _asked("do we need to update README.md as well?"), _said("[error: Request was aborted.]"),
                    _asked("also explain the cache layer"), *_looked(),
                    _asked("what does the lexer do?"), _said("It splits the input into tokens."),
                    _asked("now write the docs")])
    assert lines[0] == "Then asked: do we need to update README.md as well?", lines  # aborted: the user steering
    assert lines[1] == "Then asked: also explain the cache layer → no answer before r4", lines
    assert lines[2] == "Then asked: what does the lexer do?", lines  # answered: nothing more


def test_a_request_acted_on_or_given_up_on() -> None:
    lines = _lines([_asked("set up the project"), _said("Set up."),
                    _asked("rename the module to core"), *_changed("/repo/core.py"), _said("Renamed."),
                    _asked("make the build pass on Windows"),
                    _said("I looked at the linker flags. Unfortunately, I was unable to make the build pass there."),
                    _asked("fine, then document it")])
    assert lines[0] == "Then asked: rename the module to core", lines
    assert lines[1] == "Then asked: make the build pass on Windows → the agent could not", lines


def test_a_request_sent_again_is_told_by_its_last_sending_and_a_tool_line_by_nothing() -> None:
    lines = _lines([_asked("set up the project"), _said("Set up."),
                    _asked("what is this repo doing?"), *_looked(),
                    _asked("what is this repo doing?"), _said("It renders tiles for a map server."),
                    _asked("!npm run check"),
                    _asked("ok, now add the tests")])
    assert lines[0] == "Then asked: what is this repo doing?", lines  # the second sending was answered
    assert lines[1] == "Then asked: !npm run check", lines
