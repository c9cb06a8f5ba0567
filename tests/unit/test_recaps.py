"""The agent's own account of its changes (issue 14, "how was X changed?"): the list it writes after the
edits is told beside the change records; a plan's list, a list of files and a recap before any edit are not."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources.recaps import recap_facts
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

RECAP = """Summary of changes:
1.  Modified `lib/offsetbox.py`:
    *   Updated `DraggableBase.__init__` to set `canvas` to `None` and call `connect()`.
    *   Added `DraggableBase.__getstate__` to exclude `canvas`, `cids` and `_c1` from pickling.
2.  Modified `lib/legend.py`:
    *   Updated `Legend.draw` to call `self._draggable.connect()`.

```python
print("not an item")
- nor this
```
This fixes the pickling issue."""

PLAN = """Next steps:
1. Add `__getstate__` to `DraggableBase`.
2. Update `Legend.draw` to reconnect.
3. Run the tests."""


def _edit(msgs: list[Message], cid: str, path: str) -> None:
    args = {"path": path, "old_str": "a = 1", "new_str": "a = 2", "command": "str_replace"}
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[
        ToolCall("str_replace_editor", args, cid, ToolKind.EDIT, path=path)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("edited", cid, "str_replace_editor")]))


def _facts(msgs: list[Message]) -> list:
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(t, extract_events(t), [], role_preset(None), None, len(t.rounds))
    return list(recap_facts(ctx))


def test_the_recap_after_the_edits_is_told_with_its_nesting_and_code_spans_and_without_its_code():
    msgs = [Message(0, Role.USER, "make draggable legends picklable"), Message(1, Role.ASSISTANT, PLAN)]
    _edit(msgs, "a", "/repo/lib/offsetbox.py")
    _edit(msgs, "b", "/repo/lib/legend.py")
    msgs.append(Message(len(msgs), Role.ASSISTANT, RECAP))
    [fact] = _facts(msgs)
    assert fact.text.startswith("The agent's own account (r3): Summary of changes: Modified `lib/offsetbox.py`: Updated "
                                "`DraggableBase.__init__` to set `canvas` to `None`")
    assert "exclude `canvas`, `cids` and `_c1` from pickling; Modified `lib/legend.py`: Updated" in fact.text
    assert "not an item" not in fact.text and "nor this" not in fact.text
    assert fact.short is not None and len(fact.short) < len(fact.text)


def test_a_plan_a_recap_before_any_edit_and_a_list_of_files_are_no_recap():
    assert _facts([Message(0, Role.USER, "fix it"), Message(1, Role.ASSISTANT, RECAP)]) == []  # nothing edited yet
    msgs = [Message(0, Role.USER, "fix it")]
    _edit(msgs, "a", "/repo/lib/offsetbox.py")
    msgs.append(Message(len(msgs), Role.ASSISTANT, PLAN))
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Files:\n- `lib/offsetbox.py`\n- `lib/legend.py`\n- `lib/text.py`"))
    assert _facts(msgs) == []


def test_each_request_keeps_its_last_recap_the_latest_request_first():
    msgs = [Message(0, Role.USER, "first")]
    _edit(msgs, "a", "/repo/lib/offsetbox.py")
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Done:\n- Added `a`\n- Renamed `b`\n- Fixed `c`"))
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Done:\n- Added `a2`\n- Renamed `b2`\n- Fixed `c2`"))
    msgs.append(Message(len(msgs), Role.USER, "second"))
    _edit(msgs, "b", "/repo/lib/legend.py")
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Changes:\n- Removed `x`\n- Wrote `y`\n- Kept `z`"))
    latest, earlier = _facts(msgs)
    assert "Removed `x`" in latest.text and "Added `a2`" in earlier.text and latest.score > earlier.score


def test_a_list_under_words_that_say_the_work_is_done_is_a_recap_and_one_of_changes_needed_is_not():
    msgs = [Message(0, Role.USER, "a dice page")]
    _edit(msgs, "a", "/repo/index.html")
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Done. Single `index.html` with:\n- **Pixel art font** and scanlines\n"
                                                  "- **Min/Max inputs** kept in `localStorage`\n- **Generate button** with a "
                                                  "scramble that slows down before landing"))
    [fact] = _facts(msgs)
    assert "Pixel art font and scanlines; Min/Max inputs kept in `localStorage`; Generate button" in fact.text
    msgs[-1] = Message(msgs[-1].index, Role.ASSISTANT, "Here are the specific changes needed:\n- **Font** swap\n"
                                                       "- **Inputs** persist\n- **Button** animation")
    assert _facts(msgs) == []
