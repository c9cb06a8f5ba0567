"""Edits the session left uncommitted: in a session that commits, the files changed after its last
commit. Why: "what remains" at the end of a session that committed its work along the way is first
of all the work since the last commit; a list of commits and a list of modified files leave the reader
to compare their rounds, and a successor that pushes believes it pushes everything.
"""

from __future__ import annotations

import re

from compaction import shell
from compaction.events import EventKind
from compaction.history.facts import Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.completed import HASH_CHARS
from compaction.history.sources.registry import FactContext, fact_source

SHOWN = 4  # files named; the rest counted
SCORE = 74
_STASH_RE = re.compile(r"^\s*git\s+stash(?:\s+(push|save|pop|apply)\b|\s*(?:$|;|&&)|\s+-)")


@fact_source(Section.CURRENT)
def uncommitted_facts(ctx: FactContext) -> list[Fact]:
    commits = [e for e in ctx.events if e.kind is EventKind.COMMIT and e.commit_hash]
    if not commits:
        return []
    last = commits[-1]
    after: dict[str, int] = {}
    stashed: dict[str, int] = {}
    for e in ctx.events:
        if e.message_index <= last.message_index:
            continue
        stash = _stash(e.command) if e.kind is EventKind.COMMAND and e.command else None
        if stash in ("pop", "apply"):
            after.update(stashed)  # back from the stash: uncommitted again
            stashed.clear()
        elif stash is not None:
            stashed.update(after)  # set aside: nothing is left to commit until it is popped
            after.clear()
        elif e.kind is EventKind.REVERT and e.path:
            after.pop(display_path(e.path, ctx.cwd), None)  # back to the committed text
        elif e.kind in (EventKind.EDIT, EventKind.WRITE, EventKind.DELETE) and e.path and not e.failed \
                and not e.git_output:
            shown = display_path(e.path, ctx.cwd)
            if ctx.cwd and shown.startswith(("/", "~")):  # outside the project (a scratch file in /tmp)
                continue
            after[shown] = e.round
    if not after:
        return []
    paths = list(after)
    # base names: the modified-files list has the paths
    named = ", ".join(f"`{p.rsplit('/', 1)[-1]}`" for p in paths[:SHOWN])
    named += f" +{len(paths) - SHOWN}" if len(paths) > SHOWN else ""
    ref = last.commit_hash[:HASH_CHARS]
    head = f"Uncommitted: {len(paths)} file{'s' if len(paths) > 1 else ''} changed after the last commit ({ref}, r{last.round})"
    rounds = sorted(set(after.values()))
    c = f"(r{rounds[-1]})"
    # must-keep, as whether the last change was tested: what a successor would push, or lose, next
    return [Fact(Section.CURRENT, f"{head}: {named} {c}", rounds, score=SCORE, priority=1.5, pending=True,
                 essential=True, short=f"{head} {c}")]


def _stash(command: str) -> str | None:
    """What a `git stash` command line does ("" for a plain stash, "pop", "apply", "push"…), else None."""
    cd = shell.leading_cd(command)
    m = _STASH_RE.match(cd[1] if cd else command)
    return (m.group(1) or "") if m else None
