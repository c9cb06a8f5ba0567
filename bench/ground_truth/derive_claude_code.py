"""Claude Code session JSONL: files changed by Edit / Write / MultiEdit / NotebookEdit tool calls.

A call counts when its tool_result is not an error (a failed Edit changes nothing). The task is the
first user text that a person typed: tool results, `<ide_opened_file>`-style context blocks,
`<system-reminder>`s, slash-command echoes and meta records are skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

WRITE_TOOLS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
_CONTEXT_ONLY = re.compile(r"^\s*(<(ide_[a-z_]+|system-reminder|command-[a-z]+|local-command-[a-z]+)>.*?</\2>\s*)+$", re.S)


def _records(path: Path):
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from exc


def _typed_text(content) -> str:
    """The person's own words in a user message ('' when it is only tool results or injected context)."""
    parts = [content] if isinstance(content, str) else [
        b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
    kept = [p for p in parts if p.strip() and not _CONTEXT_ONLY.match(p) and not p.startswith("Caveat:")]
    return "\n".join(kept)


def derive(path: Path) -> Derived:
    calls: dict[str, str] = {}
    failed: set[str] = set()
    order: list[str] = []
    task = ""
    cwds: list[str] = []
    for rec in _records(path):
        if rec.get("cwd"):
            cwds.append(rec["cwd"])
        msg = rec.get("message")
        if not isinstance(msg, dict):
            continue
        content = msg.get("content")
        if rec.get("type") == "user" and not task and not rec.get("isMeta"):
            task = _typed_text(content)
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") in WRITE_TOOLS:
                target = (block.get("input") or {}).get(WRITE_TOOLS[block["name"]])
                if target:
                    calls[block.get("id", "")] = target
                    order.append(block.get("id", ""))
            elif block.get("type") == "tool_result" and block.get("is_error"):
                failed.add(block.get("tool_use_id", ""))
    changed = unique([calls[i] for i in order if i not in failed])
    return Derived(changed=changed, task=excerpt(task), how="claude-code Edit/Write/MultiEdit/NotebookEdit tool_use inputs (non-error results)",
                   roots=unique(cwds))
