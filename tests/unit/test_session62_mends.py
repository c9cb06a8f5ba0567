"""Session 62's mends (reader review 62): a pytest failure without a reason on its summary line says its
block's `E` line; a rules digest shown at its most binding rules never gives way to a shorter cut of its
leading lines; a file the final diff holds that no edit made says its one change; a bundler's failure keeps
where it points, in the error record and in the request that pasted it."""

from __future__ import annotations

from compaction.errors.classify import classify
from compaction.errors.scan import not_what_failed
from compaction.history.facts import Fact
from compaction.history.fill import _partial, _Step
from compaction.history.sections import Section
from compaction.history.sources.current import _small_swap
from compaction.history.sources.rules import Digest, _between, _rule_lines
from compaction.history.sources.task import _trim

PYTEST5 = """============================= test session starts ==============================
collected 14 items

testing/test_reports.py .........F....                                   [100%]

=================================== FAILURES ===================================
_____________ TestReportSerialization.test_unserialization_failure _____________

    def test_unserialization_failure(self, testdir):
        entry["type"] = "Unknown"
        with pytest.raises(
            RuntimeError, match="INTERNALERROR: Unknown entry type returned: Unknown"
        ):
>           TestReport._from_json(data)
E           Failed: DID NOT RAISE <class 'RuntimeError'>

/testbed/testing/test_reports.py:243: Failed
----------------------------- Captured stdout call -----------------------------
    def test_a():
>       assert False
E       assert False

test_unserialization_failure.py:2: AssertionError
=========================== short test summary info ============================
FAILED testing/test_reports.py::TestReportSerialization::test_unserialization_failure
========================= 1 failed, 13 passed in 3.05s =========================
"""


def test_a_pytest_failure_without_a_reason_says_its_blocks_first_e_line_and_where():
    hit = next(h for h in classify(PYTEST5) if h.id == "ERR_LOGIC_TestFailed" and h.tests)
    assert hit.detail.endswith(" - Failed: DID NOT RAISE <class 'RuntimeError'>")
    assert hit.line == 243  # the test file's line, not the nested run's `test_unserialization_failure.py:2`
    assert "assert False" not in hit.detail  # the captured run's failure is not this test's reason


def test_a_pytest_summary_with_no_block_of_its_test_stays_as_printed():
    alone = "FAILED tests/test_a.py::test_b\n=== 1 failed in 0.1s ===\n"
    hit = next(h for h in classify(alone) if h.id == "ERR_LOGIC_TestFailed" and h.tests)
    assert hit.detail == "FAILED tests/test_a.py::test_b"
    assert hit.line is None


SKILL = """## Preamble (run first)

Options:
- A) Sure, help improve (anonymous)
- B) No thanks

This only happens once. If `TEL_PROMPTED` is `yes`, skip this entirely.

## Grant Link

Always show this link to the user at the start and end of the skill.

## Phase 0 - Export session transcript

- Finds the latest session `.jsonl` and copies it as `./session.jsonl`
- Finds the latest Codex session and copies it as `./codex-session.jsonl`

## Phase 1 - Collect project context

1. Look for `README.md`, `package.json` or `Cargo.toml` in the working directory.
2. Read `git log --oneline -20` for recent work history.
3. Ask the user for any missing required fields (TG username, wallet address) that cannot be inferred.

## Important Notes

- Always generate proof of work from actual git history: never fabricate.
"""


def test_a_rules_digests_fuller_forms_keep_its_most_binding_rules_at_each_size():
    rules = Digest(_rule_lines(SKILL))
    full, shown = rules.render(10**9, 0), rules.render(150, 0)
    forms = _between(rules, 0, len(shown), len(full), "SKILL.md (r2), to follow:")
    assert forms and all(len(shown) < len(f) - len("SKILL.md (r2), to follow:\n") < len(full) for f in forms)
    assert [len(f) for f in forms] == sorted((len(f) for f in forms), reverse=True)  # longest first
    assert "never fabricate" in forms[0] and "Ask the user" in forms[0]  # the binding rules of later headings
    assert "Finds the latest Codex session" not in forms[0]  # a plain item gives way first
    assert "Always show this link" in forms[-1]


def _step(shown_text: str, full: str, forms: tuple[str, ...] = ()) -> _Step:
    original = Fact(Section.RULES, shown_text, [2], full_text=full, forms=forms)
    copy = Fact(Section.RULES, shown_text, [2])
    from compaction import tokens
    return _Step(original, copy, full, tokens.count(full) + 6, shown=tokens.count(shown_text) + 6)


def test_a_shown_form_never_gives_way_to_a_shorter_cut_of_its_leading_lines():
    shown = "SKILL.md, to follow:\nPreamble: skip it\nPhase 1: ask the user for the wallet\nNotes: never fabricate"
    full = ("SKILL.md, to follow:\nPreamble: skip it\n" + "Phase 0: " + "copy the session file; " * 40
            + "\nPhase 1: ask the user for the wallet\nNotes: never fabricate")
    assert _partial(_step(shown, full), room=5) is None  # its leading lines that fit are fewer than it shows
    form = "SKILL.md, to follow:\nPreamble: skip it\nPhase 1: ask the user for the wallet; read the git log\n" \
           "Notes: never fabricate"
    got = _partial(_step(shown, full, (form,)), room=40)
    assert got is not None and got[0] == form and got[1] > 0  # the longest shorter form that fits


def test_a_file_no_edit_made_says_its_one_line_change():
    section = ("index 7a3b85fc92..83f08ed124 100644\n--- a/pyproject.toml\n+++ b/pyproject.toml\n@@ -1,5 +1,5 @@\n"
               " [build-system]\n-requires = [\"setuptools\",\n+requires = [\"setuptools==68.0.0\",\n"
               "             \"wheel\",\n")
    assert _small_swap(section) == '`requires = ["setuptools",` → `requires = ["setuptools==68.0.0",`'
    two = section + "-a = 1\n+a = 2\n"
    assert _small_swap(two) == ""  # more than one line changed: not told by one swap


VITE = """ building client (vite)
20:39:01 [vite] ✓ 0 modules transformed.
20:39:01 [ERROR] [vite] ✗ Build failed in 6.63s
transforming (237) ../node_modules/react.production.js[vite-plugin-svelte:compile] [plugin vite-plugin-svelte:compile] \
astro-entry:/Users/me/site/src/snippets/Sinppets.svelte (1:9): astro-entry:/Users/me/site/src/snippets/Sinppets.svelte:1:9 \
Unexpected token
https://svelte.dev/e/js_parse_error
file: astro-entry:/Users/me/site/src/snippets/Sinppets.svelte:1:9
"""


def test_a_bundlers_failure_in_a_virtual_module_says_where_it_points():
    hit = next(h for h in classify(VITE) if h.id == "ERR_JS_BuildFailed")
    assert hit.path == "/Users/me/site/src/snippets/Sinppets.svelte" and hit.line == 1
    assert hit.detail == "Unexpected token"
    from compaction.errors.classify import _BUILD_CAUSE
    assert _BUILD_CAUSE.search("loaded https://cdn.example/app.js:1:9 Unexpected token") is None  # a URL: no file


def test_a_pasted_logs_trim_keeps_the_line_its_failure_points_at():
    log = [f"20:38:{i:02d} [build] step {i} done" for i in range(30)] + VITE.splitlines() + ["ELIFECYCLE done"]
    kept = _trim(log, "code", 3, 2)
    assert any("Sinppets.svelte (1:9)" in ln for ln in kept)  # no error word of its own, beside "Build failed"
    assert any("Build failed" in ln for ln in kept)


def test_advice_that_the_fix_took_out_names_the_code_that_failed_not_the_advised_command():
    solution = "edited `r.py` (r5): `call_command('migrate')` → `create_model(Account)`"
    advice = "create/migrate the database before querying (`manage.py migrate`)"
    assert not_what_failed(advice, solution) == \
        "as the fix did: `call_command('migrate')` (what failed here) → `create_model(Account)`"


def test_an_open_question_carries_the_guess_the_agent_made_right_after_it():
    from compaction.history.sources.next_steps import open_questions

    said = [(70, "Reading the view."), (78, "It still fails."),
            (80, "Unwrapping once. Why was it nested? I unwrap again."),
            (86, "IT WORKED! But why was it nested?\n\nMaybe `TemplateView` wraps arguments?\n\n"
                 "If kwargs values are lazy, and we pass a lazy object, maybe it gets double wrapped?\n\n"
                 "Anyway, the while loop handles both.")]
    fact = open_questions(said)[0]
    assert fact.text == ("[open question] Why was it nested? (never answered; the agent's guess: “If kwargs values "
                         "are lazy, and we pass a lazy object, maybe it gets double wrapped?”)")
    plain = [(70, "Reading."), (78, "Fails."), (80, "Why was it nested? Unwrapping."),
             (86, "Why was it nested?\n\nThe loop handles both.")]
    assert open_questions(plain)[0].text == "[open question] Why was it nested? (never answered)"


def test_a_final_diff_keeps_the_bracket_its_changes_sit_around_and_marks_other_gaps():
    from compaction.history.sources.final_diff import _changed_lines

    diff = ("diff --git a/h.py b/h.py\n--- a/h.py\n+++ b/h.py\n@@ -285,9 +285,10 @@ def get_pixeldata(ds):\n"
            "     required_elements = [\n-        'Rows', 'PixelRepresentation',\n+        'Rows',\n     ]\n"
            "+    if 'PixelData' in ds:\n+        required_elements.append('PixelRepresentation')\n"
            "     missing = [e for e in required_elements]\n     if missing:\n-        raise A\n+        raise B\n")
    assert _changed_lines(diff) == [
        "# h.py", "@@ line 286 in `get_pixeldata`", "-        'Rows', 'PixelRepresentation',", "+        'Rows',",
        "     ]", "+    if 'PixelData' in ds:", "+        required_elements.append('PixelRepresentation')",
        " …", "-        raise A", "+        raise B"]


def test_advice_to_list_a_folder_names_a_windows_paths_folder():
    from compaction.errors.advice import _folder

    assert _folder(r"C:\Users\me\.agents\skills\apply-grant\SKILL_ROUTER.md") == r"C:\Users\me\.agents\skills\apply-grant"
    assert _folder("/tmp/debug.txt") == "/tmp"
    assert _folder("notes.md") == "."


def test_an_output_too_long_note_then_the_same_command_without_it_is_no_fault_left():
    from tests.unit.test_review9_mends import _record, _Session

    too_long = ("<returncode>1</returncode>\n<warning>\nThe output of your last command was too long.\n"
                "Please try a different command that produces less output.\n</warning>")
    s = _Session()
    s.run("pytest tests/test_transforms.py", too_long, 1)
    s.run("rm new_module.py")
    s.run("pytest tests/test_transforms.py", "1 failed, 68 passed in 9.1s", 1)
    rec = _record(s.transcript(), "ERR_TOOL_OutputTooLong")
    assert rec.solution == "then `pytest tests/test_transforms.py` ran again without the note (r3)"
    s.run("sed -n '1,20p' tests/test_transforms.py", "import pytest\n")
    # the agent's own narrowing, when it came, says more than the rerun
    assert _record(s.transcript(), "ERR_TOOL_OutputTooLong").solution == \
        "then it printed parts only: `sed -n '1,20p' tests/test_transforms.py` (r4)"


def _rules_facts(*msgs):
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.rules import rule_facts
    from compaction.history.steering import role_preset
    from compaction.model import Transcript, group_rounds

    t = Transcript("t.jsonl", "test", list(msgs), group_rounds(list(msgs)))
    return rule_facts(FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds),
                                  target_tokens=1200))


def test_a_skill_read_gets_shorter_forms_and_an_injected_project_document_keeps_its_cut():
    from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult

    sections = "".join(f"\n## Section {k}\n" + "".join(f"- Do not break rule {k}.{i} of the project, ever\n"
                                                      for i in range(6)) for k in range(6))
    injected = Message(0, Role.USER, "# AGENTS.md instructions for /repo\n" + sections, harness=True)
    ask = Message(1, Role.USER, "help me apply for the grant")
    read = ToolCall("shell", {"command": "cat SKILL.md"}, "c1", ToolKind.SHELL, command="cat SKILL.md")
    facts = _rules_facts(injected, ask, Message(2, Role.ASSISTANT, "", tool_calls=[read]),
                         Message(3, Role.TOOL, tool_results=[ToolResult(SKILL * 3, "c1", "shell")]))
    agents = next(f for f in facts if f.text.startswith("AGENTS.md"))
    skill = next(f for f in facts if f.text.startswith("SKILL.md"))
    assert agents.full_text and not agents.forms  # its sections' context lines range over it: cut by lines
    assert skill.full_text and skill.forms


def test_a_plan_in_the_agents_home_folder_is_no_changed_file_to_commit():
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.uncommitted import uncommitted_facts
    from compaction.history.steering import role_preset
    from compaction.model import Message, Role, ToolResult
    from compaction.transcripts._agent_tools import make_call
    from tests.unit.synthetic import steps_transcript

    def edit(cid: str, path: str) -> tuple:
        return make_call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, cid), ToolResult("ok", cid)

    t = steps_transcript("add the cloud link after a sync", edit("p", "/Users/me/.claude/plans/wiggly.md"),
                         Message(0, Role.USER, "No colon after at? Then go on with the run command too."),
                         edit("m", "/Users/me/src/cli/main.go"))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    said = [f.text for f in uncommitted_facts(ctx)]
    assert said == ["No commit made in this session (1 changed file; no git command ran)"], said


def test_a_final_diffs_lines_from_another_definition_say_where_they_are():
    from compaction.edits import Hunk
    from compaction.history.sources.changes import _net_lines

    net = (Hunk((), ("        self.canvas = None", "        self.cids = []"), "DraggableBase"),
           Hunk((), ("    def __setstate__(self, state):", "        self.__dict__.update(state)"), "DraggableBase"),
           Hunk((), ("        if self.canvas is None:", "            return"), "disconnect"))
    shown, _ = _net_lines(net)
    assert "+ if self.canvas is None:  (in `disconnect`)" in shown  # not read as `__setstate__`'s body
    assert not any("(in `DraggableBase`)" in line for line in shown)  # the first definition's lines need no mark


def test_a_push_says_what_it_updated_before_what_the_remote_said():
    from compaction.history.sources.completed import _pushed

    out = ("remote: \nremote: GitHub found 21 vulnerabilities on o/b's default branch (7 high). To find out more, visit:"
           "        \nremote:      https://github.com/o/b/security/dependabot        \nremote: \n"
           "To https://github.com/o/b.git\n   f11a9bd..ec4b1d8  main -> main\n * [new tag]         v0.3.0 -> v0.3.0\n")
    said = _pushed(out)
    assert said.startswith("main (f11a9bd..ec4b1d8), new tag v0.3.0; remote: GitHub found 21 vulnerabilities")
    assert _pushed("To github.com:o/b.git\n + 1a2b3c4...5d6e7f8 fix -> fix (forced update)\n") == "forced fix (1a2b3c4...5d6e7f8)"
    assert _pushed("Everything up-to-date\n") == ""


def test_a_pushs_completed_line_says_the_refs_it_updated():
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.completed import completed_facts
    from compaction.history.steering import role_preset
    from tests.unit.synthetic import shell_rounds

    out = ("remote: \nremote: GitHub found 21 vulnerabilities on o/b's default branch (7 high).\nremote: \n"
           "To https://github.com/o/b.git\n   f11a9bd..ec4b1d8  main -> main\n * [new tag]         v0.3.0 -> v0.3.0\n")
    t = shell_rounds("tag and push the release", ("git push origin main --follow-tags", out))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    line = next(f.text for f in completed_facts(ctx) if "git push" in f.text)
    assert "→ main (f11a9bd..ec4b1d8), new tag v0.3.0; remote: GitHub found 21" in line, line


def test_advice_for_a_compile_error_reruns_the_compiler_the_session_ran():
    from tests.unit.test_review9_mends import _record, _Session

    s = _Session("add the overload")
    s.run("javac -cp core/target/classes -d /home /home/Repro.java",
          "/home/Repro.java:33: error: reference to parseObject is ambiguous\n1 error\n", 1)
    rec = _record(s.transcript(), "ERR_JAVA_CompileError")
    assert rec.avoidance.startswith("re-run `javac -cp core/target/classes -d /home")  # not the build tool's goal
    assert "mvn" not in rec.avoidance


def test_a_javac_ambiguity_says_which_two_declarations_clash():
    out = ("/home/Repro.java:33: error: reference to parseObject is ambiguous\n"
           "            JSON.parseObject(jsonList, listType, null);\n                ^\n"
           "  both method <T#1>parseObject(String,Type,Feature...) in JSON and method <T#2>parseObject(String,Type,Context)"
           " in JSON match\n  where T#1,T#2 are type-variables:\n1 error\n")
    hit = next(h for h in classify(out) if h.id == "ERR_JAVA_CompileError")
    assert hit.detail == ("reference to parseObject is ambiguous: both parseObject(String,Type,Feature...) and "
                          "parseObject(String,Type,Context) match")


def test_an_edit_that_added_a_lines_new_form_beside_its_old_one_is_a_problem_with_its_repair():
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.duplicated_lines import duplicated_line_facts
    from compaction.history.steering import role_preset
    from compaction.model import ToolResult
    from compaction.transcripts._agent_tools import make_call
    from tests.unit.synthetic import steps_transcript

    curly = "Entire is a distinct, “workflow provenance” approach: it optimizes for checkpoints."
    straight = 'Entire is a distinct, "workflow provenance" approach: it optimizes for checkpoints.'

    def edit(cid: str, old: str, new: str) -> tuple:
        return make_call("Edit", {"file_path": "docs/S.md", "old_string": old, "new_string": new}, cid), ToolResult("ok", cid)

    t = steps_transcript("make the summary ASCII only", edit("a", "## Intro", f"## Intro\n{straight}"),
                         edit("b", f"{curly}\n", ""), edit("c", "    indented line of the summary here", "x"))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    (fact,) = duplicated_line_facts(ctx)
    assert fact.text.startswith('`docs/S.md`: the edit of r1 added “Entire is a distinct, "workflow provenance"')
    assert "beside its old form, not in its place; the edit of r2 removed the old one" in fact.text
    # a line re-indented, or removed again as written: no second copy was ever said to stand
    t2 = steps_transcript("tidy", edit("a", "## Intro", f"## Intro\n{straight}"), edit("b", f"  {straight}", ""))
    assert duplicated_line_facts(FactContext(t2, extract_events(t2), [], role_preset("developer"), None,
                                             len(t2.rounds))) == []


def test_a_view_of_another_file_after_a_test_runs_long_output_is_no_narrowing_of_it():
    from tests.unit.test_review9_mends import _record, _Session

    too_long = ("<returncode>1</returncode>\n<warning>\nThe output of your last command was too long.\n"
                "Please try a different command that produces less output.\n</warning>")
    s = _Session()
    s.run("python bin/test sympy/core", too_long, 1)
    s.run("nl -ba sympy/core/basic.py | sed -n '1180,1190p'", "1180  def _has(self):\n")
    assert "printed parts only" not in (_record(s.transcript(), "ERR_TOOL_OutputTooLong").solution or "")
    s = _Session()
    s.run("cat src/big.py", too_long)
    s.run("nl -ba src/big.py | sed -n '120,140p'", "120  def parse(self):\n")
    assert _record(s.transcript(), "ERR_TOOL_OutputTooLong").solution.startswith("then it printed parts only")


def test_a_log_pasted_as_the_whole_request_says_what_it_stopped_on():
    from compaction.history.sources.task import shorten_request

    log = ("20:20:45 [ERROR] [vite] ✗ Build failed in 4.22s\n[vite-plugin-svelte:compile-module] "
           "../dist/hooks/use-snapshot.svelte.js (2:0): /Users/me/dist/hooks/use-snapshot.svelte.js:2:0 Imports of "
           "`svelte/internal/*` are forbidden. If you're importing from it, please open an issue and explain your "
           "use case\nhttps://svelte.dev/e/import_svelte_internal_forbidden\n\n  Stack trace:\n\n"
           " ELIFECYCLE  Command failed with exit code 1.\n")
    said = shorten_request(log, 120)
    assert said.startswith("`use-snapshot.svelte.js (2:0): Imports of 'svelte/internal/*' are forbidden")
    assert said.endswith("(a pasted log)")
    # the user's own words first: their request, not the log's
    assert "pasted log" not in shorten_request("Please fix this build:\n" + log, 120)


def test_advice_for_an_agent_that_ran_no_shell_command_names_no_shell_line():
    from compaction.errors.scan import scan_transcript
    from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

    def session(kind: ToolKind, name: str) -> Transcript:
        read = ToolCall(name, {"path": "docs/GUIDE.md"}, "r1", kind, path="docs/GUIDE.md",
                        command="cat docs/GUIDE.md" if kind is ToolKind.SHELL else None)
        msgs = [Message(0, Role.USER, "fix the guide"), Message(1, Role.ASSISTANT, "", tool_calls=[read]),
                Message(2, Role.TOOL, tool_results=[ToolResult("ls: cannot access 'docs/GUIDE.md': No such file or "
                                                               "directory", "r1", name, is_error=True)])]
        return Transcript("t.md", "test", msgs, group_rounds(msgs))

    no_shell = next(r for r in scan_transcript(session(ToolKind.READ, "read")) if r.id == "ERR_TOOL_FileNotFound")
    assert "`ls" not in no_shell.avoidance and no_shell.avoidance.startswith("list the directory before")
    shell = next(r for r in scan_transcript(session(ToolKind.SHELL, "bash")) if r.id == "ERR_TOOL_FileNotFound")
    assert "(`ls docs`)" in shell.avoidance


def test_a_sentence_that_only_says_the_error_again_is_no_cause():
    from compaction.errors.scan import _restates

    named = frozenset({"indentation", "indent", "unexpected", "error", "query"})
    assert _restates("Yes, the indentation is wrong.", named)
    assert not _restates("The indentation is wrong because the sed inserts shifted the lines below them.", named)
    assert not _restates("Yes, the indentation is wrong.", frozenset())  # nothing known of the error: kept
