"""Runs of look-alike lines in a tool's output, folded to their first and last lines and a count.

Why: a build or test log in the verbatim tail is mostly lines of one shape (Maven's 400 `[INFO] Running
X` / `Tests run: 1, Failures: 0 … -- in X` pairs, a time-zone table): shown whole they take most of
a document's room and tell no more than three of them and a count. A line of another shape (the
build's verdict, an error, a marked line) ends the run, so it is always shown.

A line said again and again in a row (Django's "Cloning test database for alias 'default'..." once per
worker) is shown once with its count: the same words nine times tell no more than once and "[×9]".
"""

from __future__ import annotations

import re

from compaction.edits import TWO_WORDS_RE

# A run is folded when it has this many lines and characters: a listing of short lines (`ls -la` of a folder)
# stays whole. A shorter run of 8 lines or more folds only when its lines are one line again but for their
# numbers (aider's 20 warnings of 330 characters each took the room of the lines around them: its "Commit
# e45f791" was elided, not they); nine TS2322 errors of one file, each of another property, stay.
RUN_MIN = 40
ALIKE_RUN_MIN = 8
RUN_MIN_CHARS = 4000
ALIKE_SHARE = 4  # at most one line in this many differs from the others once digits are made alike
MAX_CHARS = 200_000  # a longer output is shown by its head and tail at any cap (`tail._Piece`): not folded
SHAPE_CHARS = 20  # of a line's opening past its indent, digits made alike: with the indent, its shape
_ZEROS = str.maketrans("123456789", "000000000")  # digits alike
REPEAT_MIN = 3  # the same line this many times in a row is shown once with its count
# A runner's own record of a run above its output (Codex's exec: "Chunk ID: 5b5ee8", "Wall time: 0.0512 seconds",
# "Original token count: 467"): it says nothing of the run; its exit status ("Process exited with code 0") stays.
# Only the block that opens with its chunk id: a program's own "Wall time: …" (Jupyter's %time) is its output.
_RUN_RECORD_RE = re.compile(r"^Chunk ID: \w+[ \t]*\n(?:Wall time: [\d.]+ ?(?:s|sec|seconds?|ms)[ \t]*\n)?"
                            r"(Process exited with code -?\d+[ \t]*\n)?(?:Original token count: \d+[ \t]*(?:\n|$))?", re.M)


def without_run_record(text: str) -> str:
    """`text` without a runner's record of the run above it (`_RUN_RECORD_RE`; its exit status stays)."""
    return _RUN_RECORD_RE.sub(lambda m: m.group(1) or "", text) if "Chunk ID: " in text else text


# What is left of Codex's record once `without_run_record` took its chunk id: a success's status and the label
_RECORD_LEFT_RE = re.compile(r"\A(?:Process exited with code 0[ \t]*\n)?(?:Output:[ \t]*\n)?")


def run_output(text: str) -> str:
    """What a run printed: `text` without the runner's record above it, a success's status and its "Output:"."""
    return _RECORD_LEFT_RE.sub("", without_run_record(text), count=1)


def _alike(run: list[str]) -> bool:
    """Whether the lines are one line again but for their numbers (a timestamp, a counter)."""
    return len({line.translate(_ZEROS) for line in run}) * ALIKE_SHARE <= len(run)


def _shapes(lines: list[str]) -> list[tuple[int, str] | None]:
    """Each line's indent and opening, digits made alike (`(8, "at org.junit.platfo")`); None for a
    blank line. The indent apart: deeply nested data is not one run for its tabs."""
    out: list[tuple[int, str] | None] = []
    for line in lines:
        opening = line.lstrip()
        out.append((len(line) - len(opening), opening[:SHAPE_CHARS].translate(_ZEROS)) if opening else None)
    return out


def _countable(line: str) -> bool:
    """Whether a line repeated in a row is shown once with its count: a line of words (Django's "Cloning test
    database for alias 'default'…"), not a diff's line (`+`, `-`), a data row ("0,0") or one that already
    carries a count."""
    stripped = line.strip()
    return (bool(TWO_WORDS_RE.search(stripped)) and not stripped.startswith(("+", "-", "@@"))
            and not stripped.endswith("]"))


def repeats_collapsed(text: str) -> str:
    """`text` with each run of REPEAT_MIN or more identical lines of words in a row (`_countable`) shown once,
    followed by `[×N]`; `text` itself when it has none."""
    if text.count("\n") < REPEAT_MIN - 1:
        return text
    lines = text.split("\n")
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        j = i + 1
        while j < n and lines[j] == lines[i]:
            j += 1
        counted = j - i >= REPEAT_MIN and _countable(lines[i])
        out.append(f"{lines[i]} [×{j - i}]" if counted else lines[i])
        if not counted:
            out += lines[i + 1:j]
        i = j
    return text if len(out) == n else "\n".join(out)


def folded(text: str) -> str:
    """`text` without a runner's record of the run (`_RUN_RECORD_RE`), with repeated lines shown once
    (`repeats_collapsed`), then each run of at least RUN_MIN lines (ALIKE_RUN_MIN when they differ only by
    their numbers; RUN_MIN_CHARS characters either way) of one shape, or of two shapes alternating (a
    `Running X` line then its result), kept as its first two rows and
    its last one around "[… N more lines like these …]"; `text` itself when it has none of these."""
    if len(text) > MAX_CHARS:
        return text
    text = repeats_collapsed(without_run_record(text))
    if text.count("\n") < ALIKE_RUN_MIN:
        return text
    lines = text.split("\n")
    shapes = _shapes(lines)
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        best, end, seen = 0, i + 1, i + 1  # `seen`: past a run too short in characters, read whole at once
        for period in (1, 2):
            j = i + period
            while j < n and shapes[j] and shapes[j] == shapes[j - period]:
                j += 1
            if shapes[i] and j - i >= ALIKE_RUN_MIN and j - i > end - i:
                if sum(map(len, lines[i:j])) >= RUN_MIN_CHARS and (j - i >= RUN_MIN or _alike(lines[i:j])):
                    best, end = period, j
                else:
                    seen = max(seen, j)
        if not best:
            end = max(end, seen)
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
