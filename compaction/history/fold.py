"""Runs of look-alike lines in a tool's output, folded to their first and last lines and a count.

Why: a build or test log in the verbatim tail is mostly lines of one shape (Maven's 400 `[INFO] Running
X` / `Tests run: 1, Failures: 0 … -- in X` pairs, a time-zone table): shown whole they take most of
a document's room and tell no more than three of them and a count. A line of another shape (the
build's verdict, an error, a marked line) ends the run, so it is always shown.
"""

from __future__ import annotations

import re

RUN_MIN = 20  # lines a run must have to be folded: a list of files or matches this short is read whole
SHAPE_CHARS = 20  # of a line's opening past its indent, digits made alike: with the indent, its shape
_DIGITS_RE = re.compile(r"\d+")


def _shape(line: str) -> str:
    """A line's indent and opening words, digits made alike (`8:at org.junit.platfo`); "" for a blank
    line. The indent apart: deeply nested data is not one run for its tabs."""
    text = line.lstrip()
    return f"{len(line) - len(text)}:{_DIGITS_RE.sub('0', text[:40])[:SHAPE_CHARS]}" if text else ""


def folded(text: str) -> str:
    """`text` with each run of at least RUN_MIN lines of one shape, or of two shapes alternating (a
    `Running X` line then its result), kept as its first two rows and its last one around
    "[… N more lines like these …]"; `text` itself when it has none."""
    if text.count("\n") < RUN_MIN:
        return text
    lines = text.split("\n")
    shapes = [_shape(ln) for ln in lines]
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        best, end = 0, i + 1
        for period in (1, 2):
            j = i + period
            while j < n and shapes[j] and shapes[j] == shapes[j - period]:
                j += 1
            if shapes[i] and j - i >= RUN_MIN and j - i > end - i:
                best, end = period, j
        if best:
            run = end - i
            head, tail = 2 * best, best + (run % best)
            out += lines[i:i + head]
            out.append(f"[… {run - head - tail} more lines like these …]")
            out += lines[end - tail:end]
        else:
            out += lines[i:end]
        i = end
    return "\n".join(out)
