"""A recurring record's earlier failures: the stretches of its occurrences that ended before its last one.

Why: a record is one identifier, but one identifier can name several failures in turn (an
AssertionError about `reftarget`, fixed, then another about `desc_sig_punctuation`; a bundler's
"The $ name is reserved", fixed, then "Imports of svelte/internal/* are forbidden"). The record's
solution tells what ended the last one; what ended each earlier one is lost unless it is told apart.

Two signals split them, neither a table of names:
- tests: a test that failed, then was run again (a run that names its file, or the whole suite) without
  failing, ended there;
- messages: the next occurrence says something else (numbers and quoted values aside; a message the
  tool cut short, "The no...", is the same as any it begins), and that message does not come back;
- files, for an edit tool's refusals: the next refusal is of another file, and this one's never comes back
  (str_replace failing nine times on a test, then twice on the class it tests: two failures, each ended
  by the edit of its own file that went through).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compaction.errors.records import Occurrence, normalise_detail

_CUT_RE = re.compile(r"(?:\.\.\.|…)\s*$")
_MARK_RE = re.compile(r"^(?:E\s+)+|^_{3,}\s*|\s*_{3,}$")  # pytest's `E   ` marks, its `____ test ____` rules
# A run that picks its tests by name (pytest's `::`/`-k`, mocha's `--grep`, jest's `-t`, go's `-run`, cargo's filter
# after `--`) runs no other test; one that names test files runs those files only.
_PICKS_RE = re.compile(r"::|\s-k\s|\s--grep\b|\s-t\s|\s-run\b|\s--filter\b|\s--testNamePattern\b")
_TEST_FILE_RE = re.compile(r"[\w./-]*(?:test|spec)[\w.-]*\.\w+|[\w./-]+\.(?:py|js|ts|tsx|jsx|rs|go|rb|java)\b")


@dataclass(frozen=True, slots=True)
class Episode:
    """One earlier failure: its occurrences, the round where the record's next failure showed, and
    the failure in its own words (`said`: its message; `tests`: the tests that stopped failing).
    `next_message`: the message of that round the next failure is in (a fix came before it)."""

    occurrences: tuple[Occurrence, ...]
    next_round: int
    next_message: int | None
    said: str
    tests: tuple[str, ...] = ()
    file: str = ""  # the file an edit tool refused to edit, for a stretch split by file


_TEST_PART_RE = re.compile(r"::| > |(?<=\.py):")


def label_of_test(test: str) -> str:
    """A test id's own name (`test_domain_py_xrefs` of `tests/test_domain_py.py::test_domain_py_xrefs`,
    the last title of vitest's `tree.spec.ts > tree > should hide …`)."""
    return _TEST_PART_RE.split(test)[-1].strip()


def said_of(occ: Occurrence) -> str:
    """The occurrence's message line without pytest's `E` marks."""
    line = (occ.detail or occ.evidence or "").strip().split("\n", 1)[0].strip()
    return _MARK_RE.sub("", line)


def _cut_short(text: str) -> bool:
    return _CUT_RE.search(text) is not None


def _same(a: str, b: str) -> bool:
    """Two messages of one failure: equal once numbers and quoted values are blanked, or one cut short
    where the other goes on."""
    if not a or not b:
        return True
    if _cut_short(a) or _cut_short(b):
        x, y = (_CUT_RE.sub("", s).rstrip() for s in (a, b))
        return x.startswith(y) or y.startswith(x)
    return normalise_detail(a) == normalise_detail(b)


def _best_said(occs: list[Occurrence]) -> str:
    """The fullest message of a stretch: not cut short, the longest."""
    said = [s for s in (said_of(o) for o in occs) if s]
    whole = [s for s in said if not _cut_short(s)]
    return max(whole or said, key=len, default="")


def _reruns(test: str, command: str) -> bool:
    """Whether a later run ran `test` again: it names the test's file (and, when it picks tests by name,
    the test's own name as a whole word), or names no test file and picks no test (the whole suite)."""
    name = label_of_test(test)
    picks = _PICKS_RE.search(command) is not None
    if picks and not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", command):
        return False
    parts = _TEST_PART_RE.split(test)
    own_file = parts[0].rsplit("/", 1)[-1] if len(parts) > 1 else ""
    if own_file and own_file in command:
        return True
    return not picks and not _TEST_FILE_RE.search(command.split(None, 1)[1] if " " in command else "")


def _by_tests(occs: list[Occurrence]) -> list[Episode]:
    """Tests that stopped failing, grouped by the occurrence they last failed in."""
    final = _best_said([occs[-1]])
    last_at: dict[str, int] = {}
    for i, o in enumerate(occs):
        for t in o.tests:
            last_at[t] = i
    ending: dict[int, list[str]] = {}  # each occurrence → the tests that fail there for the last time
    for t, k in last_at.items():
        ending.setdefault(k, []).append(t)
    next_run: list[Occurrence | None] = [None] * len(occs)  # each occurrence → the next one that names tests
    for i in range(len(occs) - 2, -1, -1):
        next_run[i] = occs[i + 1] if occs[i + 1].tests else next_run[i + 1]
    where: dict[str, list[int]] = {}  # each test → the occurrences it fails in
    for i, o in enumerate(occs):
        for t in dict.fromkeys(o.tests):
            where.setdefault(t, []).append(i)
    out: list[Episode] = []
    for i in sorted(ending):
        later = next_run[i]
        if later is None:
            continue
        command = later.location.command or ""
        ended = [t for t in ending[i] if _reruns(t, command)]
        if not ended:
            continue
        mine = [occs[j] for j in sorted({j for t in ended for j in where[t]})]
        only = [o for o in mine if set(o.tests) <= set(ended)]
        said = _best_said(only or mine)
        if not _same(said, final):  # the same message in other tests is the same failure, not an earlier one
            out.append(Episode(tuple(mine), occs[i + 1].round, occs[i + 1].message, said, tuple(ended)))
    return out


def _key(text: str) -> str:
    """What a message is compared by: numbers and quoted values blanked (a message cut short keeps its
    text: it is compared by what it begins with)."""
    return "…" + _CUT_RE.sub("", text).rstrip() if _cut_short(text) else normalise_detail(text)


def _by_message(occs: list[Occurrence]) -> list[Episode]:
    """Stretches of occurrences that say the same thing, each ended by one that says another; not a
    message that comes back later (it did not end). Each message is compared with the stretch's distinct
    messages (a record repeated a thousand times with changing numbers is one comparison a time)."""
    said = [said_of(o) for o in occs]
    keys = [_key(s) for s in said]
    last_at = {k: i for i, k in enumerate(keys)}  # where each message is said for the last time
    cut_last = [j for k, j in last_at.items() if k.startswith("…")]  # …of those the tool cut short
    out: list[Episode] = []
    start = 0
    distinct: dict[str, str] = {keys[0]: said[0]}  # the stretch's distinct messages by key
    for i in range(1, len(occs)):
        if keys[i] in distinct or all(_same(s, said[i]) for s in distinct.values()):
            distinct.setdefault(keys[i], said[i])
            continue
        best = _best_said(list(occs[start:i]))
        if last_at.get(_key(best), -1) < i and not any(  # said again later, whole or cut short: it did not end
                _same(best, said[j]) for j in cut_last if j >= i):
            out.append(Episode(tuple(occs[start:i]), occs[i].round, occs[i].message, best))
        start, distinct = i, {keys[i]: said[i]}
    return out


def _file_of(occ: Occurrence) -> str:
    """The refused file by its whole path, one spelling (`a\\b.py` and `a/b.py` are one file; the
    `__init__.py` of two packages are two)."""
    return (occ.location.path or "").replace("\\", "/").removeprefix("./").rstrip("/")


def _by_file(occs: list[Occurrence]) -> list[Episode]:
    """The refusals of each file that ended before the last one: a file whose refusals stopped when
    another file's began and never came back (its edit went through), each with all its refusals so
    far (`A A B A C`: B's one, then A's three). A refusal naming no file belongs to the file before it."""
    files = [_file_of(o) for o in occs]
    for i in range(1, len(files)):
        files[i] = files[i] or files[i - 1]
    last_at = {f: i for i, f in enumerate(files) if f}
    of_file: dict[str, list[Occurrence]] = {}  # each file → its refusals, gathered once
    for o, f in zip(occs, files, strict=True):
        of_file.setdefault(f, []).append(o)
    out: list[Episode] = []
    for i in range(1, len(occs)):
        ended = files[i - 1]
        if ended and files[i] != ended and last_at[ended] == i - 1:  # its refusals all came before i
            mine = of_file[ended]
            out.append(Episode(tuple(mine), occs[i].round, occs[i].message, _best_said(mine), file=ended))
    return out


def earlier_episodes(occurrences: list[Occurrence], *, by_file: bool = False) -> list[Episode]:
    """The failures of a record that ended before its last occurrence, in order (none for a record
    seen once). By file for an edit tool's refusals (`by_file`), by tests when its occurrences name
    tests, else by message."""
    if len(occurrences) < 2:
        return []
    if by_file:
        return _by_file(occurrences)
    if any(o.tests for o in occurrences):
        return _by_tests(occurrences)
    return _by_message(occurrences)
