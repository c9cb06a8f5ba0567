"""Budgets spent to 90-100% where the document's usual fillers cannot: a newest round too big for the
verbatim tail even at its smallest cap (one request worked on for dozens of steps), and must-keep items
squeezed to one line each (dozens of modified files)."""

from __future__ import annotations

import re

from compaction import tokens
from compaction.history import compact
from compaction.history.fit import path_end
from compaction.model import Message, Role, ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import transcript


def _long_turns(steps: int) -> list[Message]:
    """Two requests, each answered by `steps` steps with no tool message between them: two rounds."""
    msgs: list[Message] = []
    for turn in (1, 2):
        msgs.append(Message(0, Role.USER, f"request {turn}: build the importer, part {turn}"))
        for i in range(steps):
            text = f"Step {turn}.{i}: checked `module_{turn}_{i}` and its callers. " + "Detail of the step. " * 8
            msgs.append(Message(0, Role.ASSISTANT, text, tool_calls=[
                make_call("read_file", {"path": f"src/pkg/module_{turn}_{i}.py"}, f"c{turn}-{i}")]))
    msgs.append(Message(0, Role.ASSISTANT, "All parts are in place; the last step wired `module_2_final`."))
    return msgs


def test_a_newest_round_too_big_for_the_tail_shows_its_last_messages():
    t = transcript(_long_turns(150))
    assert len(t.rounds) == 2
    target = tokens.count_messages(t.messages) // 10
    md = compact(t, target_tokens=target).markdown
    used = tokens.count(md)
    assert 0.9 * target <= used <= target
    assert "(verbatim) (r2)\n" in md and "### r2 (its last " in md and "what came before is told above" in md
    assert "the last step wired `module_2_final`" in md  # where the work stopped, in the agent's words
    zh = compact(t, target_tokens=target, lang="zh").markdown
    assert "### r2 (其最后 " in zh and "之前的内容见上文" in zh and "its last" not in zh


def _one_long_message(parts: int) -> list[Message]:
    """A request answered by one message of `parts` command outputs (an exported chat's turn of dozens
    of tool blocks), then a short exchange: three rounds, the middle one too big for any cap."""
    calls = [make_call("run_command", {"command": f"npm run step{i}"}, f"s{i}") for i in range(parts)]
    results = [ToolResult(f"step {i} output\n" + f"line {i} of the build log. " * 60, f"s{i}") for i in range(parts)]
    results[-1] = ToolResult("The build passes now: `npm run build` exits 0.", f"s{parts - 1}")
    return [Message(0, Role.USER, "first: look at the repository layout"),
            Message(0, Role.ASSISTANT, "The repository has `frontend/` and `agent/`."),
            Message(0, Role.USER, "second: fix the failing build"),
            Message(0, Role.ASSISTANT, "Running every step.", tool_calls=calls),
            Message(0, Role.TOOL, "", tool_results=results),
            Message(0, Role.USER, "third: thanks, open the pull request"),
            Message(0, Role.ASSISTANT, "Opened the pull request.")]


def test_an_older_round_too_big_for_any_cap_shows_its_end_when_room_is_left():
    """specstory-cursor-chefchopsky-e2e at 20% stayed at 85%: its middle round, one message of dozens of
    tool blocks, fitted at no cap, and nothing else was left to add. Its end now fills the room."""
    t = transcript(_one_long_message(120))
    assert len(t.rounds) == 3
    target = tokens.count_messages(t.messages) // 20
    md = compact(t, target_tokens=target).markdown
    used = tokens.count(md)
    assert 0.9 * target <= used <= target, (target, used)
    assert "(verbatim) (r2-r3)" in md and "### r2 (its last 1 of 3 messages" in md
    gap = re.search(r"\[… (\d+) earlier parts of this message elided …\]", md)
    assert gap is not None
    after = md[gap.end():md.index("### r3")]
    assert int(gap.group(1)) + len(re.findall(r"step \d+ output", after)) + 1 == 120  # every part counted once
    assert "`npm run build` exits 0" in md  # where that round's work stopped
    assert md.index("### r2 (") < md.index("### r3")  # oldest first


def test_squeezed_items_narrow_in_small_steps_so_the_budget_is_used():
    msgs = [Message(0, Role.USER, "scaffold the service")]
    for i in range(70):
        path = f"services/backend/internal/handlers/generated/v2/resources/resource_handler_number_{i:03d}.go"
        msgs.append(Message(0, Role.ASSISTANT, "", tool_calls=[
            make_call("write_file", {"path": path, "content": f"package handlers\n// handler {i}\n"}, f"w{i}")]))
    t = transcript(msgs)
    for target in (1300, 1700):  # 70 lines of 100-character paths: over 2000 tokens unsqueezed
        md = compact(t, target_tokens=target).markdown
        used = tokens.count(md)
        assert 0.9 * target <= used <= target, (target, used)
        assert "resource_handler_number_069.go`" in md  # a path narrows from its start: the name stays


def test_a_path_narrows_to_its_last_parts_and_keeps_its_name_whole():
    assert path_end("a/b/c.py", 40) == "a/b/c.py"
    assert path_end("services/backend/internal/handlers/x_069.go", 24) == "…/handlers/x_069.go"
    assert path_end("services/backend/a_very_long_file_name_indeed.go", 10) == "…/a_very_long_file_name_indeed.go"


def test_a_real_session_short_of_the_mark_after_two_passes_gets_another():
    """specstory-copilot-destyler-tree-vanilla at 10%: its elided outputs cost less than planned, and two
    passes left it at 88% of its budget; the filler plans again while it is short, four passes at most."""
    from compaction.transcripts import load_transcript
    from tests.conftest import TRANSCRIPTS

    t = load_transcript(TRANSCRIPTS / "more-agents" / "specstory-copilot-destyler-tree-vanilla.md")
    target = tokens.count_messages(t.messages) // 10
    used = tokens.count(compact(t, target_tokens=target).markdown)
    assert 0.9 * target <= used <= target, (target, used)


def test_a_cut_text_ends_at_a_words_end_not_inside_a_name():
    """A head cut by tokens ended inside a name (sklearn's `return _wra […]`); a piece of the verbatim tail
    holding one long line too."""
    from compaction.history.engine import _truncate_tokens
    from compaction.history.tail import _verbatim

    words = ["alphabetical", "betamaxing", "gammaraying", "deltaforce"] * 500
    text = " ".join(words)
    head = _truncate_tokens(text, 100).split(" […] ")[0]
    assert head.split()[-1] in words
    piece = _verbatim("", text, "", 1)
    shown = piece.render(60)
    before, after = shown.split("\n[… ")[0], shown.split(" elided …]\n")[1]
    assert before.split()[-1] in words and after.split()[0] in words
