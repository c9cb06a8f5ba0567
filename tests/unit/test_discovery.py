"""Transcript discovery against a fake home directory."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from compaction.discovery import (
    claude_project_names,
    codex_session_cwd,
    discover_transcripts,
    gemini_project_hash,
    newest_transcript,
)


def _write(path: Path, text: str, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


def test_claude_escaping_replaces_slashes_and_dots() -> None:
    names = claude_project_names("/home/me/my.app")
    assert names[0] == "-home-me-my-app"
    assert claude_project_names("/home/me/a_b c")[-1] == "-home-me-a-b-c"


def test_gemini_hash_is_sha256_of_root() -> None:
    assert gemini_project_hash("/home/me/proj") == hashlib.sha256(b"/home/me/proj").hexdigest()


def test_discovers_every_agent_newest_first(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "work" / "my.proj"
    ws.mkdir(parents=True)
    other = tmp_path / "elsewhere"
    claude = _write(home / ".claude/projects" / claude_project_names(ws)[0] / "a.jsonl", '{"type":"user"}\n', 1000)
    _write(home / ".claude/projects/-some-other-project/b.jsonl", "{}\n", 5000)  # other project: ignored
    codex_ok = _write(
        home / ".codex/sessions/2025/10/01/rollout-2025-10-01T10-00-00-x.jsonl",
        json.dumps({"type": "session_meta", "payload": {"id": "x", "cwd": str(ws)}}) + "\n",
        3000,
    )
    _write(
        home / ".codex/sessions/2025/10/02/rollout-2025-10-02T10-00-00-y.jsonl",
        json.dumps({"type": "session_meta", "payload": {"id": "y", "cwd": str(other)}}) + "\n",
        6000,
    )  # another cwd: ignored
    aider = _write(ws / ".aider.chat.history.md", "# aider chat started at 2025-01-01\n", 2000)
    gemini = _write(home / ".gemini/tmp" / gemini_project_hash(ws) / "chats/session-1.json", "{}", 4000)
    cline_ok = _write(
        home / ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/111/api_conversation_history.json",
        json.dumps([{"role": "user", "content": f"<environment_details>\n# Current Working Directory ({ws}) Files\n"}]),
        500,
    )
    _write(
        home / "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/222/"
        "api_conversation_history.json",
        json.dumps([{"role": "user", "content": f"# Current Working Directory ({other}) Files"}]),
        7000,
    )  # another cwd: ignored
    found = discover_transcripts(ws, home=home)
    assert [r.path for r in found] == [str(p) for p in (gemini, codex_ok, aider, claude, cline_ok)]
    assert [r.agent for r in found] == ["gemini-cli", "codex", "aider", "claude-code", "cline"]
    assert found[0].size == 2 and found[0].mtime == 4000
    assert newest_transcript(ws, home=home) == found[0]


def test_home_from_environment(tmp_path: Path, monkeypatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    path = _write(tmp_path / "h/.claude/projects" / claude_project_names(ws)[0] / "s.jsonl", "{}\n", 10)
    monkeypatch.setenv("COMPACTION_HOME", str(tmp_path / "h"))
    assert [r.path for r in discover_transcripts(ws)] == [str(path)]


def test_empty_and_unreadable_are_skipped(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".aider.chat.history.md").write_text("")  # empty: nothing to compact
    assert discover_transcripts(ws, home=tmp_path / "nohome") == []
    assert newest_transcript(ws, home=tmp_path / "nohome") is None


def test_codex_cwd_from_older_environment_context(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "rollout.jsonl",
        json.dumps({"id": "z", "timestamp": "t"}) + "\n"
        + json.dumps({"type": "message", "content": [{"text": "<environment_context>\n<cwd>/srv/app</cwd>"}]}) + "\n",
        1,
    )  # fmt: skip
    assert codex_session_cwd(path) == "/srv/app"


def test_editor_storage_offers_copilot_sessions_and_roo_kilo_tasks_of_this_workspace(tmp_path: Path) -> None:
    """Copilot Chat sessions come only from the chatSessions/ folder the extension names; Roo and
    Kilo tasks (Cline's shape, other ids, "Current Workspace Directory") are filtered by cwd."""
    from compaction.discovery import EditorStorage, discover_transcripts

    ws = tmp_path / "ws"
    ws.mkdir()
    home = tmp_path / "home"
    chat = tmp_path / "workspaceStorage" / "abc123" / "chatSessions"
    chat.mkdir(parents=True)
    (chat / "s1.json").write_text('{"requests": []}')
    (chat / "s2.jsonl").write_text('{"kind": 0, "v": {"requests": []}}\n')
    (chat / "notes.txt").write_text("x")
    glob = tmp_path / "globalStorage"
    mine = glob / "rooveterinaryinc.roo-cline" / "tasks" / "t1" / "api_conversation_history.json"
    other = glob / "kilocode.kilo-code" / "tasks" / "t2" / "api_conversation_history.json"
    kilo = glob / "kilocode.kilo-code" / "tasks" / "t3" / "api_conversation_history.json"
    for p, cwd in ((mine, ws), (other, tmp_path / "elsewhere"), (kilo, ws)):
        p.parent.mkdir(parents=True)
        p.write_text(f'[{{"role": "user", "content": "# Current Workspace Directory ({cwd}) Files"}}]')
    storage = EditorStorage.from_options({"chatSessions": str(chat), "globalStorage": str(glob)})
    found = {(Path(r.path).name if r.agent == "copilot-chat" else Path(r.path).parent.name, r.agent)
             for r in discover_transcripts(ws, home, storage=storage)}
    assert found == {("s1.json", "copilot-chat"), ("s2.jsonl", "copilot-chat"), ("t1", "roo-code"), ("t3", "kilo-code")}
    assert discover_transcripts(ws, home) == []  # nothing guessed without the editor's folders
    assert EditorStorage.from_options({"chatSessions": "relative/x", "globalStorage": 3}) == EditorStorage()


def test_confinement_reads_the_named_chat_sessions_and_filters_shared_task_folders(tmp_path: Path) -> None:
    import pytest

    from compaction.confine import Confinement, ConfinementError
    from compaction.discovery import EditorStorage

    ws = tmp_path / "ws"
    ws.mkdir()
    chat = tmp_path / "wsStorage" / "chatSessions"
    chat.mkdir(parents=True)
    (chat / "s.json").write_text("{}")
    glob = tmp_path / "globalStorage"
    theirs = glob / "rooveterinaryinc.roo-cline" / "tasks" / "t" / "api_conversation_history.json"
    theirs.parent.mkdir(parents=True)
    theirs.write_text('[{"role": "user", "content": "Current Workspace Directory (/elsewhere)"}]')
    storage = EditorStorage((chat,), (glob,))
    conf = Confinement([ws], home=tmp_path / "home", storage=storage)
    assert conf.check_read(chat / "s.json") == (chat / "s.json").resolve()
    with pytest.raises(ConfinementError):
        conf.check_read(theirs)
    with pytest.raises(ConfinementError):
        Confinement([ws], home=tmp_path / "home").check_read(chat / "s.json")
