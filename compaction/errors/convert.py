"""Records -> the boundary model `ErrorRecordOut` (what --json, LSP, MCP read; re-exported by
`compaction.summary`). Defined here so the error memory never imports the compaction's result."""

from __future__ import annotations

from pydantic import BaseModel, Field

from compaction.errors.records import ErrorRecord


class ErrorRecordOut(BaseModel):
    id: str
    count: int
    rounds: list[int]
    recurring: bool = False
    solution: str | None = None
    avoidance: str | None = None
    target_bug: bool = False  # provoked on purpose (reproduction / test-first), not a mistake to avoid
    merged: list[str] = Field(default_factory=list)  # aliases: ids folded into this one (same failure, budget merge)
    codes: list[str] = Field(default_factory=list)  # the compiler's own codes (TS2322), shown beside the id
    locations: list[dict] = Field(default_factory=list)  # {"path", "line", "symbol", "command"}



def record_to_out(rec: ErrorRecord, *, locations: bool = True) -> ErrorRecordOut:
    return ErrorRecordOut(
        id=rec.id, count=rec.count, rounds=rec.rounds, recurring=rec.recurring, solution=rec.solution,
        avoidance=rec.avoidance, target_bug=rec.target_bug, merged=list(rec.merged), codes=rec.ts_codes,
        locations=[loc.as_dict() for loc in rec.locations()] if locations else [],
    )


def records_to_out(records: list[ErrorRecord], *, locations: bool = True) -> list[ErrorRecordOut]:
    return [record_to_out(r, locations=locations) for r in records]
