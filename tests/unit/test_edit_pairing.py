"""Which result answers which call (events.results_of_calls), and when an aider block was applied:
a file's edit count must not be inflated by failures that never happened."""

from __future__ import annotations

from pathlib import Path

from compaction.events import EventKind, extract_events, results_of_calls
from compaction.model import Message, Role, ToolCall, ToolResult
from compaction.transcripts import load_transcript


def test_a_result_claimed_by_its_call_id_is_not_given_to_another_call() -> None:
    first = ToolCall("bash", {"command": "ls"}, "a")
    lost = ToolCall("bash", {"command": "pwd"}, "b")  # its result never came
    msgs = [Message(0, Role.ASSISTANT, "", tool_calls=[first, lost]),
            Message(1, Role.TOOL, "", tool_results=[ToolResult("x.py", "a")])]
    pairs = results_of_calls(msgs)
    assert pairs[id(first)] is not None and pairs[id(first)].content == "x.py"
    assert pairs[id(lost)] is None


def test_results_without_ids_still_pair_in_order() -> None:
    calls = [ToolCall("bash", {"command": c}, None) for c in ("ls", "pwd")]
    msgs = [Message(0, Role.ASSISTANT, "", tool_calls=calls),
            Message(1, Role.TOOL, "", tool_results=[ToolResult("one", None), ToolResult("two", None)])]
    pairs = results_of_calls(msgs)
    assert [pairs[id(c)].content for c in calls] == ["one", "two"]


def _aider(tmp_path: Path, reply: str, harness: str) -> Path:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text("# aider chat started at 2025-01-01 10:00:00\n\n#### change both functions in a.py\n\n"
                    f"{reply}\n\n{harness}\n", encoding="utf-8")
    return path


def _block(search: str, replace: str) -> str:
    return f"a.py\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"


def test_every_block_of_a_file_aider_says_it_applied_is_an_edit_not_a_failure(tmp_path: Path) -> None:
    """aider prints "Applied edit to F" once per file of a reply, whatever its number of blocks."""
    reply = "Three blocks:\n\n" + "\n".join(_block(f"def {n}():\n    return 1", f"def {n}():\n    return 2")
                                             for n in ("f", "g", "h"))
    t = load_transcript(str(_aider(tmp_path, reply, "> Applied edit to a.py")))
    blocks = [e for e in extract_events(t) if e.kind is EventKind.EDIT and e.tool == "search_replace"]
    assert len(blocks) == 3 and not any(e.failed for e in blocks)


def test_a_block_of_a_file_aider_never_named_failed(tmp_path: Path) -> None:
    reply = "One block:\n\n" + _block("def f():\n    return 1", "def f():\n    return 2")
    t = load_transcript(str(_aider(tmp_path, reply, "> Tokens: 1.2k sent, 80 received.")))
    blocks = [e for e in extract_events(t) if e.kind is EventKind.EDIT and e.tool == "search_replace"]
    assert len(blocks) == 1 and blocks[0].failed


def test_a_block_aider_never_applied_does_not_end_an_error(tmp_path: Path) -> None:
    """An error's solution is the edit that followed it: a proposed block aider never reported applied
    (a reply in /ask mode, an interrupted one) changed nothing, so it ended nothing."""
    from compaction.errors import scan_transcript

    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2025-01-01 10:00:00\n\n#### /run python a.py\n\n"
        "> Running python a.py\n> Traceback (most recent call last):\n>   File \"a.py\", line 2, in <module>\n"
        ">     f()\n> NameError: name 'f' is not defined\n\n"
        "#### what failed?\n\n`f` is not defined.\n\n"
        "#### fix it\n\nDefine it:\n\n" + _block("x = 1", "def f():\n    return 2\nx = 1") + "\n"
        "> Tokens: 1.2k sent, 80 received.\n\n"
        "#### try again\n\nDefine it:\n\n" + _block("x = 1", "def f():\n    return 3\nx = 1") + "\n"
        "> Applied edit to a.py\n", encoding="utf-8")
    t = load_transcript(str(path))
    (rec,) = [r for r in scan_transcript(t) if r.id.startswith("ERR_PY_NameError")]
    last_round = t.rounds[-1].number
    assert f"edited `a.py` (r{last_round})" in rec.solution  # the applied block, not the proposal (never checked after)
