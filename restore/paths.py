"""Map paths recorded in a transcript (`/testbed/x`, `/workspace/proj/x`, `c:\\x`, `~/proj/x`) to
workspace-relative paths (DESIGN.md §4).

Transcripts are often recorded on another machine or in a container, so a recorded absolute
path rarely exists here. Rule: relative to the transcript's recorded cwd where it has one; else
the longest suffix of the path that exists in the workspace. A prefix learned once (e.g.
`/home/someone/proj/` -> workspace root) is reused, so files the transcript created and later
deleted still map consistently.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Container

from compaction.history.facts import relative_path

_DRIVE = re.compile(r"\A([a-zA-Z]):[\\/]")
_URI = re.compile(r"\Afile://(?:localhost)?", re.I)


def _split(raw: str) -> tuple[bool, list[str]]:
    """(absolute?, components) with Windows drives, backslashes, file:// and `~` normalised."""
    p = raw.strip().strip("'\"`")
    p = _URI.sub("", p)
    absolute = False
    m = _DRIVE.match(p)
    if m:
        p = "/" + m.group(1).lower() + "/" + p[3:]
        absolute = True
    p = p.replace("\\", "/")
    if p.startswith("~/"):
        p = "/~" + p[1:]
    if p.startswith("/"):
        absolute = True
    parts: list[str] = []
    for seg in p.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if parts:
                parts.pop()
            continue
        parts.append(seg)
    return absolute, parts


def _line_suffix(parts: list[str]) -> list[str]:
    """Drop a `:12` or `:12:5` line/column suffix from the last component."""
    if parts:
        last = re.sub(r"(?::\d+){1,2}\Z", "", parts[-1])
        if last and last != parts[-1]:
            return [*parts[:-1], last]
    return parts


class PathMapper:
    """Maps transcript paths onto one workspace. `exists(rel)` says whether a workspace-relative
    path exists (the index's membership test, or the file system)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        exists: Container[str] | Callable[[str], bool] | None = None,
        cwd: str | None = None,
    ) -> None:
        self.root = os.path.realpath(root)
        _, self._root_parts = _split(self.root)
        if exists is None:
            self._exists: Callable[[str], bool] = lambda rel: os.path.exists(os.path.join(self.root, rel))
        elif callable(exists):
            self._exists = exists
        else:
            self._exists = exists.__contains__
        self.cwd_parts: list[str] | None = None
        self.cwd_rel: list[str] = []  # where the recorded cwd lands in the workspace
        self.learned: dict[tuple[str, ...], tuple[str, ...]] = {}  # recorded prefix -> workspace prefix
        if cwd:
            self.set_cwd(cwd)

    def set_cwd(self, cwd: str) -> None:
        absolute, parts = _split(cwd)
        if not absolute:
            return
        self.cwd_parts = parts
        if parts[: len(self._root_parts)] == self._root_parts:
            self.cwd_rel = parts[len(self._root_parts) :]
        else:
            self.cwd_rel = []
        # The recorded cwd is the workspace root (or a folder in it): learn that prefix.
        self.learned[tuple(parts)] = tuple(self.cwd_rel)

    def map(self, raw: str | None) -> str | None:
        """Workspace-relative POSIX path, or None when the path cannot be placed in the workspace."""
        if not raw:
            return None
        absolute, parts = _split(raw)
        parts = _line_suffix(parts)
        if not parts:
            return None
        if absolute:
            # 1. already inside this workspace on this machine
            if parts[: len(self._root_parts)] == self._root_parts and len(parts) > len(self._root_parts):
                return "/".join(parts[len(self._root_parts) :])
            # 2. under the recorded cwd or a learned prefix (longest first)
            for prefix in sorted(self.learned, key=len, reverse=True):
                n = len(prefix)
                if n and tuple(parts[:n]) == prefix and len(parts) > n:
                    return "/".join([*self.learned[prefix], *parts[n:]])
            # 3. longest suffix that exists in the workspace
            for i in range(len(parts)):
                rel = "/".join(parts[i:])
                if self._exists(rel):
                    if i and len(parts) - i >= 2:  # a bare file name is too weak to learn a prefix from
                        self.learned.setdefault(tuple(parts[:i]), ())
                    return rel
            return None
        # relative: to the recorded cwd when it lies in the workspace, else to the root
        if self.cwd_rel:
            rel = "/".join([*self.cwd_rel, *parts])
            if self._exists(rel):
                return rel
        rel = "/".join(parts)
        if self._exists(rel):
            return rel
        for i in range(1, len(parts)):
            sub = "/".join(parts[i:])
            if self._exists(sub):
                return sub
        return "/".join([*self.cwd_rel, *parts]) if self.cwd_rel else rel


def map_path(raw: str, root: str | os.PathLike[str], *, cwd: str | None = None,
             exists: Container[str] | Callable[[str], bool] | None = None) -> str | None:
    """One-off mapping; build a PathMapper to map many paths of one transcript."""
    return PathMapper(root, exists, cwd).map(raw)


def project_name(path: str, root: str | None) -> str:
    """A transcript path as the project names it: relative to its root (the recorded cwd, else the one the
    compaction inferred), a Windows spelling with forward slashes, without a leading `./` — one name whether
    the session wrote the file absolutely (an editor tool) or relatively (`rm x.py`)."""
    shown = relative_path(path, root)
    return (shown.replace("\\", "/") if "\\" in shown and "/" not in shown else shown).removeprefix("./")
