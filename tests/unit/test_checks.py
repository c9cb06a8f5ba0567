"""The checks the agent ran (sources/checks.py): a command that changes nothing, run again and again,
or a build/lint/type check, is listed with how often and when; reads and git views are not."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.checks import check_facts, runs_own_file
from compaction.history.steering import role_preset
from compaction.model import ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript


def _bash(command: str, cid: str, out: str = "") -> tuple:
    return make_call("Bash", {"command": command}, cid), ToolResult(out, cid)


def _facts(*steps: tuple) -> list[str]:
    t = steps_transcript("clean the summary of non-ASCII characters", *steps)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/r", len(t.rounds))
    return [f.text for f in check_facts(ctx)]


def test_a_command_rerun_to_verify_and_a_build_are_checks():
    check = 'LC_ALL=C rg -n "[^ -~]" docs/SUMMARY.md || true'
    texts = _facts(_bash(check, "a", "12:“quoted”"), _bash(check, "b", "12:“quoted”"), _bash(check, "c"),
                   _bash("cd /r && pnpm --filter web run build", "d", "Successfully built 3 packages"))
    # what the runs printed each time it changed: the hits, then nothing
    assert texts[0].startswith(f"Checked with `{check}` ×3: r1 “12:“quoted””; r3 “no output” (r1-r3)")
    assert texts[1].startswith("Checked with `pnpm --filter web run build` → Successfully built 3 packages")


def test_a_reproduction_run_again_says_its_output_before_and_after():
    texts = _facts(_bash("python repro.py", "a", "Alt: 86.32 deg\nDifference: 13234.9 arcsec\n"),
                   _bash("python repro.py", "b", "Traceback (most recent call last):\n  File \"x.py\"\nKeyError: 'k'"),
                   _bash("python repro.py", "c", "<returncode>0</returncode>\n<output>\nDifference: 4.7e-09 arcsec\n</output>"))
    assert "“Alt: 86.32 deg; Difference: 13234.9 arcsec”" in texts[0]
    assert "KeyError: 'k'”" in texts[0] and "“Difference: 4.7e-09 arcsec”" in texts[0]


def test_reads_git_views_and_commands_run_once_are_not_checks():
    texts = _facts(_bash("sed -n '1,40p' a.py", "a"), _bash("sed -n '1,40p' a.py", "b"),
                   _bash("git status -sb", "c"), _bash("git status -sb", "d"), _bash("python -c 'print(1)'", "e"))
    assert texts == []


def test_a_search_naming_build_and_different_scripts_are_not_one_check():
    """A check is its whole command (two heredoc scripts are two), and a build by its program's words,
    not by its arguments' text (`grep 'def build'` is a search)."""
    script = "python3 - <<'PY'\nprint({n})\nPY"
    texts = _facts(_bash(script.format(n=1), "a", "1"), _bash(script.format(n=2), "b", "2"),
                   _bash("grep -rn 'def build' src", "c", "src/x.py:3:def build():"))
    assert texts == []


def test_running_a_file_the_session_wrote_is_a_check_from_its_first_run_reading_it_is_not():
    write = make_call("Write", {"file_path": "describer.py", "content": "print('Description written')\n"}, "w")
    texts = _facts((write, ToolResult("File created", "w")),
                   _bash("python describer.py 012.png out.txt", "a", "Description written to out.txt"),
                   _bash("grep -n print describer.py", "b", "1:print('Description written')"))
    assert texts == ["Checked with `python describer.py 012.png out.txt`: r2 “Description written to out.txt” (r2)"]
    assert runs_own_file("cd /r && ./describer.py", frozenset({"describer.py"}))
    assert not runs_own_file("cat describer.py", frozenset({"describer.py"}))


def test_an_interpreters_option_values_are_not_its_script():
    from compaction.shell import scripts_run

    assert scripts_run("node --require x.js app.js") == {"app.js"}
    assert scripts_run("node -r ts-node/register src/app.ts") == {"app.ts"}
    assert scripts_run("python -W ignore foo.py") == {"foo.py"}
    assert scripts_run("python3 -X dev -u tools/run.py --fast") == {"run.py"}
    assert scripts_run("python -m pytest tests/test_a.py") == set()  # a module, not a script file
    assert scripts_run('python -c "import foo; foo.main()"') == set()
    assert scripts_run('node -e "require(\'./a.js\')" b.js') == set()
    assert scripts_run('bash -lc "./build.sh"') == set()  # -c: the program is the string
    assert scripts_run("sh ./build.sh && ./run.sh") == {"build.sh", "run.sh"}


def test_the_script_a_command_runs_is_found_past_the_programs_that_run_it():
    from compaction.shell import norm_command, scripts_run
    assert scripts_run("timeout 60 python fix.py") == {"fix.py"}  # SWE-agent's usual form
    assert scripts_run("timeout -s KILL 10s node c.js") == {"c.js"}
    assert scripts_run("sudo -E -u me python a.py") == {"a.py"}
    assert scripts_run("env -i X=1 python b.py") == {"b.py"}
    assert norm_command("timeout 60s pytest t.py::x") == "pytest t.py"
    assert norm_command("time -f %e make all") == "make all"


def test_one_check_spelled_two_ways_is_one_and_a_probe_is_none():
    """`node c.mjs X 2>&1 | head` then `node c.mjs X; echo $?` run one check: the runs are counted together
    and what each printed is told; `pnpm --version` asks the tool about itself and checks no work."""
    texts = _facts(_bash('node c.mjs FAKE 2>&1 | head -10; echo "exit=$?"', "a", "error: zerion not found\nexit=0"),
                   _bash('node c.mjs FAKE; echo "exit=$?"', "b", "error: zerion not found\nexit=2"),
                   _bash("pnpm --version 2>&1", "c", "10.3"), _bash("pnpm --version", "d", "10.3"))
    assert texts == ['Checked with `node c.mjs FAKE; echo "exit=$?"` ×2: r1 “error: zerion not found; exit=0”; '
                     'r2 “error: zerion not found; exit=2” (r1, r2)']


def test_a_build_says_its_verdict_and_warnings_and_outranks_a_rerun_search():
    """A build's last line is most often a table's: its verdict line and its distinct warnings (each place
    one more) say how it went; a build is the gate a successor passes again, ahead of a search run twice."""
    build = ("Creating an optimized production build ...\n ✓ Compiled successfully in 17.3s\n\n./app/page.tsx\n"
             "357:70  Warning: Unused eslint-disable directive.\n./components/dialog.tsx\n"
             "171:31  Warning: Unused eslint-disable directive.\nRoute (app)   Size\n└ ○ /icon.png   0 B\n"
             "○  (Static)   prerendered as static content")
    search = 'rg -n "TODO" src'
    texts = _facts(_bash(search, "a", "src/a.ts:3: TODO"), _bash(search, "b", "src/a.ts:3: TODO"),
                   _bash("pnpm build 2>&1 | tail -60", "c", build))
    assert texts[0] == ("Checked with `pnpm build 2>&1 | tail -60`: r3 “✓ Compiled successfully in 17.3s; "
                        "2× Warning: Unused eslint-disable directive.” (r3)")
    assert texts[1].startswith(f"Checked with `{search}` ×2")


def test_two_commands_after_the_same_setup_are_two_checks():
    """`source venv && pytest a.py` and `source venv && python b.py` share their opening, not their work;
    a build in another directory is another check."""
    from compaction.history.sources.checks import _identity

    assert _identity("source .venv/bin/activate && pytest tests/a.py") != \
        _identity("source .venv/bin/activate && python b.py")
    assert _identity("node c.mjs X 2>&1 | head -10") == _identity('node c.mjs X; echo "exit=$?"')
    assert _identity("cd web && pnpm build") != _identity("cd ../api && pnpm build")  # one build, two places
    assert _identity("node c.mjs > out.txt") == _identity("node c.mjs >/tmp/o.txt")  # where its output went
    heredoc = "python3 - <<'PY'\nprint(1)\nPY"
    assert _identity(heredoc) == heredoc


def test_a_build_that_failed_after_compiling_or_a_probe_beside_work_is_read_as_it_is():
    """"✓ Compiled successfully" then a type error is no success; a failed run has no verdict; a verdict word
    in an argument or a code frame is none; `node --version && npm test` runs the tests."""
    from compaction.history.sources.checks import _probes
    from compaction.history.sources.checks import build_outcome as _build_outcome

    failed = " ✓ Compiled successfully in 9s\nLinting and checking validity of types ...\nFailed to compile.\n" \
             "./app/page.tsx:3:5\nType error: Property 'x' does not exist."
    assert _build_outcome(failed) == ""
    assert _build_outcome("src/a.ts(3,5): error TS2339: Property 'x'.\nFound 1 error.\nDone in 2.1s.") == ""
    assert _build_outcome("ruff: F841 unused\n404 |     session.add_action(name, success=True)\n    |") == ""
    assert _build_outcome("404 |     add(success=True)\nAll checks passed!") == "All checks passed!"
    assert _build_outcome("vite v5\n✓ built in 1.20s\n(!) Some chunks are larger than 500 kB") == "✓ built in 1.20s"
    assert _probes("node --version") and _probes("pnpm --version 2>&1")
    assert not _probes("node --version && npm test") and not _probes("./check.sh -v")
    texts = _facts((make_call("Bash", {"command": "pnpm build"}, "b"),
                    ToolResult("✓ Compiled successfully\nCollecting page data\nGenerating pages\nexited", "b", exit_code=1)))
    assert texts == ["Checked with `pnpm build`: r1 “exited” (r1)"]  # it failed: no verdict, its last line


def test_a_build_listed_among_the_actions_says_its_verdict_past_a_harness_status_line():
    """`npm run build` writes its output: a completed action, which says how it went ("✓ built in 7.35s"), a
    Gemini CLI status line (`Error: (none)`) being no error of the build's."""
    from compaction.history.sources.completed import completed_facts

    out = ("Command: npm run build\nOutput: \n> vite build\n\nvite v6.4.1 building for production...\n"
           "✓ 1595 modules transformed.\ndist/assets/index.js   250.84 kB\n✓ built in 7.35s\nError: (none)\n"
           "Exit Code: 0\nSignal: 0")
    t = steps_transcript("build it", (make_call("Bash", {"command": "npm run build"}, "b"), ToolResult(out, "b", exit_code=0)))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/r", len(t.rounds))
    assert "`npm run build` → ✓ built in 7.35s; ✓ 1595 modules transformed.; dist/assets/index.js 250.84 kB (r1)" \
        in [f.text for f in completed_facts(ctx)]


def test_a_runs_verdict_outranks_a_teardown_warning_printed_after_it():
    """pi-trl-grpo-smoke: the smoke test's check said the NCCL teardown warning, not its result."""
    out = ("{'train_runtime': '37.59'}\n" + "=" * 60 + "\n✅ GRPO SMOKE TEST PASSED — 3 steps in 37.7s\n" + "=" * 60 +
           "\n[rank0]:[W527 09:57:08] ProcessGroupNCCL.cpp:1575 Warning: destroy_process_group() was not called\n")
    texts = _facts(_bash("python /tmp/smoke.py 2>&1 | tail -80", "a", "Traceback\nRuntimeError: OOM\nline\nline"),
                   _bash("python /tmp/smoke.py 2>&1 | tail -80", "b", out))
    assert "r2 “✅ GRPO SMOKE TEST PASSED — 3 steps in 37.7s”" in texts[0]
    warned_only = _facts(_bash("python w.py", "a", "a\nb\nc\nDeprecationWarning: x is old"),
                         _bash("python w.py", "b", "a\nb\nc\nDeprecationWarning: x is old"))
    assert "DeprecationWarning: x is old" in warned_only[0]  # no verdict before it: the warning is what it said
    broke = "Downloading model... done\nTraceback (most recent call last):\nKeyError: 'cfg'\nwarning: leaked semaphore"
    failed_after = _facts(_bash("python run.py", "a", broke), _bash("python run.py", "b", broke))
    assert "warning: leaked semaphore" in failed_after[0] and "done”" not in failed_after[0]  # not the verdict


def test_a_build_says_what_it_built_counted_and_its_largest_output():
    from compaction.history.sources.checks import build_outcome

    out = ("> vite build\n\nvite v6.4.1 building for production...\n✓ 1595 modules transformed.\n"
           "dist/index.html                   0.40 kB │ gzip:  0.28 kB\n"
           "dist/assets/index-DOJ9Ez_p.css   22.33 kB │ gzip:  5.02 kB\n"
           "dist/assets/index-BoMYDrw0.js   250.84 kB │ gzip: 78.80 kB\n✓ built in 7.35s\nError: (none)\nExit Code: 0")
    assert build_outcome(out) == "✓ built in 7.35s; ✓ 1595 modules transformed.; dist/assets/index-BoMYDrw0.js 250.84 kB"
    assert build_outcome("Compiling app v0.1\nFinished dev target(s) in 2.1s") == "Finished dev target(s) in 2.1s"


def test_a_dashboard_drawn_in_boxes_is_said_by_its_counts_not_its_last_wrapped_line():
    """munsellspace r38: `task-master list` printed boxes; the check line quoted "│ as complete │", the tail of
    a wrapped hint in the last box."""
    from compaction.history.sources.checks import _outcome

    output = "\n".join([
        "🏷  tag: dev", "╭──────────────────────────────╮", "│   Project Dashboard            │",
        "│   Tasks Progress: ░░░░░░░░ 0% 0/2 │", "│   Done: 0  Cancelled: 0  Deferred: 0 │",
        "│   In Progress: 0  Review: 0  Pending: 2  Blocked: 0 │", "│   Subtasks Progress: ░░░ 0% 0/0 │",
        "│   Completed: 0/0  Cancelled: 0 │", "╰──────────────────────────────╯",
        "╭──────────────────────────────╮", "│   3. Run task-master set-status --id=<id> to mark a task │",
        "│   as complete                  │", "╰──────────────────────────────╯"])
    assert _outcome(output) == ("Tasks Progress: 0% 0/2; Done: 0 Cancelled: 0 Deferred: 0; "
                                "In Progress: 0 Review: 0 Pending: 2 Blocked: 0")
    assert _outcome("╭────╮\n│  ⚠️ No tasks found matching the criteria.  │\n╰────╯") == "⚠️ No tasks found matching the criteria."
    # a box among plain lines: its line without the frame
    assert _outcome("🏷 tag: dev\nListing tasks from: a.json\n╭───╮\n│   ⚠️ No tasks found.   │\n╰───╯\nmore\n│  done  │") == "done"
    # an error printed after a box (an update notice) is not hidden by the box
    notice = "╭──────╮\n│  Update available 9.1 → 10.0  │\n│  Run npm i -g npm: now  │\n╰──────╯\nError: Cannot find module x"
    assert "Cannot find module x" in _outcome(notice)


def test_a_run_of_the_sessions_own_script_with_a_verdict_outranks_a_rerun_check():
    """The session's own smoke script saying it passed is the work's result: it weighs above a command
    re-run to look at something, which it did not before (they scored alike)."""
    write = make_call("Write", {"file_path": "smoke.py", "content": "print('SMOKE TEST PASSED')\n"}, "w")
    t = steps_transcript("run the smoke test", (write, ToolResult("File created", "w")),
                         _bash("python smoke.py", "a", "step 3/3\n✅ SMOKE TEST PASSED — 3 steps in 37.7s"),
                         _bash("nvidia-smi -L", "b", "GPU 0: NVIDIA A10G"), _bash("nvidia-smi -L", "c", "GPU 0: NVIDIA A10G"))
    facts = check_facts(FactContext(t, extract_events(t), [], role_preset("developer"), "/r", len(t.rounds)))
    smoke = next(f for f in facts if "smoke.py" in f.text)
    probe = next(f for f in facts if "nvidia-smi" in f.text)
    assert "3 steps in 37.7s" in smoke.text and smoke.score > probe.score


def test_a_harnesss_closing_note_is_no_outcome():
    """Claude Code closes a command's output with `Shell cwd was reset to …` when the command left the
    project: the build's own verdict is its outcome (cc-speakfree's `swift build` read as the note)."""
    from compaction.history.sources.checks import _outcome

    out = "Building for production...\n[3/5] Compiling\nBuild complete! (12.25s)\nShell cwd was reset to /Users/m/Dropbox"
    assert _outcome(out).endswith("Build complete! (12.25s)") and "Shell cwd" not in _outcome(out)
    assert _outcome(out + "\n" + "log line\n" * 5 + "Shell cwd was reset to /Users/m/Dropbox") == "log line"
    assert _outcome("Signal: SIGSEGV (Address boundary error)") == "Signal: SIGSEGV (Address boundary error)"
