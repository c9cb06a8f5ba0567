"""Fenced code in Markdown exports: which lines lie outside it. One rule for every Markdown reader
(SpecStory's tool blocks, the generic reader's speaker markers), so a marker quoted inside a code
block is never taken for the conversation's own structure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def outside_fences(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(index, line) of each line outside fenced code; fence lines themselves are skipped. A fence
    closes on a line of its character, at least as long, with nothing after it (CommonMark)."""
    fence: str | None = None
    for i, line in enumerate(lines):
        fm = FENCE_LINE.match(line)
        if fm:
            mark = fm.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):]:
                fence = None
        elif fence is None:
            yield i, line
