"""Fenced code in Markdown exports: which lines lie outside it. One rule for every Markdown reader
(SpecStory's tool blocks, the generic reader's speaker markers), so a marker quoted inside a code
block is never taken for the conversation's own structure."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def outside_fences(lines: Iterable[str], boundary: Callable[[str], object] | None = None) -> Iterator[tuple[int, str]]:
    """(index, line) of each line outside fenced code; fence lines themselves are skipped. A fence
    closes on a line of its character, at least as long, with nothing after it (CommonMark). With
    `boundary`, a line it accepts right after a `---` separator (blank lines between) also ends an
    open fence: an export that leaves a tool block's fence unclosed (Cline's ```tool_use before the
    next `---` / `**User:**`) must not swallow the messages after it."""
    fence: str | None = None
    after_rule = False  # the last non-blank line was a `---` separator
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
        elif after_rule and boundary is not None and boundary(line):
            fence = None
            yield i, line
        if line.strip():
            after_rule = line.strip() == "---"
