"""The latest failing output (sources/latest_failure.py): what last went wrong and still stands."""

from __future__ import annotations

from compaction.history.sources.latest_failure import _last_failure
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, group_rounds


def _run(i: int, command: str, output: str, status: int) -> list[Message]:
    cid = f"c{i}"
    return [Message(0, Role.USER, f"step {i}"),
            Message(0, Role.ASSISTANT, "", [ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command)]),
            Message(0, Role.TOOL, tool_results=[ToolResult(output, cid, exit_code=status, is_error=status != 0)])]


def _rounds(*runs: tuple[str, str, int]):
    msgs = [m for i, r in enumerate(runs) for m in _run(i, *r)]
    return group_rounds([Message(i, m.role, m.text, m.tool_calls, m.tool_results) for i, m in enumerate(msgs)])


def test_a_failure_whose_command_passed_later_is_no_longer_the_latest():
    """matplotlib-25311 showed `python test_fix_annotation.py` failing (r57) as the latest failure, though
    the same command passed at r61 and r66."""
    found = _last_failure(_rounds(("make lint", "E501 line too long", 1), ("python t.py", "AssertionError", 1),
                                  ("python t.py", "SUCCESS", 0)))
    assert found is not None and found[2] == "make lint"
    assert _last_failure(_rounds(("python t.py", "AssertionError", 1), ("python  t.py", "SUCCESS", 0))) is None
    found = _last_failure(_rounds(("python t.py", "SUCCESS", 0), ("python t.py", "AssertionError", 1)))
    assert found is not None and found[1].content == "AssertionError"  # passed before it failed: it stands
