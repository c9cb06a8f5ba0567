"""Files that got the same edit: their change records say the shared part once.

One round often makes one change to several files (five phase rules gaining the same two sections,
three `set_output` signatures gaining `**kwargs`). Told in full five times, the repeats crowd out
another file's record at a tight budget. A later record that opens with the same parts as an earlier
record of the same round names that record's file and how many parts it shares, shows the first of them,
then says what is its own.
"""

from __future__ import annotations

import re

from compaction.history.facts import Fact

# Where a record's one line may be cut into parts: between its `; ` parts and between the items of a
# list of additions or removals (`sections + 'A', + 'B'`), never inside a quoted line of code
_BOUNDARY_RE = re.compile(r"; |, (?=[+−-] )")
MIN_SHARED_PARTS = 2  # one shared part is a coincidence ("+ import os"), not the same edit
MIN_SAVED_CHARS = 60  # fewer characters left unsaid do not pay for naming the file they are shared with


def _parts(body: str) -> list[str]:
    """The body cut at its boundaries, each part with the separator after it."""
    out, at = [], 0
    for m in _BOUNDARY_RE.finditer(body):
        out.append(body[at:m.end()])
        at = m.end()
    out.append(body[at:])
    return out


def _head_and_body(text: str) -> tuple[str, str, str] | None:
    """(the file and its counts up to `): `, the parts, the rounds after them) of a record's one line."""
    if "): " not in text or not text.endswith(")"):
        return None
    head, rest = text.split("): ", 1)
    at = rest.rfind(" (r")
    if at < 0:
        return None
    return head + "): ", rest[:at], rest[at:]


def _shared(parts: list[str], other: list[str]) -> int:
    """How many opening parts two records have alike (their separators aside)."""
    n = 0
    for a, b in zip(parts, other, strict=False):
        if a.rstrip(";, ") != b.rstrip(";, ") or not a.strip():
            break
        n += 1
    return n


def say_alike_once(records: dict[str, Fact]) -> None:
    """Rewrite, in place, each record that opens with at least MIN_SHARED_PARTS parts an earlier record
    of one of its rounds opened with: "as `a.mdc`'s first N (<the first of them> …), then <its own parts>"."""
    by_round: dict[int, list[tuple[str, list[str]]]] = {}  # the records seen so far, by each of their rounds
    for path, fact in records.items():
        split = _head_and_body(fact.text)
        if split is None:
            continue
        head, body, rounds = split
        parts = _parts(body)
        best: tuple[int, str] | None = None
        for rnd in dict.fromkeys(fact.rounds):
            for other_path, other_parts in by_round.get(rnd, ()):
                n = _shared(parts, other_parts)
                if n >= MIN_SHARED_PARTS and (best is None or n > best[0]):
                    best = (n, other_path)
        for rnd in dict.fromkeys(fact.rounds):
            by_round.setdefault(rnd, []).append((path, parts))
        if best is None:
            continue
        n, other_path = best
        first = parts[0].rstrip(";, ")
        if len("".join(parts[1:n])) < MIN_SAVED_CHARS:
            continue
        name = other_path.rsplit("/", 1)[-1]
        own = "".join(parts[n:]).strip()
        said = f"as `{name}`'s first {n} ({first} …)" + (f", then {own}" if own else "")
        new_text = f"{head}{said}{rounds}"
        if fact.full_text and fact.full_text.startswith(fact.text):
            fact.full_text = new_text + fact.full_text[len(fact.text):]
        fact.text = new_text
