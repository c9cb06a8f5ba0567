"""The text of the files the session created, as it left them: what the room left over, once every
other fact is shown whole, is worth first.

Why: a session that drafts a document or a script with the user holds its substance in that file,
and its change records say only which sections and definitions it holds ("sections + 'Big Picture:
Three Provenance Granularities' … (+72 more lines)"); a successor asked what the summary says of each
challenge area finds the answer in the text, not in the verbatim tail the room went to before. Only a
text the replay followed to the end (`changes.final_lines`: a change it could not replay leaves no final
text); the filler's alone (`sections.LAST_ROOM`), before the agent's earlier replies and older rounds.
"""

from __future__ import annotations

from compaction.history.facts import TIGHT_TARGET, Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.changes import final_lines
from compaction.history.sources.filelog import logs_of
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import fence_for

MAX_FILES = 4  # the files whose text is offered, the most edited first
TEXT_CHARS = 8000  # a file's text as offered: its first lines (bounded work: each is counted once)
MIN_LINES = 3  # a shorter file's record says all it holds
# Scores order the files alike for the filler: the most edited first (its text says most of the session's work)
SCORE = 20


@fact_source(Section.WRITTEN)
def written_texts(ctx: FactContext) -> list[Fact]:
    """One fact per file the session created or wrote whole and still has, its text known to the end; the
    MAX_FILES most edited (replayed in that order until that many are found: bounded work)."""
    if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET:
        return []  # a tight budget never has room left for them: no work
    logs = [(path, log.kept) for path, log in logs_of(ctx).items() if log.kept and not log.deleted]
    logs.sort(key=lambda x: (-len(x[1]), -x[1][-1].round))
    out: list[Fact] = []
    for path, kept in logs:
        lines = final_lines(kept)
        if lines is None or len(lines) < MIN_LINES or not any(line.strip() for line in lines):
            continue
        out.append(_fact(path, sorted({e.round for e in kept}), lines, ctx.cwd, SCORE - len(out)))
        if len(out) == MAX_FILES:
            break
    return out


def _fact(path: str, rounds: list[int], lines: list[str], cwd: str | None, score: float) -> Fact:
    """The file's first lines within TEXT_CHARS in a fenced block of the list item (its own fence longer than
    any the text holds), the lines left out counted after it."""
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
    # the lines left out said last, as the filler's own cut says them (`fill.leading_lines`)
    text = (f"`{display_path(path, cwd)}` ({len(lines)} lines, from its writes and edits):\n"
            f"  {fence}\n{body}\n  {fence}" + (f"\n  (… {more} more lines)" if more else ""))
    return Fact(Section.WRITTEN, text, rounds, score=score)
