"""Codex CLI rollout JSONL: files changed by apply_patch (tool call, or a shell command carrying one).

Patch headers are the record: `*** Add File: X`, `*** Update File: X` (+ `*** Move to: Y`);
`*** Delete File: X` goes to the deleted list. The task is the first user message that is not
injected context (AGENTS.md instructions, `<environment_context>`, `<user_instructions>`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

PATCH_HEADER = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$", re.M)
_INJECTED = ("# AGENTS.md instructions", "<environment_context>", "<user_instructions>", "<INSTRUCTIONS>")


def patch_targets(patch: str) -> tuple[list[str], list[str]]:
    """(changed, deleted) paths named by an apply_patch body."""
    changed, deleted = [], []
    for kind, target in PATCH_HEADER.findall(patch):
        (deleted if kind == "Delete File" else changed).append(target)
    return changed, deleted


def _call_text(payload: dict) -> str:
    raw = payload.get("arguments") if payload.get("type") == "function_call" else payload.get("input")
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            return raw
    else:
        parsed = raw
    if isinstance(parsed, dict):
        cmd = parsed.get("command") or parsed.get("input") or parsed.get("patch") or ""
        return " ".join(cmd) if isinstance(cmd, list) else str(cmd)
    return str(parsed or "")


def derive(path: Path) -> Derived:
    changed: list[str] = []
    task, roots = "", []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from exc
        payload = rec.get("payload") or {}
        if rec.get("type") == "session_meta" and payload.get("cwd"):
            roots.append(payload["cwd"])
        kind = payload.get("type")
        if kind == "message" and payload.get("role") == "user" and not task:
            text = "\n".join(b.get("text", "") for b in payload.get("content") or [] if isinstance(b, dict))
            if text.strip() and not text.lstrip().startswith(_INJECTED):
                task = text
        elif kind in ("function_call", "custom_tool_call"):
            body = _call_text(payload)
            if "*** Begin Patch" in body:
                changed += patch_targets(body)[0]
    return Derived(changed=unique(changed), task=excerpt(task),
                   how="codex apply_patch headers (*** Add/Update File, Move to) in tool calls and shell commands", roots=roots)
