"""Substitutions that changed nothing and were never made since: a line-addressed `sed -i 'Ns/a/b/'`
whose line, as the session last saw it, held no `a`, in a file no later call of the session changed.

Why: the agent believes the change made ("I have updated all `set_output` overrides"), and the
command's own line in the completed actions is one among dozens. The code the session leaves behind
lacks it: a successor must hear it as work left undone, beside the state, not as a past command's
detail.
"""

from __future__ import annotations

from compaction.events import EventKind
from compaction.history.facts import Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source

NAMED = 3  # substitutions named per file; the rest counted
SCORE = 76
_CHANGES = frozenset({EventKind.EDIT, EventKind.WRITE, EventKind.DELETE, EventKind.MOVE, EventKind.REVERT})


@fact_source(Section.CURRENT)
def missed_edit_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    missed = [(i, e) for i, e in enumerate(ctx.events) if e.missed and e.missed_where and e.path]
    if not missed:
        return []
    last_change: dict[str, int] = {}  # each file's last change by the session (its place among the events)
    for i, e in enumerate(ctx.events):
        if e.kind in _CHANGES and e.path and not e.failed and not e.git_output and not e.unchanged:
            last_change[display_path(e.path, ctx.cwd)] = i
    facts: list[Fact] = []
    for at, e in missed:
        path = display_path(e.path or "", ctx.cwd)
        if last_change.get(path, -1) > at:
            continue  # changed again since: whether that made up for it the change records tell
        where = "; ".join(e.missed_where[:NAMED]) + (f"; +{len(e.missed_where) - NAMED}"
                                                     if len(e.missed_where) > NAMED else "")
        n = len(e.missed_where)
        text = (f"Not made: {n} substitution{'s' if n > 1 else ''} of `{path.rsplit('/', 1)[-1]}` (r{e.round}) "
                f"found no such text on {'their lines' if n > 1 else 'its line'} ({where}), and no later call "
                "changed the file: those lines are as they were")
        facts.append(Fact(Section.CURRENT, text, [e.round], score=SCORE, priority=1.5, pending=True,
                          short=f"Not made: {n} substitution{'s' if n > 1 else ''} of `{path.rsplit('/', 1)[-1]}` "
                                f"(r{e.round}) matched nothing on {'their lines' if n > 1 else 'its line'}"))
    return facts
