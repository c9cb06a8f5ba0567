"""Hover text for an error-memory record, in the seed's shape, with Resolve/Forget links."""

from __future__ import annotations

import json
import re
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


_MD_SPECIAL = re.compile(r"([\\`\[\]()<>!])")


def escape_md(text: Any) -> str:
    """Transcript-derived text as inert Markdown on one line. The client trusts this hover's
    command links (Resolve/Forget), so a transcript must not be able to plant its own: link,
    image, autolink and HTML syntax and backticks are backslash-escaped (backticks too, so no
    code span can hide an unescaped bracket) and line breaks are folded (no reference
    definitions or headings on a new line)."""
    flat = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", flat)


def command_link(title: str, command: str, argument: dict[str, Any]) -> str:
    """A Markdown link that runs `command` with one object argument (VS Code command URI)."""
    return f"[{title}](command:{command}?{quote(json.dumps([argument]))})"


_LABELS = {
    "en": {"title": "Error Memory", "solution": "Solution", "avoidance": "Avoidance", "resolve": "Resolve",
           "forget": "Forget", "target": "Provoked on purpose (reproduction or test-first)."},
    "zh": {"title": "错误记忆", "solution": "解决", "avoidance": "规避", "resolve": "标记已解决", "forget": "遗忘",
           "target": "有意触发（复现或测试先行）。"},
}  # fmt: skip


def headline(rec: dict[str, Any], lang: str = "en") -> str:
    """The seed's record line: `#recurring ERR_X: occurrences 3 (rounds 12, 24, 35)` / `发生3次 (12,24,35)`."""
    tag = "#recurring " if is_recurring(rec) else ""
    rounds = record_rounds(rec)
    label = str(rec.get("id"))  # the compiler's codes and the aliases (one failure, one record) beside the id
    if rec.get("codes"):
        label += f" ({escape_md(', '.join(map(str, rec['codes'])))})"
    if rec.get("merged"):
        label += f" (+{escape_md(', '.join(map(str, rec['merged'])))})"
    rec = {**rec, "id": label}
    if lang == "zh":
        return f"{tag}{rec.get('id')}: 发生{record_count(rec)}次 ({','.join(map(str, rounds))})"
    return f"{tag}{rec.get('id')}: occurrences {record_count(rec)} (rounds {', '.join(map(str, rounds))})"


def render_record(rec: dict[str, Any], lang: str = "en") -> str:
    label = _LABELS.get(lang, _LABELS["en"])
    lines = [f"**{headline({**rec, 'id': escape_md(rec.get('id'))}, lang)}**", ""]  # ids can come from a client
    if rec.get("target_bug"):
        lines += [f"_{label['target']}_", ""]
    if rec.get("solution"):
        lines.append(f"{label['solution']}: {escape_md(rec['solution'])}  ")
    if rec.get("avoidance"):
        lines.append(f"{label['avoidance']}: {escape_md(rec['avoidance'])}  ")
    target = {"id": str(rec.get("id"))}
    if rec.get("workspaceFolder"):  # multi-root: the link acts on the store the record came from
        target["workspaceFolder"] = str(rec["workspaceFolder"])
    lines += [
        "",
        command_link(label["resolve"], "compaction.errorMemory.resolve", target)
        + " · "
        + command_link(label["forget"], "compaction.errorMemory.forget", target),
    ]
    return "\n".join(lines)


def render_hover(records: list[dict[str, Any]], lang: str = "en") -> str:
    """The hover Markdown for the records at one spot (most occurrences first)."""
    ordered = sorted(records, key=lambda r: (-record_count(r), str(r.get("id"))))
    body = "\n\n---\n\n".join(render_record(r, lang) for r in ordered)
    return f"### {_LABELS.get(lang, _LABELS['en'])['title']}\n\n" + body
