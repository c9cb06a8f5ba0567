"""`workspace/executeCommand` bodies: validate the one camelCase argument, call the library.

Each command is a plain function `(job, params) -> dict` so that it runs in a worker thread,
knows nothing of pygls, and can be called directly by benchmarks. `Job` carries what a
command needs from the server (workspace, settings, open files, recency) plus progress and
cancellation: `job.phase(name)` reports progress and raises `Cancelled` when the client gave up.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from compaction.atomic import write_text_atomic
from compaction.config import Settings
from compaction.discovery import discover_transcripts
from compaction.model import TranscriptError

# Test hook: wait this long (ms) in every phase so that a test can cancel deterministically.
_PHASE_DELAY_ENV = "COMPACTION_LSP_PHASE_DELAY_MS"


class Cancelled(Exception):
    """The client cancelled the request (or its progress); the work stopped between phases."""


class CommandError(Exception):
    """Bad arguments or input for a command: the message goes back to the client as the error."""


@dataclass
class Job:
    workspace: Path
    settings: Settings
    open_files: list[str] = field(default_factory=list)
    recency: list[tuple[str, float]] = field(default_factory=list)
    progress: Callable[[str, int | None], None] = lambda message, pct: None
    cancel: threading.Event = field(default_factory=threading.Event)
    home: str | None = None
    on_memory_changed: Callable[[], None] = lambda: None

    def phase(self, message: str, percentage: int | None = None) -> None:
        delay = float(os.environ.get(_PHASE_DELAY_ENV, "0") or 0) / 1000
        if delay:
            self.cancel.wait(delay)
        if self.cancel.is_set():
            raise Cancelled(f"cancelled before {message}")
        self.progress(message, percentage)


class _Params(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


def parse(model: type[_Params], args: tuple[Any, ...]) -> Any:
    """The command's single object argument (none means `{}`), validated."""
    raw = args[0] if args else {}
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise CommandError(f"expected one object argument, got {type(raw).__name__}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        msgs = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise CommandError(f"invalid arguments: {msgs}") from None


# ---- transcripts ----------------------------------------------------------------------------------


class DiscoverParams(_Params):
    workspace: str | None = None


def discover(job: Job, p: DiscoverParams) -> dict[str, Any]:
    refs = discover_transcripts(p.workspace or job.workspace, home=job.home)
    return {"transcripts": [r.to_dict() for r in refs]}


def resolve_transcript(job: Job, path: str | None) -> Path:
    if path:
        p = Path(path).expanduser()
        return p if p.is_absolute() else job.workspace / p
    refs = discover_transcripts(job.workspace, home=job.home)
    if not refs:
        raise CommandError(f"no transcript given and none discovered for {job.workspace}")
    return Path(refs[0].path)


# ---- compaction ----------------------------------------------------------------------------------


class CompactParams(_Params):
    transcript: str | None = None
    role: Literal["developer", "tester", "pm"] | None = None
    instructions: str | None = None
    target_tokens: int | None = Field(None, gt=0)
    lang: Literal["en", "zh"] | None = None
    format: str | None = None


def compact(job: Job, p: CompactParams) -> dict[str, Any]:
    from compaction import history
    from compaction.transcripts import load_transcript

    path = resolve_transcript(job, p.transcript)
    settings = job.settings.model_copy(update={k: v for k, v in {"role": p.role, "lang": p.lang}.items() if v})
    job.phase(f"Loading {path.name}", 5)
    transcript = load_transcript(path, p.format)
    job.phase("Recording errors in the error memory", 35)
    _ingest_errors(job, transcript)
    job.phase("Compacting", 55)
    result = history.compact(
        transcript, settings, instructions=p.instructions, target_tokens=p.target_tokens, workspace=job.workspace
    )
    job.phase("Writing the summary and the restore state", 85)
    out = result.model_dump(mode="json")
    latest = write_text_atomic(job.workspace / ".compaction" / "latest.md", result.markdown)
    restored = _restore(job, result=result, transcript=transcript)
    out["paths"] = {"latest": str(latest), "restore": restored["path"]}
    return out


def _ingest_errors(job: Job, transcript: Any) -> None:
    from compaction.errors import ErrorMemory

    memory = ErrorMemory.open(job.workspace)
    try:
        memory.ingest(transcript)
    finally:
        memory.close()
    job.on_memory_changed()


# ---- restore -------------------------------------------------------------------------------------


class RestoreParams(_Params):
    open_files: list[str] | None = None
    transcript: str | None = None


def restore(job: Job, p: RestoreParams) -> dict[str, Any]:
    job.phase("Building the restore state", 10)
    open_files = p.open_files if p.open_files is not None else job.open_files
    transcript = None
    if p.transcript:
        from compaction.transcripts import load_transcript

        transcript = load_transcript(resolve_transcript(job, p.transcript))
    return _restore(job, open_files=open_files, transcript=transcript)


def _restore(job: Job, result: Any = None, transcript: Any = None, open_files: list[str] | None = None) -> dict:
    from restore.render import render_restore
    from restore.state import build_restore_state

    state = build_restore_state(
        job.workspace,
        settings=job.settings,
        result=result,
        transcript=transcript,
        open_files=open_files if open_files is not None else job.open_files,
        recency=dict(job.recency),
    )
    markdown = render_restore(state, lang=job.settings.lang)
    path = write_text_atomic(job.workspace / ".compaction" / "restore.md", markdown)
    return {"markdown": markdown, "state": state.model_dump(mode="json"), "path": str(path)}


# ---- status --------------------------------------------------------------------------------------


class StatusParams(_Params):
    transcript: str | None = None


def status(job: Job, p: StatusParams) -> dict[str, Any]:
    from compaction import tokens
    from compaction.transcripts import load_transcript

    path = resolve_transcript(job, p.transcript)
    job.phase(f"Counting tokens in {path.name}", 20)
    transcript = load_transcript(path)
    used = tokens.count_messages(transcript.messages)
    window = tokens.context_window(job.settings.model, job.settings.context_window)
    util = tokens.utilization(used, window)
    return {
        "transcript": str(path),
        "format": transcript.format,
        "rounds": len(transcript.rounds),
        "tokens": used,
        "contextWindow": window,
        "utilization": round(util, 4),
        "triggerRatio": job.settings.trigger_ratio,
        "wouldTrigger": util >= job.settings.trigger_ratio and len(transcript.rounds) > job.settings.min_rounds,
    }


# ---- error memory --------------------------------------------------------------------------------


class ErrorListParams(_Params):
    include_resolved: bool = False


class ErrorCheckParams(_Params):
    text: str = ""
    path: str | None = None
    limit: int = Field(5, gt=0)


class ErrorAddParams(_Params):
    id: str
    solution: str | None = None
    avoidance: str | None = None
    message: str | None = None
    path: str | None = None
    line: int | None = Field(None, gt=0)
    symbol: str | None = None
    command: str | None = None
    round: int | None = None


class ErrorIdParams(_Params):
    id: str
    solution: str | None = None


class ErrorExportParams(_Params):
    lang: Literal["en", "zh"] | None = None
    format: Literal["markdown", "json"] = "markdown"


def _memory(job: Job):
    from compaction.errors import ErrorMemory

    return ErrorMemory.open(job.workspace)


def _records(items: Any) -> list[dict[str, Any]]:
    from lsp_server.features.locations import as_dict

    return [as_dict(r) for r in items]


def errors_list(job: Job, p: ErrorListParams) -> dict[str, Any]:
    memory = _memory(job)
    try:
        return {"records": _records(memory.list(include_resolved=p.include_resolved))}
    finally:
        memory.close()


def errors_check(job: Job, p: ErrorCheckParams) -> dict[str, Any]:
    text = p.text
    if not text and p.path:
        try:
            text = Path(p.path).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise CommandError(f"{p.path}: cannot read: {exc}") from None
    memory = _memory(job)
    try:
        matches = memory.check(text, limit=p.limit)
    finally:
        memory.close()
    return {"matches": _records(matches)}


def errors_add(job: Job, p: ErrorAddParams) -> dict[str, Any]:
    location = {k: v for k, v in {"path": p.path, "line": p.line, "symbol": p.symbol, "command": p.command}.items() if v}
    memory = _memory(job)
    try:
        rec = memory.add(p.id, solution=p.solution, avoidance=p.avoidance, message=p.message,
                         location=location or None, round=p.round)  # fmt: skip
    finally:
        memory.close()
    job.on_memory_changed()
    return {"record": _records([rec])[0]}


def errors_resolve(job: Job, p: ErrorIdParams) -> dict[str, Any]:
    memory = _memory(job)
    try:
        rec = memory.resolve(p.id, solution=p.solution)
    finally:
        memory.close()
    job.on_memory_changed()
    return {"record": _records([rec])[0] if rec is not None else None}


def errors_forget(job: Job, p: ErrorIdParams) -> dict[str, Any]:
    memory = _memory(job)
    try:
        removed = memory.forget(p.id)
    finally:
        memory.close()
    job.on_memory_changed()
    return {"id": p.id, "forgotten": bool(removed)}


def errors_export(job: Job, p: ErrorExportParams) -> dict[str, Any]:
    memory = _memory(job)
    try:
        if p.format == "json":
            return {"records": _records(memory.list(include_resolved=True))}
        return {"markdown": memory.export(lang=p.lang or job.settings.lang)}
    finally:
        memory.close()


# ---- context blocks ------------------------------------------------------------------------------


class BlocksParams(_Params):
    blocks: list[dict[str, Any]]
    compression_ratio: float | None = Field(None, gt=0, le=1)
    target_tokens: int | None = Field(None, gt=0)
    strategy: str = "composite"
    query: str | None = None


def blocks_compress(job: Job, p: BlocksParams) -> dict[str, Any]:
    from compaction.blocks import ContextBlock, ContextCompressor

    if p.compression_ratio is None and p.target_tokens is None:
        raise CommandError("give compressionRatio or targetTokens")
    job.phase("Compressing context blocks", 20)
    blocks = [ContextBlock.model_validate(b) for b in p.blocks]
    result = ContextCompressor().compress(
        blocks, compression_ratio=p.compression_ratio, target_tokens=p.target_tokens, strategy=p.strategy, query=p.query
    )
    return result.model_dump(mode="json") if hasattr(result, "model_dump") else {"blocks": _records(result)}


# ---- table ---------------------------------------------------------------------------------------

COMMANDS: dict[str, tuple[type[_Params], Callable[[Job, Any], dict[str, Any]], bool]] = {
    # name: (params model, function, long-running: report progress)
    "compaction.compact": (CompactParams, compact, True),
    "compaction.restore": (RestoreParams, restore, True),
    "compaction.status": (StatusParams, status, True),
    "compaction.discoverTranscripts": (DiscoverParams, discover, False),
    "compaction.errorMemory.list": (ErrorListParams, errors_list, False),
    "compaction.errorMemory.check": (ErrorCheckParams, errors_check, False),
    "compaction.errorMemory.add": (ErrorAddParams, errors_add, False),
    "compaction.errorMemory.resolve": (ErrorIdParams, errors_resolve, False),
    "compaction.errorMemory.forget": (ErrorIdParams, errors_forget, False),
    "compaction.errorMemory.export": (ErrorExportParams, errors_export, False),
    "compaction.blocks.compress": (BlocksParams, blocks_compress, True),
}

EXPECTED_ERRORS = (CommandError, TranscriptError)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, (time.perf_counter() - start) * 1000
