"""One configuration model: defaults < user config < `.compaction/config.json` < editor settings < flags.

The user config is `$XDG_CONFIG_HOME/compaction/config.json` (default `~/.config/...`). Both files
have the seed's shape (`{"mcp": {...}}`, see compaction.memory) extended with our own keys at the
top level (camelCase or snake_case both accepted). The workspace file is untrusted: the keys of
`compaction.trust.USER_ONLY_KEYS` are dropped from it (reported once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from compaction import statedir
from compaction.escape import escape_control
from compaction.memory_config import MCPConfig
from compaction.statedir import STATE_DIR
from compaction.trust import (
    Reporter,
    check_api_key_env,
    refusal_message,
    report_once,
    strip_user_only,
    user_config_path,
)

Role = Literal["developer", "tester", "pm"]
Lang = Literal["en", "zh"]


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class LLMSettings(_Model):
    enabled: bool = False
    base_url: str | None = None
    model: str = "gpt-4o-mini"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(20.0, gt=0)
    max_retries: int = Field(1, ge=0, le=5)
    polish: bool = False

    @field_validator("api_key_env")
    @classmethod
    def _allowed_key_env(cls, v: str) -> str:
        return check_api_key_env(v)


class RestoreSettings(_Model):
    core_files: int = Field(5, ge=0, le=50)
    tokens_per_file: int = Field(5000, ge=0)
    total_tokens: int = Field(25000, ge=0)
    core_globs: dict[str, list[str]] = Field(default_factory=dict)  # class name -> extra globs


class Settings(_Model):
    model: str | None = None
    context_window: int | None = Field(None, gt=0)
    trigger_ratio: float = Field(0.70, gt=0, le=1)
    keep_recent: int = Field(5, ge=0)
    min_rounds: int = Field(10, ge=0)
    role: Role = "developer"
    lang: Lang = "en"
    error_memory_share: float = Field(0.10, gt=0, le=1)
    redact_secrets: bool = True
    restore: RestoreSettings = Field(default_factory=RestoreSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    mcp: MCPConfig = Field(default_factory=MCPConfig)  # the seed's compressed-memory config (compaction.memory_config)
    trust_shipped_memory: bool = False  # user-only: use a store/error memory the repository ships in git


class ConfigError(Exception):
    """An invalid configuration file or setting; names the file and the offending key."""


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`, nested dicts merged, None values ignored (a layer that says nothing)."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        elif value is not None:
            out[key] = value
    return out


def config_path(workspace: str | Path) -> Path:
    return Path(workspace) / STATE_DIR / "config.json"


def _read_config_text(p: Path) -> str | None:
    """A workspace's `.compaction/config.json` is read only as a regular file in a real state folder
    (compaction.statedir: a repository may ship it as a link to a file of the user's); other config
    files (named by the user) as they are."""
    if p.parent.name != STATE_DIR:
        return p.read_text(encoding="utf-8") if p.exists() else None
    try:
        data = statedir.read_bytes(p.parent.parent, p.name)
    except statedir.UnsafeStateError as exc:
        raise ConfigError(f"{exc}; ignoring it") from None
    return None if data is None else data.decode("utf-8")


def read_config_file(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        text = _read_config_text(p)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: invalid UTF-8 at byte {exc.start}") from None
    if text is None:
        return {}
    try:
        data = json.loads(text.removeprefix("\ufeff"))  # a BOM (Windows editors) is not an error
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: invalid UTF-8 at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except RecursionError:  # found by fuzzing, like the digit limit below
        raise ConfigError(f"{p}: invalid JSON: nested too deeply") from None
    except ValueError as exc:
        raise ConfigError(f"{p}: invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}:1: expected a JSON object at the top level")
    return data


def format_validation_error(source: str, exc: ValidationError) -> str:
    lines = [f"{source}: invalid configuration"]
    for err in exc.errors():
        loc = ".".join(escape_control(str(x)) for x in err["loc"])  # keys are the file's text
        lines.append(f"  {loc}: {err['msg']}")
    return "\n".join(lines)


def user_layer(env: dict[str, str] | None = None) -> tuple[dict[str, Any], Path]:
    """The user's own config file (trusted; {} when absent), validated alone so that its errors
    name it, and its path."""
    path = user_config_path(env)
    data = read_config_file(path)
    if data:
        try:
            Settings.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(format_validation_error(str(path), exc)) from None
    return data, path


def workspace_layer(workspace: str | Path, report: Reporter | None = None) -> dict[str, Any]:
    """`.compaction/config.json` without the user-only keys; a file that sets some is reported once
    (to `report`, default a stderr line) and the rest of it applies."""
    path = config_path(workspace)
    data, refused = strip_user_only(read_config_file(path))
    if refused:
        report_once(refusal_message(path, refused), report)
    return data


def load_settings(workspace: str | Path | None = None, *overrides: dict[str, Any],
                  report: Reporter | None = None) -> Settings:
    """Merge the layers: defaults < user config < the workspace file (filtered) < each override
    (editor settings, then flags). `report` receives the one-time notice of refused workspace keys."""
    data, source_path = user_layer()
    source = str(source_path) if data else "defaults"
    if workspace is not None:
        path = config_path(workspace)
        data = deep_merge(data, workspace_layer(workspace, report))
        source = str(path)
    for layer in overrides:
        data = deep_merge(data, {k: v for k, v in layer.items() if v is not None})
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(source, exc)) from None
