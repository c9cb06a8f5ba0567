"""What six blind readers of 10% hand-overs found misleading (session 43): a build the harness stopped
waiting for, read on by a later call, was told as a timeout nobody got past with its last module's two
tests; a record's advice named tests that had passed since."""

from __future__ import annotations

from compaction.errors.advice import advise, latest_tests
from compaction.errors.records import ErrorRecord, Location, Occurrence
from compaction.errors.scan import scan_transcript
from compaction.events import EventKind, extract_events, parse_test_summary
from compaction.history.facts import LEFTOVER_PRIORITY
from compaction.history.sources import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.transcripts.continuations import continuation, fold_continuations, last_command, unfinished

MAVEN_PART = "[INFO] Results:\n[INFO]\n[INFO] Tests run: 61, Failures: 0, Errors: 0, Skipped: 0\n" \
             "[INFO] Running com.x.Issue1367\nINFO: Creating JdkHttpServerTestContainer"
MAVEN_END = ("[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.01 s -- in com.x.A\n"
             "[INFO] Results:\n[INFO]\n[INFO] Tests run: 1356, Failures: 0, Errors: 0, Skipped: 0\n"
             "[INFO] Results:\n[INFO]\n[INFO] Tests run: 34, Failures: 0, Errors: 0, Skipped: 0\n"
             "[INFO] Results:\n[INFO]\n[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n"
             "[INFO] ------------------------------------------------------------------------\n"
             "[INFO] BUILD SUCCESS\n"
             "[INFO] ------------------------------------------------------------------------\n"
             "[INFO] Total time:  05:32 min\n")


def _ctx(msgs: list[Message]):
    """The fact sources' context of a session made of `msgs`, at a 4,000-token budget."""
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                       n_rounds=len(t.rounds), target_tokens=4000)


def _session(read_on: dict) -> Transcript:
    msgs = [Message(0, Role.USER, "add the overload and run the tests")]
    run = ToolCall("execute_bash", {"command": "sed -i 's/ *$//' core/JSON.java && bash /home/run.sh"}, "c1",
                   ToolKind.SHELL, "sed -i 's/ *$//' core/JSON.java && bash /home/run.sh")
    msgs.append(Message(1, Role.ASSISTANT, "Running the suite.", tool_calls=[run]))
    msgs.append(Message(2, Role.TOOL, tool_results=[ToolResult(MAVEN_PART, "c1", "execute_bash", is_error=True,
                                                               exit_code=-1)]))
    more = ToolCall("execute_bash", read_on, "c2", ToolKind.OTHER)
    msgs.append(Message(3, Role.ASSISTANT, "", tool_calls=[more]))
    msgs.append(Message(4, Role.TOOL, tool_results=[ToolResult(MAVEN_END, "c2", "execute_bash", exit_code=0)]))
    msgs.append(Message(5, Role.ASSISTANT, "The build passed."))
    fold_continuations(msgs)
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def test_a_call_that_reads_on_takes_the_running_command_by_its_arguments_not_its_name():
    t = _session({"input": ""})
    call = t.messages[3].tool_calls[0]
    assert call.kind == ToolKind.SHELL and call.command == "bash /home/run.sh" and call.continues == "c1"
    # Codex's write_stdin and Claude Code's BashOutput are continuations by their arguments
    assert continuation(ToolCall("write_stdin", {"session_id": 7, "chars": ""}, "x"))
    assert continuation(ToolCall("BashOutput", {"bash_id": "b1"}, "x"))
    # a call with a command, a path or a long input is no continuation
    assert not continuation(ToolCall("run", {"input": "python -m pytest tests/test_models.py -x -q"}, "x"))
    assert not continuation(ToolCall("read", {"path": "a.py"}, "x", ToolKind.READ, path="a.py"))


def test_only_an_unfinished_command_is_read_on():
    msgs = [Message(0, Role.USER, "go")]
    run = ToolCall("execute_bash", {"command": "make"}, "c1", ToolKind.SHELL, "make")
    msgs += [Message(1, Role.ASSISTANT, "", tool_calls=[run]),
             Message(2, Role.TOOL, tool_results=[ToolResult("ok", "c1", exit_code=0)]),
             Message(3, Role.ASSISTANT, "", tool_calls=[ToolCall("execute_bash", {"input": ""}, "c2")]),
             Message(4, Role.TOOL, tool_results=[ToolResult("", "c2")])]
    fold_continuations(msgs)
    assert msgs[3].tool_calls[0].command is None and msgs[3].tool_calls[0].continues is None
    assert unfinished(ToolResult("...\n[Command timed out after 120 seconds]", "c", exit_code=None))


def test_the_running_part_of_a_line_is_its_last_command():
    assert last_command("sed -i 's/a && b/c/' f && bash run.sh") == "bash run.sh"
    assert last_command("cd x; make test | tail -5") == "make test | tail -5"
    assert last_command("pytest -q") == "pytest -q"
    assert last_command("make test  # slow; be patient") == "make test"
    assert last_command("for t in a b; do pytest $t; done") == "for t in a b; do pytest $t; done"
    assert last_command("python - <<'EOF'\nprint(1)\nEOF") == "python - <<'EOF'\nprint(1)\nEOF"


def test_the_timeout_is_told_as_read_on_with_how_the_build_ended():
    t = _session({"input": ""})
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_TOOL_Timeout")
    assert "read on at r2" in rec.solution and "BUILD SUCCESS" in rec.solution
    # the counts of the whole run: before the harness stopped waiting (61) and after (1392)
    assert "Tests run: 1453, Failures: 0, Errors: 0, Skipped: 0 in 4 modules" in rec.solution
    assert "no fix seen" not in rec.solution
    # the run's counts are the command's, and the read-on output is not a second command
    events = extract_events(t)
    tests = [e for e in events if e.kind is EventKind.TEST]
    assert tests and tests[-1].continued and "Tests run: 1392" in tests[-1].text
    assert not any(e.kind is EventKind.EDIT and e.round == 2 for e in events)  # the sed is not run again


def test_a_reactor_builds_module_results_add_up():
    assert parse_test_summary(MAVEN_END) == "Tests run: 1392, Failures: 0, Errors: 0, Skipped: 0 in 3 modules"
    # two builds in one output: the last one's modules only
    first = "[ERROR] Tests run: 24, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE\n"
    assert parse_test_summary(first + MAVEN_END).startswith("Tests run: 1392,")
    one = "[INFO] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0"
    assert parse_test_summary(one) == "Tests run: 5, Failures: 1, Errors: 0, Skipped: 0"


def _occ(rnd: int, tests: list[str]) -> Occurrence:
    return Occurrence(rnd, "t", message=rnd * 2, location=Location(path="test/tree.spec.ts"), tests=tests)


def test_advice_names_the_tests_the_latest_run_failed():
    rec = ErrorRecord("ERR_JS_VitestBrowserElementError", occurrences=[
        _occ(5, ["test/tree.spec.ts > tree > should hide branch content when collapsed",
                 "test/tree.spec.ts > tree > should extend selection down with Shift+ArrowDown"]),
        _occ(7, ["test/tree.spec.ts > tree > should extend selection down with Shift+ArrowDown"])])
    assert latest_tests(rec) == ["test/tree.spec.ts > tree > should extend selection down with Shift+ArrowDown"]
    advice = advise(rec)
    assert "Shift+ArrowDown" in advice and "hide branch content" not in advice


def _run(msgs: list[Message], cid: str, command: str, output: str, code: int = 0) -> None:
    call = ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command)
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[call]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, cid, "bash", exit_code=code)]))


FIXTURE = "{}\n    def test_x({}):\nE       {}\n=== 1 error in 0.1s ==="


def test_a_failure_an_install_ended_is_told_in_a_record_that_goes_on_with_another_cause():
    msgs = [Message(0, Role.USER, "run the tests")]
    _run(msgs, "a", "pytest tests/test_requests.py", FIXTURE.format("file tests/test_requests.py, line 5", "httpbin",
                                                                    "recursive dependency involving fixture 'httpbin' detected"), 1)
    _run(msgs, "b", "pip install pytest-httpbin", "Successfully installed pytest-httpbin-2.1.0")
    _run(msgs, "c", "pytest tests/test_requests.py", FIXTURE.format("file tests/test_requests.py, line 9", "mocker",
                                                                    "fixture 'mocker' not found"), 1)
    _run(msgs, "d", "python -c 'import idna'", "")  # a probe after it: no run of the suite
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if "Fixture" in r.id)
    assert any("`pip install pytest-httpbin` (r2)" in text for _, text in rec.earlier)
    assert rec.solution.startswith("its r1 failure ended with the install `pip install pytest-httpbin` (r2)")


def test_an_install_before_a_failure_of_another_command_ended_nothing():
    msgs = [Message(0, Role.USER, "try idna")]
    probe = "Traceback (most recent call last):\n  File \"<string>\", line 1\nidna.core.InvalidCodepoint: Codepoint U+002A"
    _run(msgs, "a", "python -c 'import idna; idna.encode(\"*\")'", probe, 1)
    _run(msgs, "b", "pip install pytest-httpbin", "Successfully installed pytest-httpbin-2.1.0")
    _run(msgs, "c", "python -c 'import idna; idna.encode(\"[1::]\")'", probe.replace("002A", "005B"), 1)
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    assert not any("install" in text for rec in scan_transcript(t) for _, text in rec.earlier)


def _unreproduced(after: str) -> list:
    from compaction.history.sources.unreproduced import unreproduced_facts

    msgs = [Message(0, Role.USER, "Pickling a figure with a draggable legend fails with TypeError")]
    _run(msgs, "a", "cat <<'EOF' > reproduce_issue.py\nimport pickle\nprint('Pickling successful')\nEOF", "")
    _run(msgs, "b", "python reproduce_issue.py", "Attempting to pickle...\nPickling successful")
    msgs.append(Message(len(msgs), Role.ASSISTANT, after))
    ctx = _ctx(msgs)
    return unreproduced_facts(ctx)


def test_a_reproduction_that_passed_before_any_change_is_a_finding():
    facts = _unreproduced("THOUGHT: The pickling was successful. The default backend here is Agg.")
    assert len(facts) == 1 and facts[0].essential
    assert "did not fail: `python reproduce_issue.py` → “Attempting to pickle...; Pickling successful” (r2)" in facts[0].text
    assert "The default backend here is Agg." in facts[0].text


def test_a_reproduction_that_printed_the_wrong_value_reproduced_the_bug():
    assert _unreproduced("The issue is reproduced: the value is wrong.") == []
    assert _unreproduced("This confirms the bug, as the PR says.") == []


def test_advice_to_run_what_the_fix_took_out_gives_way_to_the_fix():
    from compaction.errors.scan import not_what_failed

    solution = ("edited `reproduce_issue.py` (r5): `call_command('migrate', verbosity=0)` → "
                "`with connection.schema_editor() as schema_editor:`; then `python reproduce_issue.py` failed differently")
    advice = "create/migrate the database before querying (`manage.py migrate`)"
    assert not_what_failed(advice, solution) == (
        "as the fix did: `call_command('migrate', verbosity=0)` (what failed here) → "
        "`with connection.schema_editor() as schema_editor:`")
    # a fix that kept the advised step, or no change told: the advice stands
    kept = "edited `a.py` (r5): `migrate()` → `migrate(fake=True)`"
    assert not_what_failed(advice, kept) == advice
    assert not_what_failed(advice, "no fix seen after r4") == advice


def test_cargo_counts_cut_by_tail_say_a_binarys_results_are_missing():
    cut_off = ("test no_error_check ... ok\n"
               "test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"
               "     Running tests/transaction_battery.rs (target/debug/deps/transaction_battery-b3e7)\n"
               "running 21 tests\n")
    assert parse_test_summary(cut_off).endswith("(the results of 1 more test binary not in the output)")
    ran = cut_off.replace("     Running tests/transaction_battery.rs (target/debug/deps/transaction_battery-b3e7)\n"
                          "running 21 tests\n", "     Running `target/debug/app`\n")  # `cargo run`'s binary: no test
    assert not parse_test_summary(ran).endswith("not in the output)")
    whole = cut_off + "test result: ok. 21 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n"
    assert parse_test_summary(whole) == "ok 36 passed; 0 failed in 2 test binaries"


def test_the_language_the_user_wants_replies_in_is_a_constraint():
    for said in ("用中文在回答我一遍", "Please answer in English from now on.", "Can you reply in Spanish?"):
        msgs = [Message(0, Role.USER, "fix the build"), Message(1, Role.ASSISTANT, "Done."), Message(2, Role.USER, said)]
        t = Transcript("t.json", "test", msgs, group_rounds(msgs))
        assert [e.text for e in extract_events(t) if e.kind is EventKind.CONSTRAINT] == [said]
    msgs = [Message(0, Role.USER, "write the tests in the spec file")]
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    assert not [e for e in extract_events(t) if e.kind is EventKind.CONSTRAINT]


def _current(after_edit: str) -> str:
    from compaction.history.sources.current import current_work

    msgs = [Message(0, Role.USER, "make a random number page")]
    write = ToolCall("write", {"file_path": "index.html", "content": "<html></html>"}, "w", ToolKind.WRITE,
                     path="index.html")
    msgs += [Message(1, Role.ASSISTANT, "", tool_calls=[write]),
             Message(2, Role.TOOL, tool_results=[ToolResult("File created", "w")]),
             Message(3, Role.ASSISTANT, "Done."), Message(4, Role.USER, after_edit),
             Message(5, Role.ASSISTANT, "Great!")]
    ctx = _ctx(msgs)
    return " ".join(f.text for f in current_work(ctx))


def test_a_user_who_says_it_works_checked_it_by_hand():
    said = _current("THANKS!! it works perfectly, even hosted ok random.akerud.se now")
    assert "Checked by the user after the last edit (r1), in their words: “THANKS!! it works perfectly" in said
    assert "in their words" not in _current("it still doesn't work on my phone")
    assert "in their words" not in _current("now add sounds please")


def test_a_short_final_diff_the_harness_printed_is_kept_verbatim():
    from compaction.history.sources.final_diff import final_diff_facts

    diff = ("\ndiff --git a/pkg/numpy_handler.py b/pkg/numpy_handler.py\nindex 8e8..6a1 100644\n"
            "--- a/pkg/numpy_handler.py\n+++ b/pkg/numpy_handler.py\n"
            "@@ -285,9 +285,10 @@ def get_pixeldata(ds):\n     required_elements = [\n"
            "-        'Rows', 'PixelRepresentation',\n+        'Rows',\n     ]\n"
            "+    if 'PixelData' in ds:\n+        required_elements.append('PixelRepresentation')\n")
    msgs = [Message(0, Role.USER, "fix it"), Message(1, Role.ASSISTANT, "Submitting.", tool_calls=[ToolCall("submit", {}, "s")])]
    echo = Message(2, Role.TOOL, tool_results=[ToolResult(diff, "s")])
    echo.meta["final_patch_echo"] = True
    msgs.append(echo)
    ctx = _ctx(msgs)
    [fact] = final_diff_facts(ctx)
    # one file: named in the head; a hunk by its first line (the change records name the function)
    assert fact.essential and fact.text.startswith("The final diff the harness printed (r1), `pkg/numpy_handler.py`:"
                                                   "\n```diff\n@@ line 286 in `get_pixeldata`\n")
    assert "-        'Rows', 'PixelRepresentation',\n+        'Rows',\n     ]\n+    if 'PixelData' in ds:" in fact.text  # the bracket it sits after
    assert "required_elements = [" not in fact.text  # context lines are the change records' to tell
    echo.tool_results[0].content = diff + "".join(f"+    line_{i} = {i}\n" for i in range(40))
    # a long diff is the change records' within their share; whole, it waits for the room they all leave
    (long,) = final_diff_facts(ctx)
    assert not long.essential and long.rank() == LEFTOVER_PRIORITY and "+    line_39 = 39" in long.text


def test_an_edit_reverted_then_made_again_is_not_told_as_not_kept():
    from types import SimpleNamespace

    from compaction.edits import Hunk
    from compaction.events import Event
    from compaction.history.sources.changes import _made_again

    change = Hunk(("return other is S.Infinity",), ("return other is S.Infinity or NotImplemented",))
    other = Hunk(("raise TypeError",), ("return NotImplemented",))
    thrown = [SimpleNamespace(event=Event(EventKind.EDIT, 3, 5, path="n.py", hunks=(change,))),
              SimpleNamespace(event=Event(EventKind.EDIT, 4, 7, path="n.py", hunks=(other,)))]
    kept = [Event(EventKind.EDIT, 9, 20, path="n.py", hunks=(change, Hunk(("a",), ("b",))))]
    assert _made_again(thrown, kept) == {id(thrown[0])}


def test_an_uncommitted_file_the_session_never_changed_is_said_to_be_someone_elses():
    from compaction.history.sources.uncommitted import uncommitted_facts

    msgs = [Message(0, Role.USER, "fix the docs and commit")]
    edit = ToolCall("edit", {"path": "docs/a.md", "old_string": "x", "new_string": "y"}, "e", ToolKind.EDIT,
                    path="docs/a.md")
    msgs += [Message(1, Role.ASSISTANT, "", tool_calls=[edit]), Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e")])]
    _run(msgs, "c", "git commit -am 'Fix docs'", "[main 5e5bdad] Fix docs\n 1 file changed, 1 insertion(+)")
    edit2 = ToolCall("edit", {"path": "docs/b.md", "old_string": "x", "new_string": "y"}, "f", ToolKind.EDIT,
                     path="docs/b.md")
    msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[edit2]),
             Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult("ok", "f")])]
    _run(msgs, "s", "git status", "On branch main\nChanges not staged for commit:\n"
         "\tmodified:   docs/b.md\n\tmodified:   src/agent-session.ts\n")
    ctx = _ctx(msgs)
    [fact] = uncommitted_facts(ctx)
    assert "`b.md`, `agent-session.ts` (not changed by this session)" in fact.text, fact.text


def test_a_test_runner_that_could_not_start_was_worked_around_by_another():
    msgs = [Message(0, Role.USER, "fix the comparison")]
    _run(msgs, "a", "/usr/bin/python3 -m pytest sympy/core/tests/test_basic.py", "/usr/bin/python3: No module named pytest", 1)
    _run(msgs, "b", "ls bin/test", "bin/test")
    _run(msgs, "c", "bin/test sympy/core/tests/test_basic.py", "test_basic.py[22] ......\n= tests finished: 22 passed, in 0.5 seconds =")
    rec = next(r for r in scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs))) if "NotFound" in r.id)
    assert rec.solution.startswith("then the tests ran another way: `bin/test sympy/core/tests/test_basic.py` → "), rec.solution


def _timed_out(read_on: list[tuple[dict, str, int | None]], command: str = "go test ./... 2>&1 | tee test.log",
               first: str = "--- FAIL: TestParseEmpty\nFAIL example.com/app/parse\n") -> Transcript:
    msgs = [Message(0, Role.USER, "run the tests")]
    msgs += [Message(1, Role.ASSISTANT, "", tool_calls=[ToolCall("execute_bash", {"command": command}, "c0",
                                                                 ToolKind.SHELL, command)]),
             Message(2, Role.TOOL, tool_results=[ToolResult(first, "c0", is_error=True, exit_code=-1)])]
    for i, (args, out, code) in enumerate(read_on, 1):
        msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("execute_bash", args, f"c{i}")]),
                 Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult(out, f"c{i}", exit_code=code)])]
    fold_continuations(msgs)
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def test_more_output_of_a_run_is_no_rerun_that_passed():
    t = _timed_out([({"input": ""}, "ok  example.com/app/server\n", 0)])
    failed = next(r for r in scan_transcript(t) if r.id == "ERR_LOGIC_TestFailed")
    assert "succeeded" not in failed.solution and "no fix seen" in failed.solution, failed.solution


def test_a_run_read_on_twice_or_interrupted_is_told_so():
    twice = _timed_out([({"input": ""}, "more output\n", -1), ({"input": ""}, "BUILD SUCCESS\n", 0)],
                       command="mvn -q test", first="Running tests\n")
    rec = next(r for r in scan_transcript(twice) if r.id == "ERR_TOOL_Timeout")
    assert rec.solution.startswith("not stuck: the agent read on at r3"), rec.solution
    stopped = _timed_out([({"input": "C-c"}, "^C\n", 130)], command="mvn -q test", first="Running tests\n")
    rec = next(r for r in scan_transcript(stopped) if r.id == "ERR_TOOL_Timeout")
    assert rec.solution.startswith("interrupted: the agent stopped the run at r2"), rec.solution


def test_a_read_on_by_id_reads_the_run_that_gave_that_id():
    msgs = [Message(0, Role.USER, "run both suites")]
    for cid, cmd, sid in (("a", "npm run test:api", "sh1"), ("b", "npm run test:web", "sh2")):
        msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("Bash", {"command": cmd}, cid,
                                                                             ToolKind.SHELL, cmd)]),
                 Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult(
                     f"Command running in background with ID: {sid}", cid)])]
    msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("BashOutput", {"bash_id": "sh1"}, "o")]),
             Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult("Tests: 2 failed, 40 passed, 42 total", "o")]),
             Message(len(msgs) + 2, Role.ASSISTANT, "", tool_calls=[ToolCall("KillShell", {"shell_id": "sh2"}, "k")]),
             Message(len(msgs) + 3, Role.TOOL, tool_results=[ToolResult("killed", "k")])]
    fold_continuations(msgs)
    read, kill = msgs[-4].tool_calls[0], msgs[-2].tool_calls[0]
    assert (read.command, read.continues) == ("npm run test:api", "a")
    assert kill.continues is None and kill.command is None


def test_an_install_of_another_package_ended_nothing():
    msgs = [Message(0, Role.USER, "run the tests")]
    _run(msgs, "a", "pytest tests/t.py", FIXTURE.format("file tests/t.py, line 5", "httpbin",
                                                        "recursive dependency involving fixture 'httpbin' detected"), 1)
    _run(msgs, "b", "pip install black", "Successfully installed black-24.1.0")
    _run(msgs, "c", "pip install pytest-httpbn", "ERROR: No matching distribution found for pytest-httpbn")
    _run(msgs, "d", "pytest tests/t.py", FIXTURE.format("file tests/t.py, line 9", "mocker",
                                                        "fixture 'mocker' not found"), 1)
    rec = next(r for r in scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs))) if "Fixture" in r.id)
    assert not any("install" in text for _, text in rec.earlier), rec.earlier


def test_advice_keeps_the_failing_tests_a_narrower_later_run_did_not_run():
    def occ(rnd: int, tests: list[str], command: str) -> Occurrence:
        return Occurrence(rnd, "t", location=Location(command=command), tests=tests)

    rec = ErrorRecord("ERR_LOGIC_TestFailed", occurrences=[
        occ(5, ["t.py::collapses", "t.py::expands", "t.py::selects"], "pytest t.py"),
        occ(7, ["t.py::collapses"], "pytest t.py -k collapses")])
    assert latest_tests(rec) == ["t.py::collapses", "t.py::expands", "t.py::selects"]


def test_advice_is_not_replaced_for_a_word_the_removed_code_only_holds():
    from compaction.errors.scan import not_what_failed

    solution = "edited `build.mjs` (r3): `const OUT = 'build/'` → `const OUT = 'dist/'`; then `npm run build` passed"
    advice = "run the build after each change (`npm run build`)"
    assert not_what_failed(advice, solution) == advice
    assert not_what_failed("run `make check`", "edited `a.py` (r2): `if check(x):` → `if valid(x):`",
                           frozenset({"make check"})) == "run `make check`"


def test_a_reproduction_the_agent_says_reproduced_the_bug_is_no_finding():
    assert _unreproduced("The script ran successfully and I've reproduced the issue.") == []
    assert _unreproduced("It passes the wrong matrix: this shows the bug.") == []


def test_a_reproduction_run_after_a_whole_file_rewrite_of_the_project_is_no_finding():
    from compaction.history.sources.unreproduced import unreproduced_facts

    msgs = [Message(0, Role.USER, "slugify drops accents")]
    calls = [ToolCall("read", {"path": "app/text.py"}, "r", ToolKind.READ, path="app/text.py"),
             ToolCall("write", {"path": "reproduce_slug.py", "content": "print(slug('é'))"}, "w1", ToolKind.WRITE,
                      path="reproduce_slug.py"),
             ToolCall("write", {"path": "app/text.py", "content": "def slug(s): ..."}, "w2", ToolKind.WRITE,
                      path="app/text.py")]
    for c in calls:
        msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[c]),
                 Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult("ok", c.id)])]
    _run(msgs, "x", "python reproduce_slug.py", "e")
    msgs.append(Message(len(msgs), Role.ASSISTANT, "The fix works."))
    ctx = _ctx(msgs)
    assert unreproduced_facts(ctx) == []


def test_an_assent_to_an_offer_says_what_the_user_had_asked():
    from compaction.history.sources.task import task_facts

    msgs = [Message(0, Role.USER, "make a random number page"), Message(1, Role.ASSISTANT, "Done."),
            Message(2, Role.USER, "i think there's a session file somewhere, would be super cool to store it in the git"),
            Message(3, Role.ASSISTANT, "Found it at ~/.claude/projects/x.jsonl. Want me to copy it into the repo and commit it?"),
            Message(4, Role.USER, "yes please")]
    ctx = _ctx(msgs)
    current = next(f.text for f in task_facts(ctx) if f.text.startswith("Current request"))
    assert current == ("Current request: yes please (accepting: “Want me to copy it into the repo and commit it?”) — on r2: "
                       "“i think there's a session file somewhere, would be super cool to store it in the git”")


def test_a_look_inside_a_known_file_locates_nothing():
    from compaction.history.sources.exploration import exploration_facts

    msgs = [Message(0, Role.USER, "fix the lazy object lookup")]
    _run(msgs, "a", 'grep "__all__ =" django/utils/functional.py', "")
    _run(msgs, "b", 'grep -rn "def resolve_lookup_value" django', "django/db/models/sql/query.py:1053:    def resolve_lookup_value(")
    read = ToolCall("read", {"path": "django/db/models/sql/query.py"}, "r", ToolKind.READ, path="django/db/models/sql/query.py")
    edit = ToolCall("edit", {"path": "django/db/models/sql/query.py", "old_string": "a", "new_string": "b"}, "e",
                    ToolKind.EDIT, path="django/db/models/sql/query.py")
    for c in (read, edit):
        msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[c]),
                 Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult("ok", c.id)])]
    ctx = _ctx(msgs)
    [fact] = exploration_facts(ctx)
    assert fact.text.startswith("Located `django/db/models/sql/query.py`: `grep -rn \"def resolve_lookup_value\" django`")
    assert "nothing under" not in fact.text  # the grep inside functional.py searched no place for the work


def test_the_reproduction_built_instead_is_told_beside_the_one_that_passed():
    from compaction.history.sources.unreproduced import unreproduced_facts

    msgs = [Message(0, Role.USER, "Pickling a figure with a draggable legend fails with TypeError")]
    _run(msgs, "a", "cat <<'EOF' > reproduce_issue.py\nimport pickle\nEOF", "")
    _run(msgs, "b", "python reproduce_issue.py", "Pickling successful")
    msgs.append(Message(len(msgs), Role.ASSISTANT, "The pickling was successful. The backend is Agg."))
    _run(msgs, "c", "cat <<'EOF' > reproduce_issue_v2.py\nimport pickle\nEOF", "")
    _run(msgs, "d", "python reproduce_issue_v2.py", "Pickling failed as expected: cannot pickle 'UnpickleableCanvas' object")
    ctx = _ctx(msgs)
    [fact] = unreproduced_facts(ctx)
    assert fact.text.endswith("; then it failed with `python reproduce_issue_v2.py` → “Pickling failed as expected: "
                              "cannot pickle 'UnpickleableCanvas' object” (r4)"), fact.text


def test_second_code_review_cases():
    from types import SimpleNamespace

    from compaction.edits import Hunk
    from compaction.errors.scan import _names_package
    from compaction.events import _CONSTRAINT_RE, Event
    from compaction.history.sources.changes import _made_again
    from compaction.history.sources.final_diff import _changed_lines

    # a question, a plan of work or a later complaint is no check by hand
    for said in ("Does it work on mobile too?", "ok now let's work on the login page",
                 "Now the page is blank when deployed"):
        assert "in their words" not in _current(said), said
    # a comment on the line after the command
    assert last_command("cd /repo && mvn test\n# takes ~5 min") == "mvn test"
    # an install credited by a prefix of the message's word, or the project's requirements; a failed npm one not
    assert _names_package("pip install pytest-mock", "fixture 'mocker' not found")
    assert _names_package("pip install -r requirements-dev.txt", "fixture 'mocker' not found")
    assert not _names_package("pip install black", "fixture 'mocker' not found")
    # a diff's changed lines that begin with -- or ++ are changes, not headers
    diff = "diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- legacy comment\n+++n;\n"
    assert _changed_lines(diff) == ["# q.sql", "@@ line 1", "--- legacy comment", "+++n;"]
    # the Maven build that ran tests, when a later build in the output skipped them
    built = "[INFO] Tests run: 61, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS\n[INFO] BUILD SUCCESS\n"
    assert parse_test_summary(built) == "Tests run: 61, Failures: 0, Errors: 0, Skipped: 0"
    # a reply language in lower case; a unit test "in each module" is none
    assert _CONSTRAINT_RE.search("please answer in english") and _CONSTRAINT_RE.search("respond in spanish")
    assert not _CONSTRAINT_RE.search("Now write a unit test in each module")
    # cargo's old-format binary line counts; `cargo run`'s quoted one not
    old = ("test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
           "     Running target/debug/deps/x-123\n")
    assert parse_test_summary(old).endswith("not in the output)")
    # the same substitution on another line is another change
    thrown = [SimpleNamespace(event=Event(EventKind.EDIT, 3, 5, path="a.py",
                                          hunks=(Hunk(("None",), ("[]",), context="line 10", fragment=True),)))]
    kept = [Event(EventKind.EDIT, 9, 9, path="a.py", hunks=(Hunk(("None",), ("[]",), context="line 50", fragment=True),))]
    assert _made_again(thrown, kept) == set()


def test_a_numeric_session_id_reads_the_run_that_gave_it_not_a_number_in_another_output():
    msgs = [Message(0, Role.USER, "build and serve")]
    for cid, cmd, said in (("a", "cargo build --release", "Process running with session ID 3"),
                           ("b", "npm run dev", "VITE ready in 3 ms\nProcess running with session ID 4")):
        msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("exec", {"cmd": cmd}, cid, ToolKind.SHELL, cmd)]),
                 Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult(said, cid)])]
    msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("write_stdin", {"session_id": 3, "chars": ""}, "w")]),
             Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult("Finished release", "w")])]
    fold_continuations(msgs)
    assert msgs[-2].tool_calls[0].continues == "a"


def test_two_read_ons_count_what_the_run_printed_before_the_first():
    t = _timed_out([({"input": ""}, "[INFO] Tests run: 1356, Failures: 0, Errors: 0, Skipped: 0\n", -1),
                    ({"input": ""}, "[INFO] BUILD SUCCESS\n", 0)],
                   command="mvn test", first="[INFO] Tests run: 61, Failures: 0, Errors: 0, Skipped: 0\n")
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_TOOL_Timeout")
    assert "Tests run: 1417, Failures: 0, Errors: 0, Skipped: 0 in 2 modules" in rec.solution, rec.solution


def test_after_a_command_that_changes_files_no_uncommitted_file_is_said_to_be_someone_elses():
    from compaction.history.sources.uncommitted import uncommitted_facts

    msgs = [Message(0, Role.USER, "add lodash and commit")]
    edit = ToolCall("edit", {"path": "src/a.js", "old_string": "x", "new_string": "y"}, "e", ToolKind.EDIT, path="src/a.js")
    msgs += [Message(1, Role.ASSISTANT, "", tool_calls=[edit]), Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e")])]
    _run(msgs, "c", "git commit -am 'Use x'", "[main 5e5bdad] Use x\n 1 file changed, 1 insertion(+)")
    _run(msgs, "i", "npm install lodash", "added 1 package")
    _run(msgs, "s", "git status", "On branch main\nChanges not staged for commit:\n\tmodified:   package.json\n")
    ctx = _ctx(msgs)
    [fact] = uncommitted_facts(ctx)
    assert "`package.json`" in fact.text and "not changed by this session" not in fact.text, fact.text
