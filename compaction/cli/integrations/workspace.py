"""Which folder holds an agent hook's `.compaction/` store.

Why not the payload's `cwd`: agents report the shell's current folder, which follows the agent's
own `cd pkg`, so preferring it splits one project into several stores (and the restore block then
sees only a sliver of the error memory). The project root is stable: the agent's project variable
when set, else the nearest `.git` root at or above `cwd`, else `cwd` itself. A `.compaction/` below
the root is never chosen. Standard library only: the detached hook resolves it before any import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# Claude Code sets CLAUDE_PROJECT_DIR; Gemini CLI sets GEMINI_PROJECT_DIR (and CLAUDE_PROJECT_DIR as an alias).
PROJECT_VARS = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")


def git_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` holding `.git` (a folder, or a worktree's file)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def resolve_workspace(cwd: str | None, env: Mapping[str, str] | None = None,
                      fallback: str | None = None) -> Path:
    """The project variable, else the `.git` root at or above `cwd`, else `cwd`, else `fallback`
    (the process's folder)."""
    env = os.environ if env is None else env
    for var in PROJECT_VARS:
        value = env.get(var)
        if value and Path(value).is_dir():
            return Path(value)
    start = Path(cwd) if cwd and Path(cwd).is_dir() else Path(fallback or os.getcwd())
    return git_root(start.absolute()) or start
