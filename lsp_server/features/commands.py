"""`workspace/executeCommand` bodies: validate the one camelCase argument, call the library.

Each command is a plain function `(job, params) -> dict` so that it runs in a worker thread,
knows nothing of pygls, and can be called directly by benchmarks. `Job` carries what a
command needs from the server (workspace, settings, open files, recency) plus progress and
cancellation: `job.phase(name)` reports progress and raises `Cancelled` when the client gave up.

Cancellation is cooperative and coarse: the flag is checked only between phases (a phase that
has started — loading, compacting, building the restore state — runs to its end; the library
is not interrupted mid-phase). A cancelled request is answered with the LSP RequestCancelled
error (-32800) and writes nothing after the check that saw the flag. The error-memory and
discovery commands are quick and have no phases: once started they run to the end.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from compaction import statedir
from compaction.config import Settings
from compaction.confine import Confinement, ConfinementError
from compaction.discovery import EditorStorage, discover_transcripts
from compaction.errors.memory import ErrorMemoryError
from compaction.model import TranscriptError
from compaction.store import StoreError

# Test hook: wait this long (ms) in every phase so that a test can cancel deterministically.
_PHASE_DELAY_ENV = "COMPACTION_LSP_PHASE_DELAY_MS"


def request_phase_delay_s() -> float:
    """The test hook's wait per phase of a client request; the server's own jobs never wait."""
    return float(os.environ.get(_PHASE_DELAY_ENV, "0") or 0) / 1000


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
    index: Any = None  # restore.workspace.WorkspaceIndex kept fresh by the watcher
    last_compaction: Any = None  # (Transcript, CompactionResult) of this server's last compaction
    remember: Callable[[Any], None] = lambda pair: None
    on_memory_changed: Callable[[], None] = lambda: None
    folders: list[Path] = field(default_factory=list)  # the window's workspace folders
    allow_read: list[str] = field(default_factory=list)  # read roots the user set (flag, user settings)
    storage: EditorStorage | None = None  # the editor's chatSessions/ and globalStorage folders
    phase_delay_s: float = 0.0  # test hook for client requests (COMPACTION_LSP_PHASE_DELAY_MS)

    def confinement(self, picked: list[str] | tuple[str, ...] = ()) -> Confinement:
        """What this request may read: the workspace, its agents' transcript folders (the editor's
        chat sessions included), the user's read roots and the files the user picked for this
        request in the editor."""
        return Confinement([self.workspace], home=self.home, explicit_read=[*self.allow_read, *picked],
                           storage=self.storage)

    def phase(self, message: str, percentage: int | None = None) -> None:
        if self.phase_delay_s:
            self.cancel.wait(self.phase_delay_s)
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
    """This workspace's sessions only: `workspace` must be one of the window's folders (a request
    naming another project would list that project's conversations)."""
    folder = job.workspace
    if p.workspace:
        wanted = os.path.realpath(Path(p.workspace).expanduser())
        match = [f for f in (job.folders or [job.workspace]) if os.path.realpath(f) == wanted]
        if not match:
            raise CommandError(f"workspace {p.workspace} is not one of this window's workspace folders")
        folder = match[0]
    refs = discover_transcripts(folder, home=job.home, storage=job.storage)
    return {"transcripts": [r.to_dict() for r in refs]}


def resolve_transcript(job: Job, path: str | None, picked: list[str] | None = None, *,
                       confined: bool = False) -> Path:
    """The transcript to read, confined like the MCP server's reads (issue 15, attack 5): its real
    path must be inside the workspace, this workspace's agent transcript folders, a read root the
    user set (`--allow-read`, the user setting `compaction.allowRead`), or a file the user picked
    for this request in the editor (`allowRead` in the request: the extension sends it only from
    its file dialog or the active editor). A path that came from a model (`confined`: a language
    model tool, the chat participant) gets no picked files. Absolute paths, `ws/../outside` and
    links out are refused with the reason. Relative paths are taken from the workspace."""
    if path:
        p = Path(path).expanduser()
        return job.confinement(() if confined else (picked or ())).check_read(
            p if p.is_absolute() else job.workspace / p)
    refs = discover_transcripts(job.workspace, home=job.home, include_shipped=job.settings.trust_shipped_memory,
                                storage=job.storage)
    if not refs:
        raise CommandError(f"no transcript given and none discovered for {job.workspace}")
    return Path(refs[0].path)


# ---- compaction ----------------------------------------------------------------------------------


class CompactParams(_Params):
    transcript: str | None = None
    allow_read: list[str] = Field(default_factory=list)  # files the user picked in the editor for this request
    role: Literal["developer", "tester", "pm"] | None = None
    instructions: str | None = None
    target_tokens: int | None = Field(None, gt=0)
    lang: Literal["en", "zh"] | None = None
    format: str | None = None
    confined: bool = False  # the path comes from a model: confine it (see resolve_transcript)


def compact(job: Job, p: CompactParams) -> dict[str, Any]:
    """Load, record the errors in the store, compact (same call as `compaction compact`), write
    `.compaction/latest.md` and `.compaction/restore.md`.

    Cancellation: checked before each of the four phases (load, record errors, compact, write);
    a phase in progress finishes first."""
    from compaction.history import compact as compact_transcript
    from compaction.transcripts import load_transcript

    path = resolve_transcript(job, p.transcript, p.allow_read, confined=p.confined)
    job.phase(f"Loading {path.name}", 5)
    transcript = load_transcript(path, p.format, redact=job.settings.redact_secrets)
    job.phase("Recording errors in the error memory", 30)
    _ingest_errors(job, transcript)
    job.phase("Compacting", 50)
    result = compact_transcript(transcript, job.settings, target_tokens=p.target_tokens, role=p.role,
                                instructions=p.instructions, lang=p.lang)  # fmt: skip
    job.phase("Writing the summary and the restore state", 80)
    out = result.model_dump(mode="json")
    out["paths"] = _write_after_compaction(job, transcript, result)
    return out


def _ingest_errors(job: Job, transcript: Any) -> None:
    with _memory(job) as memory:
        memory.ingest(transcript)
    job.on_memory_changed()


# ---- restore -------------------------------------------------------------------------------------


class RestoreParams(_Params):
    open_files: list[str] | None = None


def restore(job: Job, p: RestoreParams) -> dict[str, Any]:
    """The restore state now: the editor's open files, the watcher-fresh index, the error memory,
    and the last compaction this server made (for unfinished tasks and problems).

    Cancellation: checked before building the state and again before writing `restore.md`."""
    from restore.pipeline import restore_from_transcript
    from restore.render import render_markdown, write_restore
    from restore.state import build_restore_state

    job.phase("Building the restore state", 10)
    open_files = p.open_files if p.open_files is not None else job.open_files
    if job.last_compaction is not None:
        transcript, result = job.last_compaction
        state = restore_from_transcript(job.workspace, transcript, result, job.settings,
                                        open_files=open_files, index=job.index)  # fmt: skip
    else:
        state = build_restore_state(job.workspace, open_files=open_files, settings=job.settings, index=job.index,
                                    error_records=_stored_records(job))  # fmt: skip
    job.phase("Writing the restore document", 90)
    path = write_restore(state)
    return {"markdown": render_markdown(state), "state": state.model_dump(mode="json"), "path": str(path)}


def _stored_records(job: Job) -> list[Any] | None:
    """The store's unresolved records in the boundary shape (None: no store yet)."""
    if not statedir.exists(job.workspace, "state.db"):
        return None
    from compaction.shipped import memory_withheld

    if memory_withheld(job.workspace, job.settings.trust_shipped_memory):
        return None  # shipped in git and not trusted (reported once)
    from compaction.errors import records_to_out

    with _memory(job) as memory:
        return records_to_out([r for r in memory.list() if not r.resolved])


def _write_after_compaction(job: Job, transcript: Any, result: Any) -> dict[str, str]:
    from restore.pipeline import write_after_compaction

    latest, restored = write_after_compaction(job.workspace, transcript, result, job.settings,
                                              open_files=job.open_files, index=job.index)  # fmt: skip
    job.remember((transcript, result))
    return {"latest": str(latest), "restore": str(restored)}


# ---- status --------------------------------------------------------------------------------------


class StatusParams(_Params):
    transcript: str | None = None
    allow_read: list[str] = Field(default_factory=list)  # as for compact


def status(job: Job, p: StatusParams) -> dict[str, Any]:
    """Token use of a transcript against the context window. Cancellation: checked before counting."""
    from compaction import tokens
    from compaction.transcripts import load_transcript

    path = resolve_transcript(job, p.transcript, p.allow_read)
    job.phase(f"Counting tokens in {path.name}", 20)
    transcript = load_transcript(path, redact=job.settings.redact_secrets)
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
    files: list[str] = Field(default_factory=list)
    code: str = ""
    commands: list[str] = Field(default_factory=list)
    limit: int = Field(3, gt=0)
    lang: Literal["en", "zh"] | None = None


class ErrorAddParams(_Params):
    id: str
    solution: str | None = None
    avoidance: str | None = None
    evidence: str = ""
    path: str | None = None
    line: int | None = Field(None, gt=0)
    symbol: str | None = None
    command: str | None = None
    round: int | None = Field(None, gt=0)


class ErrorIdParams(_Params):
    id: str
    solution: str | None = None


class ErrorExportParams(_Params):
    lang: Literal["en", "zh"] | None = None
    format: Literal["markdown", "json"] = "markdown"


def _memory(job: Job):
    from compaction.errors import ErrorMemory

    return ErrorMemory(job.workspace)


def record_json(rec: Any) -> dict[str, Any]:
    """A stored record in the boundary shape (`ErrorRecordOut`, as in `compaction compact --json`)
    plus whether it was resolved."""
    from compaction.errors import record_to_out

    return {**record_to_out(rec).model_dump(mode="json"), "resolved": bool(rec.resolved)}


def errors_list(job: Job, p: ErrorListParams) -> dict[str, Any]:
    with _memory(job) as memory:
        records = memory.list()
    return {"records": [record_json(r) for r in records if p.include_resolved or not r.resolved]}


def errors_check(job: Job, p: ErrorCheckParams) -> dict[str, Any]:
    """Proactive avoidance: warnings for recorded errors resembling this text/file/code."""
    code, files = p.code, list(p.files)
    if p.path:
        files.append(p.path)
        if not code and not p.text:
            code = _read_confined(job, p.path)
    with _memory(job) as memory:
        warnings = memory.check(p.text, files=files, code=code, commands=p.commands, limit=p.limit,
                                lang=p.lang or job.settings.lang)  # fmt: skip
    return {"matches": [w.as_dict() for w in warnings]}


def _read_confined(job: Job, path: str) -> str:
    """A file the request names: relative to the workspace (not the server's cwd), and only where
    compaction.confine lets a request read (the workspace and its transcript folders) — the
    arguments may come from an agent steered by a transcript."""
    try:
        real = job.confinement().check_read(path if Path(path).is_absolute() else job.workspace / path)
    except ConfinementError as exc:
        raise CommandError(str(exc)) from None
    try:
        return real.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CommandError(f"{path}: cannot read: {exc}") from None


def errors_add(job: Job, p: ErrorAddParams) -> dict[str, Any]:
    with _memory(job) as memory:
        rec = memory.add(p.id, solution=p.solution, avoidance=p.avoidance, round=p.round, evidence=p.evidence,
                         path=p.path, line=p.line, symbol=p.symbol, command=p.command)  # fmt: skip
    job.on_memory_changed()
    return {"record": record_json(rec)}


def errors_resolve(job: Job, p: ErrorIdParams) -> dict[str, Any]:
    with _memory(job) as memory:
        rec = memory.resolve(p.id, solution=p.solution)
    job.on_memory_changed()
    return {"record": record_json(rec)}


def errors_forget(job: Job, p: ErrorIdParams) -> dict[str, Any]:
    with _memory(job) as memory:
        removed = memory.forget(p.id)
    job.on_memory_changed()
    return {"id": p.id, "forgotten": p.id in removed}


def errors_export(job: Job, p: ErrorExportParams) -> dict[str, Any]:
    with _memory(job) as memory:
        if p.format == "json":
            return {"records": [record_json(r) for r in memory.list()]}
        return {"markdown": memory.export(lang=p.lang or job.settings.lang)}


# ---- context blocks ------------------------------------------------------------------------------


class BlocksParams(_Params):
    blocks: list[dict[str, Any]]
    compression_ratio: float | None = Field(None, gt=0, le=1)
    target_tokens: int | None = Field(None, gt=0)
    strategy: str = "composite"
    query: str | None = None


def blocks_compress(job: Job, p: BlocksParams) -> dict[str, Any]:
    """Compress context blocks to a ratio or a token target. Cancellation: checked once, before
    compressing (the compression itself is one uninterrupted phase)."""
    from compaction.blocks import ContextBlock, ContextCompressor

    if p.compression_ratio is None and p.target_tokens is None:
        raise CommandError("give compressionRatio or targetTokens")
    job.phase("Compressing context blocks", 20)
    try:
        blocks = [ContextBlock.from_dict(b) for b in p.blocks]
        result = ContextCompressor().compress(blocks, compression_ratio=p.compression_ratio,
                                              target_tokens=p.target_tokens, strategy=p.strategy.lower(), query=p.query)
    except (KeyError, ValueError) as exc:
        raise CommandError(f"invalid blocks: {exc}") from None
    return result.to_dict()


# ---- table ---------------------------------------------------------------------------------------

COMMANDS: dict[str, tuple[type[_Params], Callable[[Job, Any], dict[str, Any]], bool]] = {
    # name: (params model, function, long-running: report progress)
    "compaction.compact": (CompactParams, compact, True),
    "compaction.restore": (RestoreParams, restore, True),
    "compaction.status": (StatusParams, status, False),  # polled by the status item: no progress UI
    "compaction.discoverTranscripts": (DiscoverParams, discover, False),
    "compaction.errorMemory.list": (ErrorListParams, errors_list, False),
    "compaction.errorMemory.check": (ErrorCheckParams, errors_check, False),
    "compaction.errorMemory.add": (ErrorAddParams, errors_add, False),
    "compaction.errorMemory.resolve": (ErrorIdParams, errors_resolve, False),
    "compaction.errorMemory.forget": (ErrorIdParams, errors_forget, False),
    "compaction.errorMemory.export": (ErrorExportParams, errors_export, False),
    "compaction.blocks.compress": (BlocksParams, blocks_compress, True),
}

EXPECTED_ERRORS = (CommandError, TranscriptError, ErrorMemoryError, StoreError, ConfinementError,
                   statedir.UnsafeStateError)

