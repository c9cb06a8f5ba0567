"""Error records that teach (issue 14 item 3): the solution is what ended the error, one failure is one
record (aliases honoured), compiler codes beside the id, tool failures by kind, commands as run."""

from __future__ import annotations

from compaction.errors import ErrorMemory, render_block, scan_transcript
from compaction.errors.classify import classify
from compaction.errors.records import ErrorRecord, Location, Occurrence
from compaction.errors.render import parse_block, render_record
from compaction.history.errors_adapter import filter_for_role
from compaction.history.sources.problems import record_solution
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.transcripts import load_transcript
from tests.conftest import TRANSCRIPTS

PYTEST_OUT = ('tests/test_cache.py F.\n'
              '    def test_get():\n'
              'Traceback (most recent call last):\n  File "/repo/cache.py", line 12, in get\n    loop.run()\n'
              'RuntimeError: Event loop is closed\n'
              'FAILED tests/test_cache.py::test_get - RuntimeError: Event loop is closed\n'
              '=== 1 failed, 1 passed in 0.3s ===\n')


def _shell(msgs: list[Message], cid: str, command: str, output: str, code: int) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall("bash", {"command": command}, cid,
                                                                              ToolKind.SHELL, command)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, cid, "bash", is_error=code != 0,
                                                                       exit_code=code)]))


def _session() -> Transcript:
    msgs = [Message(0, Role.USER, "the cache test fails")]
    _shell(msgs, "a", "cd /repo &&  python -m pytest   tests/test_cache.py -q", PYTEST_OUT, 1)
    msgs.append(Message(len(msgs), Role.ASSISTANT, "The problem is that the client is reused across event loops.",
                        tool_calls=[ToolCall("Edit", {"file_path": "/repo/cache.py",
                                                      "old_string": "client = CLIENT",
                                                      "new_string": "client = make_client()"}, "e", ToolKind.EDIT,
                                             path="/repo/cache.py")]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("ok", "e", "Edit")]))
    _shell(msgs, "b", "cd /repo &&  python -m pytest   tests/test_cache.py -q", "=== 2 passed in 0.2s ===", 0)
    return Transcript("s.jsonl", "test", msgs, group_rounds(msgs))


def test_solution_is_the_edit_and_the_command_that_then_passed_not_the_error_text():
    (rec,) = [r for r in scan_transcript(_session()) if r.id == "ERR_PY_RuntimeError"]
    sol = rec.solution
    assert "edited `/repo/cache.py` (r2): `client = CLIENT` → `client = make_client()`" in sol
    assert "then `cd /repo &&  python -m pytest   tests/test_cache.py -q` passed (r3)" in sol  # as it was run
    assert "Event loop is closed" not in sol
    assert "client is reused across event loops" in sol  # the agent's own account of the cause


def test_a_traceback_and_the_test_failure_it_causes_are_one_record_with_an_alias(tmp_path):
    records = scan_transcript(_session())
    ids = [r.id for r in records]
    assert "ERR_PY_RuntimeError" in ids and "ERR_LOGIC_TestFailed" not in ids
    (rec,) = [r for r in records if r.id == "ERR_PY_RuntimeError"]
    assert rec.merged == ["ERR_LOGIC_TestFailed"] and rec.count == 1
    assert rec.tests == ["tests/test_cache.py::test_get"]
    assert render_record(rec).startswith("- ERR_PY_RuntimeError (+ERR_LOGIC_TestFailed): occurrences 1")
    # The tester preset keeps ERR_LOGIC_* records: an alias counts.
    assert filter_for_role(records, role_preset("tester")) == [rec]
    # The store answers for the alias, and an ignored alias silences the record's warnings.
    with ErrorMemory(tmp_path) as memory:
        memory.ingest(_session())
        assert memory.get("ERR_LOGIC_TestFailed").id == "ERR_PY_RuntimeError"
        assert memory.check("fix the cache", files=["cache.py"])
        memory.ignore("ERR_LOGIC_TestFailed")
        assert not memory.check("fix the cache", files=["cache.py"])


def test_compiler_codes_stay_beside_the_name_and_survive_an_export_import():
    out = "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
    msgs = [Message(0, Role.USER, "build it")]
    _shell(msgs, "a", "npx tsc --noEmit", out, 2)
    records = scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs)))
    (rec,) = [r for r in records if r.id.startswith("ERR_TS_")]
    block = render_block([rec])
    assert f"- {rec.id} (TS2322): occurrences 1" in block
    (back,) = parse_block(block)
    assert back.id == rec.id and back.ts_codes == ["TS2322"]


def test_tool_failures_by_kind_become_err_tool_records():
    assert [h.id for h in classify('API Error: 429 {"error":{"type":"rate_limit_error"}}', failed=True)] == [
        "ERR_TOOL_RateLimited"]
    assert [h.id for h in classify("Error: Rate limit exceeded, retry after 20s")] == ["ERR_TOOL_RateLimited"]
    assert [h.id for h in classify("<tool_use_error>No such tool available: WebFetch</tool_use_error>")] == [
        "ERR_TOOL_UnknownTool"]
    assert [h.id for h in classify("Unknown skill: deploy-preview")] == ["ERR_TOOL_UnknownTool"]
    assert classify("The API has a rate limit of 100 calls, documented in README.") == []


def test_a_call_the_user_turned_down_is_taught_by_their_words_not_by_a_schema_check():
    assert [h.id for h in classify("The user denied this operation. The file was not updated.")] == [
        "ERR_TOOL_UserRejected"]
    assert [h.id for h in classify("The user doesn't want to proceed with this tool use. The tool use was rejected.",
                                   failed=True)] == ["ERR_TOOL_UserRejected"]
    assert classify("If the user rejected the plan, ask again.") == []
    edit = ToolCall("write_to_file", {"path": "cli.py", "content": "x = 1\n"}, "w1", ToolKind.WRITE, path="cli.py")
    msgs = [Message(0, Role.USER, "Add a --json flag"), Message(1, Role.ASSISTANT, "", tool_calls=[edit]),
            Message(2, Role.TOOL, tool_results=[ToolResult("The user denied this operation.", "w1", "write_to_file",
                                                           is_error=True)]),
            Message(3, Role.USER, "Name it --format json instead"), Message(4, Role.ASSISTANT, "Renamed.")]
    t = Transcript(path="t.json", format="test", messages=msgs, rounds=group_rounds(msgs))
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_TOOL_UserRejected"]
    assert rec.solution.startswith("the user said: “Name it --format json instead”")


def test_real_session_solutions_name_edits_not_error_text():
    t = load_transcript(TRANSCRIPTS / "mini-pytest-5787.traj.json")
    records = scan_transcript(t)
    fixed = [r for r in records if r.solution and "edited `" in r.solution]
    assert fixed
    for rec in fixed:
        detail = " ".join(rec.occurrences[-1].detail.split())
        assert not detail or f"`{detail[:60]}" not in rec.solution
    # One failure, one record: a test failure reported with the exception folds into it.
    assert any("ERR_LOGIC_TestFailed" in r.merged for r in records)


def test_a_todo_written_in_the_text_stays_open_until_a_later_message_says_it_is_done():
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.next_steps import next_step_source

    def session(done: bool) -> Transcript:
        msgs = [Message(0, Role.USER, "port the exporter")]
        msgs.append(Message(1, Role.ASSISTANT, "The exporter works. I still need to update the changelog entry."))
        for i in range(8):
            _shell(msgs, f"c{i}", f"echo step {i}", "ok", 0)
        if done:
            msgs.append(Message(len(msgs), Role.ASSISTANT, "I updated the changelog entry for the exporter."))
        t = Transcript("s.jsonl", "test", msgs, group_rounds(msgs))
        return t

    for done in (False, True):
        t = session(done)
        ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
        texts = [f.text for f in next_step_source(ctx)]
        assert any("update the changelog entry" in x for x in texts) is (not done), texts


def test_without_an_edit_the_solution_is_the_retry_that_succeeded():
    msgs = [Message(0, Role.USER, "list the docs")]
    _shell(msgs, "a", "ls docs/guide", "ls: cannot access 'docs/guide': No such file or directory", 2)
    _shell(msgs, "b", "ls  docs/guides", "intro.md\nsetup.md", 0)
    records = scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs)))
    (rec,) = [r for r in records if r.id == "ERR_TOOL_FileNotFound"]
    assert rec.solution.startswith("then `ls  docs/guides` succeeded (r2)")


def test_hovers_show_the_aliases_and_compiler_codes_beside_the_id():
    from lsp_server.features.hover import headline

    line = headline({"id": "ERR_PY_RuntimeError", "count": 2, "rounds": [3, 7], "merged": ["ERR_LOGIC_TestFailed"]})
    assert line == "#recurring ERR_PY_RuntimeError (+ERR_LOGIC_TestFailed): occurrences 2 (rounds 3, 7)"
    ts = headline({"id": "ERR_TS_TypeNotAssignable", "count": 1, "rounds": [4], "codes": ["TS2322"]})
    assert ts == "ERR_TS_TypeNotAssignable (TS2322): occurrences 1 (rounds 4)"


def test_a_malformed_reply_is_not_solved_by_the_next_edit_of_some_file():
    """mini-swe-agent's "provide EXACTLY ONE action" complaint read `Solution: edited requests/models.py`."""
    msgs = [Message(0, Role.USER, "fix the host check")]
    msgs.append(Message(1, Role.ASSISTANT, "Two commands:\n```bash\nls\n```\n```bash\npwd\n```"))
    msgs.append(Message(2, Role.USER, "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
                        harness=True))
    msgs.append(Message(3, Role.ASSISTANT, "", tool_calls=[ToolCall(
        "Edit", {"file_path": "/repo/models.py", "old_string": "a", "new_string": "b"}, "e", ToolKind.EDIT,
        path="/repo/models.py")]))
    msgs.append(Message(4, Role.TOOL, tool_results=[ToolResult("ok", "e", "Edit")]))
    (rec,) = [r for r in scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs)))
              if r.id == "ERR_TOOL_FormatError"]
    assert "models.py" not in (rec.solution or "")


def test_a_pytest_fixture_error_is_one_record_per_fixture_with_its_advice():
    out = ("____ ERROR at setup of TestRequests.test_a ____\n"
           "E       recursive dependency involving fixture 'httpbin' detected\n"
           "____ ERROR at setup of TestRequests.test_b ____\n"
           "E       recursive dependency involving fixture 'httpbin' detected\n"
           "E       fixture 'mocker' not found\n"
           "=== 158 errors in 2.10s ===\n")
    hits = [h for h in classify(out, failed=True) if h.id == "ERR_LOGIC_FixtureError"]
    assert [(h.symbol, h.detail) for h in hits] == [
        ("httpbin", "recursive dependency involving fixture 'httpbin' detected"), ("mocker", "fixture 'mocker' not found")]
    msgs = [Message(0, Role.USER, "run the tests")]
    _shell(msgs, "a", "pytest tests/test_requests.py -q", out, 1)
    (rec,) = [r for r in scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs)))
              if r.id == "ERR_LOGIC_FixtureError"]
    assert "pytest --fixtures" in rec.avoidance


def test_a_scope_mismatch_printed_on_its_own_line_is_a_fixture_error():
    out = ("ScopeMismatch: You tried to access the 'function' scoped fixture 'tmp_path' with a 'module' scoped "
           "request object, involved factories\ntests/conftest.py:12:  def db(tmp_path)\n")
    (hit,) = [h for h in classify(out, failed=True) if h.id == "ERR_LOGIC_FixtureError"]
    assert hit.symbol == "tmp_path" and hit.detail.startswith("ScopeMismatch: You tried")


TSC_OUT = ("> tsc --build\n\nsrc/ui/Wizard.tsx(724,13): error TS2322: Type '{ marginTop: number; }' is not assignable "
           "to type 'IntrinsicAttributes & Props'.\nnpm error code 1\nnpm error path /repo\n"
           "Error: Command failed: tsc --build\n    at checkExecSyncError (node:child_process:890:11)\n"
           "    at execSync (node:child_process:962:15)\n")


def test_a_build_wrappers_lines_are_aliases_of_the_compiler_error_they_wrap():
    """npm's "npm error code 1" and node's "Error: Command failed: tsc --build" say the compiler's failure
    again: one record, theirs as aliases. A test's own `Error:` in another output stays its own record."""
    msgs = [Message(0, Role.USER, "build it")]
    _shell(msgs, "a", "npm run build", TSC_OUT, 1)
    _shell(msgs, "b", "npx vitest run", "FAIL test/tree.spec.ts\nError: expect(element).toHaveAttribute(\"x\")\n"
                                        "    at test/tree.spec.ts:12:5\n", 1)
    records = scan_transcript(Transcript("s.jsonl", "test", msgs, group_rounds(msgs)))
    (ts,) = [r for r in records if r.id.startswith("ERR_TS_")]
    assert "ERR_JS_Npm1" in ts.merged and "ERR_JS_Error" in ts.merged
    assert not any(r.id == "ERR_JS_Npm1" for r in records)
    assert any(r.id == "ERR_JS_Error" and r.rounds == [2] for r in records)  # the test's own error


def _say(msgs: list[Message], text: str) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, text))


def test_a_script_that_failed_is_the_file_whose_rewrite_ended_its_error():
    """`python fix.py` exits 1 with its own message (no traceback, no location): the error is the script's;
    rewriting it with a heredoc (not only a file tool or `sed -i`) and running it again is the fix."""
    msgs = [Message(0, Role.USER, "update the module")]
    _shell(msgs, "a", "python update_module.py", "Could not find disconnect or save_offset", 1)
    _say(msgs, "This is because I'm searching the wrong list?")
    _shell(msgs, "b", "cat <<'EOF' > debug.py\nprint(1)\nEOF\npython debug.py", "1", 0)
    _shell(msgs, "c", "cat <<'EOF' > update_module.py\nimport sys\nprint('done')\nEOF", "", 0)
    _shell(msgs, "d", "python update_module.py", "done", 0)
    (rec,) = [r for r in scan_transcript(Transcript("s.jsonl", "t", msgs, group_rounds(msgs)))
              if "NonZeroExit" in r.id]
    assert "edited `update_module.py` (r3)" in rec.solution and "debug.py" not in rec.solution
    assert "then `python update_module.py` passed (r4)" in rec.solution
    assert "the agent's guess: This is because I'm searching the wrong list?" in rec.solution  # a question: a guess


def test_when_the_failing_command_passes_later_the_last_edit_before_it_ended_the_error():
    """A test run fails with no file named; four rounds later, after a `sed -i -e … -e …` edit, the very same
    command passes: that edit is the fix, though it came more than two rounds after the failure."""
    msgs = [Message(0, Role.USER, "make the tests pass")]
    _shell(msgs, "a", "pytest tests/test_domain.py", "E   AssertionError: node is not 'int': 'x'\n"
                                                      "=== 1 failed, 44 passed in 1s ===", 1)
    _shell(msgs, "b", "sed -n '940,960p' tests/test_domain.py", "assert_node(...)", 0)
    _shell(msgs, "c", "git status", "clean", 0)
    _shell(msgs, "d", "grep -n literal tests/test_domain.py", "12: literal", 0)
    _shell(msgs, "e", "sed -i -e 's/literal, \"\\[\"/punct, \"[\"/g' \\\n  -e 's/literal, \"]\"/punct, \"]\"/g' "
                      "tests/test_domain.py", "", 0)
    _shell(msgs, "f", "pytest tests/test_domain.py", "=== 45 passed in 1s ===", 0)
    (rec,) = [r for r in scan_transcript(Transcript("s.jsonl", "t", msgs, group_rounds(msgs)))
              if r.id == "ERR_PY_AssertionError"]
    assert "edited `tests/test_domain.py` (r5)" in rec.solution
    assert "then `pytest tests/test_domain.py` passed (r6)" in rec.solution
    assert "no fix seen" not in rec.solution


def test_a_solution_names_the_failing_file_by_base_name_whatever_root_each_path_has():
    """The build failed at `src/ui/x.tsx:724` (relative to the package), the fix edited
    `packages/cli/src/ui/x.tsx` (relative to the repository): one file; its long path would spend the
    solution's room that the change itself needs."""
    occ = Occurrence(33, location=Location(path="src/ui/components/TeamCreatorWizard.tsx", line=724))
    rec = ErrorRecord("ERR_TS_TypeNotAssignable", [occ], solution=(
        "edited `packages/cli/src/ui/components/TeamCreatorWizard.tsx` (r34): `<Text marginTop={1}>` → "
        "`<Box marginTop={1}>`; then `npm run build` passed (r35)"))
    said = record_solution(rec, None)
    assert said.startswith("edited `TeamCreatorWizard.tsx` (r34): `<Text marginTop={1}>` → `<Box marginTop={1}>`")


def test_a_solution_keeps_the_path_of_another_file_with_the_same_name():
    occ = Occurrence(5, location=Location(path="src/a/index.ts", line=3))
    rec = ErrorRecord("ERR_TS_X", [occ], solution="edited `src/b/index.ts` (r6): `x` → `y`")
    assert record_solution(rec, None).startswith("edited `src/b/index.ts` (r6)")


def test_a_failed_tool_call_is_named_and_its_workaround_told_in_the_agents_words():
    """figma r6: `get_node_tree` hit a 429 and was never called again; the record said neither which call
    failed nor how the agent went on ("then `mkdir -p ground_truth` succeeded")."""
    from compaction.history.sources.problems import record_detail

    msgs = [Message(0, Role.USER, "export the frames"),
            Message(1, Role.ASSISTANT, "", tool_calls=[
                ToolCall("get_page_overview", {"page": "0:1"}, "c1", ToolKind.OTHER),
                ToolCall("get_node_tree", {"node_id": "0:1", "depth": 1, "api_token": "sk-secret-123"}, "c2",
                         ToolKind.OTHER)]),
            Message(2, Role.TOOL, "", tool_results=[
                ToolResult('{"status":"success","frames":["Dashboard #1"]}', "c1", "get_page_overview"),
                ToolResult('{"status":"error","error":"Figma API error: 429 - Rate limit exceeded"}', "c2",
                           "get_node_tree", is_error=True)]),
            Message(3, Role.ASSISTANT, "", meta={"thinking": [
                "Bypassing the Block: I've circumvented the rate limit. A successful call to `get_page_overview` "
                "provided the frame data. This is great."]},
                tool_calls=[ToolCall("run", {"command": "mkdir -p out"}, "c3", ToolKind.SHELL, command="mkdir -p out")]),
            Message(4, Role.TOOL, "", tool_results=[ToolResult("", "c3", "run")])]
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_TOOL_RateLimited"]
    assert rec.solution == ("worked around it: “I've circumvented the rate limit. A successful call to "
                            "`get_page_overview` provided the frame data.”")
    detail = record_detail(rec, None, msgs)
    assert detail.startswith("in `get_node_tree(node_id=0:1, depth=1)`: ")
    assert "sk-secret-123" not in detail + rec.solution  # a secret argument's value is not repeated
    # the same tool called again and succeeding: that retry ended it, not the words around it
    retry = [Message(5, Role.ASSISTANT, "", tool_calls=[ToolCall("get_node_tree", {"node_id": "0:1", "depth": 0}, "c4",
                                                                 ToolKind.OTHER)]),
             Message(6, Role.TOOL, "", tool_results=[ToolResult('{"status":"success"}', "c4", "get_node_tree")])]
    t = Transcript("t.json", "test", msgs + retry, group_rounds(msgs + retry))
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_TOOL_RateLimited"]
    assert "worked around" not in rec.solution and "succeeded" in rec.solution, rec.solution
