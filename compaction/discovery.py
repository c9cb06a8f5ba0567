"""Find the transcripts that coding assistants wrote for a workspace, newest first.

Each agent keeps its sessions somewhere of its own; the editor wants one list ("compact the
conversation I am having about this folder"), so this module knows the places:

- Claude Code: `~/.claude/projects/<escaped cwd>/*.jsonl` (`$CLAUDE_CONFIG_DIR` honoured); the
  escaped cwd is the absolute path with `/` and `.` (newer versions: every non-alphanumeric
  character) replaced by `-`, so `/home/me/my.app` -> `-home-me-my-app`.
- Codex CLI: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (`$CODEX_HOME` honoured), kept when
  the `session_meta` record's cwd is the workspace (or when no cwd can be read).
- Aider: `.aider.chat.history.md` in the workspace.
- Gemini CLI: `~/.gemini/tmp/<sha256 of the project root>/chats/*.json`.
- Cline, Roo Code and Kilo Code (one task shape, three extension ids):
  `<VS Code user dir>/globalStorage/<extension id>/tasks/<id>/api_conversation_history.json`
  (Linux and macOS locations, plus the global storage folder the editor extension names), kept
  when the task's environment details name the workspace as working directory (or name none).
- GitHub Copilot Chat: `<workspace storage>/chatSessions/*.json|*.jsonl`, only from the folder the
  editor extension names (`EditorStorage`: the sibling of its `context.storageUri`, so it is this
  workspace's by construction); no platform path for it is guessed here.

Pure library: reads only, never writes; `home` (or `$COMPACTION_HOME`) replaces the user's home
directory so tests run against a fake one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

_HEAD_BYTES = 64 * 1024
_CLINE_EXT = "saoudrizwan.claude-dev"
# Cline and its forks keep the same task folders under their own extension ids.
TASK_AGENTS = {_CLINE_EXT: "cline", "rooveterinaryinc.roo-cline": "roo-code", "kilocode.kilo-code": "kilo-code"}
# Cline writes "Current Working Directory (…)", Roo Code and Kilo Code "Current Workspace Directory (…)".
_CLINE_CWD = re.compile(r"Current (?:Working|Workspace) Directory \(([^)\n]+)\)")
_CODEX_CWD_TAG = re.compile(r"<cwd>([^<\n]+)</cwd>")


@dataclass(frozen=True, slots=True)
class TranscriptRef:
    """A transcript file found for a workspace: where, which agent wrote it, how fresh, how big."""

    path: str
    agent: str  # claude-code | codex | aider | gemini-cli | cline | roo-code | kilo-code | copilot-chat
    mtime: float
    size: int

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class EditorStorage:
    """Folders the editor extension names for this window (VS Code's, code-server's, a fork's):
    `chat_sessions` — this workspace's `chatSessions/` (Copilot Chat), `global_storage` — the
    user's globalStorage folder (Cline/Roo/Kilo tasks). Only the extension knows them."""

    chat_sessions: tuple[Path, ...] = ()
    global_storage: tuple[Path, ...] = ()

    @classmethod
    def from_options(cls, raw: object) -> EditorStorage:
        """From `{chatSessions: str, globalStorage: str}` (absolute paths; anything else ignored)."""
        if not isinstance(raw, dict):
            return cls()

        def one(key: str) -> tuple[Path, ...]:
            value = raw.get(key)
            return (Path(value),) if isinstance(value, str) and value and Path(value).is_absolute() else ()

        return cls(one("chatSessions"), one("globalStorage"))

    def task_dirs(self) -> list[Path]:
        return [g / ext / "tasks" for g in self.global_storage for ext in TASK_AGENTS]


def resolve_home(home: str | Path | None = None) -> Path:
    """The home directory to search: the argument, else `$COMPACTION_HOME`, else the user's."""
    if home is not None:
        return Path(home)
    env = os.environ.get("COMPACTION_HOME")
    return Path(env) if env else Path.home()


def claude_project_names(workspace: str | Path) -> list[str]:
    """Directory names Claude Code may have used for this cwd (old and new escaping rules)."""
    path = str(Path(workspace).absolute())
    names = [re.sub(r"[/.]", "-", path), re.sub(r"[^A-Za-z0-9-]", "-", path)]
    return list(dict.fromkeys(names))


def gemini_project_hash(workspace: str | Path) -> str:
    """Gemini CLI names a project's temp folder by the sha256 of its absolute root path."""
    return hashlib.sha256(str(Path(workspace).absolute()).encode("utf-8")).hexdigest()


def _ref(path: Path, agent: str) -> TranscriptRef | None:
    try:
        st = path.stat()
    except OSError:
        return None
    if not path.is_file() or st.st_size == 0:
        return None
    return TranscriptRef(str(path), agent, st.st_mtime, st.st_size)


def _head(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _same_dir(a: str, b: Path) -> bool:
    try:
        return Path(a).expanduser().absolute() == b.absolute() or os.path.samefile(a, b)
    except OSError:
        return False


def _claude_code(workspace: Path, home: Path) -> list[TranscriptRef]:
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    roots = [home / ".claude"] + ([Path(env)] if env and home == Path.home() else [])
    out = []
    for root in roots:
        for name in claude_project_names(workspace):
            folder = root / "projects" / name
            if folder.is_dir():
                out += [r for p in folder.glob("*.jsonl") if (r := _ref(p, "claude-code"))]
    return out


def codex_session_cwd(path: Path) -> str | None:
    """The cwd a Codex rollout recorded (`session_meta.payload.cwd`, or an `<cwd>` tag in the
    environment context of older rollouts); None when the head does not say."""
    text = _head(path)
    for line in text.splitlines()[:20]:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        payload = rec.get("payload") if rec.get("type") == "session_meta" else rec
        if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
            return payload["cwd"]
    match = _CODEX_CWD_TAG.search(text)
    return match.group(1).strip() if match else None


def _codex(workspace: Path, home: Path) -> list[TranscriptRef]:
    env = os.environ.get("CODEX_HOME")
    root = Path(env) if env and home == Path.home() else home / ".codex"
    sessions = root / "sessions"
    if not sessions.is_dir():
        return []
    out = []
    for path in sessions.glob("*/*/*/rollout-*.jsonl"):
        cwd = codex_session_cwd(path)
        if cwd is not None and not _same_dir(cwd, workspace):
            continue
        if ref := _ref(path, "codex"):
            out.append(ref)
    return out


AIDER_HISTORY = ".aider.chat.history.md"


def _aider(workspace: Path, include_shipped: bool) -> list[TranscriptRef]:
    """The workspace's own aider history; one the repository tracks in git came with the clone (not
    produced here) and is left out unless the user trusts shipped content (compaction.shipped)."""
    ref = _ref(workspace / AIDER_HISTORY, "aider")
    if ref and not include_shipped:
        from compaction.shipped import tracked

        if tracked(workspace, [AIDER_HISTORY]):
            return []
    return [ref] if ref else []


def _gemini(workspace: Path, home: Path) -> list[TranscriptRef]:
    chats = home / ".gemini" / "tmp" / gemini_project_hash(workspace) / "chats"
    if not chats.is_dir():
        return []
    return [r for p in chats.iterdir() if p.suffix in (".json", ".jsonl") and (r := _ref(p, "gemini-cli"))]


def cline_task_dirs(home: Path, storage: EditorStorage | None = None) -> list[Path]:
    """Task folders of Cline, Roo Code and Kilo Code for VS Code and its common forks on Linux and
    macOS, plus those under the global storage the editor extension named."""
    bases = [home / ".config", home / "Library" / "Application Support"]
    editors = ["Code", "Code - Insiders", "VSCodium", "Cursor"]
    dirs = [b / e / "User" / "globalStorage" / ext / "tasks" for b in bases for e in editors for ext in TASK_AGENTS]
    return list(dict.fromkeys(dirs + (storage.task_dirs() if storage else [])))


def _cline(workspace: Path, home: Path, storage: EditorStorage | None = None) -> list[TranscriptRef]:
    out = []
    for tasks in cline_task_dirs(home, storage):
        if not tasks.is_dir():
            continue
        agent = TASK_AGENTS.get(tasks.parent.name, "cline")
        for path in tasks.glob("*/api_conversation_history.json"):
            match = _CLINE_CWD.search(_head(path))
            if match and not _same_dir(match.group(1).strip(), workspace):
                continue
            if ref := _ref(path, agent):
                out.append(ref)
    return out


def _copilot(storage: EditorStorage | None) -> list[TranscriptRef]:
    if storage is None:
        return []
    out = []
    for folder in storage.chat_sessions:
        if folder.is_dir():
            out += [r for p in folder.iterdir() if p.suffix in (".json", ".jsonl") and (r := _ref(p, "copilot-chat"))]
    return out


def discover_transcripts(workspace: str | Path, home: str | Path | None = None, *,
                         include_shipped: bool = False, storage: EditorStorage | None = None) -> list[TranscriptRef]:
    """All transcripts known for `workspace`, newest first (ties by path, for a stable order).
    `include_shipped`: also a transcript the repository tracks in git (the user's consent).
    `storage`: the editor's folders (Copilot Chat sessions, extension task folders)."""
    ws = Path(workspace).absolute()
    h = resolve_home(home)
    refs = (_claude_code(ws, h) + _codex(ws, h) + _aider(ws, include_shipped) + _gemini(ws, h)
            + _cline(ws, h, storage) + _copilot(storage))
    unique = {r.path: r for r in refs}
    return sorted(unique.values(), key=lambda r: (-r.mtime, r.path))


def newest_transcript(workspace: str | Path, home: str | Path | None = None) -> TranscriptRef | None:
    found = discover_transcripts(workspace, home)
    return found[0] if found else None
