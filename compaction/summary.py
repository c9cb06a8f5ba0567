"""The boundary shape of a compaction: what the CLI's --json, the LSP and MCP replies, the restore
state and the benchmarks all read. Built by compaction.history."""

from __future__ import annotations

from pydantic import BaseModel, Field, SkipValidation

from compaction.errors.convert import ErrorRecordOut
from compaction.errors.records import ErrorRecord
from compaction.events import Event

__all__ = ["CompactionResult", "ErrorRecordOut", "Item", "Stats", "Summary"]


class Item(BaseModel):
    """One summary line with the rounds it came from (cited as `(r12, r14)`)."""

    text: str
    rounds: list[int] = Field(default_factory=list)


class Summary(BaseModel):
    goal: list[Item] = Field(default_factory=list)
    rules: list[Item] = Field(default_factory=list)  # key rules of instruction files the agent read (context)
    completed: list[Item] = Field(default_factory=list)
    modified_files: list[Item] = Field(default_factory=list)  # text = workspace-relative or recorded path
    changes: list[Item] = Field(default_factory=list)  # per file: definitions touched, lines removed/added
    findings: list[Item] = Field(default_factory=list)  # the agent's diagnoses and commands' outcomes, dated
    decisions: list[Item] = Field(default_factory=list)
    errors: list[Item] = Field(default_factory=list)  # problems and solutions
    current_work: list[Item] = Field(default_factory=list)  # what was being done when the session ended
    next_steps: list[Item] = Field(default_factory=list)  # todos and next steps, unfinished
    marked: list[Item] = Field(default_factory=list)  # @important/@decision/@warning/@todo, verbatim


class Stats(BaseModel):
    tokens_before: int
    tokens_after: int
    ratio: float
    elapsed_ms: float
    target_tokens: int | None = None
    dropped_command_outputs: int = 0
    dropped_file_reads: int = 0
    dropped_rounds: int = 0
    redactions: int = 0


class CompactionResult(BaseModel):
    format: str
    transcript: str
    rounds: int
    kept_rounds: list[int]
    compacted: bool  # False when the conversation had too few rounds (returned unchanged, with a note)
    note: str | None = None
    cwd: str | None = None
    root: str | None = None  # the project root its paths are shown relative to: the cwd, else the one inferred
    markdown: str
    summary: Summary
    error_memory: list[ErrorRecordOut] = Field(default_factory=list)
    error_memory_markdown: str = ""
    stats: Stats
    # The artifacts the engine derived on the way, for the restore pipeline, the error-memory ingest,
    # MCP and the hooks (so none scans the transcript again); kept out of the JSON, not re-validated.
    # None on a result not made by `compact()` (read back from JSON): the consumer derives them then.
    events: SkipValidation[list[Event] | None] = Field(default=None, exclude=True, repr=False)
    error_records: SkipValidation[list[ErrorRecord] | None] = Field(default=None, exclude=True, repr=False)
