"""Path confinement for the LSP and MCP servers: what a request may read and where it may write.

Why: the servers act on requests from an editor or an agent, and an agent can be steered by the
text of a transcript (a prompt injection naming `~/.ssh/id_rsa` or `../../etc`). So a server reads
only the workspace roots, the agents' transcript folders for *this* workspace, and paths the user
named explicitly; it writes only under `<workspace>/.compaction/` and the settings files that
`install` was asked to change. Paths are judged after resolving `..` and symlinks, so a link inside
the workspace that points out of it is refused like a `../..` path; the error says which.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from compaction.discovery import (
    _CLINE_CWD,
    EditorStorage,
    claude_project_names,
    cline_task_dirs,
    codex_session_cwd,
    gemini_project_hash,
    resolve_home,
)

STATE_DIR = ".compaction"


class ConfinementError(ValueError):
    """A path outside what this request may read or write; names the path and why.

    A ValueError so that callers treating bad arguments as the client's fault (exit 1, an error
    reply) handle it without knowing this type.
    """

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")


ALLOW_READ_ENV = "COMPACTION_ALLOW_READ"


def allowed_reads_from_env() -> list[Path]:
    """`$COMPACTION_ALLOW_READ` (os.pathsep-separated): read roots the user set for the servers."""
    raw = os.environ.get(ALLOW_READ_ENV, "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p]


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class Confinement:
    """Allowed read and write locations for one workspace (one or more roots).

    `check_read(p)` / `check_write(p)` return the resolved path or raise ConfinementError.
    `allow_read(p)` / `allow_write_file(p)` add what the user named explicitly (a file picked in
    the editor, a `--transcript` flag, the settings file `install` is told to edit).
    """

    def __init__(self, workspace_roots: Iterable[str | Path], *, home: str | Path | None = None,
                 explicit_read: Iterable[str | Path] = (), settings_files: Iterable[str | Path] = (),
                 storage: EditorStorage | None = None) -> None:
        self.roots = [_real(r) for r in workspace_roots]
        if not self.roots:
            raise ValueError("a confinement needs at least one workspace root")
        self.home = resolve_home(home)
        self.read_roots: list[Path] = list(self.roots)
        self.transcript_roots: list[Path] = []
        for root in self.roots:
            self.transcript_roots += self._transcript_folders(root)
        self.storage = storage  # the editor's folders: its chatSessions/ is this workspace's
        self.explicit: list[Path] = [_real(p) for p in explicit_read]
        if storage:
            self.transcript_roots += [_real(p) for p in storage.chat_sessions]
        self.write_roots = [r / STATE_DIR for r in self.roots]
        self.write_files: list[Path] = [_real(p) for p in settings_files]

    # --- what is allowed -----------------------------------------------------------------------
    def _transcript_folders(self, root: Path) -> list[Path]:
        """The per-workspace folders agents keep this workspace's sessions in (see compaction.discovery)."""
        folders = []
        claude_roots = [self.home / ".claude"]
        if os.environ.get("CLAUDE_CONFIG_DIR") and self.home == Path.home():
            claude_roots.append(Path(os.environ["CLAUDE_CONFIG_DIR"]))
        for base in claude_roots:
            folders += [_real(base / "projects" / name) for name in claude_project_names(root)]
        folders.append(_real(self.home / ".gemini" / "tmp" / gemini_project_hash(root)))
        return folders

    def _shared_agent_file(self, path: Path) -> bool:
        """Codex rollouts and Cline tasks live in folders shared by all workspaces: a file there is
        this workspace's when the cwd it records is one of our roots (or it records none)."""
        codex_home = os.environ.get("CODEX_HOME") if self.home == Path.home() else None
        codex = _real(Path(codex_home) if codex_home else self.home / ".codex") / "sessions"
        if _within(path, codex) and path.name.startswith("rollout-") and path.suffix == ".jsonl":
            cwd = codex_session_cwd(path)
            return cwd is None or _real(cwd) in self.roots
        for tasks in cline_task_dirs(self.home, self.storage):
            if _within(path, _real(tasks)) and path.name == "api_conversation_history.json":
                try:
                    head = path.read_bytes()[:65536].decode("utf-8", "replace")
                except OSError:
                    return False
                match = _CLINE_CWD.search(head)
                return match is None or _real(match.group(1).strip()) in self.roots
        return False

    def allow_read(self, path: str | Path) -> Path:
        """The user named this file or folder explicitly: reading it (and under it) is allowed."""
        real = _real(path)
        self.explicit.append(real)
        return real

    def allow_write_file(self, path: str | Path) -> Path:
        """A settings file `install` was asked to change: writing exactly this file is allowed."""
        real = _real(path)
        self.write_files.append(real)
        return real

    # --- checks --------------------------------------------------------------------------------
    def resolve(self, path: str | Path) -> tuple[Path, Path]:
        """(lexical absolute path, real path): relative paths are taken from the first root."""
        p = Path(path).expanduser()
        if "\x00" in str(p):
            raise ConfinementError(repr(str(path)), "NUL byte in path")
        if not p.is_absolute():
            p = self.roots[0] / p
        return Path(os.path.normpath(p)), _real(p)

    def _why_not(self, path: str | Path, lexical: Path, real: Path, allowed: list[Path], what: str) -> ConfinementError:
        if any(_within(lexical, r) for r in allowed) or any(_within(lexical, r) for r in self.roots):
            return ConfinementError(path, f"{what} refused: a symlink leads out of the allowed folders (to {real})")
        if ".." in Path(path).parts:
            return ConfinementError(path, f"{what} refused: `..` leads out of the allowed folders (to {real})")
        return ConfinementError(path, f"{what} refused: outside the workspace, its transcript folders and the paths "
                                      f"you named ({', '.join(str(r) for r in self.roots)})")

    def check_read(self, path: str | Path) -> Path:
        """The real path of `path` if this request may read it, else ConfinementError."""
        lexical, real = self.resolve(path)
        allowed = self.read_roots + self.transcript_roots + self.explicit
        if any(_within(real, r) for r in allowed) or self._shared_agent_file(real):
            return real
        raise self._why_not(path, lexical, real, allowed, "reading")

    def check_write(self, path: str | Path) -> Path:
        """The real path of `path` if this request may write it (under `.compaction/`, or a named
        settings file), else ConfinementError."""
        lexical, real = self.resolve(path)
        if any(_within(real, r) for r in self.write_roots) or real in self.write_files:
            return real
        if any(_within(lexical, r) for r in self.write_roots):
            raise ConfinementError(path, f"writing refused: a symlink leads out of .compaction/ (to {real})")
        if ".." in Path(path).parts:
            raise ConfinementError(path, f"writing refused: `..` leads out of .compaction/ (to {real})")
        raise ConfinementError(path, "writing refused: only <workspace>/.compaction/ and the settings files "
                                     "install was asked to change may be written")

    def is_readable(self, path: str | Path) -> bool:
        try:
            self.check_read(path)
        except ConfinementError:
            return False
        return True
