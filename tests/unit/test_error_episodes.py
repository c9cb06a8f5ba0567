"""A record's earlier failures (issue 14: "why did it first fail, and what fixed it?"): one identifier can
name several failures in turn; what ended each earlier one is told beside the record, found by the tests
that stopped failing or by the message that changed, never credited to a tool's failure."""

from __future__ import annotations

from compaction.errors import scan_transcript
from compaction.errors.episodes import earlier_episodes, label_of_test
from compaction.errors.records import Location, Occurrence
from compaction.history.sources.problems import earlier_facts
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


def _shell(msgs: list[Message], cid: str, command: str, output: str, code: int) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("bash", {"command": command}, cid,
                                                                              ToolKind.SHELL, command)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, cid, "bash", is_error=code != 0,
                                                                       exit_code=code)]))


def _edit(msgs: list[Message], cid: str, path: str, old: str, new: str) -> None:
    args = {"file_path": path, "old_string": old, "new_string": new}
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("Edit", args, cid, ToolKind.EDIT,
                                                                              path=path)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("ok", cid, "Edit")]))


def _failing(test: str, message: str) -> str:
    return (f"___ {test} ___\n    def {test}():\n>       check()\nE       AssertionError: {message}\n"
            f"FAILED tests/test_x.py::{test} - AssertionError: {message}\n1 failed, 3 passed in 0.1s")


def _transcript(msgs: list[Message]) -> Transcript:
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def test_a_test_that_stopped_failing_tells_the_edit_before_the_run_that_passed_it():
    msgs = [Message(0, Role.USER, "make the xref tests pass")]
    _shell(msgs, "a", "pytest tests/test_x.py", _failing("test_xrefs", "reftarget is not 'int': 'x'"), 1)
    _edit(msgs, "b", "/repo/domain.py", "    return make_xref(target)",
          "    if not rolename:\n        return [contnode]\n    return make_xref(target)")
    _shell(msgs, "c", "pytest tests/test_x.py", _failing("test_fields", "node[2] is not desc_sig_punctuation"), 1)
    _edit(msgs, "d", "/repo/tests/test_x.py", "literal_emphasis, '['", "desc_sig_punctuation, '['")
    _shell(msgs, "e", "pytest tests/test_x.py", "4 passed in 0.1s", 0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_AssertionError")
    assert "desc_sig_punctuation" in (rec.solution or "")  # the last failure's fix stays the solution
    assert len(rec.earlier) == 1
    rounds, text = rec.earlier[0]
    assert text.startswith("`AssertionError: reftarget is not 'int': 'x'` — edited `/repo/domain.py` (r2)")
    assert "if not rolename:" in text and text.endswith("then `test_xrefs` no longer failed (r3)")
    assert rounds == (1, 2)
    [fact] = earlier_facts([rec], "/repo")
    assert fact.text.startswith("ERR_PY_AssertionError, an earlier failure: ") and "`domain.py`" in fact.text


def test_a_test_left_out_of_a_run_that_picks_another_did_not_stop_failing():
    occs = [Occurrence(1, detail="AssertionError: a", tests=["t.py::test_a"], location=Location(command="pytest t.py")),
            Occurrence(3, detail="AssertionError: b", tests=["t.py::test_b"],
                       location=Location(command="pytest t.py::test_b"))]
    assert earlier_episodes(occs) == []
    occs[1].location.command = "pytest t.py"  # the whole file ran: test_a passed
    [ep] = earlier_episodes(occs)
    assert ep.tests == ("t.py::test_a",) and ep.next_round == 3 and ep.said == "AssertionError: a"


def test_the_same_message_in_other_tests_is_one_failure_and_a_cut_message_matches_what_it_begins():
    same = [Occurrence(1, detail="E   TypeError: unsupported operand 'Time' and 'float'", tests=["t.py::test_a"]),
            Occurrence(4, detail="TypeError: unsupported operand 'Time' and 'float'", tests=["t.py::test_b"])]
    assert earlier_episodes(same) == []
    cut_short = [Occurrence(1, detail="ValueError: The no..."), Occurrence(2, detail="ValueError: The node is 3"),
                 Occurrence(5, detail="ValueError: The node is 4")]
    assert earlier_episodes(cut_short) == []  # numbers aside, one message
    changed = [Occurrence(1, detail="Line contains carriage return"), Occurrence(2, detail="Line has trailing space")]
    [ep] = earlier_episodes(changed)
    assert ep.said == "Line contains carriage return" and ep.next_round == 2


def test_a_changed_message_tells_the_edit_that_ended_the_first_and_a_tools_failures_tell_none():
    msgs = [Message(0, Role.USER, "fix the style check")]
    _shell(msgs, "a", "mvn checkstyle:check", "[ERROR] src/A.java:[3] (regexp) RegexpSingleline: Line contains "
           "carriage return\n[INFO] BUILD FAILURE", 1)
    _edit(msgs, "b", "/repo/src/A.java", "import java.util.*;", "import java.util.List;")
    _shell(msgs, "c", "mvn checkstyle:check", "[ERROR] src/A.java:[4] (regexp) RegexpSingleline: Line has trailing "
           "whitespace\n[INFO] BUILD FAILURE", 1)
    _edit(msgs, "d", "/repo/src/A.java", "int b = 2; ", "int b = 2;")
    _shell(msgs, "e", "mvn checkstyle:check", "[INFO] BUILD SUCCESS", 0)
    records = {r.id: r for r in scan_transcript(_transcript(msgs))}
    style = next(r for r in records.values() if "Checkstyle" in r.id)
    assert [text for _, text in style.earlier] == [
        "`Line contains carriage return` — edited `/repo/src/A.java` (r2): `import java.util.*;` → `import java.util.List;`"]


def test_a_tools_failures_are_never_credited_to_the_edit_that_came_between_them():
    msgs = [Message(0, Role.USER, "look at the tests")]
    _shell(msgs, "a", "ls tests/test_a.py", "ls: cannot access 'tests/test_a.py': No such file or directory", 2)
    _edit(msgs, "b", "/repo/src/a.py", "import os", "import os.path")
    _shell(msgs, "c", "cat tests/unit/test_b.py", "cat: tests/unit/test_b.py: No such file or directory", 1)
    [rec] = [r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_TOOL_FileNotFound"]
    assert len(earlier_episodes(rec.occurrences)) == 1 and rec.earlier == []


def test_a_test_ids_own_name_is_told():
    assert label_of_test("tests/test_x.py::TestA::test_b[1]") == "test_b[1]"
    assert label_of_test("src/tree.spec.ts > tree > should hide content") == "should hide content"
    assert label_of_test("sympy/core/tests/test_expr.py:test_leadterm") == "test_leadterm"


def test_a_message_that_comes_back_did_not_end_and_another_test_file_ran_no_test_of_this_one():
    back = [Occurrence(1, detail="TypeError: 'NoneType' object is not iterable"),
            Occurrence(3, detail="TypeError: unsupported operand type(s) for +"),
            Occurrence(5, detail="TypeError: 'NoneType' object is not iterable"),
            Occurrence(7, detail="TypeError: unsupported operand type(s) for +")]
    # the first NoneType and the first operand error came back: only the last NoneType ended (at r7)
    assert [(ep.occurrences[0].round, ep.next_round) for ep in earlier_episodes(back)] == [(5, 7)]
    other = [Occurrence(1, detail="AssertionError: a", tests=["tests/test_a.py::test_one"],
                        location=Location(command="pytest tests/test_a.py")),
             Occurrence(3, detail="AssertionError: b", tests=["tests/test_b.py::test_two"],
                        location=Location(command="pytest tests/test_b.py"))]
    assert earlier_episodes(other) == []
    other[1].location.command = "pytest tests/test_a.py tests/test_b.py"
    assert [ep.tests for ep in earlier_episodes(other)] == [("tests/test_a.py::test_one",)]
    picked = [Occurrence(1, detail="AssertionError: a", tests=["t.py::test_a"]),
              Occurrence(3, detail="AssertionError: b", tests=["t.py::test_ab"], location=Location(
                  command="pytest t.py::test_ab"))]
    assert earlier_episodes(picked) == []  # `test_a` is no word of `test_ab`


def _refused_edit(msgs: list[Message], cid: str, path: str, old: str) -> None:
    args = {"command": "str_replace", "path": path, "old_str": old, "new_str": "x"}
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[
        ToolCall("str_replace_editor", args, cid, ToolKind.EDIT, path=path)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(
        f"ERROR:\nNo replacement was performed, old_str `{old}` did not appear verbatim in {path}.", cid,
        "str_replace_editor", is_error=True)]))


def test_an_edit_tools_refusals_of_one_file_end_with_the_edit_of_that_file_that_went_through():
    msgs = [Message(0, Role.USER, "remove the mapper")]
    _refused_edit(msgs, "a", "/repo/T.java", "@Mapper\\n interface M {}")
    _refused_edit(msgs, "b", "/repo/T.java", "@Mapper interface M {}")
    _edit(msgs, "c", "/repo/T.java", "@Mapper\ninterface M {}", "interface M {}")
    _edit(msgs, "d", "/repo/Other.java", "int a;", "int b;")  # right after: not the refused file's fix
    _refused_edit(msgs, "e", "/repo/P.java", "return x;")
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_TOOL_EditNotFound")
    [(rounds, text)] = rec.earlier
    assert text.startswith("2 refused edits of `T.java` — edited `/repo/T.java` (r3): removed `@Mapper`")
    assert rounds == (1, 2, 3)
    # the first call spelled its line break as backslash-n: a cause read off the call itself
    assert "typed out" not in (rec.solution or "")  # the last refusal did not
    msgs2 = [Message(0, Role.USER, "remove the mapper")]
    _refused_edit(msgs2, "a", "/repo/T.java", "@Mapper\\n    interface M {}")
    rec2 = next(r for r in scan_transcript(_transcript(msgs2)) if r.id == "ERR_TOOL_EditNotFound")
    assert "its old text had `\\n` typed out, not a line break (r1)" in (rec2.solution or "")


def test_refusals_by_file_gather_a_file_that_came_back_and_tell_two_same_named_files_apart():
    def occ(rnd: int, path: str) -> Occurrence:
        return Occurrence(rnd, detail="No replacement was performed", location=Location(path=path))
    a, b, c = "/r/a.py", "/r/b.py", "/r/c.py"
    episodes = earlier_episodes([occ(1, a), occ(2, a), occ(3, b), occ(4, a), occ(5, c)], by_file=True)
    assert [(ep.file, [o.round for o in ep.occurrences]) for ep in episodes] == [(b, [3]), (a, [1, 2, 4])]
    two = earlier_episodes([occ(1, "/r/pkg_a/__init__.py"), occ(2, "/r/pkg_b/__init__.py")], by_file=True)
    assert [ep.file for ep in two] == ["/r/pkg_a/__init__.py"]


def test_a_strings_own_newline_escape_is_no_typed_out_line_break():
    msgs = [Message(0, Role.USER, "fix the message")]
    _refused_edit(msgs, "a", "/repo/m.py", 'print("done\\n")')
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_TOOL_EditNotFound")
    assert "typed out" not in (rec.solution or "")
