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


def test_lists_of_work_to_come_or_findings_a_second_list_and_an_answer_without_edits_are_no_recap():
    msgs = [Message(0, Role.USER, "fix it")]
    _edit(msgs, "a", "/repo/lib/offsetbox.py")
    for lead in ("I'll make the following changes:", "Changes still to make:", "Here's what's left to do:",
                 "I've found three problems:"):
        msgs.append(Message(len(msgs), Role.ASSISTANT, f"{lead}\n- Added `a`\n- Updated `b`\n- Renamed `c`"))
        assert _facts(msgs) == [], lead
        msgs.pop()
    msgs.append(Message(len(msgs), Role.ASSISTANT, "To finish:\n1. Set the `DEBUG` env var\n2. Split `a.py`\n3. Need a "
                                                  "guard in `b.py`"))
    assert _facts(msgs) == []
    msgs[-1] = Message(msgs[-1].index, Role.ASSISTANT, "Summary of changes:\n- Added `x`\n- Removed `y`\n- Renamed `z`"
                                                       "\n\nNext steps:\n- Add tests for `y`\n- Update the docs")
    [fact] = _facts(msgs)
    assert "Renamed `z`" in fact.text and "Add tests" not in fact.text
    msgs.append(Message(len(msgs), Role.USER, "what does parse do?"))
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Here's what `parse` does:\n- Reads the file\n- Splits lines\n"
                                                  "- Returns the rows"))
    [fact] = _facts(msgs)  # the answer edited nothing: the first request's recap only
    assert "Renamed `z`" in fact.text


def test_a_recap_after_a_huge_run_of_blank_lines_is_found():
    """The size guards the lead's scan: the quadratic one it replaced took minutes here (no wall time is
    asserted; a regression shows as a test that hangs)."""
    msgs = [Message(0, Role.USER, "fix it")]
    _edit(msgs, "a", "/repo/lib/offsetbox.py")
    msgs.append(Message(len(msgs), Role.ASSISTANT, "intro" + "\n" * 200_000 + "Done:\n- Added `a`\n- Fixed `b`\n- Kept `c`"))
    [fact] = _facts(msgs)
    assert "Added `a`; Fixed `b`; Kept `c`" in fact.text


def test_a_merged_messages_own_edits_count_and_reasoning_glued_before_the_heading_does_not():
    """SpecStory merges a turn's text and calls into one message; its exporter glues the agent's reasoning
    ("I'll deliver this as a list.") to the heading that opens the recap."""
    args = {"path": "/repo/a.py", "old_str": "a = 1", "new_str": "a = 2", "command": "str_replace"}
    msgs = [Message(0, Role.USER, "fix it"),
            Message(1, Role.ASSISTANT, "I'll deliver this clearly in a list.**Result**\n- Added `a`\n- Fixed `b`\n- Kept `c`",
                    tool_calls=[ToolCall("str_replace_editor", args, "a", ToolKind.EDIT, path="/repo/a.py")]),
            Message(2, Role.TOOL, tool_results=[ToolResult("edited", "a", "str_replace_editor")])]
    [fact] = _facts(msgs)
    assert "Added `a`; Fixed `b`; Kept `c`" in fact.text


def test_an_account_whose_files_were_edited_again_says_so():
    """git-provenance: the r34 account told of a matrix the r36 edit removed, as the file's state."""
    msgs = [Message(0, Role.USER, "make the draggable legends picklable")]
    _edit(msgs, "a", "/repo/lib/offsetbox.py")
    _edit(msgs, "b", "/repo/lib/legend.py")
    msgs.append(Message(len(msgs), Role.ASSISTANT, RECAP))
    msgs.append(Message(len(msgs), Role.USER, "also reconnect on draw"))
    _edit(msgs, "c", "/repo/lib/text.py")
    _edit(msgs, "d", "/repo/lib/legend.py")
    [fact] = _facts(msgs)
    assert fact.text.startswith("The agent's own account (r3; edited again from r5): Summary of changes:")


def test_an_export_that_kept_a_writes_call_but_not_its_path_still_edited():
    """Cursor's SpecStory export: `write({})`, its text in the same message as the agent's report."""
    msgs = [Message(0, Role.USER, "reorganize the cursor rules"),
            Message(1, Role.ASSISTANT, "Changes made:\n- Renamed the core rules to three-digit names\n- Removed the "
                    "`priority` field\n- Added a guide to the rules folder",
                    tool_calls=[ToolCall("write", {}, "w", ToolKind.WRITE)]),
            Message(2, Role.TOOL, tool_results=[ToolResult("Tool use: **write**", "w", "write")])]
    [fact] = _facts(msgs)
    assert "Renamed the core rules to three-digit names" in fact.text
    assert _facts([msgs[0], Message(1, Role.ASSISTANT, msgs[1].text)]) == []  # no write at all: no recap
    refused = [msgs[0], msgs[1], Message(2, Role.TOOL, tool_results=[
        ToolResult("Error: missing required parameter 'path'", "w", "write", is_error=True)])]
    assert _facts(refused) == []  # a write that failed wrote nothing
