"""`compaction hook pre-compact` and `compaction hook session-start`: Claude Code hook commands.

Both read the hook's JSON on stdin, are silent on success apart from the injected context, and never
fail the agent: any error is logged to `.compaction/hooks.log` and the exit code is 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help="Claude Code hook commands (read the hook JSON on stdin)")
    hs = p.add_subparsers(dest="hook", metavar="EVENT")
    pre = hs.add_parser("pre-compact", help="PreCompact: compact the transcript, write .compaction/restore.md")
    pre.add_argument("--detach", action="store_true",
                     help="return at once and do the work in a background process (session-start waits for it)")
    pre.set_defaults(func=run_pre_compact)
    ss = hs.add_parser("session-start", help="SessionStart: print the restore block (after a compaction)")
    ss.add_argument("--limit", type=int, default=None,
                    help="maximum characters of the injected block (default $COMPACTION_HOOK_LIMIT or 10000)")
    ss.add_argument("--plain", action="store_true", help="print the block as text instead of the hook JSON")
    ss.add_argument("--any-source", action="store_true",
                    help="also inject on startup/clear/resume when a restore state exists")
    ss.add_argument("--trust-shipped-memory", action="store_true",
                    help="inject even when the repository ships .compaction/state.db (or the restore files) in git")
    ss.set_defaults(func=run_session_start)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _read_stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read()


PENDING = "pre-compact.pending"  # in .compaction/: "PID START" of a detached pre-compact still at work


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
    import subprocess

    try:
        out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True, timeout=2)
    except (OSError, subprocess.SubprocessError):
        return None
    return "-".join(out.stdout.split()) or None  # one token: the pending file is "PID START"


def _detach(raw: bytes) -> None:
    """Hand the payload to a background `hook pre-compact` and return: the agent's own compaction
    takes far longer than ours, so the hook costs the agent only a process start."""
    import json
    import subprocess

    from compaction import statedir

    try:
        cwd = json.loads(raw or b"{}").get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    except ValueError:
        cwd = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    statedir.state_file(cwd, PENDING)  # refuse a linked state folder or pending file before starting
    child = subprocess.Popen([sys.executable, "-m", "compaction.cli", "hook", "pre-compact"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, cwd=cwd)
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


def run_pre_compact(args: argparse.Namespace) -> int:
    if getattr(args, "detach", False):
        try:
            _detach(_read_stdin())
        except BaseException as exc:  # noqa: BLE001 - a hook must never fail the agent
            from compaction.statedir import UnsafeStateError

            if isinstance(exc, UnsafeStateError):
                from compaction.cli.integrations.claude_hooks import escape_line

                print(f"compaction hook: pre-compact refused: {escape_line(str(exc))}", file=sys.stderr)
        return 0
    from compaction.cli.integrations import claude_hooks as ch

    started = time.perf_counter()
    workspace = ch.workspace_for(None)
    try:
        payload = ch.parse_payload(_read_stdin())
        workspace = ch.workspace_for(payload)
        report = ch.pre_compact(payload, workspace)
        ch.log(workspace, "pre-compact", f"ok trigger={payload.trigger} rounds={report.rounds} "
               f"tokens={report.tokens_before}->{report.tokens_after} errors={report.errors_ingested} "
               f"{(time.perf_counter() - started) * 1000:.0f} ms")
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent
        ch.log_exception(workspace, "pre-compact")
    finally:
        _clear_pending(workspace)
    return 0


def run_session_start(args: argparse.Namespace) -> int:
    from compaction.cli.integrations import claude_hooks as ch

    started = time.perf_counter()
    workspace = ch.workspace_for(None)
    try:
        payload = ch.parse_payload(_read_stdin())
        workspace = ch.workspace_for(payload)
        wait_for_pending(workspace)
        limit = args.limit or int(os.environ.get("COMPACTION_HOOK_LIMIT") or ch.DEFAULT_LIMIT)
        block = ch.session_start(payload, workspace, limit=limit, any_source=args.any_source,
                                 trust_shipped=args.trust_shipped_memory)
        if block is None:
            ch.log(workspace, "session-start", f"skip source={payload.source}")
            return 0
        out = ch.hook_output(block, plain=args.plain)
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
        sys.stdout.flush()
        ch.log(workspace, "session-start", f"ok source={payload.source} chars={len(block)} "
               f"{(time.perf_counter() - started) * 1000:.0f} ms")
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent
        ch.log_exception(workspace, "session-start")
    return 0
