"""The project's root when the transcript recorded no working directory (SpecStory and aider exports):
inferred from what the agent did, so that the document names files as the project does.

Why: without a root every path is printed whole. A Cursor session under
`/Users/<name>/Library/CloudStorage/…/github/<repo>/` spent a third of its budget repeating that prefix,
and a command cut to its first characters showed only its `cd <root> &&`. Two signals, each from the
session itself, and no guess beyond them:
- the directory the agent's commands `cd` into first (`cd /abs/dir && git status`), when it holds the
  files the agent touched by absolute path (or the agent went there more than once);
- an absolute path that ends with a path the session also names relative to the root (git's output
  lists `docs/guide.md` while an edit tool wrote `/abs/dir/docs/guide.md`).
A common prefix of the absolute paths alone is not enough: all edits under `docs/` would make `docs/`
the root and drop it from every name. This root is for display only: nothing reads files with it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from compaction.events import Event, EventKind
from compaction.shell import DRIVE_RE as _DRIVE_RE
from compaction.shell import leading_cd
from compaction.transcripts.path_spelling import is_windows_path

_FILE_KINDS = frozenset({EventKind.READ, EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.MOVE,
                         EventKind.REVERT})


def _is_absolute(path: str) -> bool:
    return path.startswith(("/", "\\\\")) or _DRIVE_RE.match(path) is not None


def _deep_enough(directory: str) -> bool:
    """A root names a folder: `/` or `C:\\` would make every absolute path one of its files."""
    return any(p and not p.endswith(":") for p in _norm(directory).split("/"))


def _norm(path: str) -> str:
    return path.replace("\\", "/").rstrip("/")


def _inside(path: str, root: str) -> bool:
    p, r = _folded(path, root)
    return p.startswith(r + "/")


def on_path(path: str, root: str) -> bool:
    """Whether `path` is the project `root`, lies inside it, or is a folder above it (a Windows root's
    paths compared case-folded): a `cd` there or a file read there is this project's, not another's."""
    p, r = _folded(path, root)
    return p == r or p.startswith(r + "/") or r.startswith(p + "/")


def _folded(path: str, root: str) -> tuple[str, str]:
    p, r = _norm(path), _norm(root)
    return (p.casefold(), r.casefold()) if is_windows_path(root) else (p, r)


def infer_root(events: Iterable[Event],
               texts: Callable[[], tuple[Iterable[str], Iterable[str]]] | None = None) -> str | None:
    """The project root the session's own commands and paths show, else None (see the module's why).
    `texts`: the agent's messages (its words and its calls' arguments), then the others' (tools' output, a log the
    user pasted), read only when the events show no root: they may name files relatively (a test runner's report)
    that the agent's file tools name absolutely (Antigravity's write_to_file
    says "Create backend/jobs/views.py." in its description and `C:\\Users\\…\\views.py` as its target)."""
    cds: Counter[str] = Counter()
    absolute: list[str] = []
    relative: set[str] = set()
    for e in events:
        if e.kind is EventKind.COMMAND and e.command and (cd := leading_cd(e.command)) and _is_absolute(cd[0]):
            cds[cd[0]] += 1
        elif e.kind in _FILE_KINDS and e.path:
            p = e.path.strip()
            if _is_absolute(p):
                absolute.append(p)
            elif "/" in _norm(p) and not p.startswith(("./", "../", ".\\", "..\\", "~")):
                relative.add(_norm(p))
    # The most visited cd target holding more than half of the touched files; a parent of it at most two
    # levels up that holds more of them wins (a session that works in `repo/frontend` and edits
    # `repo/.github/ci.yml` is rooted at `repo`), a broader one never (`cd ~ && ls` is no project).
    held: list[tuple[int, str]] = []  # (files inside, directory), most visited first
    for directory, n in cds.most_common():
        if not _deep_enough(directory):
            continue
        inside = sum(_inside(p, directory) for p in absolute)
        if inside * 2 > len(absolute) if absolute else n > 1:
            held.append((inside, directory))
    if held:
        inside, best = held[0]
        near = [(k, d) for k, d in held[1:] if k > inside and _inside(best, d)
                and _norm(best).count("/") - _norm(d).count("/") <= 2]
        return max(near)[1] if near else best
    root = _voted_root(absolute, relative)
    if root is None and texts is not None and len(absolute) >= 2:
        agent, others = texts()
        root = _voted_root(absolute, _relative_spellings(agent))
        if root is None:  # a pasted log, a tool's report: read less of them, most sessions have no root at all
            root = _voted_root(absolute, _relative_spellings(others, OTHER_TEXT_CHARS))
    return root


TEXT_CHARS = 2_000_000  # of the agent's messages read for relative paths: bounded work on a huge session
OTHER_TEXT_CHARS = 100_000  # of the other messages (the user's first), read only when the agent's named no root


def _relative_spellings(texts: Iterable[str], limit: int = TEXT_CHARS) -> set[str]:
    """The relative file paths the texts name, read up to `limit` characters in all."""
    out: set[str] = set()
    left = limit
    for text in texts:
        if "/" in text:  # every relative path holds one; the lookbehind-led pattern is tried at every position
            out.update(_norm(m) for m in _RELATIVE_RE.findall(text[:left]))
        left -= len(text)
        if left <= 0:
            break
    return out


# A relative file path in prose: two or more parts, the last with an extension, not inside a longer path.
_RELATIVE_RE = re.compile(r"(?<![\w./\\:~-])((?:[\w.@-]+/)+[\w.@-]+\.\w+)")


def _voted_root(absolute: list[str], relative: set[str]) -> str | None:
    """The folder most absolute paths are a relative spelling's parent of (two at least, or the only one)."""
    votes: Counter[str] = Counter()
    for p in absolute:
        norm = _norm(p)
        parts = norm.split("/")
        for i in range(1, len(parts) - 1):  # the longest spelling first: the shallowest root, every run
            rel = "/".join(parts[i:])
            if rel in relative and _deep_enough(root := p[: len(norm) - len(rel) - 1]):
                votes[root] += 1  # (an export that drops a path's leading `/` spells it whole: no root)
                break
    if votes:
        root, n = min(votes.items(), key=lambda v: (-v[1], v[0]))
        if _deep_enough(root) and (n >= 2 or len(absolute) == 1):
            return root
    return None


def without_root_cd(command: str, root: str | None) -> str:
    """A command line as run from the root: its leading `cd <root> &&` is said by the document's header."""
    if not root or not (cd := leading_cd(command)):
        return command
    same = _norm(cd[0]).casefold() == _norm(root).casefold() if is_windows_path(root) else _norm(cd[0]) == _norm(root)
    return cd[1] if same and cd[1].strip() else command

