"""`compaction-mcp`: the library served to agents over the Model Context Protocol (stdio).

Seed 000's "compressed MCP" made real: compaction, restore, error memory, compressed memory and
context-block compression as MCP tools. Built on mcp 2.x's high-level `MCPServer`. The
workspace is the server's working directory unless `--workspace`, `COMPACTION_WORKSPACE` or
`mcp.workspace` in the user config says otherwise (never a workspace's own `.compaction/config.json`:
a repository must not widen the server, see compaction.trust). This is an interface module: it may
import `restore`; nothing imports it. Heavy modules are imported inside the tools, so the server
starts fast and a tool whose subsystem fails reports an error instead of killing the server.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

INSTRUCTIONS = (
    "Context compaction for coding assistants. `compact` turns a long transcript into a short document "
    "(task, completed work, modified files, decisions, error memory, next steps); `restore` tells you what "
    "to reopen after a compaction; `error_memory_check` warns before you repeat a recorded mistake; "
    "`memory_add`/`memory_retrieve` keep compressed long-term memory; `compress_blocks` fits context "
    "blocks into a token budget."
)


class ToolFailure(ToolError):
    """A tool could not do its job (bad input, missing subsystem); the message goes to the client."""


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn our documented errors (bad transcript, config, store, a subsystem not installed) into
    ToolError so the client sees the reason, not a generic crash."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from compaction.config import ConfigError
        from compaction.model import TranscriptError
        from compaction.store import StoreError, UnsafeStateError

        try:
            return fn(*args, **kwargs)
        except ToolError:
            raise
        except (TranscriptError, ConfigError, StoreError, UnsafeStateError, ValueError, KeyError,
                FileNotFoundError) as exc:
            raise ToolFailure(str(exc)) from None
        except ImportError as exc:
            raise ToolFailure(f"not available in this build: {exc}") from None

    return wrapper


def resolve_workspace(flag: str | None = None) -> Path:
    """--workspace > $COMPACTION_WORKSPACE > mcp.workspace of the user config > the cwd (a workspace
    file's mcp.workspace is dropped and reported by load_memory_config)."""
    if flag:
        return Path(flag).resolve()
    env = os.environ.get("COMPACTION_WORKSPACE")
    if env:
        return Path(env).resolve()
    cwd = Path.cwd()
    try:
        from compaction.memory import load_memory_config

        configured = load_memory_config(cwd).workspace
    except Exception:  # a bad config is reported by the tools that read it
        configured = None
    return (cwd / configured).resolve() if configured else cwd.resolve()


ALLOWED_READS: list[Path] = []  # what the user named when registering the server (--allow-read)


def allowed_reads_from_env() -> list[Path]:
    from compaction.confine import allowed_reads_from_env as from_env

    return from_env()


def _path(workspace: Path, p: str) -> Path:
    """A path an agent named: read only inside the workspace, this workspace's transcript folders and
    what the user allowed with --allow-read (an agent can be steered by a transcript's text, so
    nothing else — `..` and symlinks included)."""
    from compaction.confine import Confinement

    q = Path(p).expanduser()
    return Confinement([workspace], explicit_read=ALLOWED_READS).check_read(q if q.is_absolute() else workspace / q)


TRUST_SHIPPED: list[bool] = [False]  # --trust-shipped-memory, given by the user when registering the server


def _settings(workspace: Path):
    from compaction.config import load_settings

    return load_settings(workspace, {"trustShippedMemory": TRUST_SHIPPED[0] or None})


def _withheld(workspace: Path) -> str | None:
    """Why the workspace's error memory is not returned (shipped in git, not trusted), or None."""
    from compaction.shipped import withheld

    if not (workspace / ".compaction" / "state.db").exists():
        return None
    return withheld(workspace, _settings(workspace).trust_shipped_memory)


def _positive(name: str, value: float | None) -> None:
    """A budget, limit or window must be > 0: 0 or -5 tokens is a mistake to report, not a request."""
    if value is not None and (isinstance(value, bool) or value <= 0):
        raise ToolFailure(f"{name} must be a positive number, not {value!r}")


def _load(workspace: Path, transcript_path: str):
    from compaction.model import TranscriptError
    from compaction.transcripts import load_transcript

    try:
        return load_transcript(_path(workspace, transcript_path), redact=_settings(workspace).redact_secrets)
    except TranscriptError as exc:
        raise ToolFailure(str(exc)) from None


def build_server(workspace: str | Path | None = None) -> MCPServer:
    ws = Path(workspace).resolve() if workspace else resolve_workspace()
    server = MCPServer("compaction", instructions=INSTRUCTIONS, version="0.1.0")

    @server.tool()
    @_guard
    def compact(transcript_path: str, target_tokens: int | None = None, role: str | None = None,
                instructions: str | None = None, lang: str | None = None, record_errors: bool = True
                ) -> dict[str, Any]:
        """Compact a coding-agent transcript (any supported format; path relative to the workspace).
        Returns the Markdown document, the error memory and statistics; with `record_errors` (default)
        its errors are added to the workspace's error memory."""
        from compaction.history import compact as run

        _positive("target_tokens", target_tokens)
        transcript = _load(ws, transcript_path)
        result = run(transcript, _settings(ws), target_tokens=target_tokens, role=role,
                     instructions=instructions, lang=lang)
        recorded = None
        if record_errors:  # so error_memory_check/list know this conversation's mistakes
            from compaction.errors import ErrorMemory

            with ErrorMemory(ws) as em:
                recorded = em.ingest(transcript, result.error_records).as_dict()
        # Keep .compaction/latest.md and restore.md current, as `compaction compact --restore` does
        # (errors were ingested above, or deliberately not).
        from restore.pipeline import write_after_compaction

        write_after_compaction(ws, transcript, result, _settings(ws), ingest=False)
        return {"markdown": result.markdown, "compacted": result.compacted, "note": result.note,
                "rounds": result.rounds, "kept_rounds": result.kept_rounds,
                "error_memory": [r.model_dump() for r in result.error_memory],
                "recorded_errors": recorded, "stats": result.stats.model_dump()}

    @server.tool()
    @_guard
    def restore(transcript_path: str | None = None, open_files: list[str] | None = None,
                write: bool = True) -> dict[str, Any]:
        """The state to continue from after a compaction: cwd, open files, core files, unfinished tasks,
        problems and solutions, the complete error memory. With `transcript_path`, compacts it first.
        Writes `.compaction/restore.md` unless `write` is false."""
        from compaction import statedir
        from restore.pipeline import stored_error_memory
        from restore.render import render_markdown
        from restore.state import build_restore_state

        settings = _settings(ws)
        opened = [str(_path(ws, f)) for f in open_files] if open_files else None
        if transcript_path:
            from compaction.history import compact as run
            from restore.pipeline import restore_from_transcript

            transcript = _load(ws, transcript_path)
            result = run(transcript, settings)
            state = restore_from_transcript(ws, transcript, result, settings, open_files=opened,
                                            stored_errors=stored_error_memory(ws, settings.lang, settings))
        else:
            records, block = stored_error_memory(ws, settings.lang, settings)
            state = build_restore_state(ws, open_files=opened, settings=settings, error_records=records,
                                        error_memory_markdown=block)
        markdown = render_markdown(state)
        if write:
            statedir.write_text(ws, "restore.md", markdown)
        return {"markdown": markdown, "state": state.model_dump(mode="json")}

    @server.tool()
    @_guard
    def error_memory_check(text: str = "", files: list[str] | None = None, code: str = "",
                           commands: list[str] | None = None, limit: int = 3) -> dict[str, Any]:
        """Before work that resembles a recorded error: ranked warnings, each with the line to print first
        (`⚠️ Detected historical error [id], avoidance: ...`). If the user overrides one, record
        `@decision: ignore_ERR_xxx`."""
        from compaction.errors import ErrorMemory

        _positive("limit", limit)
        reason = _withheld(ws)
        if reason:
            return {"warnings": [], "lines": [], "withheld": reason}
        with ErrorMemory(ws) as em:
            warnings = em.check(task_text=text, files=files or [], code=code, commands=commands or [], limit=limit)
        return {"warnings": [w.as_dict() for w in warnings], "lines": [w.line for w in warnings]}

    @server.tool()
    @_guard
    def error_memory_list() -> dict[str, Any]:
        """All error-memory records of the workspace (id, count, rounds, solution, avoidance) and the
        `## Error Memory` block."""
        from compaction.errors import ErrorMemory, records_to_out

        reason = _withheld(ws)
        if reason:
            return {"records": [], "markdown": "", "withheld": reason}
        with ErrorMemory(ws) as em:
            records = em.list()
            return {"records": [r.model_dump(mode="json") for r in records_to_out(records)],
                    "markdown": em.export(_settings(ws).lang) if records else ""}

    @server.tool()
    @_guard
    def memory_add(text: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """Add a text to the compressed memory (facts, gist and the original are stored)."""
        from compaction.memory import open_memory

        if not text.strip():
            raise ToolFailure("memory_add: text is empty")
        with open_memory(ws) as mem:
            res = mem.add(text, metadata or {})
            return {"item_id": res.item_id, "duplicate": res.duplicate, "facts_added": res.facts_added,
                    "facts_merged": res.facts_merged, "gist": res.gist, "notices": mem.notices}

    @server.tool()
    @_guard
    def memory_retrieve(query: str, token_budget: int | None = None) -> dict[str, Any]:
        """Memories relevant to `query` within `token_budget` tokens (split 50% items / 30% facts / 20% gists)."""
        from compaction.memory import open_memory

        _positive("token_budget", token_budget)
        with open_memory(ws) as mem:
            ctx = mem.retrieve(query, token_budget)
            return {"text": ctx.text, "tokens": ctx.tokens, "budget": ctx.budget, "allocation": ctx.allocation,
                    "facts": len(ctx.facts), "gists": len(ctx.gists), "items": [i.id for i in ctx.temporal],
                    "notices": mem.notices}

    @server.tool()
    @_guard
    def compress_blocks(blocks: list[dict[str, Any]], target_tokens: int | None = None,
                        compression_ratio: float | None = None, strategy: str = "composite",
                        query: str | None = None, prepare: bool = False,
                        context_window: int | None = None) -> dict[str, Any]:
        """Compress context blocks ({source, priority, content, metadata}) by a strategy (priority_based,
        relevance_based, freshness_based, composite, rule_based) under a token target, or with
        `prepare` assemble them under the budget table of a context window."""
        from compaction.blocks import ContextBlock, ContextCompressor, prepare_context

        _positive("target_tokens", target_tokens)
        _positive("context_window", context_window)
        _positive("compression_ratio", compression_ratio)
        if compression_ratio is not None and compression_ratio > 1:
            raise ToolFailure(f"compression_ratio is the share kept, in (0, 1], not {compression_ratio!r}")
        try:
            parsed = [ContextBlock.from_dict(b) for b in blocks]
        except (KeyError, ValueError, TypeError) as exc:
            raise ToolFailure(f"invalid block: {type(exc).__name__}: {exc}") from None
        from compaction.llm import LLMClient

        comp = ContextCompressor(llm=LLMClient.from_settings(_settings(ws).llm))
        if prepare:
            out = prepare_context(parsed, window=context_window, query=query, strategy=strategy,
                                  compressor=comp).to_dict()
        else:
            out = comp.compress(parsed, compression_ratio, target_tokens, strategy, query).to_dict()
        return {**out, "notices": comp.notices}

    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compaction-mcp", description="MCP server (stdio) for context compaction")
    parser.add_argument("--workspace", help="workspace folder (default: the working directory)")
    parser.add_argument("--allow-read", action="append", default=[], metavar="PATH",
                        help="a file or folder outside the workspace the tools may read (repeatable; "
                             "also $COMPACTION_ALLOW_READ, separated by the path separator)")
    parser.add_argument("--trust-shipped-memory", action="store_true",
                        help="use the error memory even when the repository ships .compaction/state.db in git")
    args = parser.parse_args(argv)
    TRUST_SHIPPED[0] = args.trust_shipped_memory
    ALLOWED_READS[:] = [Path(p).expanduser() for p in args.allow_read] + allowed_reads_from_env()
    server = build_server(resolve_workspace(args.workspace))
    server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
