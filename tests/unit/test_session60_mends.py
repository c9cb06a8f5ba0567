"""Session 60's mends, each a general rule with the case that showed it."""

from __future__ import annotations

from compaction.history.sources.current import current_work
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult
from tests.unit.test_session59_mends import _context, _ran


def _last_said(msgs: list[Message]) -> str:
    return next(f.text for f in current_work(_context(msgs, "/repo")) if f.text.startswith("Last said"))


def test_a_check_claimed_with_no_tool_run_since_the_request_says_so() -> None:
    """Reader review 59: afi-core's last words "After scanning all provided files under `dist/`, no CommonJS usage
    was found" were quoted as a result, though nothing was searched after the request."""
    claim = "After scanning all provided files under `dist/`, no CommonJS usage was found."
    line = _last_said([Message(0, Role.USER, "fix the build"), *_ran(1, "npm run build", "ok"),
                       Message(0, Role.ASSISTANT, "Fixed."), Message(0, Role.USER, "scan dist/ for CommonJS usage"),
                       Message(0, Role.ASSISTANT, claim)])
    assert line.startswith("Last said (no tool ran since the request): After scanning"), line
    searched = _last_said([Message(0, Role.USER, "scan dist/ for CommonJS usage"),
                           *_ran(1, "grep -rn 'require(' dist", ""), Message(0, Role.ASSISTANT, claim)])
    assert searched.startswith("Last said: After scanning"), searched
    told = _last_said([Message(0, Role.USER, "what does dist/ hold?"),
                       Message(0, Role.ASSISTANT, "The bundled ES modules of the library.")])
    assert told.startswith("Last said: The bundled"), told  # no check claimed
    # code review 25: a reply with calls of its own checked; a check denied is no claim
    grep = ToolCall("bash", {"command": "grep -rn require dist"}, "g1", ToolKind.SHELL, command="grep -rn require dist")
    own = _last_said([Message(0, Role.USER, "scan dist/ for CommonJS usage"), Message(0, Role.ASSISTANT, claim, [grep]),
                      Message(0, Role.TOOL, tool_results=[ToolResult("", "g1", "bash", exit_code=1)])])
    assert own.startswith("Last said: After scanning"), own
    denied = _last_said([Message(0, Role.USER, "is it done?"),
                         Message(0, Role.ASSISTANT, "The edit is in, but I have not yet verified it with the tests.")])
    assert denied.startswith("Last said: The edit is in"), denied


def test_a_pasted_failure_whose_next_paste_is_another_failure_is_not_seen_checked() -> None:
    """Reader review 59: npm-publish's pasted build failure read as solved by the edit after it, though the user's
    next message pasted a lint failure of another command, which shows nothing of the build."""
    from compaction.errors import scan_transcript
    from tests.unit.test_errors_scan import build, tb
    build_log = "pnpm run build\n" + tb("TypeError", 12, "/repo/build.py") + "ELIFECYCLE Command failed.\n"
    lint_log = "pnpm lint\n/repo/pnpm-workspace.yaml:18 error Catalog item is not used\n1 problem\n"
    steps = [("user", "the build fails:\n" + build_log), ("say", "Fixing the build script."), ("edit", "/repo/build.py")]
    (rec,) = [r for r in scan_transcript(build([*steps, ("user", lint_log)])) if r.id == "ERR_PY_TypeError"]
    assert "not seen checked: the user's next message (r2) pasted another failure" in (rec.solution or ""), rec.solution
    (thanked,) = [r for r in scan_transcript(build([*steps, ("user", "great, the build works now. Next: docs")]))
                  if r.id == "ERR_PY_TypeError"]
    assert "not seen checked" not in (thanked.solution or ""), thanked.solution
    # code review 25: a request that speaks of errors over three lines pastes nothing
    asked = "Thanks, that fixed it!\nNow please add error handling to the upload step:\n- retry on network failure\n"
    (confirmed,) = [r for r in scan_transcript(build([*steps, ("user", asked)])) if r.id == "ERR_PY_TypeError"]
    assert "not seen checked" not in (confirmed.solution or ""), confirmed.solution


def test_a_statement_opening_its_paragraph_points_back_at_the_paragraph_before() -> None:
    """Reader review 60: pytest's "This explains why `xdist` only shows the last exception." stood alone; what
    "this" is closed the paragraph before it."""
    from compaction.history.sources.findings import statements

    text = ("It only serializes `reprtraceback`. The `chain` attribute of `ExceptionChainRepr` is ignored.\n\n"
            "This explains why `xdist` only shows the last exception.")
    assert "The `chain` attribute of `ExceptionChainRepr` is ignored. This explains why `xdist` only shows the " \
           "last exception." in [s for s, _ in statements(text)]
    listed = "- The `chain` attribute is ignored\n\nThis explains why `xdist` only shows the last exception."
    assert "This explains why `xdist` only shows the last exception." in [s for s, _ in statements(listed)]
    # code between them parts them (code review 25: the fence, removed before, had left them adjacent)
    coded = "The chain attribute is ignored in serialization.\n\n```python\nx = 1\n```\n\nThis explains why `xdist` drops the chain."
    assert "This explains why `xdist` drops the chain." in [s for s, _ in statements(coded)]


def test_a_carried_summarys_section_the_verbatim_tail_elided_is_still_told() -> None:
    """Reader review 60: pi's own summary stood in the last round, which the verbatim tail shows; the tail elided
    its middle, and its sections were left out as said there."""
    from compaction.history.facts import tail_says
    from compaction.history.sources.carried import _fact, summary_parts

    text = ("## Remaining Work\n- rpc.md: verify against src/modes/rpc/ and check its events\n- custom-tools.md: check "
            "its examples\n\n## User Preferences\n- Verify docs against source code, never assume they are right\n")
    parts = summary_parts(text)
    fact = _fact(parts[0], 220)
    assert fact.quote and fact.quote.startswith("rpc.md: verify against"), fact.quote
    assert tail_says(fact, text) and not tail_says(fact, "## Remaining Work\n[… 68 tokens elided …]\n## User Pref")


def test_the_last_test_run_before_an_unchecked_edit_says_how_it_went() -> None:
    """Reader review 60: bastion's "the last test run was before it (r23: `cargo test …`)" did not say its 66 tests
    passed; a successor read the state of the tests as unknown."""
    from tests.unit.test_session59_mends import _changed

    msgs = [Message(0, Role.USER, "add the policy rules"),
            *_ran(1, "pytest -q tests", "....\n===== 12 passed in 0.31s ====="),
            Message(0, Role.USER, "now bump the version"), *_changed("/repo/setup.py"),
            Message(0, Role.ASSISTANT, "Done.")]
    line = next(f.text for f in current_work(_context(msgs, "/repo")) if f.text.startswith("No test run after"))
    assert "the last test run was before it (r1: `pytest -q tests` → 12 passed)" in line, line


def test_this_means_in_chinese_is_a_cause_cue() -> None:
    """"这意味着"/"这说明" is "this means", a cause cue in English already (tree-vanilla's Chinese account of its
    recurring element error read as no account at all)."""
    from compaction.errors.scan import _states_cause

    assert _states_cause("这意味着 `src/components` 节点在 Shift+ArrowDown 操作后仍然不存在于 DOM 中。")
    assert _states_cause("这说明 `expandedValue` 被重置了。")
    assert not _states_cause("让我查看失败截图的路径。")


def test_a_missed_files_real_place_is_shown_whole_when_it_differs_from_the_path_tried() -> None:
    """Reader review 60: pi-mono's "then the same call on `index.html` succeeded" hid that the file was outside the
    project (`/Users/b/workspaces/site/src/index.html`), where the agent had tried `site/src/index.html` in it."""
    from compaction.errors.records import ErrorRecord, Location, Occurrence
    from compaction.history.sources.problems import record_solution

    occ = Occurrence(round=199, transcript="t", evidence="ENOENT: no such file or directory",
                     location=Location("site/src/index.html", None, None, None))
    rec = ErrorRecord(id="ERR_TOOL_FileNotFound", occurrences=[occ],
                      solution="then the same call on `/Users/b/workspaces/site/src/index.html` succeeded (r202)")
    said = record_solution(rec, "/Users/b/workspaces/project")
    assert "`/Users/b/workspaces/site/src/index.html`" in said, said
    inside = ErrorRecord(id="ERR_TOOL_FileNotFound", occurrences=[occ],
                         solution="then the same call on `/Users/b/workspaces/project/site/src/index.html` succeeded (r9)")
    assert "call on `index.html`" in record_solution(inside, "/Users/b/workspaces/project")  # the same file: its name


def test_a_folder_moved_whole_is_told_as_one_move() -> None:
    """Reader review 60: ai-playbook's commit moved 41 files from `documentation/` to `docs/`; the line named three
    of them, scored as scratch, and was left out: a successor looked for the files where they no longer are."""
    from compaction.history.sources.modified import folder_moves

    moves = [(f"documentation/{d}/{f}.md", f"docs/{d}/{f}.md") for d in ("business", "projects/v1") for f in "abc"]
    moves.append(("notes.txt", "NOTES.md"))
    assert folder_moves(moves) == [("documentation/", "docs/", 6), ("notes.txt", "NOTES.md", 1)]
    # a file alone in its folders' move is its own pair: `src/` → `lib/` would say the whole of `src/` moved
    assert folder_moves([*moves, ("src/util.py", "lib/util.py")])[-1] == ("src/util.py", "lib/util.py", 1)


def test_an_edit_whose_lines_the_users_own_edits_took_out_is_not_kept() -> None:
    """Reader review 59 (high): aider-monochromatic's record listed `itemsFromCurrentIterable.push(item)` as standing;
    the user had rewritten the function (committed before the agent's next edit), the agent re-applied its version,
    and `/undo` took that back. An edit adding the same lines again after the user's commit shows they were gone."""
    from compaction.edits import Hunk
    from compaction.events import Event, EventKind
    from compaction.history.sources.filelog import file_logs

    lines = ("    const items: unknown[] = [];", "        items.push(item);", "    for (const item of items) {")
    f = "src/union.ts"
    first = Event(EventKind.EDIT, 39, 1, path=f, hunks=(Hunk(removed=("    // AI! no await in loop",), added=lines),))
    users = Event(EventKind.COMMIT, 40, 3, path=f, commit_hash="dd581c5")  # logged after the edit it precedes
    again = Event(EventKind.EDIT, 40, 2, path=f, hunks=(Hunk(removed=("  // AI!",), added=lines),))
    (log,) = file_logs([first, again, users], None).values()
    assert log.edits[0].undone == "its lines taken out by the user's own edits (committed r40)", log.edits[0].undone
    (alone,) = file_logs([first, again], None).values()  # no edit of the user's: the agent's own duplicate
    assert alone.edits[0].undone is None


def test_a_pytest_run_that_crashed_in_pytest_says_so_beside_its_counts() -> None:
    """Code review 25 (reader review 60): pytest-5787's `pytest -n 2` runs read "2 failed" for the bug, for an
    xdist crash and for the fix alike; the crash's runs printed INTERNALERROR, first a TypeError, then a worker's
    KeyError."""
    from compaction.events import parse_test_summary

    out = ("INTERNALERROR> Traceback (most recent call last):\nINTERNALERROR>   File \"x.py\", line 3, in f\n"
           "INTERNALERROR> TypeError: type() takes 1 or 3 arguments\nINTERNALERROR> KeyError: <WorkerController gw1>\n"
           "========== 2 failed in 1.20s ==========\n")
    assert parse_test_summary(out) == "2 failed, INTERNALERROR: TypeError: type() takes 1 or 3 arguments"
    assert parse_test_summary("========== 2 failed in 1.20s ==========\n") == "2 failed"


def test_a_substitution_inside_a_line_the_final_diff_does_not_hold_gives_no_reason() -> None:
    """Reader review 60: django's "Why `sql/query.py` changed (edit r55)" quoted the reasoning of
    `sed -i '1073s/type(value)/value/'`, a change to a debug print deleted later; the kept change's reason (r84:
    nested lazy objects, hence `while`) was not told."""
    from compaction.edits import Hunk
    from compaction.events import Event, EventKind
    from compaction.history.sources.reasons import _taken_out

    debug = '        print(f"DEBUG: unwrapped value type: {type(value)}")'
    sub = Event(EventKind.EDIT, 55, 0, path="q.py", hunks=(Hunk(removed=("type(value)",), added=("value",),
                                                                 fragment=True),))
    final = "from django.utils.functional import SimpleLazyObject\nwhile isinstance(value, SimpleLazyObject):"
    assert _taken_out(sub, final, unkept=[debug])
    assert not _taken_out(sub, final, unkept=[])  # the line it changed is not known: too short to judge


def test_a_stop_inside_a_parenthesis_ends_no_sentence_and_a_cut_does_not_leave_one_open() -> None:
    """Pairwise check 60: aider-monochromatic's r46 request read "Add tests for other functions in
    iterables.union.ts (AI!": the "!" of "(an AI! comment in …)" ended a sentence, and the cut left the
    parenthesis open."""
    from compaction.history.condense import telegraph

    asked = "Add tests for other functions in iterables.union.ts (an AI! comment in packages/es/src/union.test.ts)"
    assert telegraph(asked, 60) == "Add tests for other functions in iterables.union.ts…"
    assert telegraph(asked, 200) == asked
    two = "Fix the parser (it breaks on tabs!) in lexer.py. Then run the tests and report the counts back to me"
    assert "(it breaks on tabs!)" in telegraph(two, 90)


def test_a_why_question_answered_in_its_subjects_words_is_no_open_question() -> None:
    """Reader review 60: django's "Why did `params` contain `SimpleLazyObject`? (never answered)" was answered at
    r84 ("This means `value._wrapped` IS `SimpleLazyObject`"): the question's verb is no word an answer repeats."""
    from compaction.history.sources.next_steps import open_questions

    asked = [(1, "Start."), (2, "Looking."), (73, "Why did `params` contain `SimpleLazyObject`? Let me print it."),
             (75, "Why did `params` contain `SimpleLazyObject`? Printing its type.")]
    answer = (84, "So `value` IS `SimpleLazyObject` even after unwrapping! This means `value._wrapped` IS "
                  "`SimpleLazyObject`. This means we have nested `SimpleLazyObject`s.")
    assert open_questions([*asked, answer]) == []
    assert open_questions([*asked, (84, "Printing again.")]) != []  # unanswered: still told
