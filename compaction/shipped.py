"""Content a repository ships: a store, error memory or transcript tracked in git came with the
clone, was not produced here, and may be written to steer an agent ("content poisoning").

Such files are never injected into an agent's context (SessionStart hook), shown as hovers or
diagnostics, or returned by MCP `error_memory_*` unless the user consented (`trustShippedMemory`
in the user config, or a command-line flag). `git ls-files` is run without the network, with a
timeout, and hardened so that the repository's own config cannot run a program (core.fsmonitor)
and no inherited `GIT_*` variable redirects it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

from compaction.store import DB_NAME, STATE_DIR

# What the error-memory channels read: the store, and the exported block.
MEMORY_FILES = (f"{STATE_DIR}/{DB_NAME}", f"{STATE_DIR}/error-memory.md")
# What the SessionStart hook also reads to build its block.
HOOK_FILES = (*MEMORY_FILES, f"{STATE_DIR}/restore.md", f"{STATE_DIR}/hook-state.json")
GIT_TIMEOUT_S = 5.0

_cache: dict[tuple, list[str]] = {}


def git_env() -> dict[str, str]:
    """The environment without inherited GIT_* variables (GIT_DIR, GIT_CONFIG_*, ...), system config
    off, no prompts, no optional locks (a read must not write the index)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1")
    return env


def _stamp(workspace: Path, rel_paths: tuple[str, ...]) -> tuple:
    def st(p: Path) -> tuple[int, int] | None:
        try:
            s = p.stat()
            return s.st_mtime_ns, s.st_size
        except OSError:
            return None

    return (str(workspace), rel_paths, st(workspace / ".git" / "index"), st(workspace / ".git"),
            tuple(st(workspace / r) for r in rel_paths))


def tracked(workspace: str | os.PathLike[str], rel_paths: Iterable[str]) -> list[str]:
    """Which of `rel_paths` (relative to the workspace) git tracks there. [] outside a repository or
    without git. A repository git refuses to read (another owner) counts every existing path as
    tracked: not knowing is not consent."""
    ws = Path(os.path.realpath(workspace))
    rels = tuple(rel_paths)
    existing = [r for r in rels if (ws / r).exists() or (ws / r).is_symlink()]
    if not existing:
        return []
    key = _stamp(ws, rels)
    if key in _cache:
        return _cache[key]
    cmd = ["git", "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false",
           "-c", "protocol.allow=never",
           "--no-pager", "ls-files", "-z", "--", *rels]
    try:
        proc = subprocess.run(cmd, cwd=ws, env=git_env(), capture_output=True, timeout=GIT_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return []  # no git: nothing can be tracked by it
    if proc.returncode == 0:
        names = {n for n in proc.stdout.decode("utf-8", "replace").split("\0") if n}
        out = [r for r in rels if r in names]
    elif b"dubious ownership" in proc.stderr:
        out = existing
    else:
        out = []  # not a repository
    if len(_cache) > 64:
        _cache.clear()
    _cache[key] = out
    return out


def memory_withheld(workspace: str | os.PathLike[str], trusted: bool, rel_paths: Iterable[str] = MEMORY_FILES,
                    report: Callable[[str], None] | None = None) -> bool:
    """True when the workspace's memory is shipped and the user did not consent (`trusted`: the
    settings' `trust_shipped_memory`); the reason is reported once (default: a stderr line)."""
    reason = withheld(workspace, trusted, rel_paths)
    if reason is None:
        return False
    from compaction.trust import report_once

    report_once(reason, report)
    return True


def withheld(workspace: str | os.PathLike[str], trusted: bool, rel_paths: Iterable[str] = MEMORY_FILES) -> str | None:
    """Why the workspace's memory is not used (the shipped files named), or None when it may be."""
    if trusted:
        return None
    shipped = tracked(workspace, rel_paths)
    if not shipped:
        return None
    from compaction.trust import user_config_path

    return (f"{', '.join(shipped)} in {workspace} is tracked by git (shipped with the repository, not produced "
            f"here): its error memory is not used; to use it, set \"trustShippedMemory\": true in "
            f"{user_config_path()} or pass --trust-shipped-memory")
