"""The text of the files the session created, as it left them: what the room left over, once every
other fact is shown whole, is worth first.

Why: a session that drafts a document or a script with the user holds its substance in that file,
and its change records say only which sections and definitions it holds ("sections + 'Big Picture:
Three Provenance Granularities' … (+72 more lines)"); a successor asked what the summary says of each
challenge area finds the answer in the text, not in the verbatim tail the room went to before. These
facts rank with the leftover ones (`LEFTOVER_PRIORITY`: after every section's facts, before older
rounds and the agent's earlier replies); a file's text is cut at a line, its opening kept.
"""

from __future__ import annotations

from compaction.events import EventKind
from compaction.history.facts import LEFTOVER_PRIORITY, TIGHT_TARGET, Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.changes import final_lines
from compaction.history.sources.filelog import logs_of
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import fence_for

MAX_FILES = 4  # the files whose text is offered, the most edited first
TEXT_CHARS = 8000  # a file's text as offered: its first lines (bounded work: each is counted once)
MIN_LINES = 3  # a shorter file's record says all it holds
SCORE = 20


@fact_source(Section.CHANGES)
def written_texts(ctx: FactContext) -> list[Fact]:
    if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET:
        return []  # a tight budget never has room left for them: no work
    found: list[tuple[int, str, list[int], list[str]]] = []  # (edits, path, rounds, lines)
    for path, log in logs_of(ctx).items():
        kept = log.kept
        if log.deleted or not kept or any(e.kind is EventKind.DELETE for e in kept):
            continue  # gone by the end: nothing left to read
        lines = final_lines(path, kept)
        if lines is None or len(lines) < MIN_LINES or not any(line.strip() for line in lines):
            continue
        found.append((len(kept), path, sorted({e.round for e in kept}), lines))
    found.sort(key=lambda x: (-x[0], -x[2][-1]))
    return [_fact(path, rounds, lines, ctx.cwd, n) for n, (_, path, rounds, lines) in enumerate(found[:MAX_FILES])]


def _fact(path: str, rounds: list[int], lines: list[str], cwd: str | None, order: int) -> Fact:
    shown: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > TEXT_CHARS and shown:
            break
        shown.append(line[:TEXT_CHARS])
        size += len(line) + 1
    more = len(lines) - len(shown)
    fence = fence_for("\n".join(shown))
    body = "\n".join(f"  {line}" if line else "" for line in shown)
    text = (f"`{display_path(path, cwd)}` as the session left it ({len(lines)} lines, from its writes and edits):\n"
            f"  {fence}\n{body}\n  {fence}" + (f"\n  (… {more} more lines)" if more else ""))
    return Fact(Section.CHANGES, text, rounds, score=SCORE - order, priority=LEFTOVER_PRIORITY)
