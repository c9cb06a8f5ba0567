"""The text the work's last edit left, when nothing checked it or its check failed.

Why: a session that ends stuck holds its state in the region it last changed; the change record says
which lines moved ("(… 58 more changed lines)") and the file's whole text is often unknown (an export
that kept no payload of one edit stops its replay). tree-vanilla ended on a test failing four times
after three rewrites of that test; the successor's first step is to read the test as it now stands,
and the document showed the example file finished rounds before instead. The edit's own new text
(an old/new pair's new side, a diff hunk's lines with its context) is that region, known without a
replay. Told in the work's section (which indents it under its item), ranked just before the files' texts: the room left over decides.
"""

from __future__ import annotations

from compaction.events import Event, EventKind
from compaction.history.facts import TIGHT_TARGET, Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.current import NOTES_RE, reported_runs
from compaction.history.sources.filelog import logs_of
from compaction.history.sources.final_diff import final_echo
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import fence_for

MAX_LINES = 40  # of the region shown; the rest counted
MAX_CHARS = 2400
MIN_LINES = 3  # a shorter region is all in the change record already
PRIORITY = 6.4  # just before the files' texts (6.5): what the room left over goes to first
SCORE = 30


def _region(edit: Event) -> list[str]:
    """The edit's new text: each old/new pair's new side whole, else each hunk's added lines between the
    context a diff showed; hunks parted by `…`."""
    parts: list[list[str]] = []
    for hunk in edit.hunks:
        if hunk.source is not None:
            parts.append(hunk.source[1].splitlines())
        elif hunk.added and not hunk.fragment and hunk.source is None and not any(
                h.source is not None for h in edit.hunks):
            parts.append([*hunk.above, *hunk.added, *hunk.below])
    out: list[str] = []
    for part in parts:
        out += (["…"] if out else []) + part
    return out


def _checked_after(ctx: FactContext, edit: Event) -> bool:
    """A test or a program ran after the edit and did not fail, or the user reported a run after its round."""
    after = [e for e in ctx.events if e.kind is EventKind.COMMAND and e.command
             and (e.round, e.message_index) > (edit.round, edit.message_index)]
    tests = [e for e in after if e.test]
    if tests:
        return not tests[-1].failed
    if any(r > edit.round for r, _ in reported_runs(ctx)):
        return True
    return bool(after) and not after[-1].failed


@fact_source(Section.CURRENT)
def last_edit_text(ctx: FactContext) -> list[Fact]:
    if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET:
        return []  # a tight budget has no room left over for it
    logs = logs_of(ctx)
    work = [e for e in ctx.events if e.kind is EventKind.EDIT and e.path and e.hunks and not e.failed
            and not e.whole and not NOTES_RE.search(e.path)
            and (log := logs.get(display_path(e.path, ctx.cwd))) is not None
            and not log.deleted]
    if not work or final_echo(ctx) is not None:  # a submitted session's harness printed the final diff
        return []
    edit = work[-1]
    if _checked_after(ctx, edit):
        return []
    lines = _region(edit)
    if len(lines) < MIN_LINES:
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
    head = f"The last edit (r{edit.round}) of `{path}`, not checked since it, left this text there:"
    return [Fact(Section.CURRENT, f"{head}\n{fence}\n{body}\n{fence}{more}", [edit.round], score=SCORE, priority=PRIORITY,
                 pending=True)]
