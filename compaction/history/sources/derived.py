"""A file the session created from another it had read: which one, and what the copy changed.

Why: moving code into a new module (`core.py` made from `simple_reverse_diffusion.py`, a component split
out of a page) is told by a created file's record as its definitions, which are the source's too: a
successor cannot tell the copy from new code, nor what the move renamed or rewrote. When most of a
written file's distinctive lines are lines of one file the session read (compared without whitespace, so
a reformatted copy still matches), the record names that file and says what differs, as it says an edit.
A line is distinctive when it is no comment (a licence header is in every file of a project) and no more
than one file the session read holds it (an import, a common call): shared boilerplate makes no copy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

from compaction.edits import Hunk, same_file
from compaction.events import shell_reads
from compaction.history.sources.blocks import GUTTER_RE
from compaction.history.sources.registry import FactContext
from compaction.model import ToolCall, ToolKind

MIN_LINES = 8  # distinctive lines a written file needs before it can be called a copy
MIN_SHARE = 0.4  # of them, the share a read file must hold (a reformatted copy keeps about half)
MAX_LINES = 3000  # a longer file (either side) is not compared: bounded work
MAX_READ_CHARS = 400_000
_MIN_KEY = 6  # a shorter line (`}`, `else:`, `return`) is in any file
_COMMENT_OPENERS = ("#", "//", "/*", "*", "<!--", "--", ";", "%", '"""', "'''")


@dataclass(frozen=True, slots=True)
class Source:
    """The read file a written one was made from, how much of it the copy holds, and the copy's changes."""

    path: str
    share: float
    hunks: tuple[Hunk, ...]


@dataclass(frozen=True, slots=True)
class Read:
    """A read's output as the file's lines, and the keys of its informative lines."""

    round: int
    path: str
    lines: tuple[str, ...]
    keys: frozenset[str]


@dataclass(frozen=True, slots=True)
class Reads:
    """Every distinct read the session saw the output of, in order, and which reads hold each line key."""

    reads: tuple[Read, ...]
    holders: dict[str, tuple[int, ...]]  # key -> indexes of the reads holding it
    files: dict[str, frozenset[str]]  # key -> the files (by name) holding it


def _key(line: str) -> str:
    """A line as a formatter leaves it alike: no whitespace, one kind of quote (black's `"` for `'`)."""
    return "".join(line.split()).replace('"', "'")


def _keys(lines: Iterable[str]) -> frozenset[str]:
    """The keys of the informative lines: long enough, no comment."""
    return frozenset(k for ln in lines if len(k := _key(ln)) >= _MIN_KEY and not k.startswith(_COMMENT_OPENERS))


def _unnumbered(text: str) -> list[str]:
    """A read's output as the file's lines: line numbers (`cat -n`, a viewer's, Claude Code's `N→`)
    dropped when every one of its first lines carries one."""
    lines = text.splitlines()
    head = [ln for ln in lines[:20] if ln.strip()]
    if head and all(GUTTER_RE.match(ln) for ln in head):
        return [m.group(2) if (m := GUTTER_RE.match(ln)) else ln for ln in lines]
    return lines


def _read_path(call: ToolCall) -> str | None:
    """The one file a call read: a read tool's path, or a shell line's (`cat f`, `sed -n '1,80p' f`)."""
    if call.kind == ToolKind.READ:
        return call.path
    if call.kind == ToolKind.SHELL and call.command:
        paths = shell_reads(call.command)
        return paths[0] if len(paths) == 1 else None
    return None


def read_texts(ctx: FactContext) -> Reads:
    """The session's reads, indexed once per compaction for every created file that asks."""
    return ctx.shared(("derived", "reads"), lambda: _index(_reads(ctx)))


def _reads(ctx: FactContext) -> Iterable[Read]:
    seen: set[tuple[str, frozenset[str]]] = set()  # a file read again unchanged is one read
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            for call in msg.tool_calls:
                path = _read_path(call)
                output = ctx.output_of(rnd, call, MAX_READ_CHARS) if path else None
                if output is None:
                    continue
                lines = _unnumbered(output)
                if not MIN_LINES <= len(lines) <= MAX_LINES:
                    continue
                keys = _keys(lines)
                if (path, keys) not in seen:
                    seen.add((path, keys))
                    yield Read(rnd.number, path, tuple(lines), keys)


def _index(reads: Iterable[Read]) -> Reads:
    listed = tuple(reads)
    holders: dict[str, list[int]] = {}
    names: dict[str, set[str]] = {}
    for i, read in enumerate(listed):
        name = _name(read.path)
        for k in read.keys:
            holders.setdefault(k, []).append(i)
            names.setdefault(k, set()).add(name)
    return Reads(listed, {k: tuple(v) for k, v in holders.items()}, {k: frozenset(v) for k, v in names.items()})


def _name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def source_of(path: str, written: tuple[str, ...], before: int, reads: Reads) -> Source | None:
    """The file read before round `before` whose lines most of `written`'s distinctive lines repeat
    (another file than `path`), with the copy's changes as hunks of the part of the source it covers
    (a module split out of a file does not drop the rest of it); None when no read holds half."""
    if len(written) > MAX_LINES:
        return None
    own = frozenset((_name(path),))  # the file read back after it was written holds its own lines
    mine = [k for k in _keys(written) if len(reads.files.get(k, own) - own) <= 1]  # in two files: boilerplate
    if len(mine) < MIN_LINES:
        return None
    votes: Counter[int] = Counter(i for k in mine for i in reads.holders.get(k, ()))
    best: tuple[float, Read] | None = None
    for i, n in votes.most_common():
        read = reads.reads[i]
        share = n / len(mine)
        if share < MIN_SHARE:
            break
        if read.round <= before and not same_file(read.path.removeprefix("~/"), path.removeprefix("~/")):
            best = (share, read)
            break
    if best is None:
        return None
    share, read = best
    covered = set(mine)
    at = [j for j, ln in enumerate(read.lines) if _key(ln) in covered]
    old = [ln for ln in read.lines[at[0]:at[-1] + 1] if _key(ln)]
    new = [ln for ln in written if _key(ln)]
    matcher = SequenceMatcher(None, [_key(ln) for ln in old], [_key(ln) for ln in new], autojunk=False)
    hunks = tuple(Hunk(removed=tuple(old[i1:i2]), added=tuple(new[j1:j2]))
                  for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")
    return Source(read.path, share, hunks)
