"""Files a git command's printed output reports changed in the work tree.

Why: some agents' transcripts record a file write without its path (Cursor's `write` rendered by
SpecStory shows the tool's name and nothing else); the files then appear only where the agent ran
git — the summary `git commit` prints (`create mode 100644 f`, `rename {a => b} (53%)`), the
sections of `git status`, `git diff --stat` / `--name-status` / `--name-only`. This module reads
those shapes and nothing else; whether a report counts as the session's work is the caller's call
(`compaction.events` takes it only after path-less writes).

Only commands that describe the work tree or the agent's own commit are read: `git commit`,
`git status`, `git diff`. A `merge`, `pull` or `show` prints the same shapes for changes made
elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from compaction.shell import split_commands, words

Change = Literal["created", "modified", "deleted", "moved"]


@dataclass(frozen=True, slots=True)
class GitFileChange:
    """One file git reported: `moved` is a rename git found unchanged (100% similar), `source` the
    path it came from (renames and copies)."""

    change: Change
    path: str
    source: str | None = None
    untracked: bool = field(default=False, compare=False)  # a status's untracked file (`?? f`, "Untracked files:")


# `git commit`'s summary: " create mode 100644 a/b.py", " delete mode 100644 x",
# " rename {old => new}/f.md (100%)", " copy a => b (90%)".
_COMMIT_MODE_RE = re.compile(r"^ (create|delete) mode \d{6} (.+)$", re.MULTILINE)
_COMMIT_RENAME_RE = re.compile(r"^ (rename|copy) (.+ => .+?) \((\d{1,3})%\)$", re.MULTILINE)
# `git status` (long form): a tab-indented "new file:   f" in a section; untracked files alone on theirs.
_STATUS_LINE_RE = re.compile(
    r"^\t(new file|modified|deleted|renamed|copied|typechange|both modified|both added|added by us|added by them):"
    r"\s+(.+)$", re.MULTILINE)
_LONG_STATUS_RE = re.compile(r"^(?:On branch |HEAD detached |Not currently on any branch|nothing to commit|"
                             r"Changes |Untracked files:)", re.MULTILINE)
_STATUS_SECTION_RE = re.compile(r"^(?:Untracked files|Ignored files|[A-Z][\w ]+):\s*$")
# `git status --short`/`--porcelain`: "XY path" or "R  old -> new".
_SHORT_RE = re.compile(r"^([ MTADRCU?!])([ MTADRCU?!]) (.+)$", re.MULTILINE)
# `git diff --name-status`: "M\tf", "R087\told\tnew".
_NAME_STATUS_RE = re.compile(r"^([AMDTUX]|[RC]\d{0,3})\t([^\t\n]+)(?:\t([^\t\n]+))?$", re.MULTILINE)
# `git diff --stat`: " path/f.py | 12 +++---", " a => b | 0", " img.png | Bin 0 -> 12 bytes".
_STAT_RE = re.compile(r"^ (\S.*?)\s+\|\s+(?:\d+ ?[+-]*|Bin(?: \d+ -> \d+ bytes)?)\s*$", re.MULTILINE)
_BRACE_RE = re.compile(r"\{([^{}]*) => ([^{}]*)\}")
_STATUS_CODES: dict[str, Change] = {"A": "created", "?": "created", "M": "modified", "T": "modified",
                                    "U": "modified", "D": "deleted"}
_GIT_GLOBAL_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}


def git_file_changes(command: str, output: str) -> list[GitFileChange]:
    """The files the output of `command` reports changed, in the order printed, if `command` ran
    `git commit`, `git status` or `git diff` (anything else: none)."""
    if "git" not in command or not output:
        return []
    runs = git_runs(command)
    if not runs:
        return []
    found: list[GitFileChange] = []
    for sub, args in runs:
        if sub == "commit":
            found += _commit_summary(output)
        elif sub == "status":
            short = any(a in {"-s", "--short", "--porcelain", "--porcelain=v1"} or
                        (a.startswith("-") and not a.startswith("--") and "s" in a) for a in args)
            short = short or not _LONG_STATUS_RE.search(output)  # `status.short = true` in the config
            found += _short_status(output) if short else _long_status(output)
        elif sub == "diff":
            if "--name-status" in args:
                found += _name_status(output)
            elif "--name-only" in args:
                found += [GitFileChange("modified", _unquote(p)) for p in output.splitlines()
                          if p.strip() and " " not in p.strip() and not p.startswith(("warning:", "fatal:"))]
            elif any(a.startswith("--stat") for a in args):
                found += _diff_stat(output)
    seen: set[tuple[str, str]] = set()
    out: list[GitFileChange] = []
    for c in found:  # one report per (change, path): `git status && git commit` print some twice
        if (c.change, c.path) not in seen and c.path and not c.path.endswith("/"):
            seen.add((c.change, c.path))
            out.append(c)
    return out


def git_runs(command: str) -> list[tuple[str, list[str]]]:
    """(subcommand, its arguments) of each `git …` simple command of a command line."""
    runs: list[tuple[str, list[str]]] = []
    for part in split_commands(command):
        args = words(part)
        if not args or args[0] != "git":
            continue
        i = 1
        while i < len(args) and args[i].startswith("-"):  # global options: `git -C dir --no-pager status`
            i += 2 if args[i] in _GIT_GLOBAL_WITH_VALUE else 1
        if i < len(args):
            runs.append((args[i], args[i + 1:]))
    return runs


def _commit_summary(output: str) -> list[GitFileChange]:
    events: list[tuple[int, GitFileChange]] = []
    for m in _COMMIT_MODE_RE.finditer(output):
        change: Change = "created" if m.group(1) == "create" else "deleted"
        events.append((m.start(), GitFileChange(change, _unquote(m.group(2)))))
    for m in _COMMIT_RENAME_RE.finditer(output):
        old, new = _expand_rename(m.group(2))
        if m.group(1) == "copy":
            events.append((m.start(), GitFileChange("created", new, old)))
        elif int(m.group(3)) >= 100:
            events.append((m.start(), GitFileChange("moved", new, old)))
        else:  # renamed and changed: the new name holds the session's text, the old one is gone
            events.append((m.start(), GitFileChange("deleted", old)))
            events.append((m.start(), GitFileChange("modified", new, old)))
    return [c for _, c in sorted(events, key=lambda e: e[0])]


def _long_status(output: str) -> list[GitFileChange]:
    out: list[GitFileChange] = []
    untracked = False
    for line in output.splitlines():
        if _STATUS_SECTION_RE.match(line):
            untracked = line.startswith("Untracked files")
            continue
        m = _STATUS_LINE_RE.match(line)
        if m:
            untracked = False
            what, rest = m.group(1), m.group(2).strip()
            if what in {"renamed", "copied"} and " -> " in rest:
                old, new = (_unquote(p) for p in rest.split(" -> ", 1))
                out.append(GitFileChange("moved" if what == "renamed" else "created", new, old))
            else:
                out.append(GitFileChange({"new file": "created", "deleted": "deleted"}.get(what, "modified"),
                                         _unquote(rest)))
        elif untracked and line.startswith("\t") and line.strip():
            out.append(GitFileChange("created", _unquote(line.strip()), untracked=True))
        elif not line.strip():
            untracked = False
    return out


def _short_status(output: str) -> list[GitFileChange]:
    out: list[GitFileChange] = []
    for m in _SHORT_RE.finditer(output):
        x, y, rest = m.group(1), m.group(2), m.group(3)
        if x == "!":
            continue  # ignored files
        if x in "RC" and " -> " in rest:
            old, new = (_unquote(p) for p in rest.split(" -> ", 1))
            out.append(GitFileChange("moved" if x == "R" else "created", new, old))
            if y in "MT":  # renamed, then changed in the work tree
                out.append(GitFileChange("modified", new))
            continue
        code = x if x != " " else y
        if code in _STATUS_CODES:
            out.append(GitFileChange(_STATUS_CODES[code], _unquote(rest), untracked=code == "?"))
    return out


def untracked_folders(output: str) -> tuple[str, ...]:
    """The new folders a status lists whole (`?? src/feat/`, or `src/feat/` under "Untracked files:"):
    `git_file_changes` reports files only."""
    short = [_unquote(m.group(3)) for m in _SHORT_RE.finditer(output) if m.group(1) == "?"]
    section = output.split("Untracked files:", 1)[1].split("\n\n", 1)[0] if "Untracked files:" in output else ""
    long = [_unquote(line.strip()) for line in section.splitlines() if line.startswith("\t")]
    return tuple(p for p in dict.fromkeys(short + long) if p.endswith("/"))


def _name_status(output: str) -> list[GitFileChange]:
    out: list[GitFileChange] = []
    for m in _NAME_STATUS_RE.finditer(output):
        code, first, second = m.group(1), _unquote(m.group(2)), m.group(3)
        if code[0] in "RC" and second:
            new = _unquote(second)
            score = int(code[1:] or 0)
            if code[0] == "C":
                out.append(GitFileChange("created", new, first))
            elif score >= 100:
                out.append(GitFileChange("moved", new, first))
            else:
                out += [GitFileChange("deleted", first), GitFileChange("modified", new, first)]
        elif code in _STATUS_CODES:
            out.append(GitFileChange(_STATUS_CODES[code], first))
    return out


def _diff_stat(output: str) -> list[GitFileChange]:
    out: list[GitFileChange] = []
    for m in _STAT_RE.finditer(output):
        path = m.group(1).strip()
        if path.startswith("..."):
            continue  # a name git shortened to fit the width: not a path
        if " => " in path:
            _, path = _expand_rename(path)
        out.append(GitFileChange("modified", _unquote(path)))
    return out


def _expand_rename(text: str) -> tuple[str, str]:
    """(old, new) of git's rename notation: `a => b`, `dir/{a => b}.py`, `{old => new}/f.md`."""
    m = _BRACE_RE.search(text)
    if not m:
        old, new = text.split(" => ", 1)
        return _unquote(old.strip()), _unquote(new.strip())
    head, tail = text[:m.start()], text[m.end():]

    def join(middle: str) -> str:
        path = head + middle + tail
        return _unquote(re.sub(r"/{2,}", "/", path).lstrip("/"))

    return join(m.group(1)), join(m.group(2))


def _unquote(path: str) -> str:
    """A path as git prints it, C-quoted when it holds special characters (`"a\\tb"`, octal UTF-8)."""
    path = path.strip()
    if len(path) < 2 or path[0] != '"' or path[-1] != '"':
        return path
    body = path[1:-1]
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode("utf-8")
    except (UnicodeError, ValueError):
        return body
