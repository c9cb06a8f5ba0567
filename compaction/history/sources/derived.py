"""A file the session created from another it had read: which one, and what the copy changed.

Why: moving code into a new module (`core.py` made from `simple_reverse_diffusion.py`, a component split
out of a page) is told by a created file's record as its definitions, which are the source's too: a
successor cannot tell the copy from new code, nor what the move renamed or rewrote. When most of a
written file's lines are lines of one file the session read (compared without whitespace, so a
reformatted copy still matches), the record names that file and says what differs, as it says an edit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

from compaction.edits import Hunk, same_file
from compaction.history.sources.registry import FactContext
from compaction.model import ToolKind

MIN_LINES = 8  # distinct informative lines a written file needs before it can be called a copy
MIN_SHARE = 0.5  # of them, the share a read file must hold
MAX_LINES = 3000  # a longer file (either side) is not compared: bounded work
MAX_READ_CHARS = 400_000
_MIN_KEY = 6  # a shorter line (`}`, `else:`, `return`) is in any file
_NUMBERED_RE = re.compile(r"^\s*\d+(?:\t|: |\s*[│|] ?)")  # `cat -n`'s and viewers' line numbers


@dataclass(frozen=True, slots=True)
class Source:
    """The read file a written one was made from, how much of it the copy holds, and the copy's changes."""

    path: str
    share: float
    hunks: tuple[Hunk, ...]


def _key(line: str) -> str:
    return "".join(line.split())


def _unnumbered(text: str) -> list[str]:
    """A read's output as the file's lines: line numbers dropped when every line carries one."""
    lines = text.splitlines()
    if lines and all(_NUMBERED_RE.match(ln) for ln in lines[:20] if ln.strip()):
        return [_NUMBERED_RE.sub("", ln, count=1) for ln in lines]
    return lines


@dataclass(slots=True)
class Read:
    """A read's output as lines, and as one string without whitespace (what a probe line is looked for in)."""

    round: int
    path: str
    lines: list[str]
    squeezed: str


def read_texts(ctx: FactContext) -> list[Read]:
    """Every read the session saw the output of, in order."""
    return ctx.shared(("derived", "reads"), lambda: list(_reads(ctx)))


def _reads(ctx: FactContext) -> Iterable[Read]:
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.kind != ToolKind.READ or not call.path:
                    continue
                output = ctx.output_of(rnd, call, MAX_READ_CHARS)
                if output is None:
                    continue
                lines = _unnumbered(output)
                if MIN_LINES <= len(lines) <= MAX_LINES:
                    yield Read(rnd.number, call.path, lines, "".join("".join(lines).split()))


PROBES = 12  # of a written file's lines, looked for in each read before its lines are compared


def source_of(path: str, written: tuple[str, ...], before: int, reads: list[Read]) -> Source | None:
    """The file read before round `before` whose lines most of `written` repeats (another file than
    `path`), with the copy's changes as hunks of the source's lines; None when no read holds half.
    A read holding fewer than half of a few of the file's longest lines is not compared line by line."""
    if len(written) > MAX_LINES:
        return None
    mine = {k for ln in written if len(k := _key(ln)) >= _MIN_KEY}
    if len(mine) < MIN_LINES:
        return None
    probes = sorted(mine, key=len, reverse=True)[:PROBES]
    best: tuple[float, str, list[str]] | None = None
    for read in reads:
        if read.round > before or same_file(read.path, path):
            continue
        if 2 * sum(p in read.squeezed for p in probes) < len(probes):
            continue
        share = len(mine.intersection(_key(ln) for ln in read.lines)) / len(mine)
        if share >= MIN_SHARE and (best is None or share > best[0]):
            best = (share, read.path, read.lines)
    if best is None:
        return None
    share, src, lines = best
    old = [ln for ln in lines if _key(ln)]
    new = [ln for ln in written if _key(ln)]
    matcher = SequenceMatcher(None, [_key(ln) for ln in old], [_key(ln) for ln in new], autojunk=False)
    hunks = tuple(Hunk(removed=tuple(old[i1:i2]), added=tuple(new[j1:j2]))
                  for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")
    return Source(src, share, hunks)
