"""`compaction hook pre-compact` and `compaction hook session-start`: Claude Code hook commands;
`compaction hook gemini-pre-compress` and `gemini-before-agent`: Gemini CLI's (integrations/gemini_hooks).

Both read the hook's JSON on stdin, are silent on success apart from the injected context, and never
fail the agent: any error is logged to `.compaction/hooks.log` and the exit code is 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from compaction.cli.integrations.detached import _clear_pending, _detach, wait_for_pending


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
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


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


def _session_start_fast(args: argparse.Namespace, raw: bytes, started: float) -> bool:
    """Answer from the block the pre-compact worker built (hook_fastpath); False: take the full path."""
    from compaction.cli.integrations import hook_fastpath as fast
    from compaction.cli.integrations.hook_log import log
    from compaction.cli.integrations.workspace import resolve_workspace

    try:
        workspace = resolve_workspace(fast.payload_cwd(raw))
        wait_for_pending(workspace)
        limit = args.limit or int(os.environ.get("COMPACTION_HOOK_LIMIT") or 10_000)
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

    workspace = ch.workspace_for(None)
    try:
        payload = ch.parse_payload(raw)
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
        limit = args.limit or int(os.environ.get("COMPACTION_HOOK_LIMIT") or 10_000)
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
