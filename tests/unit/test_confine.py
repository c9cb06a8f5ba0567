"""Path confinement: reads stay in the workspace, its agents' transcript folders and named paths;
writes stay in .compaction/ and named settings files; `..` and symlinks out are refused by name."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compaction.confine import Confinement, ConfinementError
from compaction.discovery import claude_project_names, gemini_project_hash


@pytest.fixture
def env(tmp_path: Path) -> tuple[Path, Path, Path]:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print(1)\n")
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret\n")
    return ws, home, outside


def test_workspace_files_are_readable_relative_and_absolute(env) -> None:
    ws, home, _ = env
    c = Confinement([ws], home=home)
    assert c.check_read("src/app.py") == (ws / "src" / "app.py").resolve()
    assert c.check_read(ws / "src" / "app.py") == (ws / "src" / "app.py").resolve()
    assert c.check_read(ws / "src" / ".." / "src" / "app.py")  # `..` that stays inside is fine
    assert c.check_read(ws / "not-yet-there.md")  # a missing file inside is judged by its place


def test_outside_paths_are_refused_with_a_clear_error(env) -> None:
    ws, home, outside = env
    c = Confinement([ws], home=home)
    with pytest.raises(ConfinementError) as exc:
        c.check_read(outside / "secret.txt")
    assert exc.value.path == str(outside / "secret.txt")
    assert "outside the workspace" in str(exc.value) and str(outside / "secret.txt") in str(exc.value)
    for p in ("/etc/passwd", "~/.ssh/id_rsa", str(home / ".bashrc")):
        with pytest.raises(ConfinementError):
            c.check_read(p)
    assert not c.is_readable("/etc/passwd")


def test_dotdot_escape_is_named(env) -> None:
    ws, home, _ = env
    c = Confinement([ws], home=home)
    with pytest.raises(ConfinementError, match=r"`\.\.` leads out") as exc:
        c.check_read("../outside/secret.txt")
    assert exc.value.path == "../outside/secret.txt"
    with pytest.raises(ConfinementError, match=r"`\.\.`"):
        c.check_read("src/../../../../etc/passwd")


def test_symlink_out_of_the_workspace_is_refused(env) -> None:
    ws, home, outside = env
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    (ws / "linkdir").symlink_to(outside)
    c = Confinement([ws], home=home)
    for p in ("link.txt", "linkdir/secret.txt", ws / "linkdir" / "secret.txt"):
        with pytest.raises(ConfinementError, match="symlink leads out") as exc:
            c.check_read(p)
        assert str(outside) in str(exc.value)


def test_symlink_inside_the_workspace_is_fine(env) -> None:
    ws, home, _ = env
    (ws / "alias.py").symlink_to(ws / "src" / "app.py")
    assert Confinement([ws], home=home).check_read("alias.py") == (ws / "src" / "app.py").resolve()


def test_workspace_root_behind_a_symlink(env, tmp_path: Path) -> None:
    ws, home, _ = env
    via = tmp_path / "via"
    via.symlink_to(ws)
    c = Confinement([via], home=home)
    assert c.check_read(ws / "src" / "app.py")
    assert c.check_read(via / "src" / "app.py")


def test_several_roots(env, tmp_path: Path) -> None:
    ws, home, outside = env
    c = Confinement([ws, outside], home=home)
    assert c.check_read(outside / "secret.txt")


def test_agent_transcript_folders_of_this_workspace_only(env) -> None:
    ws, home, _ = env
    mine = home / ".claude" / "projects" / claude_project_names(ws.resolve())[0]
    other = home / ".claude" / "projects" / "-some-other-project"
    for d in (mine, other):
        d.mkdir(parents=True)
        (d / "s.jsonl").write_text("{}\n")
    gem = home / ".gemini" / "tmp" / gemini_project_hash(ws.resolve()) / "chats"
    gem.mkdir(parents=True)
    (gem / "c.json").write_text("{}")
    c = Confinement([ws], home=home)
    assert c.check_read(mine / "s.jsonl")
    assert c.check_read(gem / "c.json")
    with pytest.raises(ConfinementError):
        c.check_read(other / "s.jsonl")


def test_codex_and_cline_files_by_their_recorded_cwd(env, tmp_path: Path) -> None:
    ws, home, outside = env
    day = home / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    mine, theirs = day / "rollout-a.jsonl", day / "rollout-b.jsonl"
    mine.write_text(json.dumps({"type": "session_meta", "payload": {"cwd": str(ws)}}) + "\n")
    theirs.write_text(json.dumps({"type": "session_meta", "payload": {"cwd": str(outside)}}) + "\n")
    task = home / ".config" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev" / "tasks" / "1"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_text(
        json.dumps([{"role": "user", "content": f"# Current Working Directory ({outside}) Files"}]))
    c = Confinement([ws], home=home)
    assert c.check_read(mine)
    with pytest.raises(ConfinementError):
        c.check_read(theirs)
    with pytest.raises(ConfinementError):
        c.check_read(task / "api_conversation_history.json")


def test_explicitly_named_paths_are_readable(env) -> None:
    ws, home, outside = env
    c = Confinement([ws], home=home, explicit_read=[outside / "secret.txt"])
    assert c.check_read(outside / "secret.txt")
    c2 = Confinement([ws], home=home)
    c2.allow_read(outside)
    assert c2.check_read(outside / "secret.txt")


def test_writes_only_under_state_dir_and_named_settings(env) -> None:
    ws, home, outside = env
    c = Confinement([ws], home=home)
    assert c.check_write(ws / ".compaction" / "latest.md") == (ws / ".compaction" / "latest.md").resolve()
    assert c.check_write(".compaction/restore.md")
    for p in ("src/app.py", "README.md", outside / "x", ".compaction/../src/app.py"):
        with pytest.raises(ConfinementError, match="writing refused"):
            c.check_write(p)
    settings = ws / ".vscode" / "settings.json"
    with pytest.raises(ConfinementError):
        c.check_write(settings)
    c.allow_write_file(settings)
    assert c.check_write(settings)
    with pytest.raises(ConfinementError):  # only that file, not its folder
        c.check_write(ws / ".vscode" / "tasks.json")
    c3 = Confinement([ws], home=home, settings_files=[home / ".claude" / "settings.json"])
    assert c3.check_write(home / ".claude" / "settings.json")


def test_symlinked_state_dir_or_file_cannot_redirect_writes(env) -> None:
    ws, home, outside = env
    state = ws / ".compaction"
    state.mkdir()
    (state / "latest.md").symlink_to(outside / "secret.txt")
    c = Confinement([ws], home=home)
    with pytest.raises(ConfinementError, match="symlink leads out of .compaction"):
        c.check_write(state / "latest.md")
    os.unlink(state / "latest.md")
    state.rmdir()
    state.symlink_to(outside)
    with pytest.raises(ConfinementError, match="symlink"):
        c.check_write(".compaction/restore.md")


def test_nul_byte_and_empty_roots() -> None:
    with pytest.raises(ValueError):
        Confinement([])
    c = Confinement(["/tmp"])
    with pytest.raises(ConfinementError, match="NUL"):
        c.check_read("a\x00b")
