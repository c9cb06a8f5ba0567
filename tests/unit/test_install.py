"""`compaction install`: merging our hooks into Claude Code settings and the other agents' files."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from compaction.cli import main
from compaction.cli.integrations import agents, edits, settings_merge

EXE = Path("/opt/venv/bin/compaction")
USER_SETTINGS = """{
  "model": "sonnet",
  "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
    "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "cp \\"$T\\" ~/backup"}]}]
  }
}
"""


def _settings(ws: Path, text: str = USER_SETTINGS) -> Path:
    path = ws / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _install(ws: Path, home: Path, *extra: str) -> int:
    return main(["install", "--agent", "claude-code", "--workspace", str(ws), "--home", str(home), *extra])


def test_merge_keeps_other_settings_and_hooks_and_adds_ours_once():
    data = json.loads(USER_SETTINGS)
    merged = settings_merge.merge_hooks(data, EXE)
    assert merged["model"] == "sonnet" and merged["permissions"] == data["permissions"]
    assert merged["hooks"]["PreToolUse"] == data["hooks"]["PreToolUse"]
    assert merged["hooks"]["SessionStart"][0] == data["hooks"]["SessionStart"][0]
    assert merged["hooks"]["PreCompact"][0] == data["hooks"]["PreCompact"][0]
    ours_pre = merged["hooks"]["PreCompact"][-1]
    ours_start = merged["hooks"]["SessionStart"][-1]
    assert ours_pre == {"matcher": "", "hooks": [{"type": "command", "command": f"{EXE} hook pre-compact --detach",
                                                  "timeout": settings_merge.HOOK_TIMEOUT_S}]}
    assert ours_start["matcher"] == "compact"
    assert ours_start["hooks"][0]["command"] == f"{EXE} hook session-start"
    assert settings_merge.merge_hooks(merged, EXE) == merged  # idempotent
    assert settings_merge.unmerge_hooks(merged) == data


def test_reinstall_from_another_interpreter_replaces_our_command_in_place():
    merged = settings_merge.merge_hooks(json.loads(USER_SETTINGS), EXE)
    merged["hooks"]["PreCompact"][-1]["hooks"][0]["timeout"] = 90  # the user changed our timeout
    again = settings_merge.merge_hooks(merged, Path("/home/me/other venv/bin/compaction"))
    pre = [h for g in again["hooks"]["PreCompact"] for h in g["hooks"] if settings_merge.is_ours(h)]
    assert len(pre) == 1 and pre[0]["command"] == "'/home/me/other venv/bin/compaction' hook pre-compact --detach"
    assert pre[0]["timeout"] == 90
    assert settings_merge.installed(again) == {"PreCompact", "SessionStart"}


def test_command_is_the_absolute_compaction_script_of_this_interpreter():
    exe = settings_merge.compaction_executable()
    assert exe.is_absolute() and exe.name.startswith("compaction")
    assert settings_merge.hook_command("pre-compact").endswith(" hook pre-compact --detach")


def test_install_backs_up_is_idempotent_and_uninstalls_to_the_original_bytes(tmp_path, capsys):
    ws, home = tmp_path / "ws", tmp_path / "home"
    path = _settings(ws)
    assert _install(ws, home) == 0
    backup = path.with_name("settings.json.compaction-backup")
    assert backup.read_text() == USER_SETTINGS
    installed = path.read_text()
    data = json.loads(installed)
    assert settings_merge.installed(data) == {"PreCompact", "SessionStart"}
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "~/bin/guard.sh"
    mtime = path.stat().st_mtime_ns
    assert _install(ws, home) == 0  # second run: nothing to do, nothing written
    assert path.read_text() == installed and path.stat().st_mtime_ns == mtime
    assert "up to date" in capsys.readouterr().out
    assert _install(ws, home, "--uninstall") == 0
    assert path.read_text() == USER_SETTINGS
    assert _install(ws, home, "--uninstall") == 0  # nothing left to remove
    assert path.read_text() == USER_SETTINGS


def test_check_previews_a_diff_and_writes_nothing(tmp_path, capsys):
    ws, home = tmp_path / "ws", tmp_path / "home"
    path = _settings(ws)
    assert _install(ws, home, "--check") == 1
    out = capsys.readouterr().out
    assert "+++ b/" in out and "hook pre-compact" in out and "hook session-start" in out
    assert path.read_text() == USER_SETTINGS
    assert not path.with_name("settings.json.compaction-backup").exists()
    _install(ws, home)
    capsys.readouterr()
    assert _install(ws, home, "--check") == 0
    assert "up to date" in capsys.readouterr().out


def test_user_scope_writes_the_home_settings_and_removes_a_file_it_created(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    assert _install(ws, home, "--scope", "user") == 0
    path = home / ".claude" / "settings.json"
    assert settings_merge.installed(json.loads(path.read_text())) == {"PreCompact", "SessionStart"}
    assert not (ws / ".claude").exists()
    assert _install(ws, home, "--scope", "user", "--uninstall") == 0
    assert not path.exists()


def test_invalid_settings_json_is_left_alone(tmp_path, capsys):
    ws, home = tmp_path / "ws", tmp_path / "home"
    path = _settings(ws, '{"hooks": {,}\n')
    assert _install(ws, home) == 1
    assert "invalid JSON" in capsys.readouterr().out
    assert path.read_text() == '{"hooks": {,}\n'


# --- other agents -----------------------------------------------------------------------------------
def _apply_all(agent: str, ws: Path, home: Path, *, uninstall: bool = False, scope: str = "project"):
    changes = agents.plan(agent, scope=scope, workspace=ws, home=home, uninstall=uninstall)
    for c in changes:
        edits.apply(c)
    return changes


CODEX_CONFIG = 'model = "gpt-5-codex"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'


def test_codex_gets_agents_md_pointer_and_compact_prompt_file_as_a_root_key(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".codex").mkdir(parents=True)
    (ws / ".codex" / "config.toml").write_text(CODEX_CONFIG)
    (ws / "AGENTS.md").write_text("# Team rules\n\nUse ruff.\n")
    _apply_all("codex", ws, home)
    cfg = tomllib.loads((ws / ".codex" / "config.toml").read_text())
    template = Path(cfg["experimental_compact_prompt_file"])
    assert template == ws / ".compaction" / "codex-compact-prompt.md" and "## Error Memory" in template.read_text()
    assert cfg["model"] == "gpt-5-codex" and cfg["mcp_servers"]["docs"]["command"] == "docs-mcp"
    agents_md = (ws / "AGENTS.md").read_text()
    assert agents_md.startswith("# Team rules") and ".compaction/restore.md" in agents_md
    assert oct(os.stat(ws / "AGENTS.md").st_mode & 0o777) != "0o600"
    assert all(not c.changed for c in agents.plan("codex", workspace=ws, home=home))  # idempotent
    _apply_all("codex", ws, home, uninstall=True)
    assert (ws / ".codex" / "config.toml").read_text() == CODEX_CONFIG
    assert (ws / "AGENTS.md").read_text() == "# Team rules\n\nUse ruff.\n"
    assert not template.exists()


def test_codex_leaves_an_existing_compact_prompt_alone_with_a_warning(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".codex").mkdir(parents=True)
    (ws / ".codex" / "config.toml").write_text('compact_prompt = "mine"\n')
    changes = agents.plan("codex", workspace=ws, home=home)
    cfg = next(c for c in changes if c.path.name == "config.toml")
    assert not cfg.changed and "already set" in cfg.warnings[0]


def test_codex_user_scope_uses_the_codex_home(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    _apply_all("codex", ws, home, scope="user")
    assert ".compaction/restore.md" in (home / ".codex" / "AGENTS.md").read_text()
    cfg = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert Path(cfg["experimental_compact_prompt_file"]).is_file()


@pytest.mark.parametrize("agent,rel", [("cline", ".clinerules")])
def test_markdown_pointers_are_delimited_and_removed_cleanly(tmp_path, agent, rel):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    (ws / rel).write_text("Existing rules.\n")
    _apply_all(agent, ws, home)
    text = (ws / rel).read_text()
    assert text.startswith("Existing rules.\n") and "compaction:begin" in text and "compaction:end" in text
    assert ".compaction/restore.md" in text
    _apply_all(agent, ws, home)  # twice: still one block
    assert (ws / rel).read_text().count("compaction:begin") == 1
    _apply_all(agent, ws, home, uninstall=True)
    assert (ws / rel).read_text() == "Existing rules.\n"


def test_cline_rules_folder_gets_its_own_file(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".clinerules").mkdir(parents=True)
    (ws / ".clinerules" / "style.md").write_text("tabs\n")
    _apply_all("cline", ws, home)
    assert ".compaction/restore.md" in (ws / ".clinerules" / "compaction.md").read_text()
    _apply_all("cline", ws, home, uninstall=True)
    assert sorted(p.name for p in (ws / ".clinerules").iterdir()) == ["style.md"]


def test_aider_reads_the_restore_state_unless_read_is_taken(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    (ws / ".aider.conf.yml").write_text("model: sonnet\n")
    _apply_all("aider", ws, home)
    text = (ws / ".aider.conf.yml").read_text()
    assert "read: .compaction/restore.md" in text and text.startswith("model: sonnet\n")
    _apply_all("aider", ws, home, uninstall=True)
    assert (ws / ".aider.conf.yml").read_text() == "model: sonnet\n"
    (ws / ".aider.conf.yml").write_text("read: CONVENTIONS.md\n")
    change = agents.plan("aider", workspace=ws, home=home)[0]
    assert not change.changed and "--read .compaction/restore.md" in change.warnings[0]


def test_install_cli_for_gemini_check_then_install(tmp_path, capsys):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    settings = ws / ".gemini" / "settings.json"
    args = ["install", "--agent", "gemini", "--workspace", str(ws), "--home", str(home)]
    assert main([*args, "--check"]) == 1 and not settings.exists()
    assert "hook gemini-before-agent" in capsys.readouterr().out
    assert main(args) == 0 and settings.exists() and not (ws / "GEMINI.md").exists()
    assert main([*args, "--uninstall"]) == 0 and not settings.exists()


GEMINI_USER_SETTINGS = {
    "model": {"compressionThreshold": 0.3},
    "hooksConfig": {"enabled": False, "disabled": ["noisy"]},
    "hooks": {"BeforeAgent": [{"matcher": "", "hooks": [{"type": "command", "name": "mine", "command": "lint.sh"}]}],
              "AfterTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "fmt.sh"}]}]},
}


def test_gemini_hooks_merge_beside_the_users_own_and_come_out_again(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".gemini").mkdir(parents=True)
    settings = ws / ".gemini" / "settings.json"
    settings.write_text(json.dumps(GEMINI_USER_SETTINGS, indent=2) + "\n")
    (ws / "GEMINI.md").write_text("Rules.\n\n<!-- compaction:begin -->\nold pointer\n<!-- compaction:end -->\n")
    _apply_all("gemini", ws, home)
    data = json.loads(settings.read_text())
    assert data["hooksConfig"] == {"enabled": True, "disabled": ["noisy"]}
    assert data["model"] == {"compressionThreshold": 0.3} and data["hooks"]["AfterTool"] == GEMINI_USER_SETTINGS["hooks"]["AfterTool"]
    before_agent = [h for g in data["hooks"]["BeforeAgent"] for h in g["hooks"]]
    assert [h["name"] for h in before_agent] == ["mine", "compaction-before-agent"]
    ours = before_agent[1]
    assert ours["command"].endswith(" hook gemini-before-agent") and ours["timeout"] == 60_000  # milliseconds
    (pre,) = [h for g in data["hooks"]["PreCompress"] for h in g["hooks"]]
    assert pre["command"].endswith(" hook gemini-pre-compress") and pre["timeout"] == 10_000
    assert "compaction:begin" not in (ws / "GEMINI.md").read_text()  # the former pointer is taken out
    text = settings.read_text()
    _apply_all("gemini", ws, home)  # idempotent
    assert settings.read_text() == text
    _apply_all("gemini", ws, home, uninstall=True)
    back = json.loads(settings.read_text())
    assert back["hooks"] == GEMINI_USER_SETTINGS["hooks"] and back["model"] == GEMINI_USER_SETTINGS["model"]


def test_gemini_user_scope_writes_the_home_settings(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    _apply_all("gemini", ws, home, scope="user")
    data = json.loads((home / ".gemini" / "settings.json").read_text())
    assert set(data["hooks"]) == {"PreCompress", "BeforeAgent"} and data["hooksConfig"]["enabled"] is True
    assert not (ws / ".gemini").exists()


def test_a_workspace_file_linked_out_of_the_workspace_is_not_touched(tmp_path, capsys):
    """Writes go through links (attack 7's `-o` rule), so install checks that a workspace file it
    would change resolves inside the workspace: `AGENTS.md -> ~/.bashrc` is refused."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    rc = home / ".bashrc"
    rc.write_text("export A=1\n")
    (ws / "AGENTS.md").symlink_to(rc)
    with pytest.raises(edits.InstallError, match="symbolic link leads out of the workspace"):
        agents.plan("codex", workspace=ws, home=home)
    (ws / ".claude").symlink_to(home)
    assert _install(ws, home) == 1
    assert "leads out of the workspace" in capsys.readouterr().out
    assert rc.read_text() == "export A=1\n" and not (home / "settings.json").exists()


def test_a_user_file_kept_as_a_link_is_written_through(tmp_path):
    ws, home, dotfiles = tmp_path / "ws", tmp_path / "home", tmp_path / "dotfiles"
    for d in (ws, home / ".codex", dotfiles):
        d.mkdir(parents=True)
    (dotfiles / "AGENTS.md").write_text("# my notes\n")
    (home / ".codex" / "AGENTS.md").symlink_to(dotfiles / "AGENTS.md")
    _apply_all("codex", ws, home, scope="user")
    assert (home / ".codex" / "AGENTS.md").is_symlink()
    assert "# my notes" in (dotfiles / "AGENTS.md").read_text() and "restore.md" in (dotfiles / "AGENTS.md").read_text()
