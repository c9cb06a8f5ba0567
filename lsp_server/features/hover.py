"""Hover text for an error-memory record, in the seed's shape, with Resolve/Forget links."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote


def record_count(rec: dict[str, Any]) -> int:
    count = rec.get("count")
    if isinstance(count, int):
        return count
    return len(rec.get("occurrences") or []) or 1


def record_rounds(rec: dict[str, Any]) -> list[int]:
    rounds = rec.get("rounds")
    if isinstance(rounds, list):
        return [int(r) for r in rounds if isinstance(r, int)]
    found = {o.get("round") for o in rec.get("occurrences") or [] if isinstance(o, dict)}
    return sorted(r for r in found if isinstance(r, int))


def is_recurring(rec: dict[str, Any]) -> bool:
    return bool(rec.get("recurring")) or record_count(rec) >= 2


def command_link(title: str, command: str, argument: dict[str, Any]) -> str:
    """A Markdown link that runs `command` with one object argument (VS Code command URI)."""
    return f"[{title}](command:{command}?{quote(json.dumps([argument]))})"


def headline(rec: dict[str, Any]) -> str:
    tag = "#recurring " if is_recurring(rec) else ""
    rounds = ", ".join(str(r) for r in record_rounds(rec))
    return f"{tag}{rec.get('id')}: occurrences {record_count(rec)} (rounds {rounds})"


def render_record(rec: dict[str, Any]) -> str:
    lines = [f"**{headline(rec)}**", ""]
    if rec.get("target_bug"):
        lines += ["_Provoked on purpose (reproduction or test-first)._", ""]
    if rec.get("message"):
        lines += [f"`{str(rec['message']).strip()[:300]}`", ""]
    if rec.get("solution"):
        lines.append(f"Solution: {rec['solution']}  ")
    if rec.get("avoidance"):
        lines.append(f"Avoidance: {rec['avoidance']}  ")
    if rec.get("resolved"):
        lines.append("_Resolved._  ")
    rid = str(rec.get("id"))
    lines += [
        "",
        command_link("Resolve", "compaction.errorMemory.resolve", {"id": rid})
        + " · "
        + command_link("Forget", "compaction.errorMemory.forget", {"id": rid}),
    ]
    return "\n".join(lines)


def render_hover(records: list[dict[str, Any]]) -> str:
    """The hover Markdown for the records at one spot (most occurrences first)."""
    ordered = sorted(records, key=lambda r: (-record_count(r), str(r.get("id"))))
    body = "\n\n---\n\n".join(render_record(r) for r in ordered)
    return "### Error Memory\n\n" + body
