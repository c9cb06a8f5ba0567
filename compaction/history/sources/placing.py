"""A unified diff's hunk placed on a text a reader knows: by its removed lines and the context lines
around them, taken as one block.

Why: an export may keep an edit as the diff it printed (Codex's `apply_patch` in SpecStory: `@@` then
`-`/`+` lines, no old/new pair), and a file the session created is known whole; replaying such hunks
tells the file's text as the session left it. A place is taken only where the hunk's whole block is
(its context included), else where its removed lines stand at one place only; never a guess: the
replay then says it lost track. Lines compare as they are, then without their padding (an export that
collapsed a table's spaces, a table rule of another width).
"""

from __future__ import annotations

import re

from compaction.edits import Hunk

_RULE_RUN_RE = re.compile(r"-{3,}")


def unpadded(line: str) -> str:
    """A line without its spacing and its table rules' widths (`|------|` and `|---|` alike)."""
    return _RULE_RUN_RE.sub("---", " ".join(line.split()))


class Lines:
    """A text as its lines, their unpadded forms made on first need and kept in step with every change."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self._flat: list[str] | None = None

    def flat(self) -> list[str]:
        if self._flat is None:
            self._flat = [unpadded(x) for x in self.lines]
        return self._flat

    def replace(self, at: int, n: int, new: list[str]) -> None:
        self.lines[at:at + n] = new
        if self._flat is not None:
            self._flat[at:at + n] = [unpadded(x) for x in new]

    def text(self) -> str:
        return "\n".join(self.lines)


def place(text: Lines, h: Hunk, cursor: int) -> int | None:
    """Apply hunk `h` to `text` in place; the line after what it added (the next hunk of a diff is below
    it), or None when it has no place: its block (context and removed lines) is found from `cursor` on,
    else its removed lines alone where they stand once in the whole text."""
    if h.fragment or h.shown or not (h.removed or h.added):
        return None
    block = [*h.above, *h.removed, *h.below]
    if not block:
        return None  # an addition with no line around it: nowhere to go
    start: int | None = None
    for hay, wanted in ((text.lines, block), (None, [unpadded(x) for x in block])):
        found = _find(hay if hay is not None else text.flat(), wanted, cursor)
        if found is not None:
            start = found + len(h.above)
            break
    if start is None and h.removed:  # its context not there: its removed lines, if they are at one place only
        for hay, wanted in ((text.lines, list(h.removed)), (None, [unpadded(x) for x in h.removed])):
            lines = hay if hay is not None else text.flat()
            first = _find(lines, wanted, 0)
            if first is not None:
                start = first if _find(lines, wanted, first + 1) is None else None
                break
    if start is None:
        return None
    text.replace(start, len(h.removed), list(h.added))
    return start + len(h.added)


def _find(lines: list[str], block: list[str], start: int) -> int | None:
    """The first index from `start` on where `block` stands in `lines` (`list.index` scans for its first
    line: linear, not a slice compared at every position)."""
    n = len(block)
    last = len(lines) - n
    i = start
    while i <= last:
        try:
            i = lines.index(block[0], i, last + 1)
        except ValueError:
            return None
        if lines[i:i + n] == block:
            return i
        i += 1
    return None
