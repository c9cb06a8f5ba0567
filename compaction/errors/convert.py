"""Records -> the boundary model `compaction.summary.ErrorRecordOut` (what --json, LSP, MCP read)."""

from __future__ import annotations

from compaction.errors.records import ErrorRecord
from compaction.summary import ErrorRecordOut


def record_to_out(rec: ErrorRecord, *, locations: bool = True) -> ErrorRecordOut:
    return ErrorRecordOut(
        id=rec.id, count=rec.count, rounds=rec.rounds, recurring=rec.recurring, solution=rec.solution,
        avoidance=rec.avoidance, target_bug=rec.target_bug, merged=list(rec.merged),
        locations=[loc.as_dict() for loc in rec.locations()] if locations else [],
    )


def records_to_out(records: list[ErrorRecord], *, locations: bool = True) -> list[ErrorRecordOut]:
    return [record_to_out(r, locations=locations) for r in records]
