"""Fenced code in Markdown exports: which lines lie outside it. One rule for every Markdown reader
(SpecStory's tool blocks, the generic reader's speaker markers), so a marker quoted inside a code
block is never taken for the conversation's own structure."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def outside_fences(lines: Iterable[str], boundary: Callable[[str], object] | None = None,
                   unclosed_info: tuple[str, ...] = ()) -> Iterator[tuple[int, str]]:
    """(index, line) of each line outside fenced code; fence lines themselves are skipped. A fence
    closes on a line of its character, at least as long, with nothing after it (CommonMark).

    An export may leave a tool block's fence unclosed (Cline's ```tool_use before the next `---` /
    `**User:**`), and the file it writes may hold fences of its own that the export does not escape
    (an inner ``` then seems to close the block, the next one to open a fence; so may the text's
    before it). So from a fence line with an info string in `unclosed_info` (seen inside a fence too:
    such a line never closes one) to the next line `boundary` accepts right after a `---` separator
    (blank lines between), an open fence also ends at that line. Elsewhere a fence (a Markdown sample
    quoting a `---` and a speaker line) closes only on its own closing line."""
    fence: str | None = None
    in_block = False  # since a fence in `unclosed_info` opened, no boundary yet
    after_rule = False  # the last non-blank line was a `---` separator
    for i, line in enumerate(lines):
        fm = FENCE_LINE.match(line)
        if fm:
            mark = fm.group(1)
            in_block = in_block or (bool(unclosed_info) and _info(line, mark) in unclosed_info)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):]:
                fence = None
        elif in_block and after_rule and boundary is not None and boundary(line):
            fence, in_block = None, False
            yield i, line
        elif fence is None:
            yield i, line
        if line.strip():
            after_rule = line.strip() == "---"


def _info(line: str, mark: str) -> str:
    """A fence's info string's first word (```tool_use -> tool_use): what the block holds."""
    words = line.strip()[len(mark):].split(None, 1)
    return words[0] if words else ""
