"""One configuration model: defaults < `.compaction/config.json` < editor settings < flags.

The JSON file has the seed's shape (`{"mcp": {...}}`, see compaction.memory) extended with our
own keys at the top level (camelCase or snake_case both accepted).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from compaction.memory_config import MCPConfig

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
    return Path(workspace) / ".compaction" / "config.json"


def read_config_file(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if not p.exists():
        return {}
    try:
        data = json.loads(p.read_text(encoding="utf-8-sig"))  # a BOM (Windows editors) is not an error
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
        loc = ".".join(str(x) for x in err["loc"])
        lines.append(f"  {loc}: {err['msg']}")
    return "\n".join(lines)


def load_settings(workspace: str | Path | None = None, *overrides: dict[str, Any]) -> Settings:
    """Merge the layers; each override dict is a later layer (editor settings, then flags)."""
    data: dict[str, Any] = {}
    source = "defaults"
    if workspace is not None:
        path = config_path(workspace)
        data = read_config_file(path)
        source = str(path)
    for layer in overrides:
        data = deep_merge(data, {k: v for k, v in layer.items() if v is not None})
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(source, exc)) from None
