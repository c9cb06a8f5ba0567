"""An edit inside one section of a rules file no language claims is told by the lines it added, not by
one bold label; a quoted line is cut after the path or name the cut falls in, never inside it."""

from __future__ import annotations

from compaction.edits import Hunk
from compaction.events import Event, EventKind, extract_events
from compaction.history.sources.changes import _trim, reads_as_markdown, records
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role
from tests.unit.synthetic import call_pair, transcript

ROOT = "/home/dev/shop"
RULE = f"{ROOT}/.cursor/rules/100-feature.mdc"


def _edit(path: str, added: tuple[str, ...], removed: tuple[str, ...] = ()) -> Event:
    return Event(EventKind.EDIT, 1, 0, path=path, hunks=(Hunk(removed=removed, added=added),))


def _ctx(msgs: list[Message]) -> FactContext:
    t = transcript(msgs, cwd=ROOT)
    return FactContext(t, extract_events(t), [], role_preset("developer"), ROOT, len(t.rounds))


def test_list_items_that_bold_their_labels_read_as_markdown_without_a_heading() -> None:
    items = ("- **🗂️ Template**: Use `docs/templates/intent.md` for intent capture.",
             "- **Reflection & Templates**:", "  - Document what worked well in each phase.")
    assert reads_as_markdown(RULE, [_edit(RULE, items)])
    # one such item, or any line of code beside them, is not enough
    assert not reads_as_markdown(RULE, [_edit(RULE, items[:1])])
    assert not reads_as_markdown("conf/x.unk", [_edit("conf/x.unk", (*items, "value = compute(**kwargs)"))])
    assert not reads_as_markdown("src/a.py", [_edit("src/a.py", items)])  # a language claims the name


def test_three_edits_inside_a_rules_section_each_say_what_they_added() -> None:
    msgs = [Message(0, Role.USER, "reference the templates from the feature rule")]
    for i, (old, new) in enumerate([
            ("  - Out-of-scope/not-now", "  - Out-of-scope/not-now\n- **🗂️ Template**: Use `docs/templates/intent.md` "
             "for structured intent capture."),
            ("  - Mark dependencies and risks.", "  - Mark dependencies and risks.\n- **🗂️ Templates**: Use "
             "`docs/templates/roadmap.md` and `docs/templates/tasks.md` for planning."),
            ("### 5) CONTINUOUS IMPROVEMENT", "### 5) CONTINUOUS IMPROVEMENT\n- **Reflection & Templates**:\n"
             "  - Use `docs/templates/phase.md` to track lessons learned.")]):
        msgs += call_pair("Edit", {"file_path": RULE, "old_string": old, "new_string": new}, f"e{i}", "ok")
    (record,) = records(_ctx(msgs)).values()
    line = record.text
    assert "docs/templates/intent.md" in line and "docs/templates/roadmap.md" in line, line
    # the bold label alone is no longer the record's one statement, nor said twice
    assert line.count("Reflection & Templates") <= 1, line


def test_a_cut_keeps_the_path_it_falls_in_but_not_a_link_or_a_plain_word() -> None:
    line = "**Template**: Use docs/playbook/templates/intent-template.md for structured intent capture"
    assert _trim(line, 45) == "**Template**: Use docs/playbook/templates/intent-template.md…"
    # a plain word is cut before, as before
    assert _trim("Prefer named functions, anonymous functions are allowed only as callbacks", 45) \
        == "Prefer named functions, anonymous functions…"
    # a link's address is no name: cut before it
    link = "See: [What if you don't need MCP?](https://example.org/posts/2025-11-02-what-if-you-dont-need-mcp/)"
    assert "https" not in _trim(link, 45)
    # a path running on far past the cut is not kept whole either
    far = "Use " + "a/" * 60 + "b.md please"
    assert _trim(far, 45).endswith("…") and len(_trim(far, 45)) <= 46


def test_the_documents_note_on_stale_error_records_does_not_say_they_are_gone() -> None:
    from compaction.errors.records import ErrorRecord, Occurrence
    from compaction.history.errors_adapter import document_block
    old = ErrorRecord(id="ERR_TOOL_FileNotFound", occurrences=[Occurrence(round=2, evidence="No such file: a.py")])
    new = ErrorRecord(id="ERR_PY_TypeError", occurrences=[Occurrence(round=30, evidence="TypeError: " + "bad " * 60)])
    md, shown = document_block([old, new], "en", 120, 31, detail=lambda r, brief: r.occurrences[-1].evidence,
                               clean=lambda r: (r.solution or "", r.avoidance or ""))
    assert "ERR_PY_TypeError" in shown and "ERR_TOOL_FileNotFound" not in shown
    assert "ERR_TOOL_FileNotFound" in md and "dropped" not in md and "left out here, unseen for over 10 rounds: ERR_TOOL_FileNotFound" in md


def test_the_harness_notice_around_a_cut_output_is_no_line_of_the_file_read() -> None:
    from compaction.history.sources.evidence import evidence_facts
    notice = ("<warning>\nThe output of your last command was too long.\nIf you're looking at a file you can try use "
              "head, tail or sed to view a smaller number of lines selectively.\n</warning>")
    body = "\n".join(["# Licensed under a 3-clause BSD style license", "def teme_to_itrs_mat(time):",
                      "    gst = erfa.gmst82(*get_jd12(time, 'ut1'))", "    return erfa.c2tcio(np.eye(3), gst, pmmat)"])
    msgs = [Message(0, Role.USER, "fix `teme_to_itrs_mat` in transforms.py"),
            *call_pair("Bash", {"command": "cat transforms.py"}, "c1", f"{notice}\n{body}\n[…]\nframe_graph.done()"),
            Message(0, Role.ASSISTANT, "The output was cut: I'll use `head`, `tail` and `sed` on `teme_to_itrs_mat`."),
            *call_pair("Bash", {"command": "sed -n '1,40p' transforms.py"}, "c2", body)]
    said = " ".join(f.full_text or f.text for f in evidence_facts(_ctx(msgs)))
    assert "teme_to_itrs_mat" in said and "head, tail or sed" not in said, said


def test_a_short_links_address_is_cut_like_any_word_and_a_key_line_quoted_is_not_added_raw() -> None:
    assert _trim("see https://x.io/a.md for the details of this change", 12) == "see…"
    assert _trim("see docs/guide-to-it.md for the details of this change", 12) == "see docs/guide-to-it.md…"


def test_the_key_line_a_piece_already_quotes_is_not_added_in_its_raw_form() -> None:
    msgs = [Message(0, Role.USER, "add the reflection step to the rule")]
    for i, new in enumerate(["- **Reflection & Templates**:\n  - Track lessons learned in `docs/t/phase.md`.",
                             "- **Process Enhancement**:\n  - Identify bottlenecks in `docs/t/flow.md`."]):
        msgs += call_pair("Edit", {"file_path": RULE, "old_string": f"### {i}) X", "new_string": f"### {i}) X\n{new}"},
                          f"e{i}", "ok")
    (record,) = records(_ctx(msgs)).values()
    assert "+ - **" not in record.text, record.text  # the raw diff line beside the piece that quotes it


def test_a_tail_that_starts_later_than_the_facts_boundary_is_named_in_the_header() -> None:
    from compaction.history import engine
    from compaction.model import Transcript
    t = Transcript(path="s.json", format="test", messages=[])
    header = engine._header(t, "en", 9, 5, None)
    md = engine._render("en", header, [], "", "", "### r9\n\nhello", 5, 9, span_start=9)
    assert "the most recent rounds (r9) verbatim at the end." in md and "## Recent rounds (verbatim) (r9)\n" in md
    md = engine._render("en", header, [], "", "", "### r3\n\nhello", 5, 9, span_start=3)
    assert "the most recent rounds (r3-r9) verbatim" in md
    assert "verbatim" not in engine._render("en", header, [], "", "", "", 5, 9)


def test_a_long_current_request_answered_in_its_own_round_keeps_the_note_in_its_pointer() -> None:
    from compaction.history.engine import _pointer
    text = "Current request: " + "please refactor the parser so that it reads streams " * 4 + "(answered)"
    assert _pointer(text, "(r44)").endswith("… (answered) (r44) [whole in the recent rounds below]")


def test_a_tagged_notice_inside_a_files_text_is_the_files_own() -> None:
    from compaction.history.sources.evidence import _NOTICE_RE
    xml = "<config>\n  <warning>Deprecated flag</warning>\n  <option>a</option>\n"
    assert _NOTICE_RE.sub("", xml, count=1) == xml
    assert _NOTICE_RE.sub("", "<warning>\ntoo long\n</warning>\n" + xml, count=1) == xml


def test_a_test_failure_of_another_output_is_not_told_as_the_cause_of_an_exception() -> None:
    """pytest-5787: ValueError: 11's record named `test_unserialization_failure` (r76) as its alias's failure; that
    FAILED line was another run's. The aliases a record had from its own outputs are in its occurrences."""
    from compaction.errors.records import ErrorRecord, Occurrence
    from compaction.history.errors_adapter import document_block
    exc = ErrorRecord(id="ERR_PY_ValueError", occurrences=[Occurrence(round=8, evidence="E   ValueError: 11")],
                      merged=["ERR_LOGIC_TestFailed"])
    other = ErrorRecord(id="ERR_LOGIC_TestFailed", occurrences=[Occurrence(
        round=9, evidence="FAILED testing/test_reports.py::test_unserialization_failure")])
    md, shown = document_block([exc, other], "en", 2000, 10, detail=lambda r, brief: r.occurrences[-1].evidence,
                               clean=lambda r: (r.solution or "", r.avoidance or ""))
    own = md.split("ERR_PY_ValueError", 1)[1].split("\n- ", 1)[0]
    assert "Error: E ValueError: 11" in own and "test_unserialization_failure" not in own, md
    assert "test_unserialization_failure" in md  # told in its own record
    assert exc.merged == ["ERR_LOGIC_TestFailed"]  # the record handed in is not changed by the budget's merges
