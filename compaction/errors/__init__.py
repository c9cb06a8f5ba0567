"""Error memory (seed 003 §2): classify errors in transcripts, count them per round, advise how to
avoid them, persist them per workspace, and warn before work that resembles a recorded error.

In-memory path for the compaction engine: `scan_transcript(t)` -> records, `fit_budget(...)`,
`render_block(records, lang)`, `records_to_out(records)`. Persistent path: `ErrorMemory(workspace)`.
"""

from __future__ import annotations

from compaction.errors.budget import BudgetResult, fit_budget
from compaction.errors.classify import Hit, classify
from compaction.errors.convert import record_to_out, records_to_out
from compaction.errors.memory import ErrorMemory, Warning_
from compaction.errors.records import ErrorRecord, Location, Occurrence
from compaction.errors.render import PROTOCOL, WARNING, parse_block, render_block
from compaction.errors.scan import scan_transcript, transcript_id

__all__ = [
    "BudgetResult", "ErrorMemory", "ErrorRecord", "Hit", "Location", "Occurrence", "PROTOCOL", "WARNING",
    "Warning_", "classify", "fit_budget", "parse_block", "record_to_out", "records_to_out", "render_block",
    "scan_transcript", "transcript_id",
]
