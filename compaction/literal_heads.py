"""Where a pattern of alternative phrases can match, found by plain substring searches.

Why: Python's regex engine has no multi-literal search. A pattern such as `(?:next step|then i will|
remaining|…)` is tried at every position whose character could open one of its branches (most letters),
about 100–200 ns a character; the literal text every match opens with ("next step", "then i will",
"remaining") is found by str.find at about 1 ns a character each. `heads` reads those openings off the
parsed pattern; `Scanner` then runs the pattern only where one of them occurs, which yields exactly the
matches `search`/`finditer` would (a match can only start where one of its possible openings is).
"""

from __future__ import annotations

import re
from collections.abc import Callable

try:  # the regex parser is private: without it every pattern is searched as it is
    from re import _constants as _sre_constants
    from re import _parser as _sre_parser
except ImportError:  # pragma: no cover - a Python that moved it
    _sre_parser = None

MAX_HEADS = 20  # more openings than this cost more str.find passes than the regex itself (measured)
MIN_HEAD = 4  # UTF-8 bytes: a shorter opening ("the", "to ") occurs too often to spare the regex anything (measured)


def heads(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Literal strings one of which every match of `pattern` starts with (each at least MIN_HEAD
    characters, at most MAX_HEADS of them), or None when the pattern's openings are not literal
    (a character class, a repeat, a case-insensitive part) or too many or too short."""
    if _sre_parser is None or pattern.flags & re.IGNORECASE:
        return None
    try:
        parsed = _sre_parser.parse(pattern.pattern, pattern.flags)
        found = _heads(list(parsed))
    except Exception:  # noqa: BLE001 - a parser of another shape: search as usual
        return None
    if found is None:
        return None
    out = sorted({h for h, _ in found})
    if not out or len(out) > MAX_HEADS or min(len(h.encode()) for h in out) < MIN_HEAD:
        return None
    # An opening that starts with another one adds no position: keep the shorter.
    return tuple(h for h in out if not any(o != h and h.startswith(o) for o in out))


def _heads(items: list) -> list[tuple[str, bool]] | None:
    """(opening, whether the whole of `items` is that literal text) for each way `items` can start."""
    c = _sre_constants
    acc: list[tuple[str, bool]] = [("", True)]
    for op, av in items:
        open_ = [h for h, whole in acc if whole]
        if not open_:
            break
        if op is c.AT:  # zero width (`\b`): the text it checks is what follows
            continue
        alts: list[tuple[str, bool]] | None
        if op is c.LITERAL:
            alts = [(chr(av), True)]
        elif op is c.IN and all(o is c.LITERAL for o, _ in av):
            alts = [(chr(a), True) for _, a in av]
        elif op is c.SUBPATTERN and not av[1] and not av[2]:  # a group without inline flags
            alts = _heads(list(av[3]))
        elif op is c.BRANCH:
            alts = []
            for branch in av[1]:
                sub = _heads(list(branch))
                if sub is None:
                    return None
                alts += sub
        else:
            alts = [("", False)]
        if alts is None:
            return None
        if len(open_) * len(alts) > MAX_HEADS:
            alts = _shortened(alts, MAX_HEADS // len(open_))
        acc = [(h, False) for h, whole in acc if not whole] + [(h + a, w) for h in open_ for a, w in alts]
    return acc


def _shortened(alts: list[tuple[str, bool]], room: int) -> list[tuple[str, bool]]:
    """The alternatives cut to their first k characters, k the longest that leaves at most `room` of
    them (a cut one no longer stands for the whole of its part); ("", False) when none fits."""
    for k in range(max(len(a) for a, _ in alts) - 1, 0, -1):
        cut = {(a[:k], whole and len(a) <= k) for a, whole in alts}
        if len({a for a, _ in cut}) <= room:
            return [(a, any(w for b, w in cut if b == a)) for a in sorted({a for a, _ in cut})]
    return [("", False)]


class Scanner:
    """`pattern`'s matches at or after a position, tried only where one of its openings occurs."""

    __slots__ = ("pattern", "starts", "i")

    def __init__(self, pattern: re.Pattern[str], openings: tuple[str, ...], text: str) -> None:
        self.pattern = pattern
        self.starts = positions(text, openings)
        self.i = 0

    def search(self, text: str, pos: int) -> re.Match[str] | None:
        """`pattern.search(text, pos)`, for positions that never go back (each call's `pos` at least
        the previous one's)."""
        starts, match = self.starts, self.pattern.match
        i = self.i
        while i < len(starts):
            at = starts[i]
            if at >= pos:
                m = match(text, at)
                if m is not None:
                    self.i = i
                    return m
            i += 1
        self.i = i
        return None


def matches_at(pattern: re.Pattern[str], starts: list[int], text: str):
    """`pattern.finditer(text)`'s matches, given (in ascending order) every position where one could
    start: `pattern.match` at each, past the previous match. Why: a pattern that opens with `\\b`, a
    lookbehind or a `^` has no literal prefix for the regex engine, which then tries it at every
    position of the text; the few positions a str.find names are all that can start one. Zero-width
    checks before a position (`\\b`, a lookbehind, a MULTILINE `^`) see the text before it, as in a search."""
    end = 0
    for at in starts:
        if at < end:
            continue
        m = pattern.match(text, at)
        if m is not None:
            yield m
            end = max(m.end(), at + 1)


def positions(text: str, openings: tuple[str, ...]) -> list[int]:
    """Where any of `openings` occurs in `text`, ascending (str.find passes)."""
    found: set[int] = set()
    for head in openings:
        at = text.find(head)
        while at >= 0:
            found.add(at)
            at = text.find(head, at + 1)
    return sorted(found)


class LinePattern:
    """A `^`-anchored MULTILINE pattern searched by the line break before each match: the regex engine
    finds a literal prefix (`\\n`, `\\n[`, `\\n=`) in C and tries the rest only there, where a pattern
    opening with `^` has no prefix and is tried at every position of the text. The matches are the
    pattern's, the same groups in the same order; a match after the text's first line opens at its
    line break (callers read groups, not spans; `removed` cuts the pattern's own spans). Exact when no
    match ends with a line break, or the pattern ends with `$` and no match starts with one: a next
    match then always has its line break left to be found by."""

    __slots__ = ("first", "later", "groups")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        body = pattern.pattern
        assert body.startswith("^") and pattern.flags & re.MULTILINE and _whole_line_anchor(pattern), body
        self.first = re.compile(body[1:], pattern.flags)  # the match at the text's start, if any
        self.later = re.compile("\n(?:" + body[1:] + ")", pattern.flags)
        self.groups = pattern.groups

    def finditer(self, text: str):
        """`pattern.finditer(text)`'s matches (as to their groups)."""
        first = self.first.match(text)
        if first is not None:
            yield first
        yield from self.later.finditer(text, first.end() if first is not None else 0)

    def findall(self, text: str) -> list:
        """`pattern.findall(text)` for a pattern with groups (its group, or its groups' tuple)."""
        assert self.groups, "a match's whole text opens at its line break"
        if self.groups == 1:
            return [m.group(1) for m in self.finditer(text)]
        return [m.groups("") for m in self.finditer(text)]

    def search(self, text: str) -> re.Match[str] | None:
        """`pattern.search(text)` (as to its groups)."""
        return self.first.match(text) or self.later.search(text)

    def removed(self, text: str) -> str:
        """`pattern.sub("", text)`: each match's own span (past the line break it was found by) cut out."""
        return self.replaced(text, lambda _: "")

    def replaced(self, text: str, by: Callable[[str], str]) -> str:
        """`pattern.sub(by, text)` for a function `by` of the match's text (past the line break it was found
        by); `text` itself when nothing matches."""
        kept: list[str] = []
        pos = 0
        for m in self.finditer(text):
            start = m.start() + 1 if m.re is self.later else m.start()
            kept.append(text[pos:start])
            kept.append(by(text[start:m.end()]))
            pos = m.end()
        if not kept:
            return text
        kept.append(text[pos:])
        return "".join(kept)


def _whole_line_anchor(pattern: re.Pattern[str]) -> bool:
    """Whether the pattern's `^` anchors all of it (no top-level `|` leaves a branch unanchored)."""
    if _sre_parser is None:  # pragma: no cover
        return True
    parsed = list(_sre_parser.parse(pattern.pattern, pattern.flags))  # a top-level `|` parses as one BRANCH
    return bool(parsed) and parsed[0] == (_sre_constants.AT, _sre_constants.AT_BEGINNING)


def holds(pattern: re.Pattern[str], words: tuple[str, ...], line: str) -> bool:
    """`pattern` (case-insensitive) finds a match in `line`; an ASCII line holding none of `words`
    (lower-case pieces every match of the pattern contains) is not searched. Non-ASCII lines are:
    case-insensitive matching folds some letters ('ı') that `str.lower` does not."""
    if line.isascii():
        low = line.lower()
        if not any(map(low.__contains__, words)):
            return False
    return pattern.search(line) is not None
