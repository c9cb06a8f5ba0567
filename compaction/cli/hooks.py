"""`compaction hook pre-compact` and `compaction hook session-start`: Claude Code hook commands.

Both read the hook's JSON on stdin, are silent on success apart from the injected context, and never
fail the agent: any error is logged to `.compaction/hooks.log` and the exit code is 0. Claude Code
reads exit 2 as "block the compaction and show stderr to the model", so no path here ever returns
2: a usage error (a bad flag) is logged and exits 1, which Claude Code reports without blocking.

Deadline: Claude Code kills a hook that runs too long (30 s in the red-team run), and then nothing is
injected. Both hooks therefore return within HOOK_DEADLINE_S whatever the transcript size: work that
is not done by then is handed to a detached background `hook pre-compact`, and session-start injects
the last good state with a note saying so.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

HOOK_DEADLINE_S = 25.0  # below Claude Code's 30 s kill, with room for process start and output
WRAP_UP_S = 3.0  # kept back from the deadline for what follows the work: the block, the hand-over, output
BACKGROUND_ENV = "COMPACTION_HOOK_BACKGROUND"  # set in a detached worker: no agent waits, so no deadline


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
    ss.set_defaults(func=run_session_start)
    p.set_defaults(func=lambda args: usage_error("missing EVENT (pre-compact or session-start)"))


def usage_error(message: str) -> int:
    """A bad `compaction hook` command line: logged, said on stderr, exit 1 (non-blocking), never 2."""
    from compaction.cli.integrations import claude_hooks as ch

    print(f"compaction hook: usage error: {message}", file=sys.stderr)
    workspace = _initial_workspace()
    if workspace is not None:
        ch.log(workspace, "hook", f"usage error: {message}")
    return 1


def _initial_workspace() -> Any:
    """The workspace before the payload is read; None when even the process cwd is gone (deleted)."""
    from compaction.cli.integrations import claude_hooks as ch

    try:
        return ch.workspace_for(None)
    except OSError:
        return None


def deadline_s() -> float:
    """HOOK_DEADLINE_S, or $COMPACTION_HOOK_DEADLINE (seconds) for tests and benchmarks; none in a
    detached worker (it would otherwise hand its work on again, forever)."""
    if os.environ.get(BACKGROUND_ENV):
        return float("inf")
    try:
        value = float(os.environ.get("COMPACTION_HOOK_DEADLINE") or HOOK_DEADLINE_S)
    except ValueError:
        return HOOK_DEADLINE_S
    return value if value > 0 else HOOK_DEADLINE_S


def run_with_deadline(work: Callable[[], Any], timeout: float) -> tuple[bool, Any]:
    """(True, result) when `work` finishes within `timeout` seconds (its exception re-raised), else
    (False, None) with the work still running in a daemon thread: the caller hands it on and exits."""
    if timeout == float("inf"):
        return True, work()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="hook-work", daemon=True)
    thread.start()
    thread.join(max(0.0, timeout))
    if thread.is_alive():
        return False, None
    if "error" in box:
        raise box["error"]
    return True, box.get("result")


def _exit_now(code: int = 0) -> None:
    """Leave while the abandoned work thread still runs: flush what we printed and end the process
    (writes are atomic and the store transactional, so cutting the thread short loses nothing)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _read_stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read()


PENDING = "pre-compact.pending"  # in .compaction/: the pid of a detached pre-compact still at work


def _detach(raw: bytes) -> None:
    """Hand the payload to a background `hook pre-compact` and return: the agent's own compaction
    takes far longer than ours, so the hook costs the agent only a process start."""
    import json
    import subprocess

    try:
        cwd = json.loads(raw or b"{}").get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    except ValueError:
        cwd = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    state = os.path.join(cwd, ".compaction")
    os.makedirs(state, exist_ok=True)
    child = subprocess.Popen([sys.executable, "-m", "compaction.cli", "hook", "pre-compact"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, cwd=cwd, env={**os.environ, BACKGROUND_ENV: "1"})
    with open(os.path.join(state, PENDING), "w", encoding="utf-8") as fh:
        fh.write(str(child.pid))
    child.stdin.write(raw)
    child.stdin.close()


def wait_for_pending(workspace: str | os.PathLike[str], timeout: float = 25.0) -> None:
    """Let a detached pre-compact finish (session-start runs right after the agent's compaction)."""
    path = os.path.join(workspace, ".compaction", PENDING)
    deadline = time.monotonic() + timeout
    while os.path.exists(path) and time.monotonic() < deadline:
        try:
            with open(path, encoding="utf-8") as fh:
                pid = int(fh.read().strip() or 0)
            os.kill(pid, 0)
            if not _is_our_worker(pid):
                return  # the pid was reused by another program: nothing to wait for
        except (OSError, ValueError):
            return  # the worker is gone (finished, or died: session-start compacts itself then)
        time.sleep(0.05)


def _worker_running(workspace: str | os.PathLike[str]) -> bool:
    """Whether the pid in `.compaction/pre-compact.pending` is a live worker of ours."""
    try:
        with open(os.path.join(workspace, ".compaction", PENDING), encoding="utf-8") as fh:
            pid = int(fh.read().strip() or 0)
        if pid <= 0:
            return False
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return _is_our_worker(pid)


def _is_our_worker(pid: int) -> bool:
    """Where /proc exists, check that the pid still runs our hook (pids are reused)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"compaction" in fh.read()
    except OSError:
        return True  # no /proc (macOS): trust the pid


def run_pre_compact(args: argparse.Namespace) -> int:
    if getattr(args, "detach", False):
        try:
            _detach(_read_stdin())
        except BaseException:  # noqa: BLE001 - a hook must never fail the agent
            pass
        return 0
    from compaction.cli.integrations import claude_hooks as ch

    started = time.perf_counter()
    workspace = _initial_workspace()
    try:
        raw = _read_stdin()
        payload = ch.parse_payload(raw)
        workspace = ch.workspace_for(payload)
        finished, report = run_with_deadline(lambda: ch.pre_compact(payload, workspace),
                                             deadline_s() - WRAP_UP_S - (time.perf_counter() - started))
        if not finished:
            _detach(raw)  # a fresh background run finishes the work; this process must return now
            ch.log(workspace, "pre-compact", f"deadline: not done in {deadline_s():.0f} s, "
                   "handed to a background process")
            _exit_now(0)
        ch.log(workspace, "pre-compact", f"ok trigger={payload.trigger} rounds={report.rounds} "
               f"tokens={report.tokens_before}->{report.tokens_after} errors={report.errors_ingested} "
               f"{(time.perf_counter() - started) * 1000:.0f} ms")
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent
        ch.log_exception(workspace, "pre-compact")
    finally:
        pending = os.path.join(workspace, ".compaction", PENDING) if workspace is not None else ""
        if pending and os.path.exists(pending):
            try:
                os.remove(pending)
            except OSError:
                pass
    return 0


def run_session_start(args: argparse.Namespace) -> int:
    from compaction.cli.integrations import claude_hooks as ch

    started = time.perf_counter()
    workspace = _initial_workspace()
    abandoned = False
    try:
        raw = _read_stdin()
        payload = ch.parse_payload(raw)
        workspace = ch.workspace_for(payload)

        def remaining() -> float:
            return deadline_s() - (time.perf_counter() - started)

        wait_for_pending(workspace, timeout=min(25.0, max(0.0, remaining() - WRAP_UP_S)))
        limit = _hook_limit(args.limit, workspace)

        def compact_now(p: Any, ws: Any) -> bool:
            """Compact inline within the deadline; else hand it to a background run (False)."""
            nonlocal abandoned
            if _worker_running(ws):  # a detached pre-compact is still at work: it will write the state
                ch.log(ws, "session-start", "deadline: the background pre-compact is still running; "
                       "injecting the last good state")
                return False
            finished, _ = run_with_deadline(lambda: ch.pre_compact(p, ws), remaining() - WRAP_UP_S)
            if not finished:
                abandoned = True
                _detach(raw)
                ch.log(ws, "session-start", f"deadline: compaction not done in {deadline_s():.0f} s, "
                       "handed to a background process; injecting the last good state")
            return finished

        block = ch.session_start(payload, workspace, limit=limit, any_source=args.any_source,
                                 compact_now=compact_now)
        if block is None:
            ch.log(workspace, "session-start", f"skip source={payload.source}")
        else:
            out = ch.hook_output(block, plain=args.plain)
            sys.stdout.write(out if out.endswith("\n") else out + "\n")
            sys.stdout.flush()
            ch.log(workspace, "session-start", f"ok source={payload.source} chars={len(block)} "
                   f"{(time.perf_counter() - started) * 1000:.0f} ms")
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent
        ch.log_exception(workspace, "session-start")
    if abandoned:
        _exit_now(0)
    return 0


def _hook_limit(flag: int | None, workspace: Any) -> int:
    """--limit, else $COMPACTION_HOOK_LIMIT, else the default; a non-positive or unreadable value is
    logged and replaced by the default (a hook does not fail over its own limit)."""
    from compaction.cli.integrations import claude_hooks as ch

    raw: Any = flag if flag is not None else os.environ.get("COMPACTION_HOOK_LIMIT")
    if raw in (None, ""):
        return ch.DEFAULT_LIMIT
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        ch.log(workspace, "session-start", f"usage error: limit {raw!r} is not a positive number of "
               f"characters; using {ch.DEFAULT_LIMIT}")
        return ch.DEFAULT_LIMIT
    return value
