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

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

from compaction.edits import Hunk, same_file
from compaction.events import shell_reads
from compaction.history.sources.blocks import GUTTER_RE
from compaction.history.sources.registry import FactContext
from compaction.model import Round, ToolCall, ToolKind
from compaction.transcripts.path_spelling import file_name

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


@dataclass(slots=True)
class Read:
    """A read's output as the file's lines, as one string without whitespace (where a probe line is
    looked for), and its informative lines' keys, made when a written file asks."""

    round: int
    path: str
    lines: tuple[str, ...]
    squeezed: str
    _keys: frozenset[str] | None = None

    @property
    def keys(self) -> frozenset[str]:
        if self._keys is None:
            self._keys = _keys(self.lines)
        return self._keys


PROBES = 12  # of a written file's longest distinctive lines, looked for in each read first


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


def read_texts(ctx: FactContext) -> list[Read]:
    """Every distinct read the session saw the output of, in order: made once per compaction."""
    return ctx.shared(("derived", "reads"), lambda: list(_reads(ctx)))


def _reads(ctx: FactContext) -> Iterable[Read]:
    seen: set[tuple[str, str]] = set()  # a file read again unchanged is one read
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
                squeezed = _key("".join(lines))
                if (path, squeezed) not in seen:
                    seen.add((path, squeezed))
                    yield Read(rnd.number, path, tuple(lines), squeezed)


# A read tool's argument that asks for part of a file (`offset`, `limit`, `view_range`, `start_line`)
_RANGE_ARG_RE = re.compile(r"offset|limit|range|start|end|line|head|tail", re.IGNORECASE)
# `cat f` / `cat -n f` alone: the whole file (no pipe, no second file, no redirection)
_CAT_WHOLE_RE = re.compile(r"^\s*cat(?:\s+-n)?\s+(?:'[^']+'|\"[^\"]+\"|[^\s|;&<>'\"]+)\s*$")
# What a harness or an exporter puts in place of output it cut
_CUT_RE = re.compile(r"<output_head>|<elided_chars>|\belided\b|\btruncated\b|\bomitted\b|\[\.\.\.|\.\.\. \(\d+ more",
                     re.IGNORECASE)


def reads_whole(call: ToolCall, output: str) -> bool:
    """Whether a read showed the file's entire text: `cat f` alone, or a read tool asked for no part of
    it, and an output no harness cut."""
    if _CUT_RE.search(output):
        return False
    if call.kind == ToolKind.READ:
        return isinstance(call.arguments, dict) and not any(_RANGE_ARG_RE.search(k) for k in call.arguments)
    return bool(call.command and _CAT_WHOLE_RE.match(call.command))


def text_before(ctx: FactContext, path: str, before: int) -> str | None:
    """The file's text as the last whole read before round `before` showed it, if one did: among the reads
    of its file name (`_reads_by_name`, made once), the latest first; only their outputs are looked at."""
    for rnd, call, read in reversed(_reads_by_name(ctx).get(file_name(path), ())):
        if rnd.number >= before or not same_file(read, path):
            continue
        output = ctx.output_of(rnd, call, MAX_READ_CHARS)
        if output and reads_whole(call, output):
            lines = _unnumbered(output)
            if MIN_LINES <= len(lines) <= MAX_LINES:
                return "\n".join(lines)
    return None


def _reads_by_name(ctx: FactContext) -> dict[str, list[tuple[Round, ToolCall, str]]]:
    """Every call that read one file, by the file's name, in order: made once per compaction."""
    def build() -> dict[str, list[tuple[Round, ToolCall, str]]]:
        out: dict[str, list[tuple[Round, ToolCall, str]]] = {}
        for rnd in ctx.transcript.rounds:
            for msg in rnd.messages:
                for call in msg.tool_calls:
                    if read := _read_path(call):
                        out.setdefault(file_name(read), []).append((rnd, call, read))
        return out
    return ctx.shared(("derived", "reads by name"), build)


def source_of(path: str, written: tuple[str, ...], before: int, reads: list[Read]) -> Source | None:
    """The file read before round `before` whose lines most of `written`'s distinctive lines repeat
    (another file than `path`), with the copy's changes as hunks of the part of the source it covers
    (a module split out of a file does not drop the rest of it); None when no read holds enough. Only a
    read holding a quarter of a few of the file's longest lines is compared line by line (one substring test
    each, in C); a line two of those files hold (`path` read back aside) is boilerplate, no evidence."""
    if len(written) > MAX_LINES:
        return None
    keys = _keys(written)
    if len(keys) < MIN_LINES:
        return None
    probes = sorted(keys, key=len, reverse=True)[:PROBES]
    # (a quarter of them: the longest lines are the likeliest to be rewrapped or rewritten by a reformatting copy)
    candidates = [r for r in reads if r.round <= before and 4 * sum(p in r.squeezed for p in probes) >= len(probes)]
    if not candidates:
        return None
    by_file: dict[str, frozenset[str]] = {}
    for r in candidates:
        if file_name(r.path) != file_name(path):  # the file read back after it was written holds its own lines
            by_file[file_name(r.path)] = by_file.get(file_name(r.path), frozenset()) | r.keys
    shared = Counter(k for held in by_file.values() for k in held)
    mine = [k for k in keys if shared[k] <= 1]
    if len(mine) < MIN_LINES:
        return None
    best: tuple[float, Read] | None = None
    for read in candidates:
        if same_file(read.path.removeprefix("~/"), path.removeprefix("~/")):
            continue
        share = len(read.keys.intersection(mine)) / len(mine)
        if share >= MIN_SHARE and (best is None or share > best[0]):
            best = (share, read)
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
