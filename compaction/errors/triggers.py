"""Which lines of a text hold one of a pattern family's literal words, with most words looked for
in a short excerpt of the text rather than through all of it.

Why: `classify` tries some forty families of patterns, each only on the lines holding one of its
words, and a search of a word through the whole text finding nothing (the common case) is a full
pass: about a hundred passes over every output that passed the gate. Many words share a part, their
root (`FAILED `, `FAIL: `, `--- FAIL` all hold `FAIL`; `error TS`, `error: `, `Error` all hold
`rror`). The lines holding a root are found in one pass and joined into an excerpt; a word holding
that root can only occur on those lines, so whether the text holds it is asked of the excerpt (a
few lines) instead of the text. Only a family whose word is there is then searched line by line
through the text, as before: the lines found are exactly those of a whole-text search. A short text
has no excerpts, but a root still spares its words: they are looked for only when it holds the root.
"""

from __future__ import annotations

from dataclasses import dataclass

# Parts shared by several words (case as written); a word's root is the first of these it holds.
ROOTS = ("FAIL", "ERROR", "rror", "xception", "ail", "429", "nknown ", "not ", "o such ", "Timeout", "E9", "nvalid",
         "match", "xpected", "imit", "oo long", "arameter", "No ", "denied", "COMMIT", "panic", "undefined")
MIN_EXCERPT_TEXT = 600  # a shorter text is searched whole: its excerpts would cost about what they save
MAX_EXCERPT_SHARE = 4  # an excerpt longer than a 4th of the text: its words are looked for in the text


@dataclass(frozen=True, slots=True)
class Needles:
    """A family's literal words, and the same words grouped by root ("" for the words without one)."""

    words: tuple[str, ...]
    by_root: tuple[tuple[str, tuple[str, ...]], ...]


def needles(*words: str) -> Needles:
    """The words with their roots; a word is one line (its lines are found by searching it)."""
    groups: dict[str, list[str]] = {}
    for word in words:
        if not word or "\n" in word:
            raise ValueError(f"a trigger word is part of one line: {word!r}")
        groups.setdefault(next((r for r in ROOTS if r in word), ""), []).append(word)
    # The words without a root last: a text holding a word most often holds a shared root's.
    return Needles(words, tuple(sorted(((root, tuple(ws)) for root, ws in groups.items()), key=lambda g: not g[0])))


def lines_with(text: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, end) of each distinct line of `text` holding one of the words, in text order."""
    seen: dict[int, int] = {}
    for word in words:
        pos = text.find(word)
        while pos >= 0:
            s = text.rfind("\n", 0, pos) + 1
            e = text.find("\n", pos)
            e = len(text) if e < 0 else e
            seen[s] = e
            pos = text.find(word, e)
    return sorted(seen.items())


class Triggers:
    """One text being classified, and the excerpt of each root asked about (made once)."""

    __slots__ = ("text", "_excerpts", "_whole")

    def __init__(self, text: str) -> None:
        self.text = text
        self._excerpts: dict[str, str] = {"": text}
        self._whole = len(text) < MIN_EXCERPT_TEXT

    def _excerpt(self, root: str) -> str:
        """The lines holding the root, joined by newlines; the text itself when they are a good
        part of it (searching the text then costs about what the excerpt would save)."""
        found = self._excerpts.get(root)
        if found is not None:
            return found
        text = self.text
        limit = len(text) // MAX_EXCERPT_SHARE
        parts: list[str] = []
        size = 0
        pos = text.find(root)
        while pos >= 0:
            s = text.rfind("\n", 0, pos) + 1
            e = text.find("\n", pos)
            e = len(text) if e < 0 else e
            size += e - s + 1
            if size > limit:
                parts = [text]
                break
            parts.append(text[s:e])
            pos = text.find(root, e)
        found = self._excerpts[root] = "\n".join(parts)
        return found

    def holds(self, family: Needles) -> bool:
        """Whether the text holds one of the family's words. A root is looked for once per text (its
        excerpt, or for a short text the text itself or "" when the root is not there), not once per
        family: some forty families share about twenty roots."""
        excerpts = self._excerpts
        for root, words in family.by_root:
            excerpt = excerpts.get(root)
            if excerpt is None:
                excerpt = self._root_in_short(root) if self._whole else self._excerpt(root)
            if excerpt and any(map(excerpt.__contains__, words)):
                return True
        return False

    def _root_in_short(self, root: str) -> str:
        """A short text's stand-in for an excerpt: the text when it holds the root, else ""."""
        found = self._excerpts[root] = self.text if root in self.text else ""
        return found

    def lines_with(self, family: Needles) -> list[tuple[int, int]]:
        """(start, end) of each distinct line holding one of the family's words, in text order."""
        return lines_with(self.text, family.words) if self.holds(family) else []
