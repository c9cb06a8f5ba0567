"""Modified files: one line per file still in the work tree (how it changed, in which rounds); scratch
files and reverted edits folded into one line each."""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field

from compaction.events import EventKind
from compaction.history.facts import Fact, cite, display_path
from compaction.history.sections import Section
from compaction.history.sources.changes import gists
from compaction.history.sources.filelog import creates, file_logs
from compaction.history.sources.registry import FactContext, fact_source

SCRATCH = ("created then removed", "edited, then reverted")
_CHANGES = (EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.REVERT)


@dataclass(slots=True)
class _FileHistory:
    rounds: list[int] = field(default_factory=list)
    kinds: list[EventKind] = field(default_factory=list)
    last: int = 0


@fact_source(Section.MODIFIED)
def modified_file_facts(ctx: FactContext) -> list[Fact]:
    files: OrderedDict[str, _FileHistory] = OrderedDict()
    for e in ctx.events:
        if e.kind not in _CHANGES or not e.path:
            continue
        if e.failed and not e.via_shell:
            continue
        path = display_path(e.path, ctx.cwd)
        if not path or path.endswith("/") or path.startswith(("/tmp/", "/dev/", "/proc/")):
            continue
        info = files.setdefault(path, _FileHistory())
        info.rounds.append(e.round)
        info.kinds.append(e.kind)
        info.last = e.round
    facts: list[Fact] = []
    scratch: list[tuple[str, str, list[int]]] = []
    logs = file_logs(ctx.events, ctx.cwd)  # edits thrown away by a stash, a reset or aider's /undo too
    carried = gists(ctx)  # what each file's change comes to, from its change record
    for path, info in files.items():
        kinds = info.kinds
        if set(kinds) == {EventKind.DELETE} and not re.search(r"\.\w+$", path):
            continue  # `rm -rf some_dir`: a folder the transcript never showed being filled
        what = _what_happened(kinds)
        log = logs.get(path)
        if log is not None and log.edits and not log.deleted and what not in SCRATCH:
            if not log.kept:
                what = "edited, then reverted"
            else:
                if what == "edited" and creates(log.kept[0]):  # aider's SEARCH/REPLACE from nothing
                    later = [e for e in log.kept if e.round != log.kept[0].round or e.hunks and e is not log.kept[0]]
                    what = "created, then edited" if later else "created"
                if log.thrown:
                    n = len(log.thrown)
                    what += f" ({n} edit{'s' if n != 1 else ''} reverted, not kept)"
        n = len(set(info.rounds))
        is_test = bool(re.search(r"(^|/)(tests?|spec)(/|_)|_test\.|\.test\.|\.spec\.|test_", path))
        score = 50 + n + (5 if is_test and ctx.preset.tests_first else 0)
        if what in SCRATCH:
            scratch.append((path, what, info.rounds))
            continue
        # The line with the file's gist is what the filler upgrades it to when there is room: kept
        # short while required facts (the completed actions) are chosen, so they keep their place.
        gist = f"`{path}`: {what} — {carried[path]} {cite(info.rounds)}" if path in carried else None
        facts.append(Fact(Section.MODIFIED, f"`{path}`: {what} {cite(info.rounds)}", info.rounds, score=score,
                          full_text=gist if what not in SCRATCH else None, essential=True,
                          short=f"`{path}` {cite([info.last])}", path=path))
    # Scratch files and reverted edits: one line, so the list above is what the work tree still holds.
    for what in SCRATCH:
        group = [(p, r) for p, w, r in scratch if w == what]
        if group:
            rounds = sorted({x for _, r in group for x in r})
            names = ", ".join(f"`{p}`" for p, _ in group)
            label = {"created then removed": "Scratch files (created, later removed)",
                     "edited, then reverted": "Edited, then reverted"}[what]
            facts.append(Fact(Section.MODIFIED, f"{label}: {names} {cite(rounds)}", rounds, score=20,
                              short=f"{label}: {len(group)} files {cite(rounds)}", scratch=True))
    return facts


def _what_happened(kinds: list[EventKind]) -> str:
    if kinds[-1] is EventKind.REVERT:
        return "edited, then reverted"
    if kinds[-1] is EventKind.DELETE:
        return "created then removed" if EventKind.WRITE in kinds else "deleted"
    if kinds[0] is EventKind.WRITE and EventKind.EDIT not in kinds:
        return "created"
    if kinds[0] is EventKind.WRITE:
        return "created, then edited"
    return "edited"
