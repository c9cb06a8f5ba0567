"""Merge our two Gemini CLI hooks into `.gemini/settings.json` (project) or `~/.gemini/settings.json`
(user), beside the user's own hooks, and take them out again.

Shape (Gemini CLI hooks reference): `{"hooksConfig": {"enabled": true}, "hooks": {"PreCompress": [{"matcher":
"", "hooks": [{"type": "command", "name": "…", "command": "…", "timeout": <ms>}]}], "BeforeAgent": […]}}`.
Our entries are recognised by their command, as for Claude Code; everything else is kept in place.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from compaction.cli.integrations.edits import FileChange, InstallError, backup_path, read_or_none
from compaction.cli.integrations.settings_merge import _dump, _load, compaction_executable

# event: (hook name, subcommand, timeout in milliseconds). BeforeAgent may compact synchronously when a
# compression is due at the start of a turn; PreCompress only hands the work to a background process.
EVENTS = {"PreCompress": ("compaction-pre-compress", "gemini-pre-compress", 10_000),
          "BeforeAgent": ("compaction-before-agent", "gemini-before-agent", 60_000)}
_OURS = re.compile(r"compaction(?:\.exe)?['\"]?\s+hook\s+(gemini-pre-compress|gemini-before-agent)\b")


def settings_path(scope: str, workspace: Path, home: Path) -> Path:
    return (home / ".gemini" / "settings.json") if scope == "user" else (workspace / ".gemini" / "settings.json")


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("command"), str) and bool(_OURS.search(entry["command"]))


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in EVENTS:
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                kept = [h for h in group["hooks"] if not is_ours(h)]
                if not kept and group["hooks"]:
                    continue
                group = {**group, "hooks": kept}
            kept_groups.append(group)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            hooks.pop(event)
    if not hooks:
        out.pop("hooks")
    return out


def merge(data: dict[str, Any], executable: Path | None = None) -> dict[str, Any]:
    """`data` with one entry of ours per event (replacing an older one) and `hooksConfig.enabled`."""
    if "hooks" in data and not isinstance(data["hooks"], dict):
        raise InstallError("`hooks` is not an object")
    if "hooksConfig" in data and not isinstance(data["hooksConfig"], dict):
        raise InstallError("`hooksConfig` is not an object")
    out = _without_ours(data)
    exe = str(executable or compaction_executable())
    hooks = out.setdefault("hooks", {})
    for event, (name, sub, timeout) in EVENTS.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"`hooks.{event}` is not a list")
        command = f"{_quote(exe)} hook {sub}"
        groups.append({"matcher": "", "hooks": [{"type": "command", "name": name, "command": command,
                                                 "timeout": timeout}]})
    out.setdefault("hooksConfig", {})["enabled"] = True
    return out


def _quote(path: str) -> str:
    import shlex

    return shlex.quote(path)


def installed(data: dict[str, Any]) -> set[str]:
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    return {event for event, groups in hooks.items() if isinstance(groups, list)
            for g in groups if isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks") or [])}


def plan_install(path: Path, executable: Path | None = None) -> FileChange:
    before, data = _load(path)
    merged = merge(data, executable)
    same = before is not None and _without_ours(merged) == _without_ours(data) and _entries(merged) == _entries(data) \
        and (data.get("hooksConfig") or {}).get("enabled") is True
    return FileChange(path, before, before if same else _dump(merged),
                      note="Gemini CLI hooks: PreCompress, BeforeAgent (hooksConfig.enabled)")


def _entries(data: dict[str, Any]) -> list[Any]:
    return [h for g in [g for groups in (data.get("hooks") or {}).values() if isinstance(groups, list) for g in groups]
            if isinstance(g, dict) for h in g.get("hooks") or [] if is_ours(h)]


def plan_uninstall(path: Path) -> FileChange:
    before, data = _load(path)
    if before is None or not installed(data):
        return FileChange(path, before, before, note="no compaction hooks found")
    stripped = _without_ours(data)
    _restore_enabled(stripped, read_or_none(backup_path(path)))
    return FileChange(path, before, _dump(stripped) if stripped else None, note="removed the compaction hooks")


def _restore_enabled(data: dict[str, Any], backup: str | None) -> None:
    """Put `hooksConfig.enabled` back as it was before our install (absent when we created the file)."""
    try:
        earlier = json.loads(backup).get("hooksConfig", {}).get("enabled") if backup else None
    except (ValueError, AttributeError):
        return
    config = data.get("hooksConfig")
    if not isinstance(config, dict):
        return
    if earlier is None:
        config.pop("enabled", None)
    else:
        config["enabled"] = earlier
    if not config:
        data.pop("hooksConfig")
