"""The boundary shape of a compaction: what the CLI's --json, the LSP and MCP replies, the restore
state and the benchmarks all read. Built by compaction.history."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, PrivateAttr


class Item(BaseModel):
    """One summary line with the rounds it came from (cited as `(r12, r14)`)."""

    text: str
    rounds: list[int] = Field(default_factory=list)


class ErrorRecordOut(BaseModel):
    id: str
    count: int
    rounds: list[int]
    recurring: bool = False
    solution: str | None = None
    avoidance: str | None = None
    target_bug: bool = False  # provoked on purpose (reproduction / test-first), not a mistake to avoid
    merged: list[str] = Field(default_factory=list)  # ids folded into this one by the budget's merge step
    locations: list[dict] = Field(default_factory=list)  # {"path", "line", "symbol", "command"}


class Summary(BaseModel):
    goal: list[Item] = Field(default_factory=list)
    completed: list[Item] = Field(default_factory=list)
    modified_files: list[Item] = Field(default_factory=list)  # text = workspace-relative or recorded path
    decisions: list[Item] = Field(default_factory=list)
    errors: list[Item] = Field(default_factory=list)  # problems and solutions
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
    markdown: str
    summary: Summary
    error_memory: list[ErrorRecordOut] = Field(default_factory=list)
    error_memory_markdown: str = ""
    stats: Stats
    # What the engine derived on the way (events, error records), kept out of the JSON so the
    # restore pipeline and the error-memory ingest need not scan the transcript again.
    _events: list[Any] | None = PrivateAttr(default=None)
    _error_records: list[Any] | None = PrivateAttr(default=None)
