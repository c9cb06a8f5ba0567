"""The sections of a compaction document: one enum holds each one's place, priority and headings.

Order is the order of definition (how the document reads); priority is the seed's selection order
when the budget forces a choice (lower first; markers are always kept); `key` names the heading in
`headings.HEADINGS` (en/zh) and `summary_field` the list of `compaction.summary.Summary` it fills.
A new section is one member here and one heading per language.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from compaction.history.headings import h


@dataclass(frozen=True, slots=True)
class SectionSpec:
    key: str
    priority: float
    summary_field: str


class Section(Enum):
    GOAL = SectionSpec("goal", 1, "goal")
    RULES = SectionSpec("rules", 2.4, "rules")
    COMPLETED = SectionSpec("completed", 2, "completed")
    MODIFIED = SectionSpec("modified", 3, "modified_files")
    CHANGES = SectionSpec("changes", 3.5, "changes")
    DECISIONS = SectionSpec("decisions", 4, "decisions")
    FINDINGS = SectionSpec("findings", 4.2, "findings")
    # What the agent learned from its reads: after the user's requests and the change records, before decisions.
    EVIDENCE = SectionSpec("evidence", 3.9, "findings")
    PROBLEMS = SectionSpec("problems", 4, "errors")
    MARKED = SectionSpec("marked", 0, "marked")
    CURRENT = SectionSpec("current", 1.5, "current_work")
    NEXT = SectionSpec("next", 5, "next_steps")
    # The room left once every other fact is shown whole, the filler's alone (`LAST_ROOM`): the text of the files
    # the session created or rewrote, as it left them (sources/written.py), then the agent's earlier replies (sources/excerpts.py).
    WRITTEN = SectionSpec("written", 6.5, "changes")
    EXCERPTS = SectionSpec("excerpts", 7, "findings")

    def __init__(self, spec: SectionSpec) -> None:
        # Plain member attributes: `Enum.value` is a descriptor call, and the selection sorts every
        # fact by priority several times per compaction (measured: 3% of the engine's selection).
        self.key = spec.key
        self.priority = spec.priority
        self.summary_field = spec.summary_field

    def heading(self, lang: str) -> str:
        return h(lang, self.key)


# Sections the engine's selection never takes and the filler offers only once the verbatim tail shows where the
# work stopped; a fact of theirs whose rounds the tail shows is not said again.
LAST_ROOM = frozenset({Section.WRITTEN, Section.EXCERPTS})
