"""The server's settings: `compaction.*` from initializationOptions and workspace/configuration.

The library's `compaction.config.Settings` is the one config model; this module only layers the
editor's values over `.compaction/config.json` and adds the few options that exist only in an
editor (diagnostic severities, the watcher). An invalid value must not stop the server: it is
dropped, the default (or the config file's value) is used, and the caller shows the message.
Keys the server does not know (client-only settings such as `python.path` or `trace.server`)
are dropped quietly.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from compaction.config import ConfigError, Settings, config_path, deep_merge, read_config_file, workspace_layer
from compaction.trust import Reporter, user_config_path

Severity = Literal["error", "warning", "information", "hint", "off"]


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class DiagnosticsOptions(_Model):
    enabled: bool = True
    single: Severity = "hint"  # a record seen once
    recurring: Severity = "warning"  # a #recurring record (2+ occurrences)


class WatchOptions(_Model):
    enabled: bool = True
    debounce_ms: int = Field(100, ge=0, le=10_000)
    exclude: list[str] = Field(default_factory=list)  # extra directory names to ignore


class EditorOptions(_Model):
    """Options that only make sense inside an editor."""

    diagnostics: DiagnosticsOptions = Field(default_factory=DiagnosticsOptions)
    watch: WatchOptions = Field(default_factory=WatchOptions)
    hover: bool = True
    # Read roots beyond the workspace and its transcript folders. Editor-only on purpose: the
    # workspace's config.json never reaches this model, and the extension declares the setting
    # application-scoped (user settings only), so a cloned repository cannot widen what we read.
    allow_read: list[str] = Field(default_factory=list)


_EDITOR_KEYS = {"diagnostics", "watch", "hover", "allowRead", "allow_read"}


def _drop(data: dict[str, Any], loc: tuple) -> bool:
    """Remove the value at `loc` (a pydantic error location) from nested dicts; True if removed.

    A location that goes into a list or a scalar removes the nearest enclosing dict key."""
    node: Any = data
    for i, key in enumerate(loc):
        if not isinstance(node, dict) or key not in node:
            return False
        if i == len(loc) - 1 or not isinstance(node[key], dict):
            del node[key]
            return True
        node = node[key]
    return False


def _validate_lenient(model: type[BaseModel], data: dict[str, Any], prefix: str) -> tuple[Any, list[str]]:
    """Validate, dropping each invalid or unknown key until the rest validates.

    Returns the model and human messages for invalid values (unknown keys are not reported)."""
    data = copy.deepcopy(data)
    problems: list[str] = []
    for _ in range(50):
        try:
            return model.model_validate(data), problems
        except ValidationError as exc:
            removed = False
            for err in exc.errors():
                loc = tuple(err["loc"])
                if err["type"] != "extra_forbidden":
                    dotted = ".".join(str(x) for x in loc)
                    problems.append(f"{prefix}{dotted}: {err['msg']} (got {err.get('input')!r}); using the default")
                removed = _drop(data, loc) or removed
            if not removed:
                break
    return model(), problems + [f"{prefix}: settings could not be read; using the defaults"]


def unwrap_section(raw: Any) -> dict[str, Any]:
    """Accept `{"compaction": {...}}` or the section itself; anything else is empty."""
    if not isinstance(raw, dict):
        return {}
    inner = raw.get("compaction")
    return dict(inner) if isinstance(inner, dict) else dict(raw)


def resolve_settings(
    workspace: str | Path | None, *layers: dict[str, Any] | None, report: Reporter | None = None
) -> tuple[Settings, EditorOptions, list[str]]:
    """Defaults < the user config < `.compaction/config.json` (its user-only keys dropped and
    reported once to `report`) < each editor layer (initializationOptions, then
    workspace/configuration: the client sends the user's values for the user-only keys). Returns
    the settings, the editor options and the problems found."""
    problems: list[str] = []
    user_data: dict[str, Any] = {}
    try:
        user_data = read_config_file(user_config_path())
    except ConfigError as exc:
        problems.append(f"{exc}; ignoring the file")
    user_data = _clean(Settings, user_data)
    file_data: dict[str, Any] = {}
    if workspace is not None:
        try:
            file_data = workspace_layer(workspace, report)
        except ConfigError as exc:
            problems.append(f"{exc}; ignoring the file")
    file_settings, file_problems = _validate_lenient(Settings, deep_merge(user_data, file_data),
                                                     f"{config_path(workspace or '.')}: ")
    problems += file_problems
    merged: dict[str, Any] = {}
    editor: dict[str, Any] = {}
    for layer in layers:
        section = unwrap_section(layer)
        editor = deep_merge(editor, {k: v for k, v in section.items() if k in _EDITOR_KEYS})
        merged = deep_merge(merged, {k: v for k, v in section.items() if k not in _EDITOR_KEYS})
    base = file_settings.model_dump(by_alias=True, exclude_unset=True)
    # Validate the editor layer on its own first so that a bad editor value falls back to the file's.
    _, editor_problems = _validate_lenient(Settings, merged, "compaction.")
    clean_editor = _clean(Settings, merged)
    settings, _ = _validate_lenient(Settings, deep_merge(base, clean_editor), "compaction.")
    options, option_problems = _validate_lenient(EditorOptions, editor, "compaction.")
    return settings, options, problems + editor_problems + option_problems


def _clean(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """`data` without the keys that fail validation (so that merging keeps lower layers' values)."""
    data = copy.deepcopy(data)
    for _ in range(50):
        try:
            model.model_validate(data)
            return data
        except ValidationError as exc:
            if not any(_drop(data, tuple(err["loc"])) for err in exc.errors()):
                return {}
    return {}
