"""`compaction hook pre-compact` and `compaction hook session-start`: Claude Code hook commands;
`compaction hook gemini-pre-compress` and `gemini-before-agent`: Gemini CLI's (integrations/gemini_hooks).

Both read the hook's JSON on stdin, are silent on success apart from the injected context, and never
fail the agent: any error is logged to `.compaction/hooks.log` and the exit code is 0. Claude Code
reads exit 2 as "block the compaction and show stderr to the model", so no path here ever returns
2: a usage error (a bad flag) is logged and exits 1, which Claude Code reports without blocking.

Deadline: Claude Code kills a hook that runs too long (30 s in the red-team run), and then nothing is
injected. Both hooks therefore return within HOOK_DEADLINE_S whatever the transcript size: work that
is not done by then is handed to a detached background `hook pre-compact` (integrations/detached),
and session-start injects the last good state with a note saying so. The session-start fast path
(integrations/hook_fastpath) waits for a detached worker only as long as the deadline allows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from compaction.cli.integrations.detached import (
    BACKGROUND_ENV,
    _clear_pending,
    _detach,
    pending_worker,
    wait_for_pending,
)

HOOK_DEADLINE_S = 25.0  # below Claude Code's 30 s kill, with room for process start and output
WRAP_UP_S = 3.0  # kept back from the deadline for what follows the work: the block, the hand-over, output
DEFAULT_LIMIT = 10_000  # characters of the injected block (claude_hooks.DEFAULT_LIMIT, without its imports)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help="Claude Code and Gemini CLI hook commands (read the hook JSON on stdin)")
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
    gpc = hs.add_parser("gemini-pre-compress", help="Gemini CLI PreCompress: compact and store when a compression is due")
    gpc.set_defaults(func=run_gemini_pre_compress)
    gba = hs.add_parser("gemini-before-agent",
                        help="Gemini CLI BeforeAgent: add the restore block to the first prompt after a compression")
    gba.add_argument("--limit", type=int, default=None, help="maximum characters of the injected block")
    gba.set_defaults(func=run_gemini_before_agent)
    p.set_defaults(func=lambda args: usage_error("missing EVENT (pre-compact, session-start, gemini-pre-compress "
                                                 "or gemini-before-agent)"))


def usage_error(message: str) -> int:
    """A bad `compaction hook` command line: logged, said on stderr, exit 1 (non-blocking), never 2."""
    from compaction.cli.integrations.hook_log import escape_line, log

    print(f"compaction hook: usage error: {escape_line(message)}", file=sys.stderr)
    workspace = _initial_workspace()
    if workspace is not None:
        log(workspace, "hook", f"usage error: {message}")
    return 1


def _initial_workspace() -> Any:
    """The workspace before the payload is read; None when even the process cwd is gone (deleted)."""
    from compaction.cli.integrations.workspace import resolve_workspace

    try:
        return resolve_workspace(None)
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


def _wait_budget(started: float) -> float:
    """How long session-start may still wait for a detached worker: what the deadline leaves."""
    return min(25.0, max(0.0, deadline_s() - (time.perf_counter() - started) - WRAP_UP_S))


def _read_stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read()


def run_pre_compact(args: argparse.Namespace) -> int:
    if getattr(args, "detach", False):
        try:
            _detach(_read_stdin())
        except BaseException as exc:  # noqa: BLE001 - a hook must never fail the agent
            from compaction.statedir import UnsafeStateError

            if isinstance(exc, UnsafeStateError):
                from compaction.cli.integrations.hook_log import escape_line

                print(f"compaction hook: pre-compact refused: {escape_line(str(exc))}", file=sys.stderr)
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
            _exit_now(0)  # the pending file now names the background run: it is not cleared here
        ch.log(workspace, "pre-compact", f"ok trigger={payload.trigger} rounds={report.rounds} "
               f"tokens={report.tokens_before}->{report.tokens_after} errors={report.errors_ingested} "
               f"{(time.perf_counter() - started) * 1000:.0f} ms")
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent
        ch.log_exception(workspace, "pre-compact")
    finally:
        if workspace is not None:
            _clear_pending(workspace)
    return 0


def _session_start_fast(args: argparse.Namespace, raw: bytes, started: float) -> bool:
    """Answer from the block the pre-compact worker built (hook_fastpath); False: take the full path."""
    from compaction.cli.integrations import hook_fastpath as fast
    from compaction.cli.integrations.hook_log import log
    from compaction.cli.integrations.workspace import resolve_workspace

    try:
        workspace = resolve_workspace(fast.payload_cwd(raw))
        wait_for_pending(workspace, timeout=_wait_budget(started))
        limit = _hook_limit(args.limit, workspace)
        hit = fast.cached_block(raw, workspace, limit, args.any_source)
        if hit is None:
            return False
        block, source = hit
        if block is None:
            log(workspace, "session-start", f"skip source={source}")
            return True
        out = block if args.plain else json.dumps(
            {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": block}})
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
        sys.stdout.flush()
        log(workspace, "session-start", f"ok source={source} chars={len(block)} (prepared by pre-compact) "
            f"{(time.perf_counter() - started) * 1000:.0f} ms")
        return True
    except Exception:  # noqa: BLE001 - the full path below reports what is wrong
        return False


def run_session_start(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    try:
        raw = _read_stdin()
    except OSError:
        raw = b""
    if _session_start_fast(args, raw, started):
        return 0
    from compaction.cli.integrations import claude_hooks as ch

    workspace = _initial_workspace()
    abandoned = False
    try:
        payload = ch.parse_payload(raw)
        workspace = ch.workspace_for(payload)

        def remaining() -> float:
            return deadline_s() - (time.perf_counter() - started)

        wait_for_pending(workspace, timeout=_wait_budget(started))
        limit = _hook_limit(args.limit, workspace)

        def compact_now(p: Any, ws: Any) -> bool:
            """Compact inline within the deadline; else hand it to a background run (False)."""
            nonlocal abandoned
            if pending_worker(ws) is not None:  # a detached pre-compact is still at work: it will write the state
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
                                 trust_shipped=args.trust_shipped_memory, compact_now=compact_now)
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


_reported_limits: set[str] = set()  # the fast path and the full path may both read the limit: one log line


def _hook_limit(flag: int | None, workspace: Any, event: str = "session-start") -> int:
    """--limit, else $COMPACTION_HOOK_LIMIT, else the default; a non-positive or unreadable value is
    logged and replaced by the default (a hook does not fail over its own limit)."""
    from compaction.cli.integrations.hook_log import log

    raw: Any = flag if flag is not None else os.environ.get("COMPACTION_HOOK_LIMIT")
    if raw in (None, ""):
        return DEFAULT_LIMIT
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        if repr(raw) not in _reported_limits:
            _reported_limits.add(repr(raw))
            log(workspace, event, f"usage error: limit {raw!r} is not a positive number of characters; "
                f"using {DEFAULT_LIMIT}")
        return DEFAULT_LIMIT
    return value


def run_gemini_pre_compress(args: argparse.Namespace) -> int:
    """Gemini CLI fires PreCompress before every model request: most runs only read the transcript's tail."""
    from compaction.cli.integrations import gemini_hooks as gh
    from compaction.cli.integrations.workspace import resolve_workspace

    workspace = resolve_workspace(None)
    try:
        raw = _read_stdin()
        workspace = resolve_workspace(gh.parse(raw).get("cwd"))
        message = gh.on_pre_compress(raw, workspace)
        if not message.startswith("skip"):  # the common case writes nothing
            from compaction.cli.integrations.hook_log import log

            log(workspace, "gemini-pre-compress", message)
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent
        from compaction.cli.integrations.hook_log import log_exception

        log_exception(workspace, "gemini-pre-compress")
    return 0


def run_gemini_before_agent(args: argparse.Namespace) -> int:
    from compaction.cli.integrations import gemini_hooks as gh
    from compaction.cli.integrations.workspace import resolve_workspace

    started = time.perf_counter()
    workspace = resolve_workspace(None)
    try:
        raw = _read_stdin()
        workspace = resolve_workspace(gh.parse(raw).get("cwd"))
        limit = _hook_limit(args.limit, workspace, "gemini-before-agent")
        out, message = gh.on_before_agent(raw, workspace, limit)
        if out is not None:
            from compaction.cli.integrations.hook_log import log

            sys.stdout.write(out + "\n")
            sys.stdout.flush()
            log(workspace, "gemini-before-agent", f"{message} {(time.perf_counter() - started) * 1000:.0f} ms")
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent
        from compaction.cli.integrations.hook_log import log_exception

        log_exception(workspace, "gemini-before-agent")
    return 0
