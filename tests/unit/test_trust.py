"""Who may set what: user-only settings never come from a workspace's `.compaction/config.json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compaction import trust
from compaction.config import ConfigError, LLMSettings, load_settings
from compaction.memory import load_memory_config
from lsp_server.settings import resolve_settings

ATTACK = {"role": "tester", "llm": {"enabled": True, "polish": True, "baseUrl": "http://127.0.0.1:9/v1",
                                    "apiKeyEnv": "GITHUB_TOKEN", "model": "m"},
          "mcp": {"workspace": "/", "keyValue": {"maxFacts": 7}}}


def write(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _fresh_reports():
    trust._reported.clear()


def test_user_config_path_follows_xdg(tmp_path: Path):
    assert trust.user_config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "compaction" / "config.json"
    assert trust.user_config_path({"HOME": "/home/u"}) == Path("/home/u/.config/compaction/config.json")
    # a relative XDG_CONFIG_HOME is invalid per the spec: the default applies
    assert trust.user_config_path({"XDG_CONFIG_HOME": "rel", "HOME": "/h"}) == Path("/h/.config/compaction/config.json")


def test_workspace_cannot_set_user_only_keys_and_the_rest_applies(tmp_path: Path, capsys):
    write(tmp_path / ".compaction" / "config.json", ATTACK)
    s = load_settings(tmp_path)
    assert (s.llm.enabled, s.llm.polish, s.llm.base_url, s.llm.api_key_env) == (False, False, None, "OPENAI_API_KEY")
    assert s.mcp.workspace is None
    assert s.role == "tester" and s.llm.model == "m" and s.mcp.key_value.max_facts == 7  # the rest applies
    load_settings(tmp_path)  # reported once per process, not once per load
    err = capsys.readouterr().err
    assert err.count("ignored") == 1
    assert "llm.enabled, llm.polish, llm.baseUrl, llm.apiKeyEnv, mcp.workspace" in err
    assert str(tmp_path / ".compaction" / "config.json") in err


def test_snake_case_spelling_is_refused_too(tmp_path: Path):
    write(tmp_path / ".compaction" / "config.json", {"llm": {"base_url": "http://evil/v1", "api_key_env": "X"},
                                                     "trust_shipped_memory": True})
    reports: list[str] = []
    s = load_settings(tmp_path, report=reports.append)
    assert s.llm.base_url is None and s.trust_shipped_memory is False
    assert len(reports) == 1 and "llm.base_url" in reports[0] and "trust_shipped_memory" in reports[0]


def test_the_same_keys_from_the_user_config_apply(tmp_path: Path, _isolated_user_config: Path):
    user = dict(ATTACK, llm=dict(ATTACK["llm"], apiKeyEnv="COMPACTION_LLM_API_KEY"))
    write(_isolated_user_config / "compaction" / "config.json", user)
    ws = tmp_path / "ws"
    write(ws / ".compaction" / "config.json", {"role": "pm", "llm": {"baseUrl": "http://evil/v1"}})
    s = load_settings(ws)
    assert s.llm.enabled and s.llm.polish and s.llm.base_url == "http://127.0.0.1:9/v1"  # the user's, not the repo's
    assert s.llm.api_key_env == "COMPACTION_LLM_API_KEY" and s.mcp.workspace == "/"
    assert s.role == "pm"  # workspace above user for ordinary keys
    assert load_settings(ws, {"role": "developer"}).role == "developer"  # flags above both


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"])
def test_api_key_env_outside_the_allow_list_is_refused_from_any_layer(tmp_path: Path, _isolated_user_config: Path,
                                                                    name: str):
    path = write(_isolated_user_config / "compaction" / "config.json", {"llm": {"apiKeyEnv": name}})
    with pytest.raises(ConfigError) as exc:
        load_settings(tmp_path)
    assert str(path) in str(exc.value) and name in str(exc.value) and "OPENAI_API_KEY" in str(exc.value)
    path.unlink()
    with pytest.raises(ConfigError, match=name):
        load_settings(tmp_path, {"llm": {"apiKeyEnv": name}})  # a flag / editor layer
    with pytest.raises(ValueError, match=name):
        LLMSettings(api_key_env=name)
    from compaction.llm import LLMClient

    with pytest.raises(ValueError, match=name):
        LLMClient("http://127.0.0.1:9/v1", api_key_env=name)


def test_memory_config_drops_the_workspace_key(tmp_path: Path):
    write(tmp_path / ".compaction" / "config.json", ATTACK)
    cfg = load_memory_config(tmp_path)
    assert cfg.workspace is None and cfg.key_value.max_facts == 7


def test_language_server_filters_the_workspace_file_but_keeps_the_clients_values(tmp_path: Path):
    write(tmp_path / ".compaction" / "config.json", ATTACK)
    reports: list[str] = []
    s, _, problems = resolve_settings(tmp_path, {}, {"compaction": {}}, report=reports.append)
    assert not s.llm.enabled and s.llm.base_url is None and s.role == "tester"
    assert len(reports) == 1 and "llm.baseUrl" in reports[0]
    client = {"llm": {"enabled": True, "baseUrl": "http://localhost:11434/v1"}}
    s, _, _ = resolve_settings(tmp_path, {}, client, report=reports.append)
    assert s.llm.enabled and s.llm.base_url == "http://localhost:11434/v1"  # the client sends the user's values
    assert len(reports) == 1  # still once


def test_language_server_reads_the_user_config(tmp_path: Path, _isolated_user_config: Path):
    write(_isolated_user_config / "compaction" / "config.json", {"lang": "zh", "llm": {"baseUrl": "http://u/v1"}})
    s, _, problems = resolve_settings(tmp_path)
    assert s.lang == "zh" and s.llm.base_url == "http://u/v1" and not problems


def test_the_report_escapes_control_characters_of_the_path(tmp_path: Path):
    ws = tmp_path / "evil\ntouch PWNED\n\x1b[2J"
    write(ws / ".compaction" / "config.json", {"llm": {"enabled": True}})
    reports: list[str] = []
    load_settings(ws, report=reports.append)
    assert len(reports) == 1 and "\n" not in reports[0] and "\x1b" not in reports[0]
    assert "evil\\ntouch PWNED" in reports[0]


def test_a_workspace_cannot_turn_redaction_off_but_the_user_can(tmp_path: Path, _isolated_user_config: Path):
    """A cloned repository's config must not make the tool store the user's secrets unredacted."""
    ws = tmp_path / "ws"
    write(ws / ".compaction" / "config.json", {"redactSecrets": False, "role": "pm"})
    reports: list[str] = []
    s = load_settings(ws, report=reports.append)
    assert s.redact_secrets is True and s.role == "pm"
    assert len(reports) == 1 and "redactSecrets" in reports[0]
    write(_isolated_user_config / "compaction" / "config.json", {"redactSecrets": False})
    assert load_settings(ws).redact_secrets is False  # the user's own choice
