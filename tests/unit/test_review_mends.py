"""What four blind readers of 10% hand-overs found misleading (session 41): a linter-refused edit
counted as an edit, an unstaging read as a revert, a file rewritten told as created, a crashed run
told as "passed", a reproduction's set-up failure tagged as the target bug, a comment or an import
quoted as an edit's key change."""

from __future__ import annotations

from compaction.errors import scan_transcript
from compaction.errors.scan import _line_pair, key_change
from compaction.events import EventKind, extract_events, shell_writes
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.sources.decisions import decision_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from tests.unit.synthetic import transcript as synthetic_transcript


def _transcript(msgs: list[Message]) -> Transcript:
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def _call(msgs: list[Message], call: ToolCall, output: str, *, error: bool = False, code: int | None = None) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[call]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, call.id, call.name, is_error=error,
                                                                       exit_code=code)]))


def _shell(msgs: list[Message], cid: str, command: str, output: str, code: int | None = None) -> None:
    _call(msgs, ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command), output, code=code)


def _facts(t: Transcript) -> list:
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=4000)
    return gather(ctx)


LINT_REFUSAL = ("Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit "
                "commmand.\n\nERRORS:\n- E999 SyntaxError: unmatched ']'\n\nThis is how your edit would have looked if "
                "applied\n-------------------------------------------------\n287:    ]\n")


def test_an_edit_its_linter_turned_down_is_a_failed_attempt_not_an_edit() -> None:
    msgs = [Message(0, Role.USER, "make PixelRepresentation optional")]
    for cid in ("a", "b"):
        _call(msgs, ToolCall("edit", {"path": "/repo/handler.py", "start": 287, "end": 295, "replacement": "    ]"}, cid,
                             ToolKind.EDIT, path="/repo/handler.py"), LINT_REFUSAL)
    _call(msgs, ToolCall("edit", {"path": "/repo/handler.py", "start": 287, "end": 296,
                                  "replacement": "    required = ['Rows']\n    if 'PixelData' in ds:\n        "
                                                 "required.append('PixelRepresentation')"}, "c", ToolKind.EDIT,
                         path="/repo/handler.py"), "File updated.")
    edits = [e for e in extract_events(_transcript(msgs)) if e.kind is EventKind.EDIT]
    assert [e.failed for e in edits] == [True, True, False]
    record = next(f.text for f in _facts(_transcript(msgs)) if f.section is Section.CHANGES)
    assert "(1 edit, 2 failed attempts)" in record, record


def test_unstaging_a_file_reverts_nothing_in_it() -> None:
    assert shell_writes("git restore --staged .github/workflows/build.yml") == []
    assert shell_writes("git restore -S src/a.py") == []
    assert shell_writes("git restore --staged --worktree src/a.py") == [(EventKind.REVERT, "src/a.py")]
    assert shell_writes("git restore src/a.py") == [(EventKind.REVERT, "src/a.py")]


def test_a_file_read_before_it_was_written_was_rewritten_not_created() -> None:
    msgs = [Message(0, Role.USER, "rewrite the skills doc")]
    _call(msgs, ToolCall("read", {"path": "docs/skills.md"}, "r", ToolKind.READ, path="docs/skills.md"),
          "# Skills\nOld text.\n")
    _call(msgs, ToolCall("write", {"path": "docs/skills.md", "content": "# Skills\n\n## When to use\nNew text.\n"}, "w",
                         ToolKind.WRITE, path="docs/skills.md"), "ok")
    _call(msgs, ToolCall("write", {"path": "docs/new.md", "content": "# New\n"}, "n", ToolKind.WRITE,
                         path="docs/new.md"), "ok")
    texts = [f.text for f in _facts(_transcript(msgs)) if f.section in (Section.MODIFIED, Section.CHANGES)]
    assert any(t.startswith("`docs/skills.md`: rewritten") for t in texts), texts
    assert not any("skills.md" in t and "created" in t for t in texts), texts
    assert any(t.startswith("`docs/new.md`: created") for t in texts), texts


def test_a_licence_written_after_the_code_is_a_note_and_the_code_edit_is_named_so() -> None:
    msgs = [Message(0, Role.USER, "add sounds, then a licence")]
    _call(msgs, ToolCall("Edit", {"file_path": "index.html", "old_string": "<b>", "new_string": "<i>"}, "e",
                         ToolKind.EDIT, path="index.html"), "ok")
    _call(msgs, ToolCall("Write", {"file_path": "LICENSE", "content": "MIT License\n"}, "l", ToolKind.WRITE,
                         path="LICENSE"), "ok")
    state = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert state and state[0].startswith("No test run after the last code edit (r1)"), state


def test_a_rerun_that_crashed_otherwise_did_not_pass() -> None:
    """mini-django: the run after the fix raised the target bug's InterfaceError; it was told as "passed"."""
    msgs = [Message(0, Role.USER, "Crash with SimpleLazyObject: Error binding parameter 0 - probably unsupported type")]
    _call(msgs, ToolCall("bash", {"command": "cat > repro.py <<'EOF'\ncall_command('migrate')\nEOF"}, "w", ToolKind.SHELL,
                         "cat > repro.py <<'EOF'\ncall_command('migrate')\nEOF"), "")
    _shell(msgs, "a", "python repro.py", "Traceback (most recent call last):\n  File \"repro.py\", line 1\n"
           "sqlite3.OperationalError: no such table: main_account\n")
    _call(msgs, ToolCall("bash", {"command": "cat > repro.py <<'EOF'\nschema_editor.create_model(Account)\nEOF"}, "v",
                         ToolKind.SHELL, "cat > repro.py <<'EOF'\nschema_editor.create_model(Account)\nEOF"), "")
    _shell(msgs, "b", "python repro.py", "Traceback (most recent call last):\n  File \"repro.py\", line 1\n"
           "sqlite3.InterfaceError: Error binding parameter 0 - probably unsupported type.\n")
    records = {r.id: r for r in scan_transcript(_transcript(msgs))}
    setup = records["ERR_PY_OperationalError"]
    assert "passed" not in setup.solution
    assert "then `python repro.py` failed differently (r4)" in setup.solution
    # the task names the InterfaceError's message: that one is the bug under repair, the set-up failure is not
    assert records["ERR_PY_InterfaceError"].target_bug
    assert not setup.target_bug


def test_a_comment_or_an_import_is_not_an_edits_key_change() -> None:
    assert _line_pair(("# Create tables", "call_command('migrate')"),
                      ("# Create tables manually", "schema_editor.create_model(Account)"), hashes=True) == \
        "`call_command('migrate')` → `schema_editor.create_model(Account)`"
    assert _line_pair(("from a import b", "run(b)"), ("from a import b, c", "run(c)")) == "`run(b)` → `run(c)`"
    # a Markdown heading is what a document's edit changed: `#` opens no comment there
    edit = ToolCall("Edit", {"file_path": "README.md", "old_string": "# Old title\ntext", "new_string": "# New title\ntext"},
                    "e", ToolKind.EDIT, path="README.md")
    assert key_change(edit) == "`# Old title` → `# New title`"


def test_a_check_that_passed_later_tells_the_step_before_it_not_no_fix() -> None:
    """pi-mono: `npm run check` failed with TS2322 (r101); twenty rounds of reading later the agent said
    "The dist files are stale", rebuilt the package, and the same check passed. It read "no fix seen"."""
    check = "cd /repo && npm run check 2>&1"
    msgs = [Message(0, Role.USER, "change the toolResults type")]
    _shell(msgs, "a", check, "src/core/session.ts(266,5): error TS2322: Type 'AppMessage[]' is not assignable to type "
           "'ToolResultMessage<any>[]'.", code=2)
    for i in range(25):
        _shell(msgs, f"g{i}", f"grep -n turn_end /repo/packages/agent/src/file{i}.ts", f"{i}: turn_end", code=0)
    msgs.append(Message(len(msgs), Role.ASSISTANT, "The dist files are stale. Need to rebuild the agent package first:",
                        tool_calls=[ToolCall("bash", {"command": "cd packages/agent && npm run build"}, "b", ToolKind.SHELL,
                                             "cd packages/agent && npm run build")]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("> tsc -p tsconfig.build.json", "b", "bash",
                                                                       exit_code=0)]))
    _shell(msgs, "c", check, "Checked 273 files in 166ms. No fixes applied.", code=0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if "TypeNotAssignable" in r.id)
    assert rec.solution == (f"then `{check}` passed (r28) after `cd packages/agent && npm run build` (r27) — "
                            "“The dist files are stale.”"), rec.solution


def test_a_later_pass_with_nothing_done_before_it_is_no_fix_told() -> None:
    check = "npm run check"
    msgs = [Message(0, Role.USER, "fix the types")]
    _shell(msgs, "a", check, "src/a.ts(1,5): error TS2322: Type 'string' is not assignable to type 'number'.", code=2)
    for i in range(25):
        _shell(msgs, f"g{i}", f"grep -n x src/f{i}.ts", "x", code=0)
    _shell(msgs, "c", check, "ok", code=0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if "TypeNotAssignable" in r.id)
    # no fix is told; (session 52) what is known is: the same check ran again without the error
    assert "passed (r" not in rec.solution and "fixed" not in rec.solution, rec.solution
    assert rec.solution == "not seen again: `npm run check` ran once more without it (r27)", rec.solution


def test_a_limit_said_before_a_call_is_no_stop() -> None:
    """mini-pytest r77: "I cannot modify the test (per instructions)", then the agent wrote the next fix;
    the hand-over read "Stopped: …" as if it had given up."""
    msgs = [Message(0, Role.USER, "serialize chained exceptions"),
            Message(1, Role.ASSISTANT, "The test changes a part of the data that is ignored. I cannot modify the test "
                                       "(per instructions).",
                    tool_calls=[ToolCall("bash", {"command": "cat new.py"}, "c", ToolKind.SHELL, "cat new.py")]),
            Message(2, Role.TOOL, tool_results=[ToolResult("x = 1", "c", "bash", exit_code=0)])]
    t = synthetic_transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=4000)
    texts = [f.text for f in decision_facts(ctx)]
    assert not [x for x in texts if x.startswith("Stopped:")]
    assert any(x.startswith("Limit: ") and "I cannot modify the test" in x for x in texts), texts


def test_a_session_that_ended_saying_it_could_not_do_the_work_leaves_the_task_first() -> None:
    from compaction.history.sources.next_steps import gave_up
    [fact] = gave_up([(1, "Let me look at the parser."), (33, "Unable to make necessary changes to the file "
                                                               "command_parser.pony using the editor tool. The issue is "
                                                               "related to parent default options.")])
    assert fact.text == "[not done] the task itself: the agent ended saying it could not do it" and fact.rounds == [1, 33]
    assert gave_up([(1, "Start."), (9, "I could not find any other caller, so the change is complete.")]) == []


def _edit(msgs: list[Message], cid: str, path: str, old: str, new: str) -> None:
    _call(msgs, ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new}, cid, ToolKind.EDIT,
                         path=path), "ok")


def test_deleting_debug_prints_ends_no_error() -> None:
    """mini-astropy: a TypeError the tests raised before any change was "solved" by `sed -i '/DEBUG:/d'`."""
    msgs = [Message(0, Role.USER, "fix the transform")]
    _shell(msgs, "a", "pytest tests/test_t.py", "E   TypeError: unsupported operand type(s) for -: 'Time' and 'float'\n"
           "FAILED tests/test_t.py::test_icrs - TypeError: unsupported operand\n1 failed in 0.1s", code=1)
    _shell(msgs, "b", "sed -i '/DEBUG:/d' pkg/transforms.py", "", code=0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_TypeError")
    assert "DEBUG" not in rec.solution and "no fix seen" in rec.solution, rec.solution


def test_a_removal_put_back_later_is_told_as_a_probe() -> None:
    """mini-astropy r15: the import taken out to see the tests without the change, put back at r26."""
    msgs = [Message(0, Role.USER, "add the direct transform")]
    _shell(msgs, "a", "pytest tests/test_t.py", "E   AssertionError: 1 != 2\nFAILED tests/test_t.py::test_alt - "
           "AssertionError\n1 failed in 0.1s", code=1)
    _edit(msgs, "b", "pkg/__init__.py", "from . import direct_transforms\nfrom . import other", "from . import other")
    _shell(msgs, "c", "pytest tests/test_t.py", "1 passed in 0.1s", code=0)
    _edit(msgs, "d", "pkg/__init__.py", "from . import other", "from . import direct_transforms\nfrom . import other")
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_AssertionError")
    assert rec.solution.startswith("a probe, not the fix: ") and "(put back at r4)" in rec.solution, rec.solution


def test_a_java_run_names_the_class_its_source_file_holds() -> None:
    from compaction.shell import scripts_run
    assert scripts_run("javac -cp lib -d /home /home/Repro.java && java -cp /home:lib Repro") == {"Repro.java"}
    assert scripts_run("java -jar build/app.jar --port 3") == {"app.jar"}
    assert scripts_run("java -Dx=1 Main.java") == {"Main.java"} and scripts_run("java -version") == set()


def test_a_run_of_the_sessions_own_java_class_after_the_last_edit_is_its_check() -> None:
    """oh-fastjson2: the repro was recompiled and run after the last edit (→ npe-ok); the hand-over said
    "No test run after the last edit"."""
    msgs = [Message(0, Role.USER, "add parseObject(String, Type, Context)")]
    _call(msgs, ToolCall("str_replace_editor", {"command": "create", "path": "/home/Repro.java",
                                                "file_text": "public class Repro { }"}, "w", ToolKind.WRITE,
                         path="/home/Repro.java"), "File created successfully at: /home/Repro.java")
    _shell(msgs, "b", "javac -cp core/target/classes -d /home /home/Repro.java && java -cp /home:core/target/classes Repro",
           "map={a=1}\nnpe-ok\n", code=0)
    state = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert state and state[0].startswith("Checked after the last edit (r1) by running `javac") and "→ map={a=1} · npe-ok" in state[0]


def test_an_exception_a_passing_test_run_logged_is_no_error() -> None:
    """oh-fastjson2: `JSONException: not support type` printed by a test of a run with no failure was
    recorded as an error and "solved" by the next edit."""
    msgs = [Message(0, Role.USER, "add the overload")]
    log = ("[INFO] Running com.alibaba.fastjson2.JSONTest\ncom.alibaba.fastjson2.JSONException: not support type : "
           "OBJECT_END -91, offset 55/55\n\tat com.alibaba.fastjson2.JSONReader.read(JSONReader.java:12)\n"
           "[INFO] Tests run: 61, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS\n")
    _shell(msgs, "a", "mvn -q test", log, code=0)
    assert not [r for r in scan_transcript(_transcript(msgs)) if "JSONException" in r.id]
    failing = log.replace("Failures: 0", "Failures: 1").replace("BUILD SUCCESS", "BUILD FAILURE")
    msgs = [Message(0, Role.USER, "add the overload")]
    _shell(msgs, "a", "mvn -q test", failing, code=1)
    assert [r for r in scan_transcript(_transcript(msgs)) if "JSONException" in r.id]


def test_a_negative_exit_status_is_a_command_that_did_not_finish() -> None:
    """oh-fastjson2: a test run the harness stopped (exit -1) became a NonZeroExit quoting a log line."""
    msgs = [Message(0, Role.USER, "run the tests")]
    _shell(msgs, "a", "bash /home/run.sh", "[INFO] Running com.a.Issue1367\nINFO: Creating JdkHttpServerTestContainer",
           code=-1)
    [rec] = scan_transcript(_transcript(msgs))
    assert rec.id == "ERR_TOOL_Timeout" and rec.occurrences[0].detail == "the command did not finish (exit -1)"


def test_a_target_bug_no_run_printed_again_ends_with_the_reproductions_clean_run() -> None:
    """mini-scikit-learn: the first reproduction failed on purpose (r5); after the fix a later version of it
    printed SUCCESS. The record read "cause: Now I need to examine …; no fix seen after r5"."""
    msgs = [Message(0, Role.USER, "preserve dtypes in set_output")]
    _shell(msgs, "a", "python reproduction_script.py", "FAIL: Column cat has dtype float64, expected category", code=1)
    msgs.append(Message(len(msgs), Role.ASSISTANT, "The dtype is lost. Now I need to examine `_set_output.py` to "
                                                   "understand how to implement the requested changes."))
    for i in range(4):  # it reads around first: the edit is no near fix of the failure
        _shell(msgs, f"g{i}", f"grep -n set_output sklearn/f{i}.py", "12: def set_output", code=0)
    _edit(msgs, "b", "sklearn/utils/_set_output.py", "return df", "return df.astype(dtypes)")
    _shell(msgs, "c", "python reproduction_script_v2.py", "SUCCESS", code=0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.target_bug)
    assert rec.solution.endswith("then the reproduction `python reproduction_script_v2.py` ran clean (r7), "
                                 "printing `SUCCESS`"), rec.solution
    assert "examine" not in rec.solution


def test_an_edit_the_export_kept_without_its_text_is_told_by_what_the_agent_said_it_did() -> None:
    """cc-bastion: `edit {'file_path': 'README.md'}` with no old or new text; "README.md: edited (r37, r52)"."""
    msgs = [Message(0, Role.USER, "Why does it still say Bastion V2 in the readme?"),
            Message(1, Role.ASSISTANT, "Line 24 has it. Let me just replace \"Bastion v2\" with \"Bastion\" on that line."),
            Message(2, Role.ASSISTANT, "", tool_calls=[ToolCall("edit", {"file_path": "README.md"}, "e1", ToolKind.EDIT,
                                                                path="README.md")]),
            Message(3, Role.TOOL, tool_results=[ToolResult("Fixed README.md:24", "e1", "edit")])]
    fact = next(f for f in _facts(_transcript(msgs)) if f.section is Section.MODIFIED and "README.md" in f.text)
    # on the line itself (session 49: the list is kept whatever the budget; the full text was often left out)
    assert fact.text == ("`README.md`: edited — r1: “Let me just replace \"Bastion v2\" with \"Bastion\" on that "
                         "line.” (r1)"), fact.text
    assert fact.full_text is None  # said whole already


def test_hand_edits_of_a_build_output_a_later_build_made_again_are_gone() -> None:
    """destyler: four files under dist/ edited by hand (r4), then `pnpm … run build` (rimraf dist) made them
    again; the hand-over listed the hand edits as the files' state."""
    msgs = [Message(0, Role.USER, "fix the docs build")]
    _edit(msgs, "e", "packages/svelte/dist/hooks/use-actor.svelte.js", "import * as $ from 'svelte/internal'",
          "import * as svelteInternal from 'svelte/internal'")
    _shell(msgs, "b", "cd /repo && pnpm --filter @destyler/svelte run build", "built in 2.1s", code=0)
    texts = [f.full_text or f.text for f in _facts(_transcript(msgs)) if f.section in (Section.MODIFIED, Section.CHANGES)]
    assert any("made again by `pnpm --filter @destyler/svelte run build` (r2) since" in t for t in texts), texts
    msgs[-2:] = []  # no build after it: the edit stands
    texts = [f.text for f in _facts(_transcript(msgs)) if f.section in (Section.MODIFIED, Section.CHANGES)]
    assert not any("made again" in t for t in texts)


def test_the_records_of_build_outputs_a_build_made_again_come_last() -> None:
    """destyler: four hand-edited files under dist/ the build made again: each keeps its line in the file list
    (its path, "made again … those edits are gone"), their change records get only the room every section leaves."""
    from compaction.history.facts import LEFTOVER_PRIORITY

    msgs = [Message(0, Role.USER, "fix the docs build")]
    for name in ("use-actor", "use-machine", "use-service"):
        _edit(msgs, name, f"packages/svelte/dist/hooks/{name}.svelte.js", "import * as $ from 'svelte/internal'",
              "import * as svelteInternal from 'svelte/internal'")
    _shell(msgs, "b", "cd /repo && pnpm --filter @destyler/svelte run build", "built in 2.1s", code=0)
    facts = _facts(_transcript(msgs))
    listed = [f for f in facts if f.section is Section.MODIFIED and "made again" in f.text]
    assert sorted(f.path or "" for f in listed) == [f"packages/svelte/dist/hooks/{n}.svelte.js"
                                                      for n in ("use-actor", "use-machine", "use-service")]
    records = [f for f in facts if f.section is Section.CHANGES and "dist/hooks" in f.text]
    assert records and all(f.rank() == LEFTOVER_PRIORITY for f in records)


def test_a_file_change_chained_before_a_failing_check_ran() -> None:
    """oh-fastjson2: `sed -i 's/\\r$//' JSON.java && bash run.sh` failed on the build; the sed had run, yet the
    record said "1 edit" without it."""
    cmd = "sed -i 's/\\r$//' core/JSON.java && bash /home/run.sh"
    msgs = [Message(0, Role.USER, "fix the checkstyle errors")]
    _shell(msgs, "a", cmd, "[ERROR] core/JSON.java:[1299] (regexp) RegexpSingleline: trailing spaces\nBUILD FAILURE", code=1)
    assert [e.path for e in extract_events(_transcript(msgs)) if e.kind is EventKind.EDIT] == ["core/JSON.java"]
    msgs = [Message(0, Role.USER, "fix it")]
    _shell(msgs, "a", "sed -i 's/a/b/' core/Missing.java && bash run.sh",
           "sed: can't read core/Missing.java: No such file or directory", code=2)
    assert not [e for e in extract_events(_transcript(msgs)) if e.kind is EventKind.EDIT]


def test_a_helper_in_a_test_folder_is_not_a_test_that_never_ran() -> None:
    """destyler-tree: "the agent never ran the project's tests it saw (…, `hooks.ts`)": a helper, not a test."""
    msgs = [Message(0, Role.USER, "make the tree tests pass")]
    for cid, path in (("r1", "test/hooks.ts"), ("r2", "test/tree.spec.ts")):
        _call(msgs, ToolCall("read", {"path": path}, cid, ToolKind.READ, path=path), "export const x = 1")
    _edit(msgs, "e", "src/Tree.ts", "a = 1", "a = 2")
    state = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert state and "tree.spec.ts" in state[0] and "hooks.ts" not in state[0], state


def test_a_fix_a_later_checkout_put_back_is_told_undone() -> None:
    """mini-requests: the edit that ended a failure (IDNA for every host) was reverted by `git checkout` later."""
    msgs = [Message(0, Role.USER, "fix the url parsing")]
    _shell(msgs, "a", "python t.py", "Traceback (most recent call last):\n  File \"t.py\", line 1\nKeyError: 'host'\n", code=1)
    _edit(msgs, "b", "requests/models.py", "host = parts['host']", "host = parts.get('host')")
    _shell(msgs, "c", "python t.py", "ok", code=0)
    _shell(msgs, "d", "git checkout requests/models.py", "Updated 1 path from the index", code=0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_KeyError")
    assert "(undone by `git checkout requests/models.py` at r4)" in rec.solution, rec.solution


def test_a_sed_deletion_of_a_range_is_told_as_a_range() -> None:
    """mini-sympy, mini-pytest: `sed -i '692,694d'` read "deleted line(s) 692,694", as if two lines."""
    cmd = "sed -i '225,312d' src/_pytest/reports.py"
    assert key_change(ToolCall("bash", {"command": cmd}, "x", ToolKind.SHELL, cmd)) == "deleted lines 225-312"
    cmd = "sed -i '227d' src/_pytest/reports.py"
    assert key_change(ToolCall("bash", {"command": cmd}, "x", ToolKind.SHELL, cmd)) == "deleted line(s) 227"


def test_a_failure_the_code_showed_with_the_changes_stashed_is_pre_existing() -> None:
    """mini-sympy r44: `git stash && bin/test …` failed the same way; the record read as the session's own
    unfixed failure."""
    failing = _failing_run("test_action_verbs", "AssertionError: assert 2 == 3")
    msgs = [Message(0, Role.USER, "return NotImplemented from __eq__")]
    _edit(msgs, "e", "sympy/core/basic.py", "return False", "return NotImplemented")
    _shell(msgs, "a", "pytest sympy/core/tests/test_expr.py", failing, code=1)
    _shell(msgs, "b", "git stash && pytest sympy/core/tests/test_expr.py", failing, code=1)
    _shell(msgs, "c", "git stash pop", "On branch master", code=0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_AssertionError")
    assert rec.solution.startswith("pre-existing: it failed with the session's changes stashed too (r3)"), rec.solution
    assert [o.baseline for o in rec.occurrences] == [False, True]


def _failing_run(test: str, message: str) -> str:
    return (f"___ {test} ___\nE   {message}\nFAILED tests/test_expr.py::{test} - {message}\n1 failed, 3 passed in 0.1s")


def test_which_runs_see_the_code_with_the_changes_stashed() -> None:
    from compaction.errors.scan import _State
    state, seen = _State(), []
    for line in ("git stash && pytest", "git stash pop", "git stash", "pytest x", "git stash apply", "pytest y",
                 "git stash list", "git stash push -m wip && npm test", "git stash pop && pytest"):
        seen.append(state.stashed_for(ToolCall("bash", {"command": line}, "x", ToolKind.SHELL, line)))
    assert seen == [True, False, False, True, False, False, False, True, False]  # a stash's own line runs nothing


def test_review_of_the_mends_themselves() -> None:
    """The code review of this session's mends (helper-343) found these inputs misread."""
    from compaction.errors.scan import _only_looking_on, _State, _tests_all_passed
    from compaction.history.sources.modified import _INTENT_RE
    from compaction.history.sources.next_steps import _USER_CHECKED_RE, _USER_FAILS_RE, gave_up
    from compaction.shell import scripts_run
    # a cause that also says where it looks next stays a cause
    assert not _only_looking_on("It fails because get_config returns None, so I need to look at load_cache() next.")
    assert _only_looking_on("Now I need to examine `_set_output.py` to understand the change.")
    # a stash then a run then a pop, in one line; a stash that saved nothing hid nothing
    state = _State()
    line = "git stash && pytest -x; git stash pop"
    assert state.stashed_for(ToolCall("bash", {"command": line}, "x", ToolKind.SHELL, line)) and not state.stashed
    line = "git stash && pytest"
    assert not state.stashed_for(ToolCall("bash", {"command": line}, "x", ToolKind.SHELL, line), "No local changes to save")
    # a traceback printed after a passing summary is another program's
    assert _tests_all_passed("ValueError: logged\n===== 5 passed in 0.2s =====\nValueError: real") == 47
    assert not _tests_all_passed("=== 1 failed, 3 passed in 0.1s ===")
    # "Let me know", "Now I see": no intent
    assert not _INTENT_RE.search("Let me know if you want the badges too.") and not _INTENT_RE.search("Now I see it.")
    assert _INTENT_RE.search("Now I'll bump the version.")
    # a job done another way is not given up
    assert gave_up([(1, "Start."), (9, "I can't change the public API, so I added an optional timeout instead. "
                                    "All 42 tests pass.")]) == []
    # "it worked before, now it crashes" reports no check
    said = "It worked before your change, now it crashes"
    assert not (_USER_CHECKED_RE.search(said) and not _USER_FAILS_RE.search(said))
    # a qualified class, a preview flag, the source option
    assert scripts_run("java -cp target/classes com.example.Repro") == {"Repro.java"}
    assert scripts_run("java --enable-preview Main") == {"Main.java"}
    assert scripts_run("java --source 17 Main.java") == {"Main.java"}


def test_a_build_word_in_a_search_rebuilds_nothing_and_a_source_folder_named_build_is_no_output() -> None:
    msgs = [Message(0, Role.USER, "tidy the release script")]
    _edit(msgs, "e", "scripts/build/release.py", "a = 1", "a = 2")
    _shell(msgs, "g", "grep -rn build scripts/", "scripts/build/release.py:1: a = 2", code=0)
    texts = [f.full_text or f.text for f in _facts(_transcript(msgs)) if f.section in (Section.MODIFIED, Section.CHANGES)]
    assert not any("made again" in t for t in texts), texts
