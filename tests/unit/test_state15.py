"""What the agent learned from reading and from failures (issue 14, state and errors): the branch a
line the session named runs under, with its condition and the message of each arm; calls given keyword
arguments; what a refused edit's old text got wrong (a literal `\\n`, one line for two, tabs); what a
file turned out to hold, said by the agent."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.blocks import _weight, digest, numbered
from compaction.history.sources.edit_failures import cause, edit_failure_facts
from compaction.history.sources.findings import finding_facts, statements
from compaction.history.steering import role_preset
from compaction.model import Message, Role, Transcript
from tests.unit.synthetic import call_pair as _call
from tests.unit.synthetic import transcript as _transcript

SUMMARY = "\n".join(f"{n:6}\t{line}" for n, line in enumerate([
    "func cleanup() {",
    "\tstats := cloud.Shutdown(timeout)",
    "\tif !silent && total > 0 {",
    "\t\tif stats.Errored > 0 || stats.TimedOut > 0 {",
    '\t\t\tfmt.Printf("Cloud sync incomplete! %d processed\\n",',
    "\t\t\t\ttotal)",
    "\t\t} else {",
    '\t\t\tfmt.Printf("Cloud sync complete! %d processed\\n",',
    "\t\t\t\ttotal)",
    "\t\t}",
    "\t\tfmt.Println()",
    "\t}",
    "}",
], start=1))

SPLIT = "\n".join(f"{n:6}\t{line}" for n, line in enumerate([
    "  fun parse(): Command =>",
    "    if _sub then",
    "      return CommandParser._sub(cs, this).",
    "        _parse_command(tokens, options)",
    "    end",
], start=1))


def _ctx(t: Transcript, target: int = 4000) -> FactContext:
    return FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=target)


def test_a_leaf_line_named_gives_the_branch_it_runs_under_with_both_arms():
    t = _transcript([
        Message(0, Role.USER, "In `main.go` the summary is printed, see line 11. Add a link after it."),
        *_call("Read", {"file_path": "/repo/main.go"}, "a", SUMMARY),
    ], cwd="/repo")
    [block] = [f for f in finding_facts(_ctx(t)) if "`main.go` L" in f.text]
    assert block.text.startswith("`main.go` L3-12: `if !silent && total > 0;")  # the condition it runs under
    assert "Cloud sync incomplete!" in block.text and "; else; " in block.text and "Cloud sync complete!" in block.text
    assert block.text.index("incomplete") < block.text.index("else") < block.text.index("Cloud sync complete")


def test_conditions_then_messages_and_keyword_calls_outweigh_plain_calls():
    assert _weight("if len(px_keyword) != 1:") == 4
    assert _weight("} else if x > 0 {") == 4
    assert _weight("dtype = pixel_dtype(ds, as_float=('Float' in px_keyword[0]))") == 3
    assert _weight('raise AttributeError("Unable to convert the pixel data")') == 3
    assert _weight("arr = np.frombuffer(pixel_data)") == 2
    lines = numbered(SUMMARY)
    text = digest(lines, 3, 12, most=3)  # the conditions first, then the first arm's message
    assert text.startswith("if !silent && total > 0; if stats.Errored > 0 || stats.TimedOut > 0;")
    assert "Println" not in text


def test_a_refused_edits_cause_is_read_off_its_old_text_and_the_files_lines():
    escaped = "return CommandParser._sub(cs, this).\\n        _parse_command(tokens, options)"
    assert cause(escaped, SPLIT) == ("its old text held literal `\\n` escapes, not line breaks "
                                     "(the file holds it on 2 lines)")
    assert cause(escaped, "").startswith("its old text held literal `\\n` escapes")  # an escape, then indentation
    one_line = "return CommandParser._sub(cs, this)._parse_command(tokens, options)"
    assert cause(one_line, SPLIT) == "the file breaks that statement across lines; the old text put it on one"
    tabbed = "\n".join(f"{n:6}\t{line}" for n, line in enumerate(["def f():", "\tif x:", "\t\treturn 1"], start=1))
    assert cause("    if x:\n        return 1", tabbed) == "the file indents with tabs, the old text with spaces"
    assert cause("if x:", tabbed) == ""  # the text is there: refused for another reason
    # With no view to compare against, only an escape followed by indentation reads as a typed line
    # break: a string literal's escape (`"a\\n"`) is not one
    assert cause('print("a\\n")', "") == ""


def test_a_refused_edit_with_a_known_cause_says_it_in_one_line():
    old = "return CommandParser._sub(cs, this).\\n        _parse_command(tokens, options)"
    refused = "ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in /repo/p.pony."
    t = _transcript([
        Message(0, Role.USER, "fix the parser"),
        *_call("str_replace_editor", {"command": "view", "path": "/repo/p.pony"}, "a", SPLIT),
        *_call("str_replace_editor", {"command": "str_replace", "path": "/repo/p.pony", "old_str": old,
                                      "new_str": "y"}, "b", refused, is_error=True),
    ], cwd="/repo")
    [fact] = edit_failure_facts(_ctx(t))
    assert fact.text.startswith("`p.pony`: 1 edit refused: its old text held literal `\\n` escapes")
    assert "searched `return CommandParser._sub(cs, this).\\n _parse_command" in fact.full_text


def test_what_a_file_turned_out_to_hold_is_a_finding_when_it_names_the_file():
    reply = Message(0, Role.ASSISTANT, "- **Fields**: The file is empty, indicating it is a placeholder.\n"
                                       "The `SignalSchema` in `universal.ts` is the only complete schema.\n"
                                       "The other files (`a.ts`, `b.ts`) are placeholders and do not define any schemas.")
    said = [s for s, _w in statements(reply.text)]
    assert any(s.startswith("The `SignalSchema` in `universal.ts` is the only complete schema") for s in said)
    assert any(s.startswith("The other files (`a.ts`, `b.ts`) are placeholders") for s in said)
    assert not any("The file is empty" in s for s in said)  # which file: unsaid, so no finding


HANDLER = "\n".join(f"{n:6}\t{line}" for n, line in enumerate([
    "def get_pixeldata(ds):",
    "    keywords = ['PixelData', 'FloatPixelData']",
    "    px_keyword = [kw for kw in keywords if kw in ds]",
    "    if len(px_keyword) != 1:",
    "        raise AttributeError('one of them must be present')",
    "",
    "    expected_len = get_expected_length(ds)",
    "    pixel_data = getattr(ds, px_keyword[0])",
    "    if ds.BitsAllocated == 1:",
    "        arr = unpack_bits(pixel_data)",
    "    else:",
    "        dtype = pixel_dtype(ds, as_float=('Float' in px_keyword[0]))",
    "    return arr",
], start=1))


def test_a_block_says_where_the_value_it_computes_goes_next():
    t = _transcript([
        Message(0, Role.USER, "In `handler.py`, lines 2-5 pick the keyword. How are floats decoded?"),
        *_call("Read", {"file_path": "/repo/handler.py"}, "a", HANDLER),
    ], cwd="/repo")
    [block] = [f for f in finding_facts(_ctx(t)) if "`handler.py` L" in f.text]
    assert block.text.startswith("`handler.py` L2-5: `keywords = ")
    assert block.text.endswith("; then L8 `pixel_data = getattr(ds, px_keyword[0])`, "
                               "L12 `dtype = pixel_dtype(ds, as_float=('Float' in px_keyword[0]))`")
