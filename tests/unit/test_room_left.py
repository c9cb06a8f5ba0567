"""What the room left over goes to, once every other fact is shown whole (issue 14 item 5): the text of
a file the session created, as its writes and edits left it (`sources/written.py`), then the agent's
earlier replies (`sources/excerpts.py`), before older rounds join the verbatim tail. And what that needs:
a unified diff's hunks replayed on a file's known text by their context lines (`sources/placing.py`), an
export's "Add:" diff read as the file written whole, a cut text's fence closed where it opened."""

from __future__ import annotations

from compaction import tokens
from compaction.edits import FileChange, Hunk, parse_unified, result_changes
from compaction.events import Event, EventKind
from compaction.history import compact
from compaction.history.fill import leading_lines
from compaction.history.sources.changes import final_lines
from compaction.history.sources.excerpts import flattened
from compaction.history.sources.placing import Lines, place
from compaction.model import Message, Role, ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import transcript

DOC = "\n".join(["# Provenance summary", "", "## Granularities", "", "| System | Fidelity |", "|---|---|",
                 "| Aider | commit |", "", "## Trade-offs", "", "Fidelity costs friction."])


def _placed(text: str, h: Hunk, cursor: int = 0) -> tuple[str, int] | None:
    lines = Lines(text)
    after = place(lines, h, cursor)
    return None if after is None else (lines.text(), after)


def test_a_diff_hunk_is_placed_by_the_context_lines_around_it():
    diff = "*** Begin Patch\n*** Update File: s.md\n@@\n ## Trade-offs\n \n+Major options: hooks or detection.\n" \
           " Fidelity costs friction.\n*** End Patch"
    (change,) = parse_unified(diff)
    (h,) = change.hunks
    assert (h.above, h.below) == (("## Trade-offs", ""), ("Fidelity costs friction.",))
    text, after = _placed(DOC, h)
    assert text.endswith("## Trade-offs\n\nMajor options: hooks or detection.\nFidelity costs friction.")
    assert text.split("\n")[after] == "Fidelity costs friction."  # the next hunk is looked for from the line after it


CODE = "\n".join(["int a() {", "  return 1;", "}", "", "int b() {", "  return 2;", "}", ""])


def test_an_addition_goes_where_its_whole_context_is_not_where_one_line_of_it_is():
    """Review 18: `}` above and a blank line below stand after a() too; the helper belongs after b()."""
    diff = "--- a/m.c\n+++ b/m.c\n@@ -5,4 +5,7 @@\n int b() {\n   return 2;\n }\n+int helper() {\n+}\n \n"
    (h,) = parse_unified(diff)[0].hunks
    text, _ = _placed(CODE, h)
    assert text.index("int helper()") > text.index("int b()")


def test_a_removal_matches_lines_padded_otherwise_and_a_missing_one_is_no_guess():
    padded = Hunk(("| System          | Fidelity |", "|-----------------|----------|"), ("| System | Fidelity (line) |",
                                                                                 "|---|---|"))
    text, _ = _placed(DOC, padded)
    assert "| System | Fidelity (line) |" in text and "| System | Fidelity |" not in text
    assert _placed(DOC, Hunk(("| Cursor | none |",), ("| Cursor | line |",))) is None
    assert _placed(DOC, Hunk((), ("orphan line",))) is None  # an addition with no context: nowhere to go
    twice = "x = 1\ny = 2\nx = 1\n"
    assert _placed(twice, Hunk(("x = 1",), ("x = 3",), above=("nothing like it",))) is None  # context gone, two places
    assert _placed(DOC, Hunk(("Fidelity costs friction.",), ("Fidelity costs some.",), above=("gone",)))[0] \
        .endswith("Fidelity costs some.")  # context gone, its removed line at one place only


def test_many_hunks_on_a_long_file_place_in_linear_time():
    """Review 18: one patch of 2,000 hunks on a 20,000-line file took 28 s; each search starts where the last
    hunk ended and scans with `list.index`."""
    lines = Lines("\n".join(f"line {i}" for i in range(20_000)))
    cursor = 0
    for i in range(0, 20_000, 10):
        cursor = place(lines, Hunk((f"line {i + 5}",), (f"LINE {i + 5}",), above=(f"line {i + 4}",)), cursor)
        assert cursor is not None
    assert lines.lines[5] == "LINE 5" and lines.lines[19_995] == "LINE 19995"


def test_an_exports_add_label_over_a_diff_of_additions_is_the_file_written_whole():
    call = make_call("apply_patch", {"path": "docs/s.md"}, "p")
    result = "Tool use: **apply_patch**\n**Add: `docs/s.md`**\n\n```diff\n+# Summary\n+\n+First line.\n```"
    (change,) = result_changes(call, result)
    assert change == FileChange("docs/s.md", (Hunk((), ("# Summary", "", "First line.")),), whole=True)
    update = "Tool use: **apply_patch**\n**Update: `docs/s.md`**\n\n```diff\n@@\n+First line.\n```"
    assert not result_changes(call, update)[0].whole  # an update's additions are no whole file
    other = "**Add: `docs/a.md`**\n(created)\n**Update: `docs/s.md`**\n\n```diff\n+import os\n```"
    assert not result_changes(call, other)[0].whole  # another file's label, not the one over this block


def test_a_created_files_final_text_replays_its_diff_edits_and_no_change_it_cannot():
    write = Event(EventKind.WRITE, 1, 1, path="s.md", hunks=(Hunk((), tuple(DOC.split("\n"))),), whole=True)
    edit = Event(EventKind.EDIT, 2, 3, path="s.md", hunks=parse_unified(
        "--- a/s.md\n+++ b/s.md\n@@ -7,1 +7,2 @@\n | Aider | commit |\n+| Git AI | line |\n \n")[0].hunks)
    lines = final_lines([write, edit])
    assert lines is not None and lines[6:8] == ["| Aider | commit |", "| Git AI | line |"]
    assert final_lines([edit]) is None  # edits alone: the text before them is not known
    perl = Event(EventKind.EDIT, 3, 5, path="s.md")  # `perl -pi …`: a change whose lines are not known
    assert final_lines([write, edit, perl]) is None
    viewed = Event(EventKind.EDIT, 3, 5, path="s.md", hunks=(Hunk((), (), "after the edit", shown=("x",)),))
    assert final_lines([write, viewed]) is None  # only the tool's view after it: the change is unknown
    twin = Event(EventKind.EDIT, 2, 4, path="s.md")  # the harness's "applied" line beside the edit's payload
    assert final_lines([write, edit, twin]) == lines


def test_a_cut_file_text_closes_its_fence_where_it_opened():
    """Review 18: the filler closed a list item's fence at the margin (a new block to the document's end)
    and counted the file's own ``` lines inside a longer fence as closing it."""
    full = "`a.md` (9 lines, from its writes and edits):\n  ````\n  # A\n  ```python\n  x = 1\n  ```\n  ~~~\n" \
           "  one\n  two\n  three\n  ````"
    cut, _ = leading_lines(full, 40)
    assert cut.split("\n")[-2] == "  ````" and cut.endswith("more lines)")
def _drafting_session(rounds: int = 14) -> list[Message]:
    msgs = [Message(0, Role.USER, "Draft the provenance summary in docs/summary.md."),
            Message(0, Role.ASSISTANT, "Writing it.", tool_calls=[make_call("Write", {
                "file_path": "docs/summary.md", "content": DOC + "\n\nThe quorum threshold is 17 votes."}, "w")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult("File created", "w")])]
    for i in range(rounds):
        msgs += [Message(0, Role.USER, f"Step {i}: note in the summary what system {i} stores."),
                 Message(0, Role.ASSISTANT, f"System {i} keeps `notes_{i}` under refs/notes/s{i}. " + " ".join(
                     f"Its field `field_{i}_{j}` holds {j * 7 + i} entries per commit." for j in range(60)))]
    return msgs


def test_room_left_shows_the_created_files_text_then_earlier_replies_before_older_rounds():
    t = transcript(_drafting_session())
    target = tokens.count_messages(t.messages) // 3
    md = compact(t, target_tokens=target).markdown
    assert tokens.count(md) <= target
    assert "## Files the session created or rewrote, as it left them" in md
    assert "`docs/summary.md` (13 lines, from its writes and edits)" in md and "quorum threshold is 17 votes" in md
    tail = md.index("## Recent rounds")
    assert "## Earlier replies of the agent" in md and md.index("## Earlier replies of the agent") < tail
    earlier = md[md.index("## Earlier replies of the agent"):tail]
    shown = md[tail:]
    # each reply once: an earlier reply the tail shows is not also an excerpt
    for i in range(14):
        said = f"keeps `notes_{i}` under"
        assert not (said in earlier and said in shown)


def test_a_tight_budget_pays_for_neither():
    t = transcript(_drafting_session())
    target = tokens.count_messages(t.messages) // 20
    md = compact(t, target_tokens=target).markdown
    assert "## Files the session created or rewrote" not in md and "## Earlier replies" not in md and tokens.count(md) <= target


def test_narration_before_a_call_is_no_earlier_reply():
    msgs = [Message(0, Role.USER, "Fix the parser.")]
    for i in range(12):
        msgs += [Message(0, Role.ASSISTANT, f"I need to look at module_{i}.py next, because the parser calls "
                         f"`parse_{i}` there and the `token_{i}` handling may be wrong. " * 3,
                         tool_calls=[make_call("Bash", {"command": f"cat module_{i}.py"}, f"c{i}")]),
                 Message(0, Role.TOOL, "", tool_results=[ToolResult(f"def parse_{i}(): pass\n" * 30, f"c{i}")])]
    msgs.append(Message(0, Role.ASSISTANT, "Done: the parser's `parse_3` now skips blank tokens; " * 8))
    t = transcript(msgs)
    md = compact(t, target_tokens=tokens.count_messages(t.messages) // 2).markdown
    earlier = md.split("## Earlier replies of the agent")[1].split("## Recent")[0] if "## Earlier replies" in md else ""
    assert "I need to look at module_" not in earlier


def test_the_earlier_replies_are_the_closing_ones_not_the_narration_before_a_call():
    """The source itself (the document above shows no earlier replies at all: the narration is no closing reply
    there): a closing reply that only says what the agent will do next is left out, a report is kept."""
    from compaction.events import extract_events
    from compaction.history.sources.excerpts import excerpt_facts
    from compaction.history.sources.registry import FactContext
    from compaction.history.steering import role_preset

    narration = "I need to look at module_1.py next, because the parser calls `parse_1` there. " * 8
    report = " ".join(f"Done: `parse_{j}` now skips blank tokens at offset {j * 7}." for j in range(12))
    msgs = [Message(0, Role.USER, "Step 1: fix the parser."),
            Message(0, Role.ASSISTANT, narration, tool_calls=[make_call("Bash", {"command": "cat module_1.py"}, "c1")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult("def parse_1(): pass", "c1")]),
            Message(0, Role.USER, "Now fix the blank tokens."), Message(0, Role.ASSISTANT, report),
            Message(0, Role.USER, "Thanks, that is all for today."), Message(0, Role.ASSISTANT, "Stopping here.")]
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset(None), None, len(t.rounds), target_tokens=10_000)
    said = [f.full_text or f.text for f in excerpt_facts(ctx)]
    assert any(x.startswith("Done: `parse_0` now skips blank tokens") for x in said)
    assert not any("I need to look at module_1.py" in x for x in said)


def test_a_reply_flattens_to_one_line_without_its_code():
    text = "## Result\n\n- **Fixed** `a.py`\n- Added `b()`\n\n```python\nx = 1\ny = 2\n```\nDone."
    assert flattened(text) == "Result · Fixed `a.py` · Added `b()` · [2 lines of code] · Done."
    assert "`" not in flattened("An open `span here")  # an unbalanced code span would run on
    # its words as written (review 18): backslashes single, a code span's `__` and `**` kept
    assert flattened("Fixed C:\\repo\\app.py: `\\d+` matches; `pkg/__init__.py` takes `**kwargs`.") == \
        "Fixed C:\\repo\\app.py: `\\d+` matches; `pkg/__init__.py` takes `**kwargs`."
    assert flattened("a\u202eb") == "a\\u202eb"  # a bidi control shown, not obeyed
