"""One failure, one record: a runtime exception and the test-failure/assertion records the same
output reports for it are one error. The exception's id stays primary; the others become aliases
(`ErrorRecord.merged`) that lookups, checks, counts and role filters honour.

Why by output and not by name: a test runner prints the exception of the failing test and its own
FAILED line in the same tool result; both signals then come from one occurrence of one failure. A
test failure reported elsewhere (another round, another command) stays its own record.
"""

from __future__ import annotations

from compaction.errors.families import FAMILIES, family_of
from compaction.errors.records import ErrorRecord

# Test-runner and assertion records a traceback's exception can cause.
CONSEQUENCES = ("ERR_LOGIC_TestFailed", "ERR_LOGIC_AssertionMismatch")


def _is_exception(err_id: str) -> bool:
    fam = FAMILIES.get(family_of(err_id))
    return fam is not None and fam.named_exceptions


def merge_consequences(records: list[ErrorRecord]) -> list[ErrorRecord]:
    """Fold each test-failure/assertion occurrence into the exception record of the same output (same
    transcript, round, message and source); a record left without occurrences goes, its id kept as
    an alias of the exception's. Returns the records in their original order."""
    places: dict[tuple, ErrorRecord] = {}
    for rec in records:
        if _is_exception(rec.id):
            for o in rec.occurrences:
                places.setdefault((o.transcript, o.round, o.message, o.source), rec)
    if not places:
        return records
    out: list[ErrorRecord] = []
    for rec in records:
        if rec.id not in CONSEQUENCES:
            out.append(rec)
            continue
        kept = []
        for o in rec.occurrences:
            primary = places.get((o.transcript, o.round, o.message, o.source))
            if primary is None:
                kept.append(o)
                continue
            primary.add(o)
            if rec.id not in primary.merged:
                primary.merged.append(rec.id)
        if kept:
            rec.occurrences = kept
            out.append(rec)
    return out


def ids_of(rec: ErrorRecord) -> list[str]:
    """The record's id and its aliases."""
    return [rec.id, *rec.merged]


def find(records: list[ErrorRecord], err_id: str) -> ErrorRecord | None:
    """The record with this id, else the one that holds it as an alias."""
    return next((r for r in records if r.id == err_id), None) or next(
        (r for r in records if err_id in r.merged), None)
