"""What five blind readers of 10% hand-overs found misleading (session 42): aider's report of one
failed SEARCH/REPLACE block hid the blocks it applied, and a file the session read whole and then
wrote whole was told by every definition it already had."""

from __future__ import annotations

from pathlib import Path

from compaction.events import Event, EventKind, extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.transcripts import aider


def _transcript(msgs: list[Message]) -> Transcript:
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def _call(msgs: list[Message], call: ToolCall, output: str, *, code: int | None = 0) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[call]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, call.id, call.name, exit_code=code)]))


def _shell(msgs: list[Message], cid: str, command: str, output: str) -> None:
    _call(msgs, ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command), output)


def _facts(t: Transcript) -> list:
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=4000)
    return gather(ctx)


AIDER_PARTIAL = """# aider chat started at 2025-07-22 17:40:00

#### rename PoIValidator to SignalScorer in the invoker and the test

cli_hooks/invoker.ts
```typescript
<<<<<<< SEARCH
import { PoIValidator } from './PoIValidator';
=======
import { SignalScorer } from '../validators/SignalScorer';
>>>>>>> REPLACE
```

tests/poi.test.ts
```typescript
<<<<<<< SEARCH
import { PoIValidator } from '../validators/PoIValidator';
=======
import { SignalScorer } from '../validators/SignalScorer';
>>>>>>> REPLACE
```

> Tokens: 11k sent, 338 received.
> The LLM did not conform to the edit format.
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in cli_hooks/invoker.ts
<<<<<<< SEARCH
import { PoIValidator } from './PoIValidator';
=======
import { SignalScorer } from '../validators/SignalScorer';
>>>>>>> REPLACE

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc

# The other 1 SEARCH/REPLACE block were applied successfully.
Don't re-send them.
Just reply with fixed versions of the block above that failed to match.

> Commit 7f1724d refactor: update references from PoIValidator to SignalScorer in tests
"""


def test_aiders_report_of_one_failed_block_leaves_the_blocks_it_applied_as_edits(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(AIDER_PARTIAL, encoding="utf-8")
    edits = [e for e in extract_events(aider.load(str(path))) if e.kind is EventKind.EDIT]
    assert {(e.path, e.failed) for e in edits} == {("cli_hooks/invoker.ts", True), ("tests/poi.test.ts", False)}


OLD_MODULE = "\n".join([
    "from functools import wraps", "", "",
    "def _wrap_in_pandas_container(data, *, columns, index=None):",
    "    pd = check_pandas_support('Setting output container to \"pandas\"')",
    "    return pd.DataFrame(data, index=index, columns=columns)", "", "",
    "def _get_output_config(method, estimator=None):",
    "    est_config = getattr(estimator, '_sklearn_output_config', {})",
    "    return {'dense': est_config.get(method, 'default')}", "", "",
    "def _safe_set_output(estimator, *, transform=None):",
    "    return estimator.set_output(transform=transform)",
])


def test_a_file_read_whole_then_written_whole_is_told_by_what_the_rewrite_changed() -> None:
    new_module = OLD_MODULE.replace("index=None):", "index=None, dtypes=None):").replace(
        "    return pd.DataFrame(data, index=index, columns=columns)",
        "    df = pd.DataFrame(data, index=index, columns=columns)\n    return df.astype(dtypes) if dtypes else df")
    msgs = [Message(0, Role.USER, "preserve dtypes in the pandas output")]
    _shell(msgs, "r", "cat sklearn/utils/_set_output.py", OLD_MODULE)
    _shell(msgs, "w", f"cat <<'EOF' > sklearn/utils/_set_output.py\n{new_module}\nEOF", "")
    record = next(f for f in _facts(_transcript(msgs)) if f.section is Section.CHANGES)
    text = record.full_text or record.text
    assert "by writing the whole file" in record.text, record.text
    assert "astype" in text and "dtypes" in text, text
    assert "adds" not in record.text and "+ df.astype" in record.text, record.text  # untouched: not told as added


def _edit(msgs: list[Message], cid: str, path: str, old: str, new: str) -> None:
    _call(msgs, ToolCall("str_replace", {"path": path, "old_str": old, "new_str": new}, cid, ToolKind.EDIT, path=path),
          "The file has been edited.")


def test_an_edit_whose_new_text_is_its_old_one_is_no_change() -> None:
    msgs = [Message(0, Role.USER, "confirm the declarations export every validator")]
    _edit(msgs, "a", "dist/validators/index.d.ts", "export * from './a.js';\n", "export * from './a.js';\n")
    t = _transcript(msgs)
    modified = [f.text for f in _facts(t) if f.section is Section.MODIFIED]
    assert modified == ["`dist/validators/index.d.ts`: edited to no effect (its text as it was) (r1)"]
    assert not [f for f in _facts(t) if f.section is Section.CHANGES]


def test_touching_a_file_the_session_already_wrote_changes_nothing() -> None:
    msgs = [Message(0, Role.USER, "scaffold the DAGs")]
    _call(msgs, ToolCall("write", {"path": "dist/dags/index.js", "content": "export * from './dag.js';\n"}, "w",
                         ToolKind.WRITE, path="dist/dags/index.js"), "File created.")
    _shell(msgs, "t", "mkdir -p dist/dags && touch dist/dags/index.js dist/dags/other.js", "")
    writes = [(e.path, e.round) for e in extract_events(_transcript(msgs)) if e.kind is EventKind.WRITE]
    assert writes == [("dist/dags/index.js", 1), ("dist/dags/other.js", 2)]  # the new, empty file is one


def test_a_write_the_export_kept_no_path_of_is_named_by_the_agents_account_of_new_files() -> None:
    msgs = [Message(0, Role.USER, "document the human roles")]
    msgs.append(Message(1, Role.ASSISTANT, "## Changes complete\n\n### **New documentation**\n\n"
                        "**`docs/playbook/human-roles.md`** includes:\n- Role breakdown\n\nUpdated `README.md`.",
                        tool_calls=[ToolCall("write", {}, "w", ToolKind.WRITE)]))
    msgs.append(Message(2, Role.TOOL, tool_results=[ToolResult("", "w", "write")]))
    writes = [(e.path, e.inferred) for e in extract_events(_transcript(msgs)) if e.kind is EventKind.WRITE]
    assert writes == [("docs/playbook/human-roles.md", True)]  # README.md is not presented as new


def test_a_checklist_item_a_later_request_took_up_says_so() -> None:
    msgs = [Message(0, Role.USER, "audit the repository and give a checklist"),
            Message(1, Role.ASSISTANT, "## Final checklist\n\n- [ ] **DAG stubs**: only a placeholder exists.\n"
                                       "- [ ] **Documentation**: no README.\n"),
            Message(2, Role.USER, "DAG scaffolding for the core\n\nCreate dist/dags/index.js with a minimal DAG stub.")]
    nexts = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.NEXT]
    dag = next(t for t in nexts if "DAG stubs" in t)
    assert "then r2: “DAG scaffolding for the core”" in dag, nexts
    assert not any("then r" in t for t in nexts if "Documentation" in t)


VIEW = "\n".join(f"{n:>6}\t{text}" for n, text in [
    (1046, "        self : estimator instance"), (1047, "            Estimator instance."), (1048, '        """'),
    (1049, "        super().set_output(transform=transform)"), (1050, "        for _, step, _ in self._iter():")])


def test_a_line_addressed_substitution_whose_line_held_no_such_text_changed_nothing() -> None:
    msgs = [Message(0, Role.USER, "forward kwargs in FeatureUnion.set_output")]
    _shell(msgs, "v", "nl -ba sklearn/pipeline.py | sed -n '1046,1050p'", VIEW)
    _shell(msgs, "s", "sed -i '1048s/super().set_output(transform=transform)/super().set_output(transform=transform, "
                      "**kwargs)/' sklearn/pipeline.py && sed -i '1049s/transform=transform)/transform=transform, x)/' "
                      "sklearn/pipeline.py", "")
    edits = [e for e in extract_events(_transcript(msgs)) if e.kind is EventKind.EDIT]
    assert [(e.missed, [h.context for h in e.hunks]) for e in edits] == [(1, ["line 1049"])]  # 1048 is the `"""`
    done = next(f.text for f in _facts(_transcript(msgs)) if f.section is Section.COMPLETED and "sed -i" in f.text)
    assert "1 of 2 substitutions changed nothing" in done, done
    # (session 43) which one, by its line and pattern; (session 52) with what that line held: the address was off
    assert "(no such text on their lines: line 1048 holds `\"\"\"`, not `super().set_output(transform=transform)`)" \
        in done, done


def test_a_substitution_a_later_view_shows_without_its_text_changed_nothing() -> None:
    msgs = [Message(0, Role.USER, "silence the warning in _has_matcher")]
    _shell(msgs, "s", "sed -i '1187s/return arg == self/return False/' sympy/core/basic.py", "")
    _shell(msgs, "v", "nl -ba sympy/core/basic.py | sed -n '1185,1188p'",
           "  1185\t        \"\"\"Helper for .has()\"\"\"\n  1186\t        return self.__eq__\n  1187\n"
           "  1188\t    def replace(self, query, value):")
    edit = next(e for e in extract_events(_transcript(msgs)) if e.kind is EventKind.EDIT)
    assert edit.unchanged and not edit.hunks
    modified = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.MODIFIED]
    assert modified == ["`sympy/core/basic.py`: edited to no effect (its text as it was) (r1)"], modified


def test_running_the_sessions_own_script_that_rewrites_a_file_is_the_edit_a_fix_credits() -> None:
    from compaction.errors import scan_transcript

    script = ("with open('lib/offsetbox.py') as f:\n    lines = f.readlines()\n"
              "lines.insert(10, '    def connect(self):\\n')\n"
              "with open('lib/offsetbox.py', 'w') as f:\n    f.writelines(lines)\n")
    msgs = [Message(0, Role.USER, "make the draggable legend picklable")]
    _shell(msgs, "a", "python reproduce.py", "Traceback (most recent call last):\n  File \"reproduce.py\", line 1, in <module>\n"
                                           "ImportError: cannot import name 'DraggableOffsetBox' from 'lib.offsetbox'")
    _shell(msgs, "b", "ls", "lib\nreproduce.py")
    _shell(msgs, "c", f"cat <<'EOF' > update_offsetbox.py\n{script}EOF", "")
    _shell(msgs, "d", "python update_offsetbox.py", "")
    _shell(msgs, "e", "python reproduce.py", "Pickled OK")
    rec = next(r for r in scan_transcript(_transcript(msgs)) if "ImportError" in r.id)
    assert rec.solution and "(r4)" in rec.solution and "passed (r5)" in rec.solution, rec.solution


def test_a_target_bugs_end_is_the_first_clean_reproduction_after_the_last_edit() -> None:
    from compaction.errors import scan_transcript
    from compaction.errors.scan import _repro_passed

    msgs = [Message(0, Role.USER, "set_output should preserve dtypes: the float16 column comes back float64")]
    _shell(msgs, "a", "python reproduction_script.py",
           "Traceback (most recent call last):\n  File \"reproduction_script.py\", line 9, in <module>\n"
           "AssertionError: Column petal has dtype float64, expected float16")
    _edit(msgs, "b", "sklearn/utils/_set_output.py", "def _wrap(data, columns):", "def _wrap(data, columns, dtypes=None):")
    _shell(msgs, "c", "python reproduction_script_v2.py", "petal    float16\nOK: dtypes preserved")
    _shell(msgs, "d", "python reproduction_script_default.py", "petal    float64\nOK: the default is unchanged")
    t = _transcript(msgs)
    rec = next(r for r in scan_transcript(t) if r.target_bug)
    assert _repro_passed(t, rec).startswith("then the reproduction `python reproduction_script_v2.py` ran clean (r3)")


def test_failures_the_session_caused_inside_a_pre_existing_record_are_told_gone() -> None:
    """mini-sympy: test_leadterm (r94-r122) was the session's own failure; the record said all of it pre-existing."""
    from compaction.errors import scan_transcript

    def failing(*tests: str) -> str:
        heads = "".join(f"___ {t} ___\nE   AssertionError: assert 2 == 3\n" for t in tests)
        tails = "".join(f"FAILED tests/test_expr.py::{t} - AssertionError: assert 2 == 3\n" for t in tests)
        return f"{heads}{tails}{len(tests)} failed, 3 passed in 0.1s"

    msgs = [Message(0, Role.USER, "return NotImplemented from __eq__")]
    _edit(msgs, "e", "sympy/core/basic.py", "return False", "return NotImplemented")
    _shell(msgs, "a", "pytest sympy/core/tests/test_expr.py", failing("test_action_verbs"))
    _shell(msgs, "b", "git stash && pytest sympy/core/tests/test_expr.py; git stash pop", failing("test_action_verbs"))
    _edit(msgs, "f", "sympy/core/numbers.py", "raise TypeError", "return NotImplemented")
    _shell(msgs, "c", "pytest sympy/core/tests/test_expr.py", failing("test_action_verbs", "test_leadterm"))
    _edit(msgs, "g", "sympy/core/basic.py", "return self.__eq__", "return lambda arg: arg == self")
    _shell(msgs, "d", "pytest sympy/core/tests/test_expr.py", failing("test_action_verbs"))
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_AssertionError")
    assert "the session's own failures (`test_leadterm`, r5) no longer failed at r7" in rec.solution, rec.solution


def test_an_edit_whose_export_kept_only_the_text_after_it_says_what_that_text_holds_not_what_it_added() -> None:
    """Copilot's applyPatch in SpecStory shows the whole file after the patch: its first lines are no additions."""
    msgs = [Message(0, Role.USER, "fix the unused catalog entries")]
    after = "```yaml\ncatalogMode: prefer\ncleanupUnusedCatalogs: true\n\npackages:\n  - packages/*\n```"
    _call(msgs, ToolCall("copilot_applyPatch", {"path": "pnpm-workspace.yaml"}, "p", ToolKind.EDIT,
                         path="pnpm-workspace.yaml"), after)
    facts = _facts(_transcript(msgs))
    said = " ".join(f.full_text or f.text for f in facts if f.section in (Section.MODIFIED, Section.CHANGES))
    assert "its text after the edit holds" in said and "(the old text not shown)" in said, said
    assert "+ " not in said and "catalogMode: prefer'" not in said, said


def test_an_error_a_one_line_script_raised_inside_a_library_is_a_probe_not_a_failure_to_fix() -> None:
    from compaction.errors import scan_transcript

    trace = ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
             '  File "/opt/env/lib/python3.9/site-packages/idna/core.py", line 277, in check_label\n'
             "idna.core.InvalidCodepoint: Codepoint U+002A at position 1 of '*' not allowed")
    own = ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
           '  File "/testbed/requests/models.py", line 401, in prepare_url\n'
           "requests.exceptions.InvalidURL: URL has an invalid label.")
    msgs = [Message(0, Role.USER, "reject URLs with an empty label")]
    _call(msgs, ToolCall("bash", {"command": (a := "python3 -c \"import idna; idna.encode('*')\"")}, "a", ToolKind.SHELL,
                         a), trace, code=1)
    _call(msgs, ToolCall("bash", {"command": (b := "python3 -c \"import requests; requests.get('http://.a')\"")}, "b",
                         ToolKind.SHELL, b), own, code=1)
    _shell(msgs, "c", "ls", "requests")
    solutions = {r.id: r.solution for r in scan_transcript(_transcript(msgs))}
    assert "a probe of a library" in solutions["ERR_PY_InvalidCodepoint"]
    assert not any("probe" in (s or "") for i, s in solutions.items() if i != "ERR_PY_InvalidCodepoint"), solutions


def test_the_agent_planning_its_reply_is_no_reason_for_an_edit() -> None:
    from compaction.history.sources.reasons import _REPLY_PLAN_RE

    assert _REPLY_PLAN_RE.match("I'll explain the resolved error and summarize key changes like the alias in `x.js`")
    assert _REPLY_PLAN_RE.match("Let me briefly summarize what `compile-runes.mjs` now does")
    assert not _REPLY_PLAN_RE.match("I'll rename the `$` alias because vite-plugin-svelte reserves it")


def test_an_error_a_command_printed_on_its_way_to_ending_well_says_it_went_on() -> None:
    from compaction.errors import scan_transcript

    msgs = [Message(0, Role.USER, "create a pull request of this branch")]
    _call(msgs, ToolCall("bash", {"command": (c := 'gh pr create --title "Playbook" --body "Adds `docs/playbook/`"')},
                         "a", ToolKind.SHELL, c),
          "(eval):1: permission denied: docs/playbook/\nhttps://github.com/o/r/pull/22", code=None)
    _shell(msgs, "b", "git status", "On branch feature")
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_TOOL_BacktickSubstitution")
    assert "the command itself went on and ended with `https://github.com/o/r/pull/22` (r1)" in rec.solution, rec.solution
    # (session 43) what it wrote lacks the word the shell ran: the PR's body is damaged
    assert ", but the text it wrote lacks `docs/playbook/` (the shell ran it as a command)" in rec.solution
    # (session 45) and nothing later mended it
    assert rec.solution.endswith("no later command mended that text (`gh pr edit`, `git commit --amend`): it stands so")


def test_the_agents_last_words_in_the_last_round_are_cut_last() -> None:
    from compaction.history.steering import Steering
    from compaction.history.tail import TailRenderer

    report = "## Changes complete\n\n" + "\n".join(f"- updated rule {i} with its human roles" for i in range(120))
    msgs = [Message(0, Role.USER, "make these changes")]
    _call(msgs, ToolCall("search_replace", {"path": "a.md", "old_string": "x", "new_string": "y"}, "a", ToolKind.EDIT,
                         path="a.md"), "\n".join(f"context line {i} of the edited rule file" for i in range(300)))
    msgs.append(Message(len(msgs), Role.ASSISTANT, report))
    text, _ = TailRenderer(_transcript(msgs).rounds, True, Steering()).render(1200)
    assert "updated rule 119 with its human roles" in text and "updated rule 60 " in text, text[-600:]


def test_a_line_range_edit_is_the_diff_with_the_lines_the_last_numbered_view_showed() -> None:
    from compaction.errors import scan_transcript

    view = "\n".join(f"{n}:{text}" for n, text in [
        (286, "    # Check required elements"), (287, "    required_elements = ["),
        (288, "        'BitsAllocated', 'PixelRepresentation',"), (289, "    ]")])
    new = "    required_elements = [\n        'BitsAllocated',\n    ]\n    if 'PixelData' in ds:\n" \
          "        required_elements.append('PixelRepresentation')"
    msgs = [Message(0, Role.USER, "PixelRepresentation is only required for PixelData")]
    _shell(msgs, "x", "python reproduce.py", 'Traceback (most recent call last):\n  File "/repo/numpy_handler.py", '
           "line 293, in get_pixeldata\nAttributeError: Unable to convert: missing PixelRepresentation")
    _call(msgs, ToolCall("open", {"path": "numpy_handler.py", "line": "287"}, "o", ToolKind.READ, path="numpy_handler.py"),
          f"[File: /repo/numpy_handler.py (372 lines total)]\n{view}")
    _call(msgs, ToolCall("edit", {"start": 287, "end": 289, "replacement": new}, "e", ToolKind.EDIT,
                         path="numpy_handler.py"), "File updated.")
    edit = next(e for e in extract_events(_transcript(msgs)) if e.kind is EventKind.EDIT)
    assert [ln.strip() for h in edit.hunks for ln in h.removed] == ["'BitsAllocated', 'PixelRepresentation',"]
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_AttributeError")
    assert "`'BitsAllocated', 'PixelRepresentation',` → `'BitsAllocated',`" in rec.solution, rec.solution


def test_a_failure_the_agent_judged_not_its_doing_says_so_firm_words_first() -> None:
    from compaction.errors import scan_transcript

    failing = ("___ test_icrs_cirs ___\nE   TypeError: unsupported operand type(s) for -: 'Time' and 'float'\n"
               "FAILED t.py::test_icrs_cirs - TypeError: unsupported operand\n1 failed, 68 passed in 3s")
    msgs = [Message(0, Role.USER, "add a direct ITRS to observed transform")]
    _call(msgs, ToolCall("bash", {"command": "pytest t.py"}, "a", ToolKind.SHELL, "pytest t.py"), failing, code=1)
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Wait, `test_icrs_cirs` failure might be pre-existing."))
    _call(msgs, ToolCall("bash", {"command": "pytest t.py -k icrs"}, "b", ToolKind.SHELL, "pytest t.py -k icrs"), failing,
          code=1)
    msgs.append(Message(len(msgs), Role.ASSISTANT, "THOUGHT: `test_icrs_cirs` fails even without my changes. Moving on."))
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_TypeError")
    assert rec.solution == "not the session's doing, per the agent (r3): “`test_icrs_cirs` fails even without my changes.”", \
        rec.solution


def test_a_rerun_that_printed_a_caught_traceback_and_exited_0_did_not_pass() -> None:
    from compaction.errors import scan_transcript

    msgs = [Message(0, Role.USER, "filtering on a SimpleLazyObject crashes")]
    _call(msgs, ToolCall("bash", {"command": "python reproduce_issue.py"}, "a", ToolKind.SHELL, "python reproduce_issue.py"),
          'Traceback (most recent call last):\n  File "reproduce_issue.py", line 30, in <module>\n'
          "django.db.utils.OperationalError: no such table: __main___account", code=1)
    _edit(msgs, "b", "reproduce_issue.py", "call_command('migrate')", "schema_editor.create_model(Account)")
    _call(msgs, ToolCall("bash", {"command": "python reproduce_issue.py"}, "c", ToolKind.SHELL, "python reproduce_issue.py"),
          'Caught exception:\nTraceback (most recent call last):\n  File "/testbed/django/db/backends/utils.py", line 84\n'
          "django.db.utils.InterfaceError: Error binding parameter 0 - probably unsupported type.", code=0)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_OperationalError")
    assert "then `python reproduce_issue.py` failed differently (r3)" in rec.solution, rec.solution


def test_an_edit_refused_for_old_text_copied_with_the_tools_margin_marks_says_so() -> None:
    from compaction.errors import scan_transcript

    msgs = [Message(0, Role.USER, "add the missing TSDoc")]
    for cid in ("a", "b"):
        _call(msgs, ToolCall("str_replace", {"path": "src/x.ts", "old_str": "│export function x() {\n█// AI! add TSDoc",
                                             "new_str": "/** x */\nexport function x() {"}, cid, ToolKind.EDIT,
                             path="src/x.ts"), "No replacement was performed, old_str did not appear verbatim in src/x.ts.", code=1)
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_TOOL_EditNotFound")
    assert "copied with the tool's margin marks (`│`, `█`)" in rec.solution and "(r1, r2)" in rec.solution, rec.solution


def test_a_plans_checks_say_whether_the_session_ran_them() -> None:
    plan = ("# Plan: Add a promotional link after cloud sync\n\n## Code change\nAdd after `fmt.Println()` at line 1896 "
            "of `main.go`\n\n## Verification\n1. Run `go build -o specstory`\n2. Run linter: `golangci-lint run`\n")
    msgs = [Message(0, Role.USER, "add a link after the cloud sync summary"), Message(1, Role.ASSISTANT, plan),
            Message(2, Role.USER, "approved")]
    _edit(msgs, "e", "main.go", "fmt.Println()", "fmt.Println()\nfmt.Println(link)")
    _shell(msgs, "l", "golangci-lint run ./...", "0 issues.")
    plan_fact = next(f for f in _facts(_transcript(msgs)) if f.text.startswith("Plan"))
    text = plan_fact.full_text or plan_fact.text
    assert "Run `go build -o specstory` (not run)" in text and "`golangci-lint run` (ran r" in text, text


def test_a_failure_that_came_back_the_same_way_after_edits_tells_the_attempts() -> None:
    from compaction.errors import scan_transcript

    fail = ("___ test_shift ___\nE   Error: Cannot find element with locator: [data-value='src/components']\n"
            "FAILED tree.spec.ts::test_shift - Error: Cannot find element\n1 failed, 38 passed in 2s")
    msgs = [Message(0, Role.USER, "make the tree tests pass")]
    _call(msgs, ToolCall("bash", {"command": "pnpm vitest tree"}, "a", ToolKind.SHELL, "pnpm vitest tree"), fail, code=1)
    _edit(msgs, "b", "test/tree.spec.ts", "await focusBranch('src')", "await waitFor(() => getBranch('src/components'))")
    _call(msgs, ToolCall("bash", {"command": "pnpm vitest tree"}, "c", ToolKind.SHELL, "pnpm vitest tree"), fail, code=1)
    _edit(msgs, "d", "test/tree.spec.ts", "await waitFor(() => getBranch('src/components'))", "await expandAll()")
    _call(msgs, ToolCall("bash", {"command": "pnpm vitest tree"}, "e", ToolKind.SHELL, "pnpm vitest tree"), fail, code=1)
    _shell(msgs, "f", "git status", "On branch main")
    rec = next(r for r in scan_transcript(_transcript(msgs)) if "Cannot find element" in (r.occurrences[-1].detail or ""))
    assert "tried before: edited `test/tree.spec.ts` (r2)" in rec.solution and "failed again (r3)" in rec.solution, \
        rec.solution


def test_a_finding_the_user_challenged_next_says_so() -> None:
    from compaction.history.sources.findings import _CHALLENGE_RE

    assert _CHALLENGE_RE.match("my dude, how can you say things look up-to-date if you haven't checked the source code")
    assert _CHALLENGE_RE.match("No, that's wrong: the keypair is in .dockerignore")
    assert not _CHALLENGE_RE.match("now check the rpc docs too")
    msgs = [Message(0, Role.USER, "review the docs"),
            Message(1, Role.ASSISTANT, "Findings: the problem is that `docs/rpc.md` looks up to date, since it was "
                                       "rewritten last week."),
            Message(2, Role.USER, "how can you say rpc.md is up to date if you haven't checked the source code?")]
    said = " ".join(f.full_text or f.text for f in _facts(_transcript(msgs)) if "rpc.md" in f.text and "user disputed" in
                    (f.full_text or f.text))
    assert "the user disputed it (r2): “how can you say rpc.md is up to date" in said, said


def _sed_missed(*commands: tuple[str, str]) -> list[tuple[int, bool, int]]:
    msgs = [Message(0, Role.USER, "rename foo")]
    for i, (cmd, out) in enumerate(commands):
        _shell(msgs, f"c{i}", cmd, out)
    return [(e.round, e.unchanged, e.missed) for e in extract_events(_transcript(msgs))
            if e.kind is EventKind.EDIT and e.via_shell]


NUMBERED = "\n".join(f"{n:>6}\t{t}" for n, t in [(9, "def f(x):"), (10, "    return foo(x)"), (11, "")])


def test_substitutions_are_judged_only_against_views_that_hold() -> None:
    # a view printed in the same line as the edit is from before it
    assert _sed_missed(("cat -n a.py && sed -i '10s/foo/bar/' a.py", NUMBERED)) == [(1, False, 0)]
    # a range printed through `cat -n` is numbered from 1, not by the file's lines
    assert _sed_missed(("sed -n '8,11p' a.py | cat -n", "     1\tx = 1\n     2\timport os\n     3\t\n"),
                       ("sed -i '2s/import os/import sys/' a.py", "")) == [(2, False, 0)]
    # a bare name is any folder's file
    assert _sed_missed(("cat -n pkg_b/__init__.py", NUMBERED),
                       ("cd pkg_a && sed -i '10s/other/thing/' __init__.py", "")) == [(2, False, 0)]
    # a script's writes between the edit and the view: the view no longer shows the edit's line as it left it
    assert _sed_missed(("sed -i '10s/foo/bar/' a.py", ""), ("python3 - <<'EOF'\nopen('a.py','w').write('x')\nEOF", ""),
                       ("cat -n a.py", NUMBERED)) == [(1, False, 0)]
    # a deletion before the substitution in one line moves the lines: not judged
    assert _sed_missed(("cat -n a.py", NUMBERED), ("sed -i '5d' a.py && sed -i '9s/foo/bar/' a.py", "")) \
        == [(2, False, 0)]
    # extended regexes, the I flag: not judged
    for script in ("sed -i -E '10s/(foo|baz)/bar/' a.py", "sed -i '10s/FOO/bar/I' a.py"):
        assert _sed_missed(("cat -n a.py", NUMBERED), (script, "")) == [(2, False, 0)], script
    # two commands in one script are two substitutions (session 49: read apart, no longer as one whose
    # replacement held the second), each judged: line 10 holds no `zzz`
    assert _sed_missed(("cat -n a.py", NUMBERED), ("sed -i '10s/zzz/bar/;15s/foo/bar/' a.py", "")) == [(2, False, 1)]
    # and a plain miss still is one
    assert _sed_missed(("cat -n a.py", NUMBERED), ("sed -i '10s/zzz/bar/' a.py", "")) == [(2, True, 1)]


def test_a_substitution_that_changed_nothing_is_no_fix_the_error_memory_credits() -> None:
    from compaction.history import errors_adapter

    fail = "___ test_f ___\nE   AssertionError: assert 'foo' == 'bar'\nFAILED t.py::test_f - AssertionError\n1 failed in 0.1s"
    msgs = [Message(0, Role.USER, "f should return bar")]
    _call(msgs, ToolCall("bash", {"command": "pytest t.py"}, "a", ToolKind.SHELL, "pytest t.py"), fail, code=1)
    _shell(msgs, "v", "cat -n a.py", NUMBERED)
    _shell(msgs, "s", "sed -i '10s/zzz/bar/' a.py", "")
    _call(msgs, ToolCall("bash", {"command": "pytest t.py"}, "b", ToolKind.SHELL, "pytest t.py"), "1 passed in 0.1s", code=0)
    t = _transcript(msgs)
    records, _ = errors_adapter.scan(t, extract_events(t))
    rec = next(r for r in records if r.id == "ERR_PY_AssertionError")
    assert "zzz" not in rec.solution, rec.solution


def test_code_review_cases_of_the_new_rules_do_not_misfire() -> None:
    from compaction.errors import scan_transcript
    from compaction.events import _CommandState, _named_after
    from compaction.history.sources.next_steps import _later_words, _taken_up_later

    # a path-less write is named by the file the text says the new text went in, not by dotted code or a file
    # it only points to
    msgs = [Message(0, Role.USER, "document it"),
            Message(1, Role.ASSISTANT, "I added a call to `os.path.join` and a new Contributing section to `README.md` that "
                                       "points readers to `CONTRIBUTING.md`.", tool_calls=[ToolCall("write", {}, "w", ToolKind.WRITE)]),
            Message(2, Role.TOOL, tool_results=[ToolResult("", "w", "write")])]
    t = _transcript(msgs)
    events: list = []
    _named_after(events, t.rounds[0], [(1, 1)], _CommandState())
    assert [e.path for e in events] == ["README.md"]  # the file the new section went in
    # `touch f && gen > f` writes f all the same
    msgs = [Message(0, Role.USER, "regenerate the config")]
    _shell(msgs, "r", "cat config.json", "{}")
    _shell(msgs, "w", "touch config.json && python gen_config.py > config.json", "")
    assert [e.path for e in extract_events(_transcript(msgs)) if e.kind is EventKind.WRITE] == ["config.json"]
    # an error raised in the one-liner itself is no probe of a library
    msgs = [Message(0, Role.USER, "parse the header")]
    _call(msgs, ToolCall("bash", {"command": (c := 'python -c "from mylib.utils import parse_header"')}, "a",
                         ToolKind.SHELL, c),
          'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
          "ImportError: cannot import name 'parse_header' from 'mylib.utils'", code=1)
    _shell(msgs, "b", "ls", "mylib")
    assert not any("probe" in (r.solution or "") for r in scan_transcript(_transcript(msgs)))
    # a run that printed an exception with no exit status did not "go on"
    msgs = [Message(0, Role.USER, "fix the lookup")]
    _call(msgs, ToolCall("bash", {"command": "python run.py"}, "a", ToolKind.SHELL, "python run.py"),
          "loading\nKeyError: 'k'", code=None)
    _shell(msgs, "b", "ls", "run.py")
    assert not any("went on" in (r.solution or "") for r in scan_transcript(_transcript(msgs)))
    # a one-word label names too little to say a later request took the item up
    item = Event(EventKind.TODO, 1, 1, text="**Tests**: none written yet")
    later = _later_words([Event(EventKind.REQUEST, 5, 9, text="The tests pass on my machine, please just update the README.")])
    assert _taken_up_later(item, later) == ""


def test_an_avoidance_drops_a_further_step_with_a_checker_the_session_never_used() -> None:
    from compaction.errors import scan_transcript
    from compaction.errors.scan import unused_checkers_dropped

    never, always = (lambda name: False), (lambda name: True)
    advice = "check the attribute exists (`hasattr`/`getattr(obj, name, None)`) or type-check with `mypy a.py`"
    assert unused_checkers_dropped(advice, never) == "check the attribute exists (`hasattr`/`getattr(obj, name, None)`)"
    assert unused_checkers_dropped(advice, always) == advice
    assert unused_checkers_dropped("run `python -m py_compile a.py` (or `ruff check` rule E999) after every edit", never) \
        == "run `python -m py_compile a.py` after every edit"
    msgs = [Message(0, Role.USER, "fix the sum")]
    _call(msgs, ToolCall("bash", {"command": "python run.py"}, "a", ToolKind.SHELL, "python run.py"),
          'Traceback (most recent call last):\n  File "run.py", line 3, in <module>\n'
          "TypeError: unsupported operand type(s) for +: 'int' and 'str'", code=1)
    _shell(msgs, "b", "ls", "run.py")
    rec = next(r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_TypeError")
    assert "mypy" not in rec.avoidance, rec.avoidance


def test_a_judgement_is_read_as_its_whole_sentence_not_cut_at_a_file_names_dot() -> None:
    from compaction.errors.scan import _not_ours_sentences

    msgs = [Message(0, Role.USER, "fix the URL check"),
            Message(1, Role.ASSISTANT, "Ran the suite. The failure `tests/test_requests.py::test_bad_url` is "
                                       "unrelated to my changes. Moving on.")]
    assert _not_ours_sentences(_transcript(msgs)) == [
        (1, "The failure `tests/test_requests.py::test_bad_url` is unrelated to my changes.")]


def test_the_user_quitting_after_the_last_reply_is_told() -> None:
    from compaction.history.sources.current import _user_left

    msgs = [Message(0, Role.USER, "add the link"), Message(1, Role.ASSISTANT, "Done: the link is printed after sync."),
            Message(2, Role.USER, "<command-name>/exit</command-name>\n<command-message>exit</command-message>"),
            Message(3, Role.USER, "<local-command-stdout>Goodbye!</local-command-stdout>")]
    assert _user_left(_transcript(msgs).rounds) == (2, "/exit")
    msgs.append(Message(4, Role.ASSISTANT, "Anything else?"))
    assert _user_left(_transcript(msgs).rounds) is None


def test_second_code_review_cases_do_not_misfire() -> None:
    from compaction.errors.advice import _test_name
    from compaction.errors.scan import _not_ours_sentences

    view = "\n".join(f"{n:>6}\t{t}" for n, t in [(1, "import os"), (2, "y = Foo(1)"), (3, "z = 2")])
    # an edit under the absolute spelling forgets the bare name's view
    msgs = [Message(0, Role.USER, "compute y")]
    _shell(msgs, "v", "cat -n app.py", view)
    _call(msgs, ToolCall("Edit", {"file_path": "/repo/app.py", "old_string": "y = Foo(1)", "new_string": "y = compute()"},
                         "e", ToolKind.EDIT, path="/repo/app.py"), "ok")
    _shell(msgs, "s", "sed -i '2s/compute()/compute(2)/' app.py", "")
    assert [e.missed for e in extract_events(_transcript(msgs)) if e.via_shell and e.kind is EventKind.EDIT] == [0]
    # an I flag after another delimiter, GNU word boundaries, two substitutions on one line, a plain `nl`: not judged
    for script, out in (("sed -i '2s|foo|bar|I' app.py", view), ("sed -i '2s/\\<foo\\>/bar/' app.py", view),
                        ("sed -i -e '2s/Foo/Bar/' -e '2s/Bar/Baz/' app.py", view)):
        assert _sed_missed(("cat -n app.py", out), (script, "")) == [(2, False, 0)], script
    assert _sed_missed(("nl app.py", "     1\tx\n\n     2\ty = 1\n"), ("sed -i '3s/y = 1/y = 2/' app.py", "")) \
        == [(2, False, 0)]
    # parametrised test ids keep their parameters whole
    assert _test_name("t.py::test_cmp[1 > 0]") == "test_cmp[1 > 0]"
    # "not caused by my change" is a judgement; "let me check whether" is not
    msgs = [Message(0, Role.USER, "x"), Message(1, Role.ASSISTANT, "The failure of test_dates is not caused by my change. "
                                                                   "Let me check whether test_parse fails without my changes.")]
    assert [s for _, s in _not_ours_sentences(_transcript(msgs))] == ["The failure of test_dates is not caused by my change."]
