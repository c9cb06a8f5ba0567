"""pi coding agent session JSONL (v1–v3): files changed by `edit` / `write` toolCalls.

A line may hold more than one JSON record run together (a real writer glitch), so each line is
decoded record by record. A call counts unless its toolResult says isError.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

WRITE_TOOLS = {"edit", "write"}


def records(path: Path):
    """Every JSON record of the file, including several on one line."""
    dec = json.JSONDecoder()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        pos, text = 0, line.strip()
        while pos < len(text):
            try:
                rec, pos = dec.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from exc
            while pos < len(text) and text[pos].isspace():
                pos += 1
            yield rec


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def derive(path: Path) -> Derived:
    calls: dict[str, str] = {}
    order: list[str] = []
    failed: set[str] = set()
    task, roots = "", []
    for rec in records(path):
        if rec.get("type") == "session" and rec.get("cwd"):
            roots.append(rec["cwd"])
        msg = rec.get("message") if rec.get("type") == "message" else None
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        if role == "user" and not task:
            task = _text(msg.get("content"))
        elif role == "assistant":
            for block in msg.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("name") in WRITE_TOOLS:
                    target = (block.get("arguments") or {}).get("path")
                    if target:
                        calls[block.get("id", "")] = target
                        order.append(block.get("id", ""))
        elif role == "toolResult" and msg.get("isError"):
            failed.add(msg.get("toolCallId", ""))
    changed = unique([calls[i] for i in order if i not in failed])
    return Derived(changed=changed, task=excerpt(task), how="pi edit/write toolCall arguments.path (non-error toolResult)",
                   roots=roots)
