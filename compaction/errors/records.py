"""Error-memory records: one record per identifier, one occurrence per (transcript, round).

Why this shape: the seed counts an identifier at most once per round (`occurrences N (rounds …)`),
yet the hovers need every place it happened and the tests need the verbatim evidence, so each
occurrence keeps its evidence span, location and how many raw signals (tracebacks, FAILED lines…)
the round showed for it.
"""

from __future__ import annotations

import re
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from compaction.errors.families import FAMILIES, family_of, valid_id

__all__ = ["FAMILIES", "ErrorRecord", "Location", "Occurrence", "family_of", "root_key", "valid_id"]


@dataclass(slots=True)
class Location:
    path: str | None = None
    line: int | None = None
    symbol: str | None = None
    command: str | None = None

    def as_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "symbol": self.symbol, "command": self.command}

    def empty(self) -> bool:
        return not (self.path or self.symbol or self.command)

    def __deepcopy__(self, memo: dict[int, Any]) -> Location:
        """Its fields are immutable: a copy of them (the generic deep copy goes through pickling's
        reduce protocol, which cost the budget's merge step about 1% of a compaction)."""
        return Location(self.path, self.line, self.symbol, self.command)


@dataclass(slots=True)
class Occurrence:
    """One identifier in one round of one transcript, with its first verbatim evidence span.

    `message`/`start`/`end` locate `evidence` in the scanned string (message text or a tool result's
    content: `source` says which); `signals` counts the raw signals of this id in the round."""

    round: int
    transcript: str = ""
    evidence: str = ""
    message: int | None = None
    source: str = "text"  # "text" or "result:<i>"
    start: int = 0
    end: int = 0
    location: Location = field(default_factory=Location)
    signals: int = 1
    target: bool = False  # provoked on purpose (task statement, reproduction, test-first)
    detail: str = ""  # the error message line, for root-cause comparison
    ts_codes: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    baseline: bool = False  # printed by a run with the session's changes stashed away: the code before them

    @property
    def key(self) -> tuple[str, int]:
        return (self.transcript, self.round)

    def result_index(self) -> int | None:
        """Which tool result of its message the occurrence was found in (`source` "result:<i>"), else None."""
        i = self.source[7:] if self.source.startswith("result:") else ""
        return int(i) if i.isdigit() else None

    def __deepcopy__(self, memo: dict[int, Any]) -> Occurrence:
        """What `copy.deepcopy` makes, field by field (see `Location.__deepcopy__`): the location and
        the lists copied through `memo`, so what the original shares the copy shares too."""
        return Occurrence(self.round, self.transcript, self.evidence, self.message, self.source, self.start, self.end,
                          deepcopy(self.location, memo), self.signals, self.target, self.detail,
                          deepcopy(self.ts_codes, memo), deepcopy(self.tests, memo), self.baseline)


@dataclass(slots=True)
class ErrorRecord:
    id: str
    occurrences: list[Occurrence] = field(default_factory=list)
    solution: str | None = None
    avoidance: str | None = None
    merged: list[str] = field(default_factory=list)  # other ids folded in by the budget's merge step
    resolved: bool = False
    target_override: bool | None = None  # set by import / the user; None = derive from occurrences
    # the failures of this id that ended before its last one: (their rounds and the fix's, what ended each);
    # told by the hand-over document, not stored (the solution is the last failure's)
    earlier: list[tuple[tuple[int, ...], str]] = field(default_factory=list, compare=False)
    _by_key: dict[tuple[str, int], Occurrence] = field(default_factory=dict, init=False, repr=False, compare=False)
    _indexed: list[Occurrence] | None = field(default=None, init=False, repr=False, compare=False)
    _indexed_len: int = field(default=0, init=False, repr=False, compare=False)

    @property
    def family(self) -> str:
        return family_of(self.id)

    def __deepcopy__(self, memo: dict[int, Any]) -> ErrorRecord:
        """What `copy.deepcopy` makes (see `Occurrence.__deepcopy__`), its index included."""
        new = ErrorRecord(self.id, deepcopy(self.occurrences, memo), self.solution, self.avoidance,
                          deepcopy(self.merged, memo), self.resolved, self.target_override, list(self.earlier))
        new._by_key = deepcopy(self._by_key, memo)
        new._indexed = deepcopy(self._indexed, memo)
        new._indexed_len = self._indexed_len
        return new

    @property
    def rounds(self) -> list[int]:
        return sorted({o.round for o in self.occurrences})

    @property
    def count(self) -> int:
        return len({o.key for o in self.occurrences})

    @property
    def recurring(self) -> bool:
        return self.count >= 2

    @property
    def last_round(self) -> int:
        return max((o.round for o in self.occurrences), default=0)

    @property
    def target_bug(self) -> bool:
        if self.target_override is not None:
            return self.target_override
        return bool(self.occurrences) and all(o.target for o in self.occurrences)

    @property
    def signals(self) -> int:
        return sum(o.signals for o in self.occurrences)

    @property
    def ts_codes(self) -> list[str]:
        return sorted({c for o in self.occurrences for c in o.ts_codes})

    @property
    def tests(self) -> list[str]:
        seen: dict[str, None] = {}
        for o in self.occurrences:
            for t in o.tests:
                seen.setdefault(t, None)
        return list(seen)

    def locations(self) -> list[Location]:
        """Distinct locations, most recent first (what hovers show)."""
        out: list[Location] = []
        seen: set[tuple] = set()
        for o in sorted(self.occurrences, key=lambda o: -o.round):
            loc = o.location
            k = (loc.path, loc.line, loc.symbol, loc.command)
            if not loc.empty() and k not in seen:
                seen.add(k)
                out.append(loc)
        return out

    def add(self, occ: Occurrence) -> bool:
        """Add an occurrence unless this (transcript, round) is already counted; merge its signals then.

        An index by key keeps this constant-time: an error repeated in every round of a long
        transcript made the scan quadratic. It is rebuilt whenever `occurrences` was replaced or
        changed length behind its back."""
        if self._indexed is not self.occurrences or self._indexed_len != len(self.occurrences):
            self._by_key = {}
            for o in self.occurrences:
                self._by_key.setdefault(o.key, o)
            self._indexed, self._indexed_len = self.occurrences, len(self.occurrences)
        o = self._by_key.get(occ.key)
        if o is not None:
            o.signals += occ.signals
            o.target = o.target and occ.target
            for c in occ.ts_codes:
                if c not in o.ts_codes:
                    o.ts_codes.append(c)
            for t in occ.tests:
                if t not in o.tests:
                    o.tests.append(t)
            return False
        self.occurrences.append(occ)
        self._by_key[occ.key] = occ
        self._indexed_len += 1
        return True


_NUM = re.compile(r"\d+")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|<[^>\n]*>")
_DETAIL_CHARS = 160


def normalise_detail(text: str) -> str:
    """An error message with numbers and quoted values blanked: line drift and changing values
    (`line 231` vs `line 232`, `<WorkerController gw0>` vs `gw1`) compare equal."""
    text = text.strip()
    if len(text) <= _DETAIL_CHARS:
        return _NUM.sub("#", _QUOTED.sub("_", text))
    # Neither pattern matches across a newline, so lines blank alone: stop once 160 characters are out
    # (a detail may be a whole output; its tail is cut anyway).
    out: list[str] = []
    size, start = 0, 0
    while start <= len(text) and size <= _DETAIL_CHARS + 1:  # joined, the lines hold size - 1 characters
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = _NUM.sub("#", _QUOTED.sub("_", text[start:end]))
        out.append(line)
        size += len(line) + 1
        start = end + 1
    return "\n".join(out)[:_DETAIL_CHARS]


def root_key(rec: ErrorRecord) -> str:
    """What "the same root cause" means for the budget's merge step: the family plus the place the
    error points at most often (file + symbol, no line numbers), else its normalised message."""
    places: dict[str, int] = {}
    for o in rec.occurrences:
        loc = o.location
        if loc.path or loc.symbol:
            k = f"{loc.path or ''}::{loc.symbol or ''}"
            places[k] = places.get(k, 0) + 1
    if places:
        return f"{rec.family}|{max(sorted(places), key=places.get)}"
    details = [normalise_detail(o.detail) for o in rec.occurrences if o.detail]
    return f"{rec.family}|{details[-1] if details else rec.id}"
