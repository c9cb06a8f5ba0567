"""Session 61's mends: an edit that changed a string inside a line (a path, a key, a message) says the
string's change, not only the names the line swapped."""

from __future__ import annotations

from compaction.edits import swapped_literals
from compaction.events import extract_events
from compaction.history.facts import Fact
from compaction.history.sources import FactContext
from compaction.history.sources.changes import records
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolResult, Transcript
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript

BUILD = """import path from 'node:path'

const distDir = path.resolve(__dirname, '../dist')
const clientDistDir = path.resolve(distDir, 'client')

async function ensureClientDist() {
  await cp(distDir, clientDistDir, { recursive: true })
}
"""


def _records(*steps: Message | tuple[ToolCall, ToolResult | None]) -> dict[str, Fact]:
    t: Transcript = steps_transcript("build the client bundle", *steps)
    return records(FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds)))


def _edit(cid: str, path: str, old: str, new: str) -> tuple[ToolCall, ToolResult]:
    return make_call("Edit", {"file_path": path, "old_string": old, "new_string": new}, cid), ToolResult("ok", cid)


def test_a_path_changed_inside_a_line_is_said_beside_the_names_it_swapped():
    fact = _records((make_call("Write", {"file_path": "scripts/build.mjs", "content": BUILD}, "w"), ToolResult("ok", "w")),
                    _edit("e", "scripts/build.mjs", "const clientDistDir = path.resolve(distDir, 'client')",
                          "const clientDistDir = path.resolve(__dirname, '../dist-client')"))["scripts/build.mjs"]
    assert "distDir → __dirname" in fact.text
    assert "'client' → '../dist-client'" in fact.text  # where the output now goes: the names alone do not say


def test_strings_of_lines_not_alike_are_two_changes_not_one_swapped():
    gone, new = swapped_literals(["throw new Error('DAG signalProcessing not yet implemented')"],
                                 ["export * from './dags/index.js'"])
    assert (gone, new) == ([], [])
    gone, new = swapped_literals(['print("Usage: tool <image_path>")', "x = 1"],
                                 ['print("Usage: tool <image_path> <output_file>")', 'open(out, "w")'])
    assert (gone, new) == (['"Usage: tool <image_path>"'], ['"Usage: tool <image_path> <output_file>"'])


def test_a_module_path_that_follows_a_renamed_name_is_not_said_twice():
    old = "import { PoIValidator } from '../validators/PoIValidator';\nPoIValidator.evaluate(x);\n"
    fact = _records((make_call("Write", {"file_path": "t.test.ts", "content": old}, "w"), ToolResult("ok", "w")),
                    _edit("e", "t.test.ts", old, old.replace("PoIValidator", "SignalScorer")))["t.test.ts"]
    assert "PoIValidator → SignalScorer" in fact.text
    assert "'../validators/PoIValidator' →" not in (fact.full_text or fact.text).replace("`", "")


def test_a_string_swapped_alone_ranks_after_an_edit_that_added_a_definition():
    fact = _records(_edit("a", "Bar.swift", "func title() -> String {",
                          "func showRecovery(url: URL) {\n    open(url)\n}\n\nfunc title() -> String {"),
                    _edit("b", "Bar.swift", '    return "App v1"', '    return "Renamed v1"'))["Bar.swift"]
    line = fact.text
    assert "showRecovery" in line  # the feature the session added leads the file's line
    assert '"App v1" → "Renamed v1"' not in line or line.index("showRecovery") < line.index('"App v1"')


def test_a_long_paste_in_the_task_gives_way_before_the_projects_rules(shared_transcripts) -> None:
    """mini-requests-5414 at 10%: the PR's forty lines of `python -m requests.help` versions took the room the
    harness's boundaries (DO NOT MODIFY: Tests, …) needed; trimmed first, the rules are shown."""
    from compaction import tokens
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "mini-requests-5414.traj.json"))
    md = compact(t, target_tokens=int(tokens.count_messages(t.messages) * 0.10)).markdown
    assert "lines of pasted code trimmed" in md
    assert '"openssl_version": "1010104f"' not in md
    assert "DO NOT MODIFY: Tests" in md
    assert "https://github.com/psf/requests/blob/" in md  # the PR's own words all kept


def test_a_long_paste_comes_back_whole_when_the_budget_holds_it() -> None:
    from compaction.history import compact

    report = "\n".join(f'  "pkg{i}": {{"version": "1.{i}.0"}},' for i in range(40))
    request = f"Getting http://.example.com raises UnicodeError.\n\n```\n{{\n{report}\n}}\n```\n\nPlease fix it."
    t = steps_transcript(request, _edit("e", "requests/models.py", "raise UnicodeError", "raise InvalidURL"))
    md = compact(t, target_tokens=5000).markdown
    assert '"pkg39": {"version": "1.39.0"}' in md and "trimmed" not in md


def test_a_harness_boundary_the_rules_show_is_not_a_decision_again(shared_transcripts) -> None:
    """mini-sympy-13091 at 10%: "DO NOT MODIFY: Tests, configuration files" was under Project rules and again as
    the first of the key decisions."""
    from compaction import tokens
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "mini-sympy-13091.traj.json"))
    md = compact(t, target_tokens=int(tokens.count_messages(t.messages) * 0.10)).markdown
    assert "## Project rules" in md
    assert md.count("DO NOT MODIFY: Tests, configuration files") == 1


def test_strings_of_two_statements_alike_are_not_one_line_changed() -> None:
    """destyler-tree-vanilla r4 dropped one helper and rewrote another: their selectors' lines look alike, but
    one returned and the other assigned; "\\"branch\\" → \\"branch-control\\"" said a selector changed that never did."""
    gone, new = swapped_literals(
        ['  return getRequiredElement<HTMLElement>(`[data-part="branch"][data-value="${value}"]`)'],
        ['  const el = document.querySelector<HTMLElement>(`[data-part="branch-control"][data-value="${value}"]`)'])
    assert (gone, new) == ([], [])


def test_now_that_keeps_its_now() -> None:
    from compaction.history.telegraph import telegraphic

    assert telegraphic("Now that the issue is resolved, we can clean up.").startswith("Now that the issue")
    assert telegraphic("So far the tests pass.") == "So far the tests pass."
    assert telegraphic("Perfect! Now let me check the file.") == "Check the file."


def test_a_compaction_of_this_sessions_rounds_is_not_an_earlier_sessions(shared_transcripts) -> None:
    """pi compacts in place: pi-mono's compaction entry, written after r220, summarizes r1-r167 of this very
    session; its sections read as "Earlier session's summary" (reader review 61)."""
    from compaction.history.sources.carried import carried_facts
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "more-agents" / "pi-mono-compaction-session.jsonl"))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    texts = [f.text for f in carried_facts(ctx)]
    assert texts and all(x.startswith("The harness's summary of r1-r167") for x in texts), texts[:2]


def test_a_summary_the_user_pastes_is_still_an_earlier_sessions() -> None:
    from compaction.history.sources.carried import carried_facts

    summary = "\n".join(["Summary of the work so far", "", "## Next Steps"]
                        + [f"- step {i}: migrate module_{i}.py to the new config loader" for i in range(30)]
                        + ["", "## Decisions"] + [f"- keep option_{i} for compatibility" for i in range(30)])
    t = steps_transcript(summary, Message(0, Role.ASSISTANT, "I'll continue with step 0."))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=300)
    texts = [f.text for f in carried_facts(ctx)]
    assert texts and all(x.startswith("Earlier session's summary") for x in texts), texts[:2]


def test_a_new_file_in_the_submission_the_session_wrote_and_ran_is_said_so() -> None:
    """mini-sympy: `reproduce_ne.py`, written at r34 and run at r35 as a check, was left in the submitted patch;
    the document said "most likely a scratch file" from its name alone (reader review 61)."""
    from compaction.history.sources.current import _submitted_files

    echo = Message(0, Role.TOOL, "diff --git a/reproduce_ne.py b/reproduce_ne.py\nnew file mode 100644\n"
                                 "diff --git a/sympy/core/basic.py b/sympy/core/basic.py\nindex 1..2 100644\n",
                   meta={"final_patch_echo": True})
    said = _submitted_files([echo], {"reproduce_ne.py", "sympy/core/basic.py"}, {"reproduce_issue.py"},
                            {"reproduce_ne.py"})
    assert said == "new `reproduce_ne.py` (a script the session wrote and ran, not removed), `sympy/core/basic.py`"
    guessed = _submitted_files([echo], {"reproduce_ne.py", "sympy/core/basic.py"}, {"reproduce_issue.py"})
    assert "most likely a scratch file left in" in guessed


def test_a_sympy_failure_says_the_exception_its_block_ends_on() -> None:
    """mini-sympy r94: `bin/test` failed `test_leadterm` on "DeprecationWarning: NotImplemented should not be used in a
    boolean context"; the record said only the block's rule, "____ …test_expr.py:test_leadterm ____"."""
    from compaction.errors.classify import classify

    out = ("sympy/core/tests/test_expr.py[94] ..E.E   [FAIL]\n\n" + "_" * 80 + "\n"
           "_________________ sympy/core/tests/test_expr.py:test_leadterm __________________\n"
           '  File "/testbed/sympy/core/tests/test_expr.py", line 248, in test_leadterm\n'
           "    assert (3 + 2*x).leadterm(x) == (3, 0)\n"
           "DeprecationWarning: NotImplemented should not be used in a boolean context\n"
           "_____________ sympy/core/tests/test_expr.py:test_eval_interval_zoo _____________\n"
           '  File "/testbed/sympy/core/tests/test_expr.py", line 1467, in test_eval_interval_zoo\n'
           "    assert Si(1/x) == 1\n"
           "AssertionError\n\n"
           "tests finished: 80 passed, 2 exceptions, in 3.2 seconds\n")
    details = [h.detail for h in classify(out) if h.id == "ERR_LOGIC_TestFailed"]
    assert "sympy/core/tests/test_expr.py:test_leadterm: DeprecationWarning: NotImplemented should not be used " \
           "in a boolean context" in details, details
    assert "sympy/core/tests/test_expr.py:test_eval_interval_zoo: AssertionError" in details, details


def test_a_vitest_failure_says_the_test_files_line_it_failed_at() -> None:
    """destyler-tree-vanilla: the Shift+ArrowDown test failed at `tree.spec.ts:360`, then `:371`, `:373`, `:374` as its
    body changed: each time its last assertion; the record named the file only (reader review 61)."""
    from compaction.errors.classify import classify

    out = (" FAIL   browser (chromium)  packages/components/tree/test/tree.spec.ts > tree > keyboard > extends down\n"
           "VitestBrowserElementError: Cannot find element with locator: locator('[data-value=\"src/components\"]')\n\n"
           + "<div>\n" * 200 +
           " ❯ seeBranchIsSelected packages/components/tree/test/tree.spec.ts:102:38\n"
           "    102|   await expect.element(branchControl).toHaveAttribute('data-selected', '')\n"
           " ❯ packages/components/tree/test/tree.spec.ts:360:12\n\n"
           "Caused by: Error: Matcher did not succeed in time.\n")
    hits = [h for h in classify(out) if h.id in ("ERR_LOGIC_TestFailed", "ERR_JS_VitestBrowserElementError")]
    assert hits and all(h.line == 360 for h in hits), [(h.id, h.line) for h in hits]
