"""Whether a line says anything another text does not: one fact, one place.

At tight budgets the same failure reached the document three ways (a finding, a Problems line, the
latest failing output); a line whose words the other text already holds only costs room. A word is
"held" when it occurs inside the other text (so a path a runner cut short is held by the whole one);
a line adds when it brings several new words, or one new identifier (a test name, a dotted or
CamelCase name), since one name is what a successor searches for.
"""

from __future__ import annotations

import re

_WORD_RE = re.compile(r"[A-Za-z_][\w.:/-]*[A-Za-z0-9_]")
_NAME_RE = re.compile(r"\w[_.:/]\w|[a-z][A-Z]")  # test_dates, a.b, pkg/mod, CamelCase
MIN_NEW_WORDS = 4  # fewer plain words (a runner's "Exit code: 1", "Wall time: 1.1 seconds") add nothing


def adds(line: str, held: str) -> bool:
    """True when `line` says something `held` (lower-cased) does not."""
    new = {w for w in _WORD_RE.findall(line) if len(w) >= 3 and w.lower() not in held}
    return len(new) >= MIN_NEW_WORDS or any(_NAME_RE.search(w) for w in new)


def adding_lines(lines: list[str], known: str) -> list[str]:
    """The lines of `lines` that say something `known` does not."""
    held = known.lower()
    return [ln for ln in lines if adds(ln, held)]


class Held:
    """The words of the lines chosen so far, lower-cased, in a set: whether one more line adds to
    them costs set look-ups, not a scan of the growing document. A line is said already when fewer
    than half its words (and fewer than MIN_NEW_WORDS) are new and none of them is an identifier (a
    findings line repeating a next step word for word; a decision quoting the task it follows)."""

    __slots__ = ("words",)

    def __init__(self, texts: list[str] | None = None) -> None:
        self.words: set[str] = set()
        for t in texts or ():
            self.add(t)

    def add(self, text: str) -> None:
        self.words.update(w.lower() for w in _WORD_RE.findall(text))

    def adds(self, line: str) -> bool:
        words = {w for w in _WORD_RE.findall(line) if len(w) >= 3}
        new = [w for w in words if w.lower() not in self.words]
        return (len(new) >= min(MIN_NEW_WORDS, (len(words) + 1) // 2)
                or any(_NAME_RE.search(w) for w in new))
