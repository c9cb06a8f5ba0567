"""Marker planting for the JSON and JSONL formats of `more-agents/` (string-leaf level).

Each planter finds, per place, the string leaves that hold that kind of text in its format, picks
one (nearest the middle of the first third, so a compaction has to carry it through its summary),
and edits only that leaf. JSONL lines keep their records (two records run together on one line
stay on one line).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bench.copies import Marker

Setter = Callable[[], None]
Candidates = dict[str, list[tuple[int, Setter]]]
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)
_INJECTED = ("# AGENTS.md instructions", "<environment_context>", "<user_instructions>", "<INSTRUCTIONS>",
             "<session_context>", "<state_snapshot>", "<ide_", "<system-reminder>", "<command-", "<local-command-", "Caveat:")
_PATH_KEYS = {"file_path", "path", "notebook_path", "absolute_path", "directory", "dir_path", "cwd", "workdir", "url"}


def around_code(text: str, before: str, after: str) -> str | None:
    """`text` with `before` on its own line just above its first fenced block and `after` just below it."""
    opening = FENCE.search(text)
    if not opening:
        return None
    ticks = opening.group(1)
    close = re.compile(rf"^[ \t]*{re.escape(ticks[0])}{{{len(ticks)},}}[ \t]*$", re.M)
    end_of_open = text.find("\n", opening.end())
    closing = close.search(text, end_of_open + 1) if end_of_open >= 0 else None
    if not closing:
        return None
    return (text[:opening.start()] + before + "\n" + text[opening.start():closing.end()] + "\n" + after
            + text[closing.end():])


def append_line(text: str, line: str) -> str:
    return f"{text.rstrip()}\n{line}\n" if text.strip() else line


def is_injected(text: str) -> bool:
    return text.lstrip().startswith(_INJECTED)


def choose(cands: list[tuple[int, Setter]], n: int) -> Setter | None:
    """The candidate nearest the middle of the first third (else the first one)."""
    if not cands:
        return None
    third = max(1, n // 3)
    early = [c for c in cands if c[0] < third]
    if early:
        return min(early, key=lambda c: abs(c[0] - third // 2))[1]
    return cands[0][1]


def _set(container: Any, key: Any, value: str) -> Setter:
    def apply() -> None:
        container[key] = value
    return apply


class Assistant:
    """Assistant text leaves: those with a fenced block (preferred) and those without (fallback)."""

    def __init__(self) -> None:
        self.code: list[tuple[int, Setter]] = []
        self.plain: list[tuple[int, Setter]] = []

    def add(self, i: int, container: Any, key: Any, markers: dict[str, Marker]) -> None:
        """Planting before AND after a code block is one edit of one leaf: both places share it."""
        text = container[key]
        before, after = markers["assistant_before_code"].text, markers["assistant_after_code"].text
        both = around_code(text, before, after)
        if both is not None:
            self.code.append((i, _set(container, key, both)))
        elif text.strip():
            self.plain.append((i, _set(container, key, f"{before}\n{text.rstrip()}\n{after}\n")))


def _arg_leaf(args: dict, line: str) -> Setter | None:
    """A tool call's argument to carry the @todo line: a todo list item, else a describing or command string."""
    todos = args.get("todos")
    if isinstance(todos, list) and todos and isinstance(todos[0], dict):
        item = {k: (line if isinstance(v, str) and k in ("content", "activeForm", "text", "title", "step") else v)
                for k, v in todos[0].items()}
        return lambda: todos.append(item)
    for key in ("description", "justification", "explanation", "command", "cmd", "prompt", "query", "pattern", "topic"):
        value = args.get(key)
        if isinstance(value, str):
            sep = "\n# " if key in ("command", "cmd") else "\n"
            return _set(args, key, value + sep + line)
    for key, value in args.items():
        if isinstance(value, str) and key not in _PATH_KEYS:
            return _set(args, key, value + "\n" + line)
    return None


def _finish(cands: Candidates, n: int, asst: Assistant) -> tuple[set[str], list[str]]:
    planted: set[str] = set()
    notes: list[str] = []
    cands["user"] = cands.get("user", [])[:1]  # the user's text is their first request
    for place in ("user", "tool_output", "tool_args"):
        setter = choose(cands.get(place, []), n)
        if setter:
            setter()
            planted.add(place)
    pick = choose(asst.code, n)
    if pick is None:
        pick = choose(asst.plain, n)
        if pick:
            notes.append("no fenced block in any assistant text: planted at the start and end of one")
    if pick:
        pick()
        planted |= {"assistant_before_code", "assistant_after_code"}
    return planted, notes


# --------------------------------------------------------------------------- JSONL plumbing

def read_jsonl(text: str) -> list[list[Any] | str]:
    """Lines as lists of records; a line that is not JSON is kept as its raw text."""
    dec = json.JSONDecoder()
    out: list[list[Any] | str] = []
    for line in text.split("\n"):
        recs, pos, s = [], 0, line.strip()
        try:
            while pos < len(s):
                rec, pos = dec.raw_decode(s, pos)
                recs.append(rec)
                while pos < len(s) and s[pos].isspace():
                    pos += 1
        except json.JSONDecodeError:
            out.append(line)
            continue
        out.append(recs if s else line)
    return out


def write_jsonl(lines: list[list[Any] | str]) -> str:
    return "\n".join(line if isinstance(line, str) else "".join(json.dumps(r, ensure_ascii=False) for r in line)
                     for line in lines)


def _records(lines: list[list[Any] | str]) -> list[dict]:
    return [r for line in lines if not isinstance(line, str) for r in line if isinstance(r, dict)]


# --------------------------------------------------------------------------- formats

def _text_blocks(content: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every text leaf in a message content (a string or a block list)."""
    return [(b, "text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)] \
        if isinstance(content, list) else []


def plant_claude_code(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    lines = read_jsonl(text)
    recs = _records(lines)
    cands: Candidates = {}
    asst = Assistant()
    for i, rec in enumerate(recs):
        msg = rec.get("message")
        if not isinstance(msg, dict):
            continue
        content = msg.get("content")
        if rec.get("type") == "user" and not rec.get("isMeta"):
            if isinstance(content, str) and content.strip() and not is_injected(content):
                cands.setdefault("user", []).append((i, _set(msg, "content", append_line(content, markers["user"].text))))
            for block, key in _text_blocks(content):
                if block[key].strip() and not is_injected(block[key]):
                    cands.setdefault("user", []).append((i, _set(block, key, append_line(block[key], markers["user"].text))))
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, str) and inner.strip():
                        cands.setdefault("tool_output", []).append(
                            (i, _set(block, "content", append_line(inner, markers["tool_output"].text))))
                    for sub, key in _text_blocks(inner):
                        cands.setdefault("tool_output", []).append(
                            (i, _set(sub, key, append_line(sub[key], markers["tool_output"].text))))
        elif rec.get("type") == "assistant":
            for block, key in _text_blocks(content):
                asst.add(i, block, key, markers)
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
                    setter = _arg_leaf(block["input"], markers["tool_args"].text)
                    if setter:
                        cands.setdefault("tool_args", []).append((i, setter))
    planted, notes = _finish(cands, len(recs), asst)
    return write_jsonl(lines), planted, notes


def plant_codex(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    lines = read_jsonl(text)
    recs = _records(lines)
    cands: Candidates = {}
    asst = Assistant()
    for i, rec in enumerate(recs):
        p = rec.get("payload")
        if rec.get("type") != "response_item" or not isinstance(p, dict):
            continue
        kind = p.get("type")
        if kind == "message":
            for block, key in _text_blocks(p.get("content")):
                if p.get("role") == "user" and block[key].strip() and not is_injected(block[key]):
                    cands.setdefault("user", []).append((i, _set(block, key, append_line(block[key], markers["user"].text))))
                elif p.get("role") == "assistant":
                    asst.add(i, block, key, markers)
        elif kind in ("function_call_output", "custom_tool_call_output") and isinstance(p.get("output"), str):
            cands.setdefault("tool_output", []).append((i, _codex_output(p, markers["tool_output"].text)))
        elif kind == "function_call" and isinstance(p.get("arguments"), str):
            try:
                args = json.loads(p["arguments"])
            except json.JSONDecodeError:
                continue
            if isinstance(args, dict):
                setter = _arg_leaf(args, markers["tool_args"].text)
                if setter:
                    cands.setdefault("tool_args", []).append((i, _reserialise(p, args, setter)))
    planted, notes = _finish(cands, len(recs), asst)
    return write_jsonl(lines), planted, notes


def _codex_output(payload: dict, line: str) -> Setter:
    def apply() -> None:
        raw = payload["output"]
        try:
            inner = json.loads(raw)
        except json.JSONDecodeError:
            inner = None
        if isinstance(inner, dict) and isinstance(inner.get("output"), str):  # {"output": ..., "metadata": ...}
            inner["output"] = append_line(inner["output"], line)
            payload["output"] = json.dumps(inner, ensure_ascii=False)
        else:
            payload["output"] = append_line(raw, line)
    return apply


def _reserialise(payload: dict, args: dict, setter: Setter) -> Setter:
    def apply() -> None:
        setter()
        payload["arguments"] = json.dumps(args, ensure_ascii=False)
    return apply


def plant_pi(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    lines = read_jsonl(text)
    recs = _records(lines)
    cands: Candidates = {}
    asst = Assistant()
    for i, rec in enumerate(recs):
        msg = rec.get("message")
        if rec.get("type") != "message" or not isinstance(msg, dict):
            continue
        role, content = msg.get("role"), msg.get("content")
        if role == "user":
            if isinstance(content, str):
                cands.setdefault("user", []).append((i, _set(msg, "content", append_line(content, markers["user"].text))))
            for block, key in _text_blocks(content):
                cands.setdefault("user", []).append((i, _set(block, key, append_line(block[key], markers["user"].text))))
        elif role == "assistant":
            for block, key in _text_blocks(content):
                if block.get("type") == "text":
                    asst.add(i, block, key, markers)
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("arguments"), dict):
                    setter = _arg_leaf(block["arguments"], markers["tool_args"].text)
                    if setter:
                        cands.setdefault("tool_args", []).append((i, setter))
        elif role == "toolResult":
            for block, key in _text_blocks(content):
                cands.setdefault("tool_output", []).append(
                    (i, _set(block, key, append_line(block[key], markers["tool_output"].text))))
    planted, notes = _finish(cands, len(recs), asst)
    return write_jsonl(lines), planted, notes


def plant_antigravity(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    lines = read_jsonl(text)
    recs = _records(lines)
    cands: Candidates = {}
    asst = Assistant()
    for i, step in enumerate(recs):
        content = step.get("content")
        kind = step.get("type")
        if isinstance(content, str) and content.strip():
            if kind == "USER_INPUT":
                planted_user = content.replace("</USER_REQUEST>", markers["user"].text + "\n</USER_REQUEST>", 1) \
                    if "</USER_REQUEST>" in content else append_line(content, markers["user"].text)
                cands.setdefault("user", []).append((i, _set(step, "content", planted_user)))
            elif kind == "PLANNER_RESPONSE":
                asst.add(i, step, "content", markers)
            elif step.get("source") == "MODEL" and kind not in ("PLANNER_RESPONSE", "GENERIC"):
                cands.setdefault("tool_output", []).append(
                    (i, _set(step, "content", append_line(content, markers["tool_output"].text))))
        for call in step.get("tool_calls") or []:
            args = call.get("args") if isinstance(call, dict) else None
            if isinstance(args, dict):
                setter = _antigravity_arg(args, markers["tool_args"].text)
                if setter:
                    cands.setdefault("tool_args", []).append((i, setter))
    planted, notes = _finish(cands, len(recs), asst)
    return write_jsonl(lines), planted, notes


def _antigravity_arg(args: dict, line: str) -> Setter | None:
    """Antigravity stores each argument as a JSON-encoded string: decode, plant, encode."""
    for key in ("toolAction", "Description", "Instruction", "CommandLine", "toolSummary", *args):
        raw = args.get(key)
        if not isinstance(raw, str):
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, str) and key not in _PATH_KEYS and "File" not in key and "Path" not in key:
            return _set(args, key, json.dumps(append_line(value, line), ensure_ascii=False))
    return None


def plant_gemini(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    data = json.loads(text)
    history = data if isinstance(data, list) else (data.get("history") or data.get("messages") or [])
    cands: Candidates = {}
    asst = Assistant()
    for i, content in enumerate(history):
        if not isinstance(content, dict):
            continue
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("text"), str) and not part.get("thought"):
                if content.get("role") == "user" and part["text"].strip() and not is_injected(part["text"]):
                    cands.setdefault("user", []).append(
                        (i, _set(part, "text", append_line(part["text"], markers["user"].text))))
                elif content.get("role") == "model":
                    asst.add(i, part, "text", markers)
            call = part.get("functionCall")
            if isinstance(call, dict) and isinstance(call.get("args"), dict):
                setter = _arg_leaf(call["args"], markers["tool_args"].text)
                if setter:
                    cands.setdefault("tool_args", []).append((i, setter))
            resp = part.get("functionResponse")
            body = resp.get("response") if isinstance(resp, dict) else None
            if isinstance(body, dict) and isinstance(body.get("output"), str):
                cands.setdefault("tool_output", []).append(
                    (i, _set(body, "output", append_line(body["output"], markers["tool_output"].text))))
    planted, notes = _finish(cands, len(history), asst)
    return json.dumps(data, ensure_ascii=False, indent=1), planted, notes


PLANTERS = {"claude-code": plant_claude_code, "codex": plant_codex, "pi": plant_pi,
            "antigravity": plant_antigravity, "gemini": plant_gemini}
