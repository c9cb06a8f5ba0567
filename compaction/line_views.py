"""Each file's lines by number, as the session's last read of them showed them (`nl -ba f | sed -n
'a,bp'`, `cat -n f`, `grep -n pat f`, `sed -n 'a,bp' f`, an editor's numbered view).

Why: an agent that edits by line number (`sed -i '1187s/return arg == self/…/'`) often aims at the
wrong line; sed then changes nothing and says nothing, and the session reads on as if the change were
made. The line's text as the agent last saw it, when no change of the file came between, says whether
the substitution could match there: one that could not is no change of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from compaction.edits import Hunk, definition, enclosing, same_file

# `  1187\t    return arg == self` (nl, cat -n, an editor's view), `1187:    return …` / `1185-  …` (grep -n)
_NUMBERED_RE = re.compile(r"^\s*(\d{1,7})(?:(?:\t|[:-](?=\S|\s)| {2,}|\s*→)(.*))?$")  # a bare number: an empty line
# `sed -n '1180,1190p' f` alone: its lines are numbered from the range's first
_SED_RANGE_RE = re.compile(r"^\s*sed\s+-n\s+['\"]?(\d+),(\d+)p['\"]?\s+\S+\s*$")
MIN_NUMBERED = 0.8  # of an output's non-empty lines, the share that must carry a number
MAX_LINES_KEPT = 4000  # of one file's view
MAX_SPAN = 400  # lines of a line-range edit its view may stand for


class Change(Protocol):
    """A file change as the views need it (`events.Event`): its hunks, and whether it left the file as it was."""

    hunks: tuple[Hunk, ...]
    unchanged: bool
    missed: int


@dataclass
class LineViews:
    """The files' numbered lines as last seen, forgotten when the file changes; and the line-addressed
    substitutions since a file's last other change, which a later view of their lines checks."""

    lines: dict[str, dict[int, str]] = field(default_factory=dict)
    pending: dict[str, list[Change]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.lines or self.pending)

    def seen(self, path: str, command: str, output: str) -> None:
        """Take a read's output as the file's lines where it numbers them (or a `sed -n 'a,bp'` does);
        a pending substitution whose line the view shows without its new text changed nothing."""
        numbered = _numbered(command, output)
        if not numbered:
            return
        for p in [p for p in self.pending if _same(p, path)]:
            for change in self.pending[p]:
                kept = tuple(h for h in change.hunks if not _not_landed(h, numbered))
                if len(kept) < len(change.hunks):
                    change.missed += len(change.hunks) - len(kept)
                    change.hunks = kept
                    change.unchanged = not kept
        known = self.lines.setdefault(path, {})
        known.update(numbered)
        if len(known) > MAX_LINES_KEPT:
            self.lines[path] = numbered

    def forget(self, path: str) -> None:
        """`path`'s view and waiting substitutions, under any spelling that may be it (a bare `app.py` and
        `/repo/app.py`): forgetting too much costs a judgement, keeping a stale view a false one."""
        for p in [p for p in self.lines if same_file(p, path)]:
            del self.lines[p]
        for p in [p for p in self.pending if same_file(p, path)]:
            del self.pending[p]

    def forget_all(self) -> None:
        """Every file's view: a command changed files in ways not known (a script's writes, a stash)."""
        self.lines.clear()

    def clear_pending(self) -> None:
        """No substitution made so far can be checked any more (files changed in ways not known since)."""
        self.pending.clear()

    def changed(self, path: str, change: Change, command: str = "") -> None:
        """A change of `path` made: its lines may have moved (forgotten); a line-addressed substitution
        in it waits for a view of its line."""
        self.forget(path)
        if judged(change.hunks, command):
            self.pending[path] = [change]

    def _line(self, path: str, number: int) -> str | None:
        for p, known in self.lines.items():
            if _same(p, path) and number in known:
                return known[number]
        return None

    def span(self, path: str, first: int, last: int) -> str | None:
        """Lines `first`..`last` of the file as last seen, when the view showed every one of them."""
        if last < first or last - first > MAX_SPAN:
            return None
        lines = [self._line(path, n) for n in range(first, last + 1)]
        return None if any(ln is None for ln in lines) else "\n".join(ln for ln in lines if ln is not None)

    def addressed_line(self, path: str, hunk: Hunk) -> str | None:
        """The line a substitution (`sed 'Ns/a/b/'`) is addressed to, as last seen; None when unknown."""
        number = _addressed(hunk)
        return self._line(path, number) if number else None

    def scope(self, path: str, hunk: Hunk) -> tuple[str, int] | None:
        """The definition a line-addressed substitution's line lies in, and the line that opens it, when the
        views show every line from there down to it (within MAX_SPAN): a miss at "line 1048" is told as one
        in `set_output` (opened at line 1030), the function the agent meant to change."""
        number = _addressed(hunk)
        line = self._line(path, number) if number else None
        if line is None:
            return None
        above: list[str] = []
        while len(above) < MAX_SPAN and (prev := self._line(path, number - len(above) - 1)) is not None:
            above.append(prev)
        above.reverse()
        name = enclosing(above, line)
        if not name:
            return None
        indent = len(line) - len(line.lstrip()) if line.strip() else 10**6
        for i in range(len(above) - 1, -1, -1):
            m = definition(above[i])
            if m and m.group(1) == name and len(above[i]) - len(above[i].lstrip()) < indent:
                return name, number - len(above) + i
        return None

    def misses(self, path: str, hunk: Hunk) -> bool:
        """A line-addressed substitution whose pattern the line, as last seen, does not match (and whose
        replacement it does not already hold: run again, it changes nothing, but the change is there)."""
        number = _addressed(hunk)
        pattern = bre(hunk.removed[0]) if number else None
        line = self._line(path, number) if pattern is not None else None
        if line is None or pattern is None or pattern.search(line) is not None:
            return False
        return not _holds_made(line, hunk)

    def missed(self, path: str, hunks: tuple[Hunk, ...], command: str = "") -> int:
        """How many of a change's substitutions the views say matched nothing (0 when it cannot be judged)."""
        return sum(self.misses(path, h) for h in hunks) if judged(hunks, command) else 0


# sed options and flags that change what a pattern matches (`-E`, `-r`, an `I` flag after any delimiter), an
# `s` with another delimiter than `/` (its flags are not read)
_UNJUDGED_RE = re.compile(r"\s-[a-zA-Z]*[Er][a-zA-Z]*\b|--regexp-extended|[/|#,:@!][gpw\d]*[Ii][gpw\d]*(?:['\";\s]|$)|"
                          r"\d+s[^/\w\s\\]")
_BARE_SLASH_RE = re.compile(r"(?<!\\)/")  # a delimiter left in a pattern or a replacement: the script was not one `s`
# GNU regex features `bre` does not read (`\<`, `\b`, `\w`, `[[:space:]]`): not judged
_GNU_RE = re.compile(r"\\[<>bBwWsS`']|\[\[:")


def _holds_made(line: str, hunk: Hunk) -> bool:
    """The line already holds what the substitution puts in (run again, it finds nothing to change): its
    replacement as a whole token (`timeout=30` is not in `timeout=300`), one its pattern does not itself hold
    (`s/return y/return/` on `return x` says nothing), no `&` or escape in it (they stand for other text)."""
    made = hunk.added[0].strip() if hunk.added else ""
    removed = hunk.removed[0] if hunk.removed else ""
    if not made or "\\" in made or "&" in made or made in removed:
        return False
    return re.search(r"(?<![\w.])" + re.escape(made) + r"(?![\w])", line) is not None


def judged(hunks: tuple[Hunk, ...], command: str) -> bool:
    """Whether a change's substitutions can be judged by line: only substitutions addressed to a line
    (none that deletes or inserts lines, which moves the lines after it), each read whole (no `/` left in
    its pattern or replacement: `10s/a/b/;15s/a/b/` is two commands), with basic regexes (no `-E`, no `I`)."""
    if not hunks or not all(_addressed(h) for h in hunks):
        return False
    if any(_BARE_SLASH_RE.search(h.removed[0] + (h.added[0] if h.added else "")) or _GNU_RE.search(h.removed[0])
           for h in hunks):
        return False
    lines = [_addressed(h) for h in hunks]
    if len(set(lines)) < len(lines):
        return False  # two substitutions on one line: the second reads the first's result
    return not (command and _UNJUDGED_RE.search(command))


def _same(a: str, b: str) -> bool:
    """One file by its spelling: the same path, or one ends the other at a folder boundary when the shorter
    names a folder too (a bare `__init__.py` may be any package's)."""
    x, y = (p.replace("\\", "/").removeprefix("./") for p in (a, b))
    if len(x) < len(y):
        x, y = y, x
    return x == y or ("/" in y and x.endswith("/" + y))


def bre(pattern: str) -> re.Pattern[str] | None:
    """A sed basic regular expression as Python's (`\\(` groups, `(` is literal, `.` `*` `^` `$` `[…]` as
    they are); None when it cannot be read (it is then not judged)."""
    if not pattern:
        return None
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}|+?" else "\\t" if nxt == "t" else re.escape(nxt) if not nxt.isalnum()
                       else "\\" + nxt)
            i += 2
            continue
        if ch == "[":  # a bracket expression, as it is; a `]` first in it (`[]a]`, `[^]]`) is one of its members
            end = pattern.find("]", i + (3 if pattern.startswith("^", i + 1) else 2))
            if end < 0:
                return None
            out.append(pattern[i:end + 1])
            i = end + 1
            continue
        out.append(ch if ch in ".*^$" else re.escape(ch))
        i += 1
    try:
        return re.compile("".join(out))
    except re.error:
        return None


def _addressed(hunk: Hunk) -> int:
    """The line number a substitution (`sed 'Ns/a/b/'`) is addressed to, 0 if none."""
    if hunk.fragment and hunk.removed and hunk.context and hunk.context.startswith("line "):
        number = hunk.context[5:]
        return int(number) if number.isascii() and number.isdigit() else 0
    return 0


def _not_landed(hunk: Hunk, numbered: dict[int, str]) -> bool:
    """A view after the substitution shows its line without the text it put there."""
    number = _addressed(hunk)
    new = hunk.added[0] if number and hunk.added else ""
    if not new.strip() or number not in numbered or "&" in new or "\\" in new:
        return False
    return new not in numbered[number]


# A command whose numbers are the file's own: the numbering program reads the file itself (`nl -ba f | sed -n
# 'a,bp'`, `cat -n f`, `grep -n x f`); `sed -n 'a,bp' f | cat -n` numbers from 1 whatever the range, and a
# plain `nl` skips blank lines
_NUMBERS_FILE_RE = re.compile(r"^\s*(?:nl\s+-b\s*a|nl\s+-ba|cat\s+-\w*n|grep\s+(?:-\w+\s+)*-\w*n|rg\s+(?:-\w+\s+)*-\w*n)")


def _numbered(command: str, output: str) -> dict[int, str]:
    lines = output.splitlines()
    rng = _SED_RANGE_RE.match(command) if command else None
    if rng and "|" not in command:
        first = int(rng.group(1))
        return {first + i: ln for i, ln in enumerate(lines[: int(rng.group(2)) - first + 1])}
    if command and not _NUMBERS_FILE_RE.match(command):
        return {}  # a shell line's numbers are the file's only when its first program numbers the file
    found: dict[int, str] = {}
    filled = [ln for ln in lines if ln.strip()]
    texts = 0  # numbered lines with text after the number (a file of bare numbers is no numbered view)
    for ln in filled:
        m = _NUMBERED_RE.match(ln)
        if m:
            found[int(m.group(1))] = m.group(2) or ""
            texts += m.group(2) is not None
    return found if texts and len(found) >= MIN_NUMBERED * len(filled) else {}
