"""The text the work's last edit left, when nothing checked it or its check failed.

Why: a session that ends stuck holds its state in the region it last changed; the change record says
which lines moved ("(… 58 more changed lines)") and the file's whole text is often unknown (an export
that kept no payload of one edit stops its replay). tree-vanilla ended on a test failing four times
after three rewrites of that test; the successor's first step is to read the test as it now stands,
and the document showed the example file finished rounds before instead. The edit's own new text
(an old/new pair's new side, a diff hunk's lines with its context) is that region, known without a
replay. Told in the work's section (which indents it under its item), ranked just before the files'
texts: the room left over decides. Only when that edit is the work's last change (a later whole write or an
edit whose payload the export did not keep leaves no region: code review 24).
"""

from __future__ import annotations

import re

from compaction.events import Event, EventKind
from compaction.history.facts import TIGHT_TARGET, Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.checks import own_file_names
from compaction.history.sources.current import NOTES_RE, reported_runs, script_checks
from compaction.history.sources.filelog import logs_of
from compaction.history.sources.final_diff import final_echo
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import fence_for

MAX_LINES = 40  # of the region shown; the rest counted
MAX_CHARS = 2400
MIN_LINES = 3  # a shorter region is all in the change record already
PRIORITY = 6.4  # just before the files' texts (6.5): what the room left over goes to first
SCORE = 30
_CHANGES = (EventKind.EDIT, EventKind.WRITE, EventKind.DELETE, EventKind.MOVE, EventKind.REVERT)


def _region(edit: Event) -> list[str]:
    """The edit's new text: each old/new pair's new side whole, else (a diff's hunks, no pair) each hunk's added
    lines between the context it showed; hunks parted by `…`."""
    paired = any(h.source is not None for h in edit.hunks)
    parts = [h.source[1].splitlines() for h in edit.hunks if h.source is not None] if paired else \
        [[*h.above, *h.added, *h.below] for h in edit.hunks if h.added and not h.fragment]
    out: list[str] = []
    for part in parts:
        out += (["…"] if out else []) + part
    return out


_FAILED_COUNT_RE = re.compile(r"\b[1-9]\d* (?:failed|errors?)\b", re.IGNORECASE)


def _check_after(ctx: FactContext, edit: Event) -> tuple[bool, int] | None:
    """(passed, round) of what checked the edit: the last test run after it, else the last run the user reported
    after its round (failed when its counts say so), else a program or build the agent ran after it
    (`current.script_checks`: a `git diff` or an `ls` checks nothing); None when nothing did."""
    tests = [e for e in ctx.events if e.kind is EventKind.COMMAND and e.test
             and (e.round, e.message_index) > (edit.round, edit.message_index)]
    if tests:
        return not tests[-1].failed, tests[-1].round
    reported = [(r, counts) for r, counts in reported_runs(ctx) if r > edit.round]
    if reported:
        return not _FAILED_COUNT_RE.search(reported[-1][1]), reported[-1][0]
    programs = [r for _, r in script_checks(ctx, edit.round, own_file_names(ctx)) if r > edit.round]
    return (True, programs[-1]) if programs else None


def _last_change(ctx: FactContext) -> Event | None:
    """The work's last change: of a file it keeps, not notes (a whole write, an edit whose payload the export did
    not keep, a deletion or a revert count: what they left is not an edit's region)."""
    logs = logs_of(ctx)
    changes = [e for e in ctx.events if e.kind in _CHANGES and e.path and not e.failed and not e.git_output
               and not e.unchanged and not NOTES_RE.search(e.path)
               and not ((log := logs.get(display_path(e.path, ctx.cwd))) is not None and log.deleted)]
    return changes[-1] if changes else None


@fact_source(Section.CURRENT)
def last_edit_text(ctx: FactContext) -> list[Fact]:
    if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET:
        return []  # a tight budget has no room left over for it
    edit = _last_change(ctx)
    if edit is None or edit.kind is not EventKind.EDIT or edit.whole or not edit.hunks \
            or final_echo(ctx) is not None:  # a submitted session's harness printed the final diff
        return []
    check = _check_after(ctx, edit)
    if check is not None and check[0]:
        return []
    lines = _region(edit)
    if sum(1 for line in lines if line.strip() and line != "…") < MIN_LINES:
        return []
    shown: list[str] = []
    size = 0
    for line in lines[:MAX_LINES]:
        if size + len(line) + 1 > MAX_CHARS and shown:
            break
        shown.append(line[:MAX_CHARS])
        size += len(line) + 1
    left = len(lines) - len(shown)
    body = "\n".join(shown)
    fence = fence_for(body)
    more = f"\n(… {left} more lines)" if left else ""
    path = display_path(edit.path or "", ctx.cwd)
    since = "not checked since it" if check is None else f"whose check failed (r{check[1]})"
    head = f"The last edit (r{edit.round}) of `{path}`, {since}, left this text there:"
    return [Fact(Section.CURRENT, f"{head}\n{fence}\n{body}\n{fence}{more}", [edit.round], score=SCORE,
                 priority=PRIORITY, pending=True)]
