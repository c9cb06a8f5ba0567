"""`compaction hook …` under faults (issue 15): never exit 2 (Claude Code's "block the compaction and
show stderr to the model"), survive a deleted cwd, and return within the deadline whatever the
transcript size, handing unfinished work to a background process."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from test_hooks_subprocess import FIXTURE, compaction_exe, pre, run_hook, start

from bench.large_input import generate


@pytest.mark.parametrize("argv", [["session-start", "--bogus"], [], ["nope"], ["session-start", "--limit", "x"],
                                  ["pre-compact", "--detach", "extra"]])
def test_usage_errors_are_logged_and_never_exit_2(tmp_path: Path, argv: list[str]) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    r = subprocess.run([compaction_exe(), "hook", *argv], input=b"{}", cwd=ws, capture_output=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"})
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert b"usage error" in r.stderr and b"Traceback" not in r.stderr
    assert "usage error" in (ws / ".compaction" / "hooks.log").read_text()


def test_a_non_positive_limit_falls_back_to_the_default(tmp_path: Path) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    assert run_hook("pre-compact", pre(FIXTURE, ws), ws).returncode == 0
    r = run_hook("session-start", start(FIXTURE, ws), ws, "--limit", "-5")
    assert r.returncode == 0
    assert "# Restored after compaction" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "limit -5 is not a positive number" in (ws / ".compaction" / "hooks.log").read_text()


@pytest.mark.parametrize("event", ["pre-compact", "session-start"])
@pytest.mark.parametrize("with_cwd", [True, False])
def test_a_deleted_cwd_does_not_fail_the_hook(tmp_path: Path, event: str, with_cwd: bool) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    gone = tmp_path / "gone"
    gone.mkdir()
    payload = (pre if event == "pre-compact" else start)(FIXTURE, ws)
    if not with_cwd:
        payload.pop("cwd")
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    script = f"cd '{gone}' && rmdir '{gone}' && exec '{compaction_exe()}' hook {event}"
    r = subprocess.run(["sh", "-c", script], input=json.dumps(payload).encode(), capture_output=True, timeout=120,
                       env=env)
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr
    if with_cwd and event == "pre-compact":
        assert (ws / ".compaction" / "restore.md").exists()


def _wait_for(cond, timeout: float = 120.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


def test_session_start_past_its_deadline_injects_the_last_good_state_and_finishes_in_the_background(
        tmp_path: Path) -> None:
    """A session our pre-compact missed, on a transcript that takes longer than the (test-sized)
    deadline: the hook answers with the previous state and a note; a background run writes the new."""
    ws = tmp_path / "project"
    ws.mkdir()
    big = tmp_path / "big.jsonl"
    generate(big, 3, huge_lines=0)
    old = dict(pre(FIXTURE, ws), session_id="an-earlier-session")
    assert run_hook("pre-compact", old, ws).returncode == 0
    state = ws / ".compaction" / "hook-state.json"
    before = json.loads(state.read_text())
    r = run_hook("session-start", start(big, ws), ws, env={"COMPACTION_HOOK_DEADLINE": "0.2"})
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "did not finish within the hook's time limit" in context and "the last good state" in context
    assert "handed to a background process" in (ws / ".compaction" / "hooks.log").read_text()
    # the background run completes the work: the state now belongs to this session
    assert _wait_for(lambda: json.loads(state.read_text())["transcript"] == str(big)), before
    assert _wait_for(lambda: not (ws / ".compaction" / "pre-compact.pending").exists())


def test_pre_compact_past_its_deadline_returns_and_the_work_is_finished_in_the_background(tmp_path: Path) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    big = tmp_path / "big.jsonl"
    generate(big, 3, huge_lines=0)
    r = run_hook("pre-compact", pre(big, ws), ws, env={"COMPACTION_HOOK_DEADLINE": "0.2"})
    assert r.returncode == 0 and r.stdout == b"", r.stderr
    assert "handed to a background process" in (ws / ".compaction" / "hooks.log").read_text()
    state = ws / ".compaction" / "hook-state.json"
    assert _wait_for(lambda: state.exists() and json.loads(state.read_text())["transcript"] == str(big))


def test_session_start_waits_for_a_stuck_background_worker_only_within_its_deadline(tmp_path: Path) -> None:
    """The fast path and the full path both wait for a detached pre-compact (integrations/detached):
    together they must still answer within the deadline, with the last good state, while it runs."""
    import sys

    from compaction.cli.integrations.detached import PENDING, process_start

    ws = tmp_path / "project"
    ws.mkdir()
    assert run_hook("pre-compact", dict(pre(FIXTURE, ws), session_id="an-earlier-session"), ws).returncode == 0
    stuck = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "compaction-hook-worker"])
    try:
        (ws / ".compaction" / PENDING).write_text(f"{stuck.pid} {process_start(stuck.pid) or ''}".rstrip() + "\n")
        began = time.monotonic()
        r = run_hook("session-start", start(FIXTURE, ws), ws, env={"COMPACTION_HOOK_DEADLINE": "4"})
        took = time.monotonic() - began
    finally:
        stuck.kill()
        stuck.wait()
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "the last good state" in context
    assert "background pre-compact is still running" in (ws / ".compaction" / "hooks.log").read_text()
    assert took < 20, took  # each wait used to be 25 s on its own: 50 s before any work
