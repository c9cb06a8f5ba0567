"""Gemini CLI history JSON (`[{role, parts}]`): files changed by replace / write_file / edit calls.

A call counts when its functionResponse reports success (an `error` key, e.g. "0 occurrences found",
means nothing changed). Calls and responses are paired by id, else by order within the tool name.
The task is the first user text that is not injected context (`<session_context>`, `<state_snapshot>`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

WRITE_TOOLS = {"replace", "write_file", "edit"}
_INJECTED = ("<session_context>", "<state_snapshot>")
WORKSPACE = re.compile(r"Workspace Directories:\*{0,2}\s*\n\s*-\s*(\S.*?)\s*$", re.M)


def _history(data) -> list[dict]:
    if isinstance(data, dict):
        data = data.get("history") or data.get("messages") or data.get("contents") or []
    return [c for c in data if isinstance(c, dict)]


def derive(path: Path) -> Derived:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from exc
    pending: list[tuple[str | None, str, str]] = []  # (id, name, target)
    changed: list[str] = []
    task, roots = "", []
    for content in _history(data):
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            text = part.get("text")
            if content.get("role") == "user" and isinstance(text, str):
                roots += WORKSPACE.findall(text)
                if not task and text.strip() and not text.lstrip().startswith(_INJECTED):
                    task = text
            call = part.get("functionCall")
            if isinstance(call, dict) and call.get("name") in WRITE_TOOLS:
                args = call.get("args") or {}
                target = args.get("file_path") or args.get("path") or args.get("absolute_path")
                if target:
                    pending.append((call.get("id"), call["name"], target))
            resp = part.get("functionResponse")
            if isinstance(resp, dict) and resp.get("name") in WRITE_TOOLS:
                idx = next((i for i, (cid, _n, _t) in enumerate(pending) if cid and cid == resp.get("id")), None)
                if idx is None:
                    idx = next((i for i, (_c, name, _t) in enumerate(pending) if name == resp["name"]), None)
                if idx is None:
                    continue
                _cid, _name, target = pending.pop(idx)
                body = resp.get("response") or {}
                if isinstance(body, dict) and "error" not in body:
                    changed.append(target)
    return Derived(changed=unique(changed), task=excerpt(task),
                   how="gemini replace/write_file functionCall args paired with a non-error functionResponse",
                   roots=unique(roots))
