"""What every deriver shares: one spelling per path, the first real request, the result record."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote

EXCERPT_CHARS = 200
_WS = re.compile(r"\s+")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\[[0-9;]{1,12}m")


@dataclass
class Derived:
    """What a deriver read out of one session: files it changed (raw spellings), the task's opening."""

    changed: list[str] = field(default_factory=list)
    task: str = ""
    how: str = ""
    roots: list[str] = field(default_factory=list)  # roots the session itself records (cwd, workspace)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """The first `limit` characters of a request, whitespace folded to single spaces (as GROUND_TRUTH.jsonl)."""
    return _WS.sub(" ", _ANSI.sub("", text)).strip()[:limit]


def _slashes(path: str) -> str:
    path = path.strip().strip("`'\"")
    if path.startswith("file://"):
        path = unquote(path[len("file://"):])
        if re.match(r"^/[A-Za-z]:/", path):  # file:///C:/x -> C:/x
            path = path[1:]
    path = path.replace("\\", "/")
    path = re.sub(r"/{2,}", "/", path)
    return path


def relative(path: str, roots: list[str]) -> str:
    """`path` relative to the first root that contains it, forward slashes, one spelling.

    Windows drive letters and separators are folded (`C:\\proj\\a\\b.ts` under `C:\\proj` -> `a/b.ts`);
    a path under no root is kept whole (absolute, or home-relative with `~`), so it stays recognisable.
    """
    p = _slashes(path)
    for root in roots:
        r = _slashes(root).rstrip("/")
        if not r:
            continue
        if p.lower() == r.lower():
            return "."
        if p.lower().startswith(r.lower() + "/"):
            p = p[len(r) + 1:]
            break
    while p.startswith("./"):
        p = p[2:]
    return p


def unique(paths: list[str]) -> list[str]:
    """Order-preserving de-duplication."""
    seen: dict[str, None] = {}
    for p in paths:
        if p and p not in seen:
            seen[p] = None
    return list(seen)
