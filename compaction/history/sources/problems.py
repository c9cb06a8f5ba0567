"""Problems: one line per error-memory record this role is shown (where, the error line); the
solution stays in the error-memory block, which the engine renders beside this section."""

from __future__ import annotations

from compaction.errors.records import ErrorRecord
from compaction.history.facts import Fact, cite, display_path
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source


@fact_source(Section.PROBLEMS)
def problem_source(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.error_memory:
        return []
    return problem_facts(ctx.records, ctx.cwd, with_solutions=False)


def problem_facts(records: list[ErrorRecord], cwd: str | None, with_solutions: bool) -> list[Fact]:
    """One line per problem: where it happened and the error line; the solution too when the
    error-memory block (which carries it) is not shown."""
    out: list[Fact] = []
    for rec in records:
        occ = rec.occurrences[-1] if rec.occurrences else None
        if occ is None:
            continue
        where = ""
        loc = occ.location
        if loc.path:
            where = f" at `{display_path(loc.path, cwd)}{':' + str(loc.line) if loc.line else ''}`"
        detail = (occ.detail or occ.evidence.strip().splitlines()[-1] if occ.evidence.strip() else "").strip()
        if len(detail) > 200:
            detail = detail[:197] + "…"
        label = f"{rec.id} (the target bug, reproduced on purpose)" if rec.target_bug else rec.id
        text = f"{label}{where}: {detail}" if detail else f"{label}{where}"
        if rec.solution and with_solutions:
            text += f" — solved: {rec.solution}"
        out.append(Fact(Section.PROBLEMS, f"{text} {cite(rec.rounds)}", rec.rounds,
                        score=40 + rec.count + (5 if rec.target_bug else 0),
                        short=f"{rec.id}{where} {cite(rec.rounds)}", error_id=rec.id))
    return out
