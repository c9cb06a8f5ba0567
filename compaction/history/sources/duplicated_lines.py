"""An edit that left a line twice, its new form beside its old one, and the later edit that removed the old
copy: a patch that added a line's new form without taking out the old (git-provenance's ASCII pass kept
`Entire is a distinct, “workflow provenance”…` as context and added its straight-quoted copy; two edits later
removed the curly one).

Why a problem of its own: no tool failed, so no error record tells it, and the change records show the two
edits as an unrelated addition and removal; a successor asked what went wrong with that edit, or about to patch
the same file the same way, needs the mistake and its repair. Found from the edits' own lines, whatever the
file's text: a line one edit added (not in place of a line of the same words) whose old form, the same words
in other quotes or dashes, a later edit removed without adding it again.
"""

from __future__ import annotations

import re

from compaction.events import Event, EventKind
from compaction.history.facts import Fact, cite, display_path
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source

MIN_CHARS = 24  # a line shorter than this (a brace, a blank, `return x`) may well stand twice
MAX_FILES = 40  # files read for it: bounded work
LINE_CHARS = 70
SCORE = 43  # beside the problem lines of error records (40 + occurrences)
_FOLD = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "…": "...", "→": "->"})
_SPACE_RE = re.compile(r"\s+")


def _fold(line: str) -> str:
    return _SPACE_RE.sub(" ", line.translate(_FOLD)).strip().lower()


@fact_source(Section.PROBLEMS)
def duplicated_line_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.error_memory:
        return []
    by_path: dict[str, list[Event]] = {}
    for e in ctx.events:
        if e.path and not e.failed and e.kind is EventKind.EDIT and e.hunks:
            by_path.setdefault(e.path, []).append(e)
    out: list[Fact] = []
    for path, events in list(by_path.items())[:MAX_FILES]:
        out.extend(_doubled(display_path(path, ctx.cwd), events))
    return out


def _doubled(path: str, events: list[Event]) -> list[Fact]:
    """Each edit of the file that added a line's new form beside its old one, which a later edit removed."""
    added: dict[str, tuple[int, str]] = {}  # a folded line an edit added, not in place of its own old form
    found: dict[tuple[int, int], list[str]] = {}  # (round that doubled it, round that removed the old form)
    for e in events:
        gone = {f: ln for h in e.hunks for ln in h.removed if len(f := _fold(ln)) >= MIN_CHARS}
        came = {f: ln for h in e.hunks for ln in h.added if len(f := _fold(ln)) >= MIN_CHARS}
        for f, old in gone.items():
            if f in came or f not in added:
                continue  # rewritten in place, or never added twice
            doubled, new = added.pop(f)
            if old.split() != new.split() and doubled < e.round:
                # the other copy: its old form, in other quotes or dashes (spacing alone: the same line re-indented)
                found.setdefault((doubled, e.round), []).append(new)
        for f, new in came.items():
            if f not in gone:
                added[f] = (e.round, new)
            else:
                added.pop(f, None)
    facts: list[Fact] = []
    for (doubled, fixed), lines in found.items():
        shown = " ".join(lines[0].split())
        shown = shown if len(shown) <= LINE_CHARS else shown[:LINE_CHARS - 1] + "…"
        more = f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""
        text = (f"`{path}`: the edit of r{doubled} added “{shown}”{more} beside its old form, not in its place; "
                f"the edit of r{fixed} removed the old one")
        facts.append(Fact(Section.PROBLEMS, f"{text} {cite([doubled, fixed])}", [doubled, fixed], score=SCORE))
    return facts
