"""The detached pre-compact worker and its pending file: `hook pre-compact --detach` hands the
payload to a background process and returns at once; session-start (Claude Code) and BeforeAgent
(Gemini CLI) wait for that worker before they read what it wrote. A module of its own so that both
agents' hooks share it without importing each other.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

PENDING = "pre-compact.pending"  # in .compaction/: "PID START" of a detached pre-compact still at work
BACKGROUND_ENV = "COMPACTION_HOOK_BACKGROUND"  # set in a detached worker: no agent waits, so no hook deadline


PROC_STAT = "/proc/{pid}/stat"


def process_start(pid: int) -> str | None:
    """The process's start time: with the pid it names one process for good, where a pid alone is
    reused. Linux: clock ticks since boot (/proc/PID/stat field 22); elsewhere (macOS) `ps -o lstart`.
    None when neither answers."""
    try:
        with open(PROC_STAT.format(pid=pid), "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()  # the name (field 2) may hold spaces
        return fields[19].decode()  # fields[0] is field 3
    except FileNotFoundError:
        if os.path.exists(PROC_STAT.format(pid="self")):
            return None  # /proc works: the process is gone
    except (OSError, IndexError):
        return None
    try:
        out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True, timeout=2)
    except (OSError, subprocess.SubprocessError):
        return None
    return "-".join(out.stdout.split()) or None  # one token: the pending file is "PID START"


def _detach(raw: bytes) -> None:
    """Hand the payload to a background `hook pre-compact` and return: the agent's own compaction
    takes far longer than ours, so the hook costs the agent only a process start."""
    from compaction import statedir
    from compaction.cli.integrations.workspace import resolve_workspace

    try:
        payload_cwd = json.loads(raw or b"{}").get("cwd")
    except ValueError:
        payload_cwd = None
    cwd = str(resolve_workspace(payload_cwd if isinstance(payload_cwd, str) else None))
    statedir.state_file(cwd, PENDING)  # refuse a linked state folder or pending file before starting
    child = subprocess.Popen([sys.executable, "-m", "compaction.cli", "hook", "pre-compact"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, cwd=cwd, env={**os.environ, BACKGROUND_ENV: "1"})
    try:
        statedir.write_text(cwd, PENDING, f"{child.pid} {process_start(child.pid) or ''}".rstrip() + "\n")
    finally:
        child.stdin.write(raw)
        child.stdin.close()


def pending_worker(workspace: str | os.PathLike[str]) -> int | None:
    """The pid of the detached pre-compact that is still at work, or None: no pending file (or a
    linked one, which we did not write), a dead pid, or a pid now used by another process (its
    start time differs from the one recorded)."""
    from compaction import statedir

    try:
        text = statedir.read_text(workspace, PENDING)
        parts = (text or "").split()
        pid = int(parts[0]) if parts else 0
        if pid <= 0:
            return None
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    recorded = parts[1] if len(parts) > 1 else None
    now = process_start(pid)
    if recorded is not None and now is not None:
        return pid if now == recorded else None
    return pid if _is_our_worker(pid) else None


def wait_for_pending(workspace: str | os.PathLike[str], timeout: float = 25.0) -> None:
    """Let a detached pre-compact finish (session-start runs right after the agent's compaction)."""
    deadline = time.monotonic() + timeout
    while pending_worker(workspace) is not None and time.monotonic() < deadline:
        time.sleep(0.05)


def _is_our_worker(pid: int) -> bool:
    """A pending file without a start time (an older version's): where /proc exists, check that the
    pid still runs our hook."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"compaction" in fh.read()
    except OSError:
        return True  # no /proc (macOS): trust the pid


def _clear_pending(workspace: str | os.PathLike[str]) -> None:
    """Remove the pending file if it names this process (a newer detached run may have replaced it);
    a link is never removed (compaction.statedir.remove)."""
    from compaction import statedir

    try:
        parts = (statedir.read_text(workspace, PENDING) or "").split()
        if parts and parts[0] != str(os.getpid()):
            return
    except (OSError, ValueError):
        return
    statedir.remove(workspace, PENDING)
