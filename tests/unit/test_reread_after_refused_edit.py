"""A refused edit's solution names how the agent looked at the file again before the edit that worked."""

from compaction.errors.scan import _reread
from compaction.model import ToolCall, ToolResult
from tests.unit.synthetic import steps_transcript


def _call(i: int, kind: str, **kw) -> tuple[ToolCall, ToolResult]:
    return ToolCall("t", {}, f"c{i}", kind, **kw), ToolResult("ok", f"c{i}")


def test_the_look_between_the_refusal_and_the_fix_is_named() -> None:
    t = steps_transcript("fix the table",
                         _call(1, "edit", path="docs/S.md"),  # r1: refused
                         _call(2, "shell", command="rg -n foo src"),  # r2: another file
                         _call(3, "shell", command="nl -ba docs/S.md | sed -n '38,120p'"),  # r3
                         _call(4, "edit", path="docs/S.md"))  # r4: the fix
    assert _reread(t, 1, 4, "docs/S.md") == "`nl -ba docs/S.md | sed -n '38,120p'` (r3)"
    assert _reread(t, 1, 3, "docs/S.md") is None  # nothing between
    assert _reread(t, 1, 4, None) is None


def test_running_or_naming_the_file_is_no_look_at_it() -> None:
    t = steps_transcript("fix the api",
                         _call(1, "edit", path="src/api.py"),
                         _call(2, "shell", command="pytest tests/test_api.py -x"),  # runs a test naming it
                         _call(3, "shell", command="cat docs/api.py.md"),  # another file
                         _call(4, "edit", path="src/api.py"))
    assert _reread(t, 1, 4, "src/api.py") is None
