"""Whether a line says anything another text does not: one fact, one place.

At tight budgets the same failure reached the document three ways (a finding, a Problems line, the
latest failing output); a line whose words the other text already holds only costs room. A word is
"held" when it occurs inside the other text (so a path a runner cut short is held by the whole one);
a line adds when it brings several new words, or one new identifier (a test name, a dotted or
CamelCase name), since one name is what a successor searches for.
"""

from __future__ import annotations

import re

from compaction.memo import per_text

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
    findings line repeating a next step word for word; a decision quoting the task it follows). The
    words are split only once a line is weighed (most selections weigh none)."""

    __slots__ = ("words", "_pending")

    def __init__(self, texts: list[str] | None = None) -> None:
        self.words: set[str] = set()
        self._pending: list[str] = list(texts or ())

    def add(self, text: str) -> None:
        self._pending.append(text)

    def adds(self, line: str) -> bool:
        if self._pending:
            for t in self._pending:
                self.words.update(_held(t))
            self._pending.clear()
        words = _weighed(line)
        new = [(w, name) for w, name in words if w not in self.words]
        return len(new) >= min(MIN_NEW_WORDS, (len(words) + 1) // 2) or any(name for _, name in new)


@per_text(maxsize=8192)
def _held(text: str) -> frozenset[str]:
    """A chosen line's words, lower-cased (split once across the engine's passes)."""
    return frozenset(_WORD_RE.findall(text.lower()))


@per_text(maxsize=8192)
def _weighed(text: str) -> tuple[tuple[str, bool], ...]:
    """Each distinct word of 3+ characters of a line weighed, lower-cased, with whether it is an
    identifier."""
    words: dict[str, bool] = {}
    for w in set(_WORD_RE.findall(text)):
        if len(w) >= 3:
            lw = w.lower()
            words[lw] = words.get(lw, False) or _NAME_RE.search(w) is not None
    return tuple(words.items())
