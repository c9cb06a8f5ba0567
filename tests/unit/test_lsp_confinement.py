"""The language server confines transcript paths like the MCP server (issue 15, attack 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compaction.config import Settings
from compaction.confine import ConfinementError
from compaction.discovery import claude_project_names
from lsp_server.features.commands import CommandError, DiscoverParams, Job, discover, resolve_transcript
from lsp_server.settings import resolve_settings


@pytest.fixture
def env(tmp_path: Path):
    ws, other, home = tmp_path / "ws", tmp_path / "other-project", tmp_path / "home"
    for d in (ws, other, home):
        d.mkdir()
    (ws / "t.jsonl").write_text("{}\n")
    secret = tmp_path / "outside.jsonl"
    secret.write_text("{}\n")
    (ws / "link.jsonl").symlink_to(secret)
    return ws, other, home, secret


def job_for(ws: Path, home: Path, **kw) -> Job:
    return Job(workspace=ws, settings=Settings(), home=str(home), folders=[ws], **kw)


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
def test_paths_out_of_the_workspace_are_refused_with_the_reason(env, how: str) -> None:
    ws, _, home, secret = env
    path = {"absolute": str(secret), "dotdot": str(ws / ".." / "outside.jsonl"), "symlink": "link.jsonl"}[how]
    reason = {"absolute": "outside the workspace", "dotdot": "`..` leads out", "symlink": "symlink leads out"}[how]
    with pytest.raises(ConfinementError, match=reason):
        resolve_transcript(job_for(ws, home), path)


def test_the_agents_folder_of_this_workspace_and_user_set_roots_are_readable(env, tmp_path: Path) -> None:
    ws, _, home, secret = env
    folder = home / ".claude" / "projects" / claude_project_names(ws.resolve())[0]
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text("{}\n")
    assert resolve_transcript(job_for(ws, home), str(folder / "s.jsonl")) == (folder / "s.jsonl").resolve()
    assert resolve_transcript(job_for(ws, home, allow_read=[str(tmp_path)]), str(secret)) == secret.resolve()


def test_allow_read_comes_from_the_editor_never_from_the_workspace_config(env) -> None:
    ws, _, _, secret = env
    (ws / ".compaction").mkdir()
    (ws / ".compaction" / "config.json").write_text(json.dumps({"allowRead": ["/"], "allow_read": ["/"]}))
    _, options, _ = resolve_settings(ws)
    assert options.allow_read == []
    _, options, _ = resolve_settings(ws, {"compaction": {"allowRead": [str(secret.parent)]}})
    assert options.allow_read == [str(secret.parent)]


def test_discover_lists_only_this_windows_workspace_folders(env) -> None:
    ws, other, home, _ = env
    with pytest.raises(CommandError, match="not one of this window's workspace folders"):
        discover(job_for(ws, home), DiscoverParams(workspace=str(other)))
    assert discover(job_for(ws, home), DiscoverParams(workspace=str(ws))) == {"transcripts": []}
