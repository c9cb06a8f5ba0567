"""The engine's view of the error memory: scan, filter by role, render the budgeted block."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compaction.history.steering import RolePreset
from compaction.model import Transcript
from compaction.summary import ErrorRecordOut


def scan(transcript: Transcript) -> tuple[list[Any], None]:
    from compaction.errors import scan_transcript

    return scan_transcript(transcript), None


def filter_for_role(records: list[Any], preset: RolePreset) -> list[Any]:
    if not preset.error_memory:
        return []
    if preset.error_prefixes is None:
        return list(records)
    # An alias counts: the tester's ERR_LOGIC_TestFailed merged into the exception that caused it stays shown.
    return [r for r in records if any(i.startswith(preset.error_prefixes) for i in [r.id, *r.merged])]


def to_out(records: list[Any]) -> list[ErrorRecordOut]:
    from compaction.errors import records_to_out

    return records_to_out(records)


def render_block(records: list[Any], lang: str, ceiling: int, current_round: int,
                 ignored: Callable[[str], bool] | None = None) -> tuple[str, str]:
    """The `## Error Memory` block (with the seed's protocol) held to `ceiling` tokens; and a note
    saying what the budget merged or dropped."""
    from compaction.errors import fit_budget

    if ignored is not None:  # `--instructions "ignore X"`: records that mention X go too
        records = [r for r in records if not ignored(_record_text(r))]
    fitted = fit_budget(records, ceiling=ceiling, current_round=current_round, lang=lang)
    return fitted.markdown.rstrip("\n"), "; ".join(fitted.notes)


def _record_text(record: Any) -> str:
    parts = [record.id, record.solution or "", record.avoidance or ""]
    parts += [o.evidence for o in record.occurrences[:3]]
    return " ".join(parts)
