"""Mends of session 59: each tested on the shape a reader found misleading (the document's line, then what the
session showed)."""

from __future__ import annotations

from compaction.history import compact
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

_OLD = "    it('extends the selection', async () => {\n      await expandAll()\n      await select('src')\n    })"
_NEW = ("    it('extends the selection', async () => {\n      // src/components is expanded by default\n"
        "      await focusBranch('src')\n      await select('src')\n      await seeSelected('src/components')\n    })")


def _session(after: list[tuple[str, str, int]]) -> Transcript:
    """A test file written, one of its tests rewritten by an old/new edit, then the given shell runs."""
    spec = "/repo/test/tree.spec.ts"
    whole = f"import {{ it }} from 'vitest'\n\ndescribe('tree', () => {{\n{_OLD}\n}})\n"
    listing = "\n".join(f"src/components/node_{i}/index.ts: export const node{i} = {i}" for i in range(900))
    look = ToolCall("Bash", {"command": "grep -rn export src"}, "g", ToolKind.SHELL, command="grep -rn export src")
    msgs = [Message(0, Role.USER, "The shift test still fails: fix it."),
            Message(1, Role.ASSISTANT, "Looking around.", [look]),
            Message(2, Role.TOOL, tool_results=[ToolResult(listing, "g", "Bash", exit_code=0)]),
            Message(3, Role.ASSISTANT, "Writing the tests.",
                    [ToolCall("Write", {"file_path": spec, "content": whole}, "w", ToolKind.WRITE, path=spec)]),
            Message(4, Role.TOOL, tool_results=[ToolResult("File created", "w", "Write")]),
            Message(5, Role.ASSISTANT, "Relying on the default expansion instead.",
                    [ToolCall("Edit", {"file_path": spec, "old_string": _OLD, "new_string": _NEW}, "e", ToolKind.EDIT,
                              path=spec)]),
            Message(6, Role.TOOL, tool_results=[ToolResult("The file was updated", "e", "Edit")])]
    for i, (command, output, code) in enumerate(after):
        call = ToolCall("Bash", {"command": command}, f"b{i}", ToolKind.SHELL, command=command)
        msgs.append(Message(len(msgs), Role.ASSISTANT, "Running it.", [call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, f"b{i}", "Bash", exit_code=code,
                                                                           is_error=code != 0)]))
    return Transcript("s.json", "test", msgs, group_rounds(msgs))


def test_the_text_an_unchecked_last_edit_left_is_told_where_the_work_stopped() -> None:
    """tree-vanilla: the session ended on a test failing four times after three rewrites of it; the document
    showed the example file finished rounds before and the test's last text nowhere ("(… 58 more changed
    lines)"): the successor's first step is to read that test as it now stands."""
    md = compact(_session([]), target_tokens=4000).markdown
    current = md.split("## Current work", 1)[1].split("\n## ", 1)[0]
    assert "The last edit (r3) of `test/tree.spec.ts`, not checked since it" in current, current
    assert "await seeSelected('src/components')" in current and "// src/components is expanded by default" in current


def test_a_last_edit_a_passing_run_checked_is_not_told_again() -> None:
    md = compact(_session([("npx vitest run test/tree.spec.ts", "Tests  5 passed (5)\n", 0)]),
                 target_tokens=4000).markdown
    assert "not checked since it" not in md
    failed = compact(_session([("npx vitest run test/tree.spec.ts", "Tests  1 failed | 4 passed (5)\n", 1)]),
                     target_tokens=4000).markdown
    assert "whose check failed (r4)" in failed  # its check failed: the text is where the work is stuck
    looked = compact(_session([("git diff", "diff --git a/x b/x\n", 0), ("ls test", "tree.spec.ts\n", 0)]),
                     target_tokens=4000).markdown
    assert "not checked since it" in looked  # a diff or a listing checks nothing (code review 24)


def test_a_last_edit_a_later_change_of_its_file_replaced_is_not_told() -> None:
    """Code review 24: after the edit, the file was written whole again (or edited by a call whose payload the
    export did not keep): the edit's text is gone, and "The last edit (r3)" sat above "the last edit (r4)"."""
    t = _session([])
    spec = "/repo/test/tree.spec.ts"
    msgs = [*t.messages,
            Message(len(t.messages), Role.ASSISTANT, "Rewriting it.",
                    [ToolCall("Write", {"file_path": spec, "content": "it('x', () => {})\n" * 5}, "w2", ToolKind.WRITE,
                              path=spec)]),
            Message(len(t.messages) + 1, Role.TOOL, tool_results=[ToolResult("File written", "w2", "Write")])]
    md = compact(Transcript("s.json", "test", msgs, group_rounds(msgs)), target_tokens=4000).markdown
    assert "left this text there" not in md, md


def test_a_path_an_export_spelled_without_its_leading_slash_is_the_same_file() -> None:
    """tree-vanilla: Copilot Chat's problems check named `Users/elonehoo/…/tree.spec.ts`, its reads
    `/Users/elonehoo/…/tree.spec.ts`; the document listed the one test file twice, once by its whole path."""
    from compaction.events import extract_events
    full = "/Users/me/repo/test/x.spec.ts"
    msgs = [Message(0, Role.USER, "check the test"),
            Message(1, Role.ASSISTANT, "", [ToolCall("readFile", {"path": full}, "a", ToolKind.READ, path=full),
                                            ToolCall("getErrors", {"file_path": full[1:]}, "b", ToolKind.READ,
                                                     path=full[1:]),
                                            ToolCall("readFile", {"path": "src/a/b.ts"}, "c", ToolKind.READ,
                                                     path="src/a/b.ts")]),
            Message(2, Role.TOOL, tool_results=[ToolResult("x", "a", "readFile"), ToolResult("y", "b", "getErrors"),
                                                ToolResult("z", "c", "readFile")])]
    paths = {e.path for e in extract_events(Transcript("s.json", "test", msgs, group_rounds(msgs))) if e.path}
    assert paths == {full, "src/a/b.ts"}, paths


def _planned(later_call: str, said_after: str = "", payload: bool = True) -> list[str]:
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.steering import role_preset
    code = "def set_output(self, *, transform=None):\n    self._config = transform\n"
    msgs = [Message(0, Role.USER, "Let transformers keep the input's dtypes."),
            Message(1, Role.ASSISTANT, "Reading it.", [ToolCall("bash", {"command": "cat out.py"}, "a", ToolKind.SHELL,
                                                                 command="cat out.py")]),
            Message(2, Role.TOOL, tool_results=[ToolResult(code, "a", "bash", exit_code=0)]),
            Message(3, Role.ASSISTANT, "If I add `preserve_dtypes=False` (default), it should be backward compatible "
                                       "because the default keeps today's behaviour."),
            Message(4, Role.ASSISTANT, "Editing.", [ToolCall("Edit", {"file_path": "/repo/out.py",
                                                                      "old_string": "transform=None):",
                                                                      "new_string": later_call} if payload else {},
                                                             "b", ToolKind.EDIT, path="/repo/out.py")]),
            Message(5, Role.TOOL, tool_results=[ToolResult("The file was updated", "b", "Edit")]),
            *([Message(6, Role.USER, "and now?"), Message(7, Role.ASSISTANT, said_after)] if said_after else [])]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=4000)
    return [f.text for f in decision_facts(ctx) if "preserve_dtypes" in f.text]


def test_a_plan_whose_own_new_name_no_later_call_or_output_holds_says_it_was_not_done() -> None:
    """scikit-learn r14: "If I add `preserve_dtypes=False` (default), it should be backward compatible" stood
    among the decisions as the design; the work went on to `dtypes="preserve"` and never wrote that name."""
    (dropped,) = _planned('transform=None, dtypes=None):')
    assert "(not done: no later call or output names `preserve_dtypes`)" in dropped, dropped
    (kept,) = _planned('transform=None, preserveDtypes=False):')  # carried out, in another case's spelling
    assert "not done" not in kept, kept
    # code review 24: an edit whose payload the export did not keep may hold it; the agent's own later report
    (unknown,) = _planned("", payload=False)
    assert "not done" not in unknown, unknown
    (reported,) = _planned('transform=None, dtypes=None):', said_after="I added `preserve_dtypes` to the mixin.")
    assert "not done" not in reported, reported


def test_the_header_says_what_one_round_is_by_what_opens_the_rounds() -> None:
    """Reader review 58: `r5` is a user's turn in a Copilot export and one reply with its command's output in a
    mini-swe-agent trajectory; the header said how many rounds, not what one is."""
    from compaction.history.engine import _round_is
    chat = [Message(i, Role.USER if i % 2 == 0 else Role.ASSISTANT, f"m{i}") for i in range(6)]
    assert "a user message and the work on it" in _round_is(Transcript("c", "t", chat,
                                                                                         group_rounds(chat)))
    steps = [Message(0, Role.USER, "fix it")]
    for i in range(4):
        call = ToolCall("bash", {"command": "ls"}, f"c{i}", ToolKind.SHELL, command="ls")
        steps += [Message(len(steps), Role.ASSISTANT, "step", [call]),
                  Message(len(steps) + 1, Role.TOOL, tool_results=[ToolResult("out", f"c{i}", "bash")])]
    assert "one agent step" in _round_is(Transcript("s", "t", steps, group_rounds(steps)))


def test_rewrites_of_the_failing_test_the_session_wrote_are_attempts_that_failed_again() -> None:
    """tree-vanilla r5-r8: the session's own test failed the same way four times after three rewrites of it; the
    record said only "tried, never checked: edited `tree.spec.ts` (r8)", as if a file the session created were a
    probe of its own and its edits no attempts."""
    from compaction.errors import scan_transcript
    from tests.unit.test_errors_scan import build
    failure = ('Traceback (most recent call last):\n  File "/repo/test_tree.py", line 9, in test_shift_select\n'
               '    assert selected == ["src", "src/components"]\nAssertionError\n')
    steps: list[tuple] = [("user", "add tests for the tree"), ("write", "/repo/test_tree.py")]
    for _ in range(3):
        steps += [("shell", "python test_tree.py", failure, 1), ("edit", "/repo/test_tree.py")]
    steps.append(("shell", "python test_tree.py", failure, 1))
    (rec,) = [r for r in scan_transcript(build(steps)) if r.id == "ERR_PY_AssertionError"]
    assert "tried before: " in (rec.solution or "") and "failed again" in (rec.solution or ""), rec.solution


def test_an_attempts_own_words_go_before_the_attempts() -> None:
    from compaction.errors.shorten import fit
    text = ("tried, never checked (the session ends): edited `tree.spec.ts` (r8); the agent's guess: the component "
            "re-initialises on a mode change and loses its expanded state; tried before: edited `tree.spec.ts` (r6) "
            "(“the wait only checked that src exists, not that its children rendered”), failed again (r7), then "
            "edited `tree.spec.ts` (r7) (“the expanded value may be reset when the mode changes”), failed again (r8)")
    short = fit(text, 200)
    assert "tried before: edited `tree.spec.ts` (r6), failed again (r7), then edited `tree.spec.ts` (r7), failed " \
           "again (r8)" in short, short


def test_a_probe_written_and_run_outside_the_project_is_a_loose_end_left_in_place() -> None:
    """fastjson2: `/home/ReproJSONParseTypeWithContext.java`, written beside `/home/fastjson2`, compiled and run,
    never removed: a loose end the readers' reference named; files written outside to keep (an app's bundle, a
    plan) are not probes."""
    from compaction.history.sources.current import current_work
    ctx = _context([Message(0, Role.USER, "fix the parser"), *_changed("/home/Repro.java", ToolKind.WRITE),
                    *_changed("/home/notes.md", ToolKind.WRITE),
                    *_ran(1, "javac -d /home /home/Repro.java && java -cp /home Repro", "npe"),
                    *_changed("/home/app/src/A.java"),
                    *_ran(2, "mvn -q test", "Tests run: 4, Failures: 0, Errors: 0, Skipped: 0")], "/home/app")
    said = " ".join(f.text for f in current_work(ctx))
    assert "written outside the project and run, not removed: `/home/Repro.java`" in said, said
    assert "notes.md" not in said
    # code review 24: one the session removed, or a script the user asked for there, is no loose end
    removed = _context([Message(0, Role.USER, "fix the parser"), *_changed("/home/Repro.java", ToolKind.WRITE),
                        *_ran(1, "javac -d /home /home/Repro.java && java -cp /home Repro", "npe"),
                        *_ran(2, "rm /home/Repro.java", ""), *_changed("/home/app/src/A.java")], "/home/app")
    assert "outside the project" not in " ".join(f.text for f in current_work(removed))
    asked = _context([Message(0, Role.USER, "write me /home/backup.sh and run it"),
                      *_changed("/home/backup.sh", ToolKind.WRITE), *_ran(1, "bash /home/backup.sh", "ok"),
                      *_changed("/home/app/src/A.java")], "/home/app")
    assert "outside the project" not in " ".join(f.text for f in current_work(asked))

def test_changes_after_the_commit_a_pull_request_was_opened_on_are_said_not_to_be_in_it() -> None:
    """ai-playbook r13-r16: commit 5dcb696, `gh pr create` printed `…/pull/22`, then the role edits to 101-105;
    the document said they were uncommitted, and the readers took them as part of PR #22."""
    from compaction.history.sources.uncommitted import uncommitted_facts
    ctx = _context([Message(0, Role.USER, "write the playbook and open a PR"), *_changed("/r/docs/a.md"),
                    *_ran(1, "git add -A && git commit -m 'playbook'", "[feature/x 5dcb696] playbook\n 1 file changed"),
                    *_ran(2, "git push -u origin feature/x", "branch 'feature/x' set up to track 'origin/feature/x'."),
                    *_ran(3, "gh pr create --title 'playbook' --body 'x'", "https://github.com/o/r/pull/22\n"),
                    Message(0, Role.USER, "now add the roles to each phase rule"), *_changed("/r/rules/101.mdc")], "/r")
    said = " ".join(f.text for f in uncommitted_facts(ctx))
    assert "Uncommitted: 1 file changed after the last commit (5dcb696" in said, said
    assert "not in PR #22 (opened r" in said and "until committed and pushed" in said, said
    merged = _context([Message(0, Role.USER, "open a PR and merge it"), *_changed("/r/docs/a.md"),
                       *_ran(1, "git add -A && git commit -m 'x'", "[main 5dcb696] x\n 1 file changed"),
                       *_ran(2, "gh pr create --title x --body y", "https://github.com/o/r/pull/22\n"),
                       *_ran(3, "gh pr merge 22 --squash", "✓ Squashed and merged pull request #22"),
                       *_changed("/r/rules/101.mdc")], "/r")
    assert "not in PR" not in " ".join(f.text for f in uncommitted_facts(merged))  # merged: nothing more goes in

def test_tests_written_for_some_changed_files_only_say_which_got_none() -> None:
    """aider-monochromatic: the user asked for tests of iterables.union.ts (r46), then the intersection
    functions were written (r47-r52); "test files written, never run: `iterables.union.unit.test.ts`" read to
    the readers as the intersection functions tested too."""
    from compaction.edits import Hunk
    from compaction.events import Event, EventKind
    from compaction.history.sources.current import _tests_written_for

    def edit(path: str, *added: str) -> Event:
        return Event(EventKind.EDIT, 1, 1, path=path, hunks=(Hunk(added=added),))

    union = edit("src/iterables.union.ts", "export function unionIterables(a, b) {")
    intersection = edit("src/iterables.intersection.ts", "export async function intersectionIterablesAsync(a) {")
    barrel = edit("src/index.ts", "export * from './iterables.intersection.ts';")  # defines nothing
    said = _tests_written_for(["src/iterables.union.unit.test.ts"], [union, intersection, barrel])
    assert said == "; tests written for `iterables.union.ts` only, none for `iterables.intersection.ts`", said
    assert _tests_written_for(["tests/test_api.py"], [edit("src/app.py", "def f():")]) == ""  # named after none
    assert _tests_written_for(["tests/test_app.py"], [edit("src/app.py", "def f():")]) == ""  # all covered


def _ran(i: int, command: str, output: str) -> list[Message]:
    """A shell call and its output (exit 0); indexes set by `_context`."""
    c = ToolCall("bash", {"command": command}, f"s{i}", ToolKind.SHELL, command=command)
    return [Message(0, Role.ASSISTANT, "Running.", [c]),
            Message(0, Role.TOOL, tool_results=[ToolResult(output, f"s{i}", "bash", exit_code=0)])]


def _changed(path: str, kind: ToolKind = ToolKind.EDIT) -> list[Message]:
    """A file tool's write or one-line edit of `path`, and its result."""
    args = {"file_path": path, "old_string": "a", "new_string": "b"} if kind is ToolKind.EDIT else \
        {"file_path": path, "content": "class Repro {}\n"}
    c = ToolCall("Edit" if kind is ToolKind.EDIT else "Write", args, path, kind, path=path)
    return [Message(0, Role.ASSISTANT, "Changing it.", [c]), Message(0, Role.TOOL, tool_results=[ToolResult("ok", path, c.name)])]


def _context(msgs: list[Message], cwd: str):
    """The messages indexed in order, as a session's fact context."""
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.steering import role_preset
    msgs = [Message(i, m.role, m.text, m.tool_calls, m.tool_results) for i, m in enumerate(msgs)]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                       cwd=cwd, n_rounds=len(t.rounds), target_tokens=4000)


def test_a_verdict_hedged_before_a_sure_account_is_the_agents_guess() -> None:
    """Reader review 59: requests' "Solution: cause: The failure `test_redirecting_to_bad_url` seems unrelated to
    my changes. It fails because `httpbin` … crashes" stood as the cause; the test never ran on the code before
    the change, and the verdict is hedged ("seems") though the sentence after it sounds sure."""
    from compaction.errors import scan_transcript
    from tests.unit.test_errors_scan import build
    out = ('Traceback (most recent call last):\n  File "/repo/test_api.py", line 9, in handler\n'
           '    raise ValueError("port out of range")\nValueError: port out of range\n')
    t = build([("user", "fix the url check"), ("edit", "/repo/models.py"),
               ("shell", "python test_api.py", out, 1),
               ("say", "The failure `test_redirect` seems unrelated to my changes. It fails because the test server "
                       "crashes with `ValueError: port out of range` when it redirects.")])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_ValueError"]
    assert "the agent's guess: The failure `test_redirect` seems unrelated" in (rec.solution or ""), rec.solution


def test_an_edit_after_a_failure_whose_command_never_ran_again_is_an_attempt_not_a_fix() -> None:
    """Reader review 59: a docs build failed, an edit followed, and the work turned elsewhere; "Solution: edited
    `PreviewCode.astro` (r8)" read as the fix, though nothing ran the build, or any test, again."""
    from compaction.errors import scan_transcript
    from tests.unit.test_errors_scan import build
    out = "src/app.ts:3:5 - error TS2304: Cannot find name 'widget'.\nFound 1 error.\n"
    steps: list[tuple] = [("user", "build the docs"), ("shell", "npx tsc -p .", out, 1), ("edit", "/repo/src/app.ts"),
                          ("shell", "git status --short", " M src/app.ts\n", 0), ("user", "now lint it"),
                          ("shell", "git diff --stat", " src/app.ts | 2 +-\n", 0)]
    (rec,) = [r for r in scan_transcript(build(steps)) if r.id.startswith("ERR_TS")]
    assert (rec.solution or "").startswith("tried, never checked (`npx tsc -p .` never ran again): edited"), rec.solution
    checked = steps + [("shell", "npx tsc -p .", "", 0)]
    (rec,) = [r for r in scan_transcript(build(checked)) if r.id.startswith("ERR_TS")]
    assert "never ran again" not in (rec.solution or ""), rec.solution


def test_the_agent_telling_what_the_user_said_is_no_decision() -> None:
    """Reader review 59: bastion's Key decisions held 'The user is pointing out that the README … still reference
    "Bastion V2" instead of "Bastion Agentique"' (the agent's thinking restating the request; "instead of" read as
    a choice), and a successor would rebrand to the wrong name."""
    from compaction.events import EventKind, extract_events
    msgs = [Message(0, Role.USER, "Bastion V2 still in the readme?"),
            Message(1, Role.ASSISTANT, 'The user is pointing out that the README still says "Bastion V2" instead of '
                                       '"Bastion". I\'ll use "Bastion" instead of "Bastion v2" everywhere.')]
    said = [e.text for e in extract_events(Transcript("s.json", "test", msgs, group_rounds(msgs)))
            if e.kind is EventKind.DECISION]
    assert said == ['I\'ll use "Bastion" instead of "Bastion v2" everywhere.'], said


def test_a_conditions_cases_are_no_account_of_the_changes() -> None:
    """Reader review 59: astropy's "What changed" quoted r15's "If the PR breaks existing tests, and I cannot modify
    tests, then either: … ; The tests are wrong (unlikely given they passed before); …", a weighing of options, as
    the agent's account of what it changed."""
    from compaction.history.sources.recaps import _recap
    text = ("I must ensure that my changes are correct according to the PR.\nWait, the instructions say: \"DO NOT "
            "MODIFY: Tests\".\n\n"
            "If the PR breaks existing tests, and I cannot modify tests, then either:\n"
            "1. The PR code is incomplete/incorrect and needs to be adapted to pass tests.\n"
            "2. The tests are wrong (unlikely given they passed before).\n"
            "3. I should implement the PR in a way that doesn't break tests but solves the issue.\n\n"
            "How can I distinguish between a nearby object and a celestial one?")
    assert _recap(Message(0, Role.ASSISTANT, text), {"transforms.py"}) is None
    done = text.replace("If the PR breaks existing tests, and I cannot modify tests, then either:", "Changes made:")
    assert _recap(Message(0, Role.ASSISTANT, done), {"transforms.py"}) is not None  # an account still reads as one


def test_with_no_fix_the_agents_guess_is_what_a_cut_record_keeps() -> None:
    """Pairwise check 59: requests' record cut to "no fix seen after r48", the agent's account of the failure (an
    httpbin crash, labelled its guess) dropped first, read as an open bug of the work; beside a fix, the guess
    still gives way first."""
    from compaction.errors.shorten import fit
    guess = ("the agent's guess: The failure `test_redirect` seems unrelated to my changes. It fails because the "
             "test server crashes on a port out of range")
    assert fit(f"{guess}; no fix seen after r48", 150).startswith("the agent's guess: The failure `test_redirect`")
    fixed = fit(f"edited `models.py` (r40): `host.startswith('.')` → `_check(host)`; {guess}", 90)
    assert "guess" not in fixed and fixed.startswith("edited `models.py` (r40)"), fixed


def test_an_interrupt_the_tool_echoed_last_is_the_user_leaving() -> None:
    """Reader review 59: aider-monochromatic ended on "^C again to exit … ^C KeyboardInterrupt" after the TSDoc
    asked was done; the document said nothing of it, and a successor would wait on the open request."""
    from compaction.history.sources.current import _user_left
    msgs = [Message(0, Role.USER, "Add all missing TSDoc"), Message(1, Role.ASSISTANT, "Adding it."),
            Message(2, Role.TOOL, "> Applied edit to src/x.ts\n>\n> ^C again to exit\n>\n> ^C KeyboardInterrupt", harness=True)]
    assert _user_left(group_rounds(msgs)) == (1, "^C")
    msgs[2] = Message(2, Role.TOOL, "> Applied edit to src/x.ts\n> Press ^C to stop the watcher", harness=True)
    assert _user_left(group_rounds(msgs)) is None  # a mention of the key is no interrupt


def test_a_pasted_log_is_told_by_the_error_it_stopped_on_and_where() -> None:
    """Reader review 59: npm-publish's pasted docs build read "`ELIFECYCLE Command failed with exit code 1.` [7 lines
    of code; values: mode="static", svelte=1]"; the build had stopped on `Sinppets.svelte (1:9): Unexpected token`."""
    from compaction.history.condense import _log_error
    log = ["20:38:47 [build] mode: \"static\"", "20:39:01 [ERROR] [vite] ✗ Build failed in 6.63s",
           "transforming (237) ../node_modules/react.js[vite-plugin-svelte:compile] astro-entry:/Users/me/docs/src/"
           "Sinppets.svelte (1:9): astro-entry:/Users/me/docs/src/Sinppets.svelte:1:9 Unexpected token",
           " ELIFECYCLE  Command failed with exit code 1."]
    assert _log_error(log) == "Sinppets.svelte (1:9): Unexpected token"
    trace = ["Runtime error: $state is not defined", "ReferenceError: $state is not defined",
             "    at l (https://esm.sh/@destyler/svelte@0.2.0/es2022/svelte.mjs:2:412)"]
    assert _log_error(trace) == "ReferenceError: $state is not defined"  # the message itself; no URL's frame
    assert _log_error(["installing…", "added 3 packages in 2s"]) is None  # no error: told as before
