"""Mends drawn from the twelfth round of blind reader-reviews (the budget's trade-offs: what a full document
spends its room on, and the state and decisions it then lacks), each tested on the shape it fixes."""

from __future__ import annotations

from compaction.errors.shorten import fit
from compaction.events import extract_events
from compaction.history.engine import _shares
from compaction.history.facts import LEFTOVER_PRIORITY, Fact, clean_task
from compaction.history.fold import folded, repeats_collapsed
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.sources.findings import decisive_line
from compaction.history.steering import Steering, role_preset
from compaction.history.tail import TailRenderer, round_pieces
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


def _ctx(t: Transcript, cwd: str | None = None, target: int = 4000) -> FactContext:
    return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=cwd,
                       n_rounds=len(t.rounds), target_tokens=target)


def _sh(command: str, i: int) -> ToolCall:
    return ToolCall("bash", {"command": command}, f"c{i}", ToolKind.SHELL, command=command)


def _session(request: str, steps: list[tuple[str, ToolCall | None, str | None]], *, later: list[str] = (),
             meta: dict | None = None) -> Transcript:
    """(assistant text, its call, the call's output) per step, after one request; `later`: more requests,
    each answered by a short reply."""
    msgs = [Message(0, Role.USER, request)]
    for text, call, output in steps:
        msgs.append(Message(len(msgs), Role.ASSISTANT, text, [call] if call else []))
        if call is not None:
            msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output or "", call.id, call.name,
                                                                               exit_code=0)]))
    for text in later:
        msgs += [Message(len(msgs), Role.USER, text), Message(len(msgs) + 1, Role.ASSISTANT, "Done.")]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    t.meta.update(meta or {})
    return t


# --- the verbatim tail ------------------------------------------------------------------------------------------

def test_a_line_said_again_and_again_in_a_row_is_shown_once_with_its_count() -> None:
    """django r92: Django's test runner printed "Cloning test database for alias 'default'..." once per worker,
    eight times, and "Destroying …" nine: the tail showed all seventeen."""
    log = "\n".join(["Creating test database for alias 'default'...",
                     *["Cloning test database for alias 'default'..."] * 8,
                     "Ran 390 tests in 0.524s", "", "", "OK",
                     *["Destroying test database for alias 'default'..."] * 2])
    shown = folded(log)
    assert "Cloning test database for alias 'default'... [×8]" in shown
    assert shown.count("Cloning") == 1
    assert shown.count("Destroying") == 2  # twice is read as it is
    assert "\n\n\nOK" in shown  # blank lines are no run
    assert repeats_collapsed("a\nb") == "a\nb"


def _round_of(messages: list[Message]) -> list:
    t = Transcript("s.json", "test", messages, group_rounds(messages))
    return t.rounds


def test_a_message_with_no_words_has_no_label_and_the_same_speaker_is_labelled_once() -> None:
    """cloud-sync: a SpecStory export keeps a reasoning-only turn as an empty assistant message, then the
    call: every round of the tail opened with two `**assistant**:` labels, the first over nothing."""
    call = ToolCall("TodoWrite", {"todos": []}, "t1", ToolKind.OTHER)
    rounds = _round_of([Message(0, Role.USER, "Add the deep link"),
                        Message(1, Role.ASSISTANT, ""),
                        Message(2, Role.ASSISTANT, "I'll track the steps.", [call]),
                        Message(3, Role.ASSISTANT, "", [ToolCall("Read", {"file_path": "main.go"}, "r1", ToolKind.READ,
                                                                 path="main.go")])])
    text = "".join(p.render(None) for p in round_pieces(rounds[0], True, Steering()))
    assert text.count("**assistant**") == 1
    assert "I'll track the steps." in text and "→ TodoWrite" in text and "→ Read main.go" in text


def test_an_output_the_tail_shows_again_is_shown_once_the_earlier_pointing_to_the_later() -> None:
    """pi r205 and r208: the same `npm run check` log twice (290 tokens each), but for its timings."""
    log = "\n".join(f"> package {i}: biome check --write . && tsgo --noEmit" for i in range(8))
    outputs = [log + "\nChecked 273 files in 161ms. No fixes applied.",
               log + "\nChecked 273 files in 148ms. No fixes applied."]
    msgs = [Message(0, Role.USER, "run the check")]
    for i, out in enumerate(outputs):
        msgs += [Message(len(msgs), Role.ASSISTANT, "Checking.", [_sh("npm run check", i)]),
                 Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult(out, f"c{i}", "bash", exit_code=0)]),
                 Message(len(msgs) + 2, Role.USER, f"again {i}")]
    rounds = _round_of(msgs)
    renderer = TailRenderer(rounds, True, Steering())
    text, _ = renderer.render(100_000)
    assert text.count("Checked 273 files") == 1 and "148ms" in text
    assert "(the same output as r2, its timings aside)" in text


# --- the task -------------------------------------------------------------------------------------------------

def test_an_issue_templates_hidden_comments_and_empty_form_sections_are_not_the_task() -> None:
    """astropy: at 10% the task was its template's HTML comment ("This comments are hidden when you submit the
    issue…"), the report itself elided; matplotlib's form kept "### Jupyter version\\n\\n_No response_"."""
    task = ("[Bug]: Unable to pickle figure\n<!-- This comments are hidden when you submit the issue,\n"
            "so you do not need to remove them! -->\n### Bug summary\n\nPickling fails.\n\n"
            "### Additional information\n\n_No response_\n\n### Operating system\n\nWindows 10\n\n"
            "### Jupyter version\n\n_No response_\n")
    cleaned = clean_task(task)
    assert "hidden" not in cleaned and "_No response_" not in cleaned
    assert "Additional information" not in cleaned and "Jupyter" not in cleaned
    assert "Pickling fails." in cleaned and "### Operating system\n\nWindows 10" in cleaned
    # a comment inside the user's fenced sample is theirs
    sample = clean_task("Fix the page\n<!-- hidden -->\n```html\n<p>a</p><!-- keep me -->\n```\n")
    assert "keep me" in sample and "hidden" not in sample


# --- the final diff ---------------------------------------------------------------------------------------------

def test_a_long_final_diff_is_offered_whole_for_the_room_every_section_leaves() -> None:
    """sklearn r43: a 58-line final diff was left to the change records (cut to "(… 49 more changed lines)")
    and the tail showed "[final diff printed by the harness]", while deleted scratch scripts filled the room."""
    hunks = "".join(f"@@ -{10 * i},3 +{10 * i},3 @@ def f{i}(x):\n-    return old_{i}(x)\n+    return new_{i}(x, **kw)\n"
                    for i in range(20))
    diff = f"diff --git a/pkg/mod.py b/pkg/mod.py\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n{hunks}"
    msgs = [Message(0, Role.USER, "Fix the dtype handling"),
            Message(1, Role.ASSISTANT, "Submitting.", [_sh("git diff --cached", 0)]),
            Message(2, Role.TOOL, tool_results=[ToolResult(diff, "c0", "bash", exit_code=0)],
                    meta={"final_patch_echo": True})]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    whole = [f for f in gather(_ctx(t)) if f.text.startswith("The final diff the harness printed")]
    assert len(whole) == 1
    f = whole[0]
    assert f.rank() == LEFTOVER_PRIORITY and f.pending and not f.essential
    assert "+    return new_19(x, **kw)" in f.text
    # no section's share serves it: it waits for what is left
    other = Fact(Section.CHANGES, "`pkg/mod.py`: f0 … f19 return new_N(x, **kw)", [2], score=40)
    costs = {id(f): 400, id(other): 30}
    assert _shares([f, other], costs, 1000) == [other]


# --- state at the end -----------------------------------------------------------------------------------------

def test_a_session_with_no_git_command_still_says_it_made_no_commit() -> None:
    """cloud-sync: two requests, main.go changed, no git command at all: nothing said the changes were never
    committed, and a successor reading the change records believed them committed."""
    edit = ToolCall("Edit", {"file_path": "main.go", "old_string": "a", "new_string": "b"}, "e1", ToolKind.EDIT,
                    path="main.go")
    t = _session("Print the project link after sync", [("Editing.", edit, "ok")],
                 later=["Now link the session for `run`"])
    current = [f.text for f in gather(_ctx(t)) if f.section is Section.CURRENT]
    assert any(text.startswith("No commit made in this session (1 changed file; no git command ran)")
               for text in current), current


def test_a_probe_written_outside_the_project_is_not_the_last_edit_of_the_work() -> None:
    """fastjson: the suite passed after the last edit of JSON.java; a probe written in /home beside the project
    was then compiled, and the document said "no test suite run; the last test run was before it"."""
    src = ToolCall("str_replace_editor", {"path": "/repo/core/src/JSON.java", "old_str": "a", "new_str": "b"}, "e1",
                   ToolKind.EDIT, path="/repo/core/src/JSON.java")
    probe = ToolCall("str_replace_editor", {"path": "/home/Repro.java", "file_text": "class Repro {}"}, "e2",
                     ToolKind.WRITE, path="/home/Repro.java")
    msgs = [Message(0, Role.USER, "Add parseObject(String, Type, Context)"),
            Message(1, Role.ASSISTANT, "Editing.", [src]),
            Message(2, Role.TOOL, tool_results=[ToolResult("edited", "e1", "str_replace_editor", exit_code=0)]),
            Message(3, Role.ASSISTANT, "Running the suite.", [_sh("cd /repo && mvn test", 3)]),
            Message(4, Role.TOOL, tool_results=[ToolResult("Tests run: 7308, Failures: 0, Errors: 0, Skipped: 0",
                                                           "c3", "bash", exit_code=0)]),
            Message(5, Role.USER, "Check it from a program of your own"),
            Message(6, Role.ASSISTANT, "A probe.", [probe]),
            Message(7, Role.TOOL, tool_results=[ToolResult("created", "e2", "str_replace_editor", exit_code=0)]),
            Message(8, Role.ASSISTANT, "Compile it.", [_sh("javac -d /home /home/Repro.java && java -cp /home Repro", 5)]),
            Message(9, Role.TOOL, tool_results=[ToolResult("npe-ok", "c5", "bash", exit_code=0)])]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    current = [f.text for f in gather(_ctx(t, cwd="/repo")) if f.section is Section.CURRENT]
    verified = next(text for text in current if "after the last" in text)
    assert verified.startswith("Tests run after the last edit of the work (r1)"), verified
    assert "Tests run: 7308" in verified


def test_a_build_tools_advice_after_its_failure_is_never_the_decisive_line() -> None:
    """fastjson r11: "→ exit 1: [ERROR] [Help 1] http://cwiki.apache.org/…" where Maven had said "You have 28
    Checkstyle violations"; npm's "A complete log of this run can be found in" and Gradle's "Try:" likewise."""
    maven = ("[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-checkstyle-plugin:3.4.0"
             ":check (checkstyle) on project fastjson2: You have 28 Checkstyle violations. -> [Help 1]\n[ERROR] \n"
             "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n"
             "[ERROR] Re-run Maven using the -X switch to enable full debug logging.\n[ERROR] \n"
             "[ERROR] For more information about the errors and possible solutions, please read the following articles:\n"
             "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException")
    assert "28 Checkstyle violations" in decisive_line(maven, True)
    npm = ("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope\n"
           "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log")
    assert decisive_line(npm, True) == "npm error 404 Not Found - GET https://registry.npmjs.org/nope"


def test_a_solution_too_narrow_for_its_change_keeps_the_file_and_round_not_code_fragments() -> None:
    """pydicom at 60 characters: "Solution: edited `numpy_handler.py` (r9): `… 'Columns',…ion',` →…"."""
    text = ("edited `numpy_handler.py` (r9): `'BitsAllocated', 'Rows', 'Columns', 'PixelRepresentation', "
            "'SamplesPerPixel'` → `'BitsAllocated', 'Rows', 'Columns', 'SamplesPerPixel'`")
    short = fit(text, 60)
    assert short == "edited `numpy_handler.py` (r9)"
    assert fit(text, 400) == text  # with room the change is read whole


def test_a_call_that_reads_on_a_running_command_is_not_shown_as_running_it_again() -> None:
    """fastjson r13: OpenHands' `execute_bash {command: "", is_input: true}` waited on r12's `bash /home/run.sh`;
    the tail rendered it "$ bash /home/run.sh", a second run that never happened."""
    call = ToolCall("execute_bash", {"input": ""}, "c2", ToolKind.SHELL, command="bash /home/run.sh")
    call.continues = "c1"
    rounds = _round_of([Message(0, Role.USER, "go on"), Message(1, Role.ASSISTANT, "", [call]),
                        Message(2, Role.TOOL, tool_results=[ToolResult("BUILD SUCCESS", "c2", "execute_bash")])])
    text = "".join(p.render(None) for p in round_pieces(rounds[0], True, Steering()))
    assert "$ bash /home/run.sh" not in text
    assert "(waiting on the output of `bash /home/run.sh`, still running)" in text and "BUILD SUCCESS" in text


def test_a_runners_record_of_the_run_is_not_shown_with_its_output() -> None:
    """git-provenance: every Codex exec output in the tail opened with "Chunk ID: 5b5ee8 / Wall time: 0.0512
    seconds / … / Original token count: 467"; its exit status stays."""
    out = ("Chunk ID: 5b5ee8\nWall time: 0.0512 seconds\nProcess exited with code 0\nOriginal token count: 467\n"
           "Output:\n29:| Intent Git Mode (us) | yes |")
    shown = folded(out)
    assert "Chunk ID" not in shown and "Wall time" not in shown and "Original token count" not in shown
    assert shown.startswith("Process exited with code 0\nOutput:\n29:| Intent Git Mode (us) | yes |")


def test_an_import_line_is_not_among_the_lines_the_agent_read() -> None:
    """sklearn, pi: "What the agent read and learned" listed `from .utils.validation import check_array` and
    `import type { SessionEntry } from "../session-manager.js"` as what a read taught."""
    from compaction.history.sources.evidence import _line

    for raw in ("from .utils.validation import check_array", '  12\timport type { SessionEntry } from "../x.js";',
                "#include <stdio.h> /* io */", "const fs = require('fs');"):
        assert _line((raw, "a.py", 3, frozenset({"check_array", "SessionEntry", "stdio", "fs"}))) is None, raw
    kept = _line(("    est_config = getattr(estimator, '_sklearn_output_config', {})", "a.py", 3,
                  frozenset({"_sklearn_output_config"})))
    assert kept is not None and "getattr(estimator" in kept.text


def test_a_limit_found_later_takes_back_the_choice_it_rules_out() -> None:
    """requests: "If we want to be correct, we should use `idna`" (r26) stood as a decision beside r34's "I cannot
    blindly apply `idna` encoding to everything", the approach the agent then reverted."""
    from compaction.history.sources.decisions import _mark_reversed

    earlier = Fact(Section.DECISIONS, "If we want to be correct, we should use `idna`.", [26], score=42, prose=True)
    later = Fact(Section.DECISIONS, "Limit: `idna` rejects IPv6 literals (brackets). I cannot blindly apply `idna` "
                 "encoding to everything.", [34], score=44, prose=True)
    _mark_reversed([earlier, later])
    assert "(later reversed, r34: Limit: `idna` rejects IPv6" in earlier.text and earlier.score == 36
    assert "later reversed" not in later.text


def test_the_options_an_agent_advised_are_cut_alike_not_dropped_after_the_first() -> None:
    """npm-publish: the record's solution was "advised (r3): 临时绕过：加 `--provenance=false` 重新发布", the first of
    three options; "更稳妥：改一个新的版本号" (bump the version, the one the agent preferred) was dropped as a
    clause that said no fix."""
    text = ("advised (r3): publish again with `--provenance=false` (no tlog entry is written) · bump to a new "
            "version, which writes a new tlog entry · give the UUID `108e9186` to npm support; no fix seen after r1")
    for width in (200, 150, 110):
        short = fit(text, width)
        assert len(short) <= width, (width, short)
        assert short.startswith("advised (r3): publish again") and short.count(" · ") == 2, (width, short)
        assert "bump to a new" in short and "give the UUID" in short, (width, short)


def test_a_labelled_list_shown_in_part_is_outlined_whole() -> None:
    """aider-monochromatic r25: the answer to "What is this general purpose fp lib missing?" was a list of five
    bold-labelled items; the finding kept the first two whole and lost "Maybe/Option type" and "Logic and
    Predicate Combinators (`cond`, `allPass`)"."""
    from compaction.history.sources.findings import informative

    reply = ("This library is quite comprehensive. However, it could include utilities such as:\n\n"
             "-   **Function composition:** A `compose` function (which applies functions from right to left, the "
             "reverse of the existing `pipe`).\n"
             "-   **Object/Record manipulation:** Functions like `pick` (to select a subset of object properties), "
             "`omit` (to exclude properties), `mapValues` (to transform object values).\n"
             "-   **Advanced Array/Iterable operations:** Functions like `zip` (to combine multiple iterables), "
             "`groupBy`, `sortBy`, `difference` (set difference), and `uniq` (to get unique elements).\n"
             "-   **Maybe/Option type:** A dedicated type and associated functions (`map`, `flatMap`, `getOrElse`) "
             "for more robustly handling potentially missing values, complementing the existing `Result` type.\n"
             "-   **Logic and Predicate Combinators:** Utilities like `cond` (a functional switch), `allPass` (checks "
             "if all predicates pass for a given input), and `anyPass` (checks if any predicate passes).\n")
    said = informative([reply], 360)
    assert said is not None and len(said) <= 360
    for label in ("Function composition (`compose`", "Maybe/Option type (`map`", "Logic and Predicate Combinators (`cond`"):
        assert label in said, said
    # a list whose every item is kept whole is read as it is
    short = informative(["Done:\n- **Build:** passes.\n- **Lint:** clean.\n- **Tests:** 12 passed."], 360)
    assert short is not None and "passes" in short and "12 passed" in short


def test_an_open_question_about_a_failure_an_edit_ended_says_the_failure_ended() -> None:
    """pytest r59: "[open question] Why does `cls(**reportdict)` behave like `type(**reportdict)`? (never
    answered)" read as a live bug; the TypeError it asks about never came back after r67's edit."""
    from compaction.errors.records import ErrorRecord, Occurrence
    from compaction.history.sources.next_steps import open_questions

    said = [(10, "Reading the reports."), (20, "Editing."), (30, "Tests run."), (55, "Why does `cls(**reportdict)` behave like `type(**reportdict)`? Odd."),
            (59, "Again: why does `cls(**reportdict)` behave like `type(**reportdict)`?"), (67, "Rewrote it."),
            (68, "It passes now.")]
    rec = ErrorRecord("ERR_PY_TypeError", [Occurrence(60, evidence="    return cls(**reportdict)\n"
                                                      "TypeError: type() takes 1 or 3 arguments",
                                                      detail="TypeError: type() takes 1 or 3 arguments")],
                      solution="edited `src/_pytest/reports.py` (r67): deleted lines 225-312")
    (fact,) = open_questions(said, [rec])
    assert fact.text.endswith("(never answered; the ERR_PY_TypeError it asks about did not come back after the "
                              "edit of r67)"), fact.text
    unfixed = ErrorRecord("ERR_PY_TypeError", rec.occurrences, solution="no fix seen after r60")
    (still,) = open_questions(said, [unfixed])
    assert still.text.endswith("(never answered)")


# --- the code review of this round's change (each defect's triggering input) -----------------------------------

def test_an_outline_keeps_the_verdict_after_its_list_and_leaves_two_lists_and_bare_labels_alone() -> None:
    from compaction.history.sources.findings import informative

    options = ("There are three ways to fix the flaky upload test:\n\n"
               "1. **Retry in the client:** wrap `upload()` in `retry(3)` so a dropped connection is retried; simple "
               "but hides real failures and slows the suite by up to 9 seconds.\n"
               "2. **Mock the storage:** replace `S3Client` with `FakeS3` in `conftest.py`; fast and deterministic, "
               "but no longer tests the real multipart path.\n"
               "3. **Raise the timeout:** set `UPLOAD_TIMEOUT=30` in `settings.py`; the least code, but the flake "
               "returns on slow CI runners.\n\n"
               "I recommend option 2 (`FakeS3`): the multipart path already has its own integration test in "
               "`tests/integration/test_s3.py`, and it removes the flake entirely.")
    said = informative([options], 360)
    assert said is not None and "Raise the timeout" in said and "I recommend option 2" in said, said
    two = ("Here is how they compare.\n\nAdvantages of `zod`:\n- **Type inference:** `z.infer` gives the type.\n"
           "- **Ecosystem:** `tRPC` and `react-hook-form` integrate directly.\n- **Errors:** `ZodError.format()` reads "
           "well.\n\nDisadvantages of `zod`:\n- **Bundle size:** about 57 kB minified, versus 12 kB for `valibot`.\n"
           "- **Speed:** `safeParse` is 3x slower than `valibot` on large arrays.\n"
           "- **Tree shaking:** methods are chained, so unused validators stay in the bundle.\n")
    compared = informative([two], 360)
    assert compared is not None and "57 kB" in compared and "3x slower" in compared, compared


def test_a_fuller_form_cut_to_its_first_lines_closes_the_fence_it_opened() -> None:
    """sphinx at 10%: the long final diff, cut by the filler, left its ```diff open: the rest read as code."""
    from compaction.history.fill import leading_lines

    full = "The final diff the harness printed (r5):\n```diff\n" + "\n".join(f"+ line {i}" for i in range(50)) + "\n```"
    text, _ = leading_lines(full, 60)
    assert text.count("```") == 2 and text.rstrip().endswith("more lines)"), text


def test_an_existing_file_edited_outside_the_project_is_work_not_a_probe() -> None:
    edit = ToolCall("str_replace_editor", {"path": "/proj/backend/api.py", "old_str": "a", "new_str": "b"}, "e1",
                    ToolKind.EDIT, path="/proj/backend/api.py")
    front = ToolCall("str_replace_editor", {"path": "/proj/frontend/App.tsx", "old_str": "a", "new_str": "b"}, "e2",
                     ToolKind.EDIT, path="/proj/frontend/App.tsx")
    msgs = [Message(0, Role.USER, "Rename the field"), Message(1, Role.ASSISTANT, "Editing.", [edit]),
            Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e1", "e", exit_code=0)]),
            Message(3, Role.ASSISTANT, "Tests.", [_sh("pytest", 3)]),
            Message(4, Role.TOOL, tool_results=[ToolResult("5 passed", "c3", "bash", exit_code=0)]),
            Message(5, Role.USER, "and the frontend"), Message(6, Role.ASSISTANT, "Editing.", [front]),
            Message(7, Role.TOOL, tool_results=[ToolResult("ok", "e2", "e", exit_code=0)])]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    current = [f.text for f in gather(_ctx(t, cwd="/proj/backend")) if f.section is Section.CURRENT]
    state = next(text for text in current if "after the last" in text)
    assert state.startswith("No test run after the last edit (r3)"), state  # the frontend's edit, after the tests


def test_advice_is_kept_in_a_fit_but_is_no_fix_for_the_next_steps() -> None:
    from compaction.errors.budget import teaches
    from compaction.errors.records import ErrorRecord

    text = "advised (r3): bump the version · publish with `--provenance=false`; no fix seen after r1"
    assert fit(text, 70).startswith("advised (r3): bump")
    assert not teaches(ErrorRecord("ERR_X", [], solution=text))


def test_a_comment_the_user_quoted_as_code_or_left_open_is_theirs_and_the_template_is_no_constraint() -> None:
    from compaction.template_noise import without_template_noise

    assert without_template_noise("Add `<!-- more -->` to posts") == "Add `<!-- more -->` to posts"
    assert without_template_noise("a <!-- open b <!-- x --> c") == "a <!-- open b  c"
    t = _session("Fix it\n<!-- Please do not remove them! You must not skip the checklist -->\nThe page breaks.",
                 [("Looking.", None, None)])
    constraints = [e.text for e in extract_events(t) if e.kind.value == "constraint"]
    assert not any("remove them" in c or "checklist" in c for c in constraints), constraints


def test_outputs_that_differ_in_status_or_in_what_a_benchmark_measured_are_both_shown() -> None:
    def session(outputs: list[tuple[str, int]]) -> str:
        msgs = [Message(0, Role.USER, "run")]
        for i, (out, code) in enumerate(outputs):
            msgs += [Message(len(msgs), Role.ASSISTANT, "Running.", [_sh("make bench", i)]),
                     Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult(out, f"c{i}", "bash", exit_code=code)]),
                     Message(len(msgs) + 2, Role.USER, f"again {i}")]
        text, _ = TailRenderer(_round_of(msgs), True, Steering()).render(100_000)
        return text

    body = "\n".join(f"case {i}: parse the fixture and check the result" for i in range(8))
    assert "same output" not in session([(body + "\nparse: 812 ms", 0), (body + "\nparse: 95 ms", 0)])
    assert "same output" not in session([(body + "\nRan 3 tests in 0.5s", 1), (body + "\nRan 3 tests in 0.4s", 0)])


def test_a_limit_asked_about_or_qualified_reverses_nothing() -> None:
    from compaction.history.sources.decisions import _mark_reversed

    earlier = Fact(Section.DECISIONS, "Use `functools.lru_cache` for the lookups.", [3], score=42, prose=True)
    asked = Fact(Section.DECISIONS, "Why can't I use `functools.lru_cache` here?", [5], score=40, prose=True)
    _mark_reversed([earlier, asked])
    assert "reversed" not in earlier.text


def test_a_git_command_that_failed_still_shows_git_is_there() -> None:
    from compaction.history.sources.uncommitted import uncommitted_facts

    edit = ToolCall("Edit", {"file_path": "main.go", "old_string": "a", "new_string": "b"}, "e1", ToolKind.EDIT,
                    path="main.go")
    t = _session("Print the link", [("Editing.", edit, "ok")], later=["commit it"])
    t.messages.insert(len(t.messages), Message(len(t.messages), Role.ASSISTANT, "Committing.",
                                               [_sh("git commit -am 'link'", 9)]))
    t.messages.append(Message(len(t.messages), Role.TOOL,
                              tool_results=[ToolResult("fatal: not a git repository", "c9", "bash", exit_code=128)]))
    t = Transcript("s.json", "test", t.messages, group_rounds(t.messages))
    (fact,) = uncommitted_facts(_ctx(t))
    assert fact.text.startswith("Not committed: no commit in this session"), fact.text


def test_repeated_lines_a_reader_may_copy_and_a_programs_own_wall_time_stay() -> None:
    assert folded("+\n+\n+\n+ x") == "+\n+\n+\n+ x"  # a diff's added blank lines
    assert folded("0,0\n0,0\n0,0") == "0,0\n0,0\n0,0"  # a data row
    assert folded("Wall time: 3.1 s\nresult: 42") == "Wall time: 3.1 s\nresult: 42"  # Jupyter's %time


def test_a_users_message_with_no_words_keeps_its_label_and_a_note_quotes_any_command() -> None:
    from compaction.mdsafe import inline_code as _code

    rounds = _round_of([Message(0, Role.USER, "", meta={"images": 1}), Message(1, Role.ASSISTANT, "I see a chart.")])
    text = "".join(p.render(None) for p in round_pieces(rounds[0], True, Steering()))
    assert "**user**" in text
    assert _code("echo `a` && x") == "`` echo `a` && x ``" and _code("a``b") == "``` a``b ```"


def test_a_text_ending_with_a_fence_takes_its_round_on_a_line_of_its_own() -> None:
    from compaction.history.engine import _render

    task = Fact(Section.GOAL, "What is this?\n\n```\nnpm error code E409\n```", [1], task=True, essential=True)
    md = _render("en", "# Compacted conversation\n", [task], "", "", "", 99, 1)
    assert "```\n  (r1)" in md and "``` (r1)" not in md


def test_a_users_fenced_sample_keeps_its_tags_while_the_harness_wrapper_goes() -> None:
    """A task's fenced HTML sample lost its `<div>`s: any tag closed in the task read as a harness's markup."""
    task = "<issue>The card overflows:\n```html\n<div class=\"card\"><span>x</span></div>\n```\nSee above.</issue>"
    cleaned = clean_task(task)
    assert '<div class="card"><span>x</span></div>' in cleaned
    assert "<issue>" not in cleaned and "</issue>" not in cleaned and "See above." in cleaned


def test_every_test_command_run_after_the_last_edit_is_told_not_only_the_last() -> None:
    """pytest-5787: `testing/test_reports.py` → 14 passed checked the change; a later run of another module's
    suite (`testing/logging/test_reporting.py` → 39 passed) stood for it alone; a run of the reproduction the
    session then deleted checks no work."""
    src = ToolCall("str_replace_editor", {"path": "/repo/src/reports.py", "old_str": "a", "new_str": "b"}, "e1",
                   ToolKind.EDIT, path="/repo/src/reports.py")
    runs = [("pytest testing/test_reports.py", "==== 14 passed in 0.50s ====", 0),
            ("pytest -n 2 reproduce_issue.py", "==== 2 failed in 0.90s ====", 1),
            ("pytest testing/logging/test_reporting.py", "==== 39 passed in 1.20s ====", 0)]
    msgs = [Message(0, Role.USER, "Fix the chained exception serialization"),
            Message(1, Role.ASSISTANT, "A reproduction.", [ToolCall(
                "str_replace_editor", {"path": "/repo/reproduce_issue.py", "file_text": "def test_a(): raise ValueError"},
                "w0", ToolKind.WRITE, path="/repo/reproduce_issue.py")]),
            Message(2, Role.TOOL, tool_results=[ToolResult("created", "w0", "str_replace_editor", exit_code=0)]),
            Message(3, Role.ASSISTANT, "Editing.", [src]),
            Message(4, Role.TOOL, tool_results=[ToolResult("edited", "e1", "str_replace_editor", exit_code=0)])]
    for i, (command, out, code) in enumerate(runs):
        msgs += [Message(5 + 2 * i, Role.ASSISTANT, "Running.", [_sh(command, i)]),
                 Message(6 + 2 * i, Role.TOOL, tool_results=[ToolResult(out, f"c{i}", "bash", exit_code=code)])]
    msgs += [Message(20, Role.ASSISTANT, "Cleaning up.", [_sh("rm reproduce_issue.py", 9)]),
             Message(21, Role.TOOL, tool_results=[ToolResult("", "c9", "bash", exit_code=0)])]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    current = [f.text for f in gather(_ctx(t, cwd="/repo")) if f.section is Section.CURRENT]
    verified = next(text for text in current if text.startswith("Tests run after"))
    assert "`pytest testing/test_reports.py` → 14 passed" in verified, verified
    assert "`pytest testing/logging/test_reporting.py` → 39 passed" in verified, verified
    assert "reproduce_issue.py" not in verified, verified


def test_neighbouring_last_calls_that_came_to_the_same_say_it_once() -> None:
    from compaction.history.sources.current import _shared_status
    said = ["`bash x.sh .` (no result seen; with `sandbox_permissions: require_escalated`)",
            "`cat package.json` (no result seen; no `sandbox_permissions`)",
            "`git log --oneline -20` (no result seen; no `sandbox_permissions`)", "`ls` (exit 0)",
            "`git remote -v` (no result seen; no `sandbox_permissions`)"]
    assert _shared_status(said) == [
        said[0], "`cat package.json`, `git log --oneline -20` (no result seen; no `sandbox_permissions`)", "`ls` (exit 0)",
        said[4]]  # only neighbours: the order of the calls stays


def test_test_commands_after_the_last_edit_are_told_in_the_order_they_last_ran() -> None:
    src = ToolCall("str_replace_editor", {"path": "/repo/src/a.py", "old_str": "a", "new_str": "b"}, "e1",
                   ToolKind.EDIT, path="/repo/src/a.py")
    msgs = [Message(0, Role.USER, "fix a"), Message(1, Role.ASSISTANT, "Editing.", [src]),
            Message(2, Role.TOOL, tool_results=[ToolResult("edited", "e1", "str_replace_editor", exit_code=0)])]
    for i, (command, out) in enumerate([("pytest tests/test_a.py", "==== 1 failed, 3 passed in 0.1s ===="),
                                        ("pytest tests/test_b.py", "==== 5 passed in 0.1s ===="),
                                        ("pytest tests/test_a.py", "==== 4 passed in 0.1s ====")]):
        msgs += [Message(3 + 2 * i, Role.ASSISTANT, "Running.", [_sh(command, i)]),
                 Message(4 + 2 * i, Role.TOOL, tool_results=[ToolResult(out, f"c{i}", "bash", exit_code=0)])]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    current = [f.text for f in gather(_ctx(t, cwd="/repo")) if f.section is Section.CURRENT]
    verified = next(text for text in current if text.startswith("Tests run after"))
    assert verified.index("test_b.py") < verified.index("test_a.py` → 4 passed"), verified


def test_the_verified_line_has_the_last_run_alone_as_its_short_form_and_names_repeated_failures_once() -> None:
    src = ToolCall("str_replace_editor", {"path": "/repo/src/a.py", "old_str": "a", "new_str": "b"}, "e1",
                   ToolKind.EDIT, path="/repo/src/a.py")
    msgs = [Message(0, Role.USER, "fix a"), Message(1, Role.ASSISTANT, "Editing.", [src]),
            Message(2, Role.TOOL, tool_results=[ToolResult("edited", "e1", "str_replace_editor", exit_code=0)])]
    out = "FAILED tests/test_a.py::test_one - assert 1 == 2\n==== 1 failed, 3 passed in 0.1s ===="
    for i, command in enumerate(["pytest tests/test_a.py", "pytest tests/ -x", "pytest tests/test_b.py"]):
        msgs += [Message(3 + 2 * i, Role.ASSISTANT, "Running.", [_sh(command, i)]),
                 Message(4 + 2 * i, Role.TOOL, tool_results=[ToolResult(out, f"c{i}", "bash", exit_code=1)])]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    fact = next(f for f in gather(_ctx(t, cwd="/repo")) if f.text.startswith("Tests run after"))
    assert fact.text.count("test_one") == 1, fact.text
    assert fact.short and fact.short.startswith("Tests run after the last edit (r1): `pytest tests/test_b.py` → "), fact.short
    assert "test_a.py`" not in fact.short


def test_a_project_test_named_like_a_deleted_scratch_file_elsewhere_still_verifies() -> None:
    src = ToolCall("str_replace_editor", {"path": "/repo/src/a.py", "old_str": "a", "new_str": "b"}, "e1",
                   ToolKind.EDIT, path="/repo/src/a.py")
    scratch = ToolCall("str_replace_editor", {"path": "/repo/tmpcheck/test_fix.py", "file_text": "def test(): pass"},
                       "w1", ToolKind.WRITE, path="/repo/tmpcheck/test_fix.py")
    msgs = [Message(0, Role.USER, "fix a"), Message(1, Role.ASSISTANT, "Scratch.", [scratch]),
            Message(2, Role.TOOL, tool_results=[ToolResult("created", "w1", "str_replace_editor", exit_code=0)]),
            Message(3, Role.ASSISTANT, "Editing.", [src]),
            Message(4, Role.TOOL, tool_results=[ToolResult("edited", "e1", "str_replace_editor", exit_code=0)]),
            Message(5, Role.ASSISTANT, "Running.", [_sh("pytest tests/test_fix.py", 1)]),
            Message(6, Role.TOOL, tool_results=[ToolResult("==== 2 passed in 0.1s ====", "c1", "bash", exit_code=0)]),
            Message(7, Role.ASSISTANT, "Running.", [_sh("pytest tests/test_other.py", 3)]),
            Message(8, Role.TOOL, tool_results=[ToolResult("==== 1 passed in 0.1s ====", "c3", "bash", exit_code=0)]),
            Message(9, Role.ASSISTANT, "Cleaning.", [_sh("rm tmpcheck/test_fix.py", 2)]),
            Message(10, Role.TOOL, tool_results=[ToolResult("", "c2", "bash", exit_code=0)])]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    fact = next(f for f in gather(_ctx(t, cwd="/repo")) if f.text.startswith("Tests run after"))
    assert "`pytest tests/test_fix.py` → 2 passed" in fact.text, fact.text
