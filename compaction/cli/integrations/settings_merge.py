"""Merge our two Claude Code hooks into `.claude/settings.json` (project) or `~/.claude/settings.json`
(user), and take them out again, without touching anything else in the file.

Shape (Claude Code hooks reference):
`{"hooks": {"PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "…"}]}],
            "SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "…"}]}]}}`

Why we recognise our entries by their command (`… compaction hook pre-compact|session-start`) and not
by position: users add their own hooks next to ours, and a re-install from another virtualenv must
replace our old command instead of adding a second one.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from compaction.cli.integrations.edits import FileChange, InstallError, backup_path, read_or_none

EVENTS = {"PreCompact": ("", "pre-compact"), "SessionStart": ("compact", "session-start")}
_OURS = re.compile(r"compaction(?:\.exe)?['\"]?\s+hook\s+(pre-compact|session-start)\b")
HOOK_TIMEOUT_S = 30


def compaction_executable() -> Path:
    """The `compaction` script beside the running interpreter (sys.executable's bin dir), absolute, so
    the hook works from a shell where the virtualenv is not active."""
    exe = Path(sys.executable)
    name = "compaction.exe" if sys.platform == "win32" else "compaction"
    for folder in (exe.parent, exe.parent / "Scripts", exe.parent / "bin"):
        cand = folder / name
        if cand.exists():
            return cand.absolute()
    return (exe.parent / name).absolute()


def hook_command(subcommand: str, executable: Path | None = None) -> str:
    # pre-compact hands its work to a background process: the agent waits only for a process start.
    extra = " --detach" if subcommand == "pre-compact" else ""
    return f"{shlex.quote(str(executable or compaction_executable()))} hook {subcommand}{extra}"


def settings_path(scope: str, workspace: Path, home: Path) -> Path:
    return (home / ".claude" / "settings.json") if scope == "user" else (workspace / ".claude" / "settings.json")


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("command"), str) and bool(_OURS.search(entry["command"]))


def _strip(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` without our hook entries (empty groups and events we emptied are removed)."""
    out = dict(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    new_hooks: dict[str, Any] = {}
    for event, groups in hooks.items():
        if event not in EVENTS or not isinstance(groups, list):
            new_hooks[event] = groups
            continue
        kept_groups = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept_groups.append(group)
                continue
            kept = [h for h in group["hooks"] if not is_ours(h)]
            if kept:
                kept_groups.append({**group, "hooks": kept})
            elif len(kept) == len(group["hooks"]):  # an empty group that was not ours
                kept_groups.append(group)
        if kept_groups:
            new_hooks[event] = kept_groups
    if new_hooks:
        out["hooks"] = new_hooks
    else:
        out.pop("hooks", None)
    return out


def merge_hooks(data: dict[str, Any], executable: Path | None = None, *, timeout: int = HOOK_TIMEOUT_S) -> dict[str, Any]:
    """`data` with exactly one PreCompact and one SessionStart(compact) entry of ours, everything else
    kept where it was. An entry of ours already present is updated in place (its command points at the
    current executable; a timeout the user changed stays), duplicates of it are dropped."""
    out = copy.deepcopy(data)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("`hooks` is not an object")
    for event, (matcher, sub) in EVENTS.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"`hooks.{event}` is not a list")
        command = hook_command(sub, executable)
        found = False
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            kept = []
            for h in group["hooks"]:
                if is_ours(h) and _OURS.search(h["command"]).group(1) == sub:
                    if found:
                        continue
                    found = True
                    h = {**h, "type": "command", "command": command}
                    h.setdefault("timeout", timeout)
                kept.append(h)
            group["hooks"] = kept
        hooks[event] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not found:
            entry = {"type": "command", "command": command, "timeout": timeout}
            hooks[event].append({"matcher": matcher, "hooks": [entry]})
    return out


def unmerge_hooks(data: dict[str, Any]) -> dict[str, Any]:
    return _strip(data)


def installed(data: dict[str, Any]) -> set[str]:
    """The events that carry one of our commands."""
    found = set()
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            if isinstance(group, dict) and any(is_ours(h) for h in group.get("hooks") or []):
                found.add(event)
    return found


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    text = read_or_none(path)
    if text is None or not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); not touching it") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}:1: expected a JSON object at the top level; not touching it")
    return text, data


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def plan_install(path: Path, executable: Path | None = None) -> FileChange:
    before, data = _load(path)
    merged = merge_hooks(data, executable)
    # Idempotent to the byte: when our entries are already there, exactly as we would write them, keep the text.
    after = before if before is not None and merged == data else _dump(merged)
    return FileChange(path, before, after, note="Claude Code hooks: PreCompact, SessionStart(compact)")


def plan_uninstall(path: Path) -> FileChange:
    before, data = _load(path)
    if before is None or not installed(data):
        return FileChange(path, before, before, note="no compaction hooks found")
    stripped = unmerge_hooks(data)
    backup = read_or_none(backup_path(path))
    if backup is None and not stripped:
        after = None  # the file did not exist before our install (no backup): remove it again
    elif backup is not None and _same_json(backup, stripped):
        after = backup  # byte-identical to what the user had before the install
    else:
        after = _dump(stripped)
    return FileChange(path, before, after, note="removed the compaction hooks")


def _same_json(text: str, data: dict[str, Any]) -> bool:
    try:
        return json.loads(text) == data
    except ValueError:
        return False
