"""Marker planting for the Markdown formats of `more-agents/` (line level): aider chat history,
Cline "Export task", SpecStory exports.

Each planter reads the file's sections (who speaks) and fences, picks one line position per place
and inserts whole lines only, so every other line of the copy is byte-identical to the original.
"""

from __future__ import annotations

import re

from bench.copies import Marker
from bench.plant_json import choose

FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
TODO_ITEM = re.compile(r"^\s*- \[[^\]]{0,3}\] ")
Insert = tuple[int, str]  # (line index to insert before, text)


def fences(lines: list[str]) -> list[tuple[int, int]]:
    """(opening, closing) line indexes of every fenced block, nested-tick aware."""
    out, open_at, ticks = [], None, ""
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if not m:
            continue
        if open_at is None:
            open_at, ticks = i, m.group(1)
        elif m.group(1)[0] == ticks[0] and len(m.group(1)) >= len(ticks) and not line.strip()[len(m.group(1)):].strip():
            out.append((open_at, i))
            open_at = None
    return out


def inside(i: int, blocks: list[tuple[int, int]]) -> bool:
    return any(a <= i <= b for a, b in blocks)


def apply(lines: list[str], inserts: dict[str, list[Insert]]) -> str:
    for at, text in sorted((x for group in inserts.values() for x in group), key=lambda x: x[0], reverse=True):
        lines.insert(at, text)
    return "\n".join(lines)


def _pick(cands: list[tuple[int, list[Insert]]], n: int) -> list[Insert] | None:
    chosen = choose([(i, (lambda v=v: v)) for i, v in cands], n)
    return chosen() if chosen else None


def _around(opening: int, closing: int, markers: dict[str, Marker]) -> list[Insert]:
    return [(opening, markers["assistant_before_code"].text), (closing + 1, markers["assistant_after_code"].text)]


def _result(lines: list[str], inserts: dict[str, list[Insert]], notes: list[str]) -> tuple[str, set[str], list[str]]:
    planted = {p for p, v in inserts.items() if v}
    if "assistant" in planted:
        planted = (planted - {"assistant"}) | {"assistant_before_code", "assistant_after_code"}
    return apply(lines, {p: v for p, v in inserts.items() if v}), planted, notes


# --------------------------------------------------------------------------- aider

def plant_aider(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    lines = text.split("\n")
    n, blocks = len(lines), fences(text.split("\n"))
    inserts: dict[str, list[Insert]] = {}
    first_user = next((i for i, line in enumerate(lines) if line.startswith("#### ") and not inside(i, blocks)), None)
    if first_user is not None:
        end = first_user
        while end + 1 < n and lines[end + 1].startswith("#### "):
            end += 1
        inserts["user"] = [(end + 1, f"#### {markers['user'].text}")]
    code, tool_out, args = [], [], []
    for a, b in blocks:
        body = lines[a + 1:b]
        if any(x.startswith("<<<<<<< SEARCH") for x in body):
            sep = next((a + 1 + k for k, x in enumerate(body) if x.startswith("=======")), None)
            if sep is not None:
                args.append((a, [(sep + 1, markers["tool_args"].text)]))
            continue
        prev = next((lines[k] for k in range(a - 1, -1, -1) if lines[k].strip()), "")
        if not prev.startswith(("#### ", "> ")):
            code.append((a, _around(a, b, markers)))
    for i, line in enumerate(lines):
        if line.startswith("> ") and len(line) > 10 and not inside(i, blocks):
            tool_out.append((i, [(i + 1, f"> {markers['tool_output'].text}")]))
    inserts["assistant"] = _pick(code, n) or []
    inserts["tool_output"] = _pick(tool_out, n) or []
    inserts["tool_args"] = _pick(args, n) or []
    return _result(lines, inserts, [])


# --------------------------------------------------------------------------- Cline export

CLINE_SPEAKER = re.compile(r"^\*\*(User|Assistant):\*\*\s*$")
CLINE_RESULT = re.compile(r"^\[[a-z_]+(?: for '.*')?\] Result:\s*$")
CLINE_PARAM_OPEN = re.compile(r"^\s*<(content|diff|task_progress|result|response|question)>\s*$")


def plant_cline(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    lines = text.split("\n")
    n = len(lines)
    inserts: dict[str, list[Insert]] = {}
    speaker = [""] * n
    who = ""
    for i, line in enumerate(lines):
        m = CLINE_SPEAKER.match(line)
        if m:
            who = m.group(1)
        speaker[i] = who
    task_end = next((i for i, line in enumerate(lines) if line.strip() == "</task>"), None)
    if task_end is not None:
        inserts["user"] = [(task_end, markers["user"].text)]
    code, plain, tool_out, args = [], [], [], []
    in_param = False
    blocks = fences(lines)
    for i, line in enumerate(lines):
        stripped = line.strip()
        if speaker[i] == "Assistant":
            if CLINE_PARAM_OPEN.match(line):
                in_param = True
                if stripped == "<task_progress>":
                    args.append((i, [(i + 1, f"- [ ] {markers['tool_args'].text}")]))
                elif stripped == "<content>":
                    args.append((i, [(i + 1, markers["tool_args"].text)]))
                continue
            if re.match(r"^\s*</(content|diff|task_progress|result|response|question)>", line):
                in_param = False
                continue
            if not in_param and FENCE.match(line):
                block = next(((a, b) for a, b in blocks if a == i), None)
                if block:
                    code.append((i, _around(block[0], block[1], markers)))
            if (not in_param and stripped and not stripped.startswith("<") and not CLINE_SPEAKER.match(line)
                    and not inside(i, blocks)):
                plain.append((i, [(i, markers["assistant_before_code"].text), (i + 1, markers["assistant_after_code"].text)]))
        elif speaker[i] == "User" and CLINE_RESULT.match(line) and i + 1 < n:
            tool_out.append((i, [(i + 2, markers["tool_output"].text)]))
    notes = []
    inserts["assistant"] = _pick(code, n) or []
    if not inserts["assistant"]:
        inserts["assistant"] = _pick(plain, n) or []
        if inserts["assistant"]:
            notes.append("no fenced block in assistant text: planted around one line of it")
    inserts["tool_output"] = _pick(tool_out, n) or []
    inserts["tool_args"] = _pick(args, n) or []
    return _result(lines, inserts, notes)


# --------------------------------------------------------------------------- SpecStory

SS_USER = re.compile(r"^_\*\*User\b")
SS_AGENT = re.compile(r"^_\*\*(Agent|Assistant)\b")


def plant_specstory(text: str, markers: dict[str, Marker]) -> tuple[str, set[str], list[str]]:
    lines = text.split("\n")
    n = len(lines)
    blocks = fences(lines)
    inserts: dict[str, list[Insert]] = {}
    role, in_tool, cursor_tool, in_think = "", False, False, False
    first_user_end = None
    code, plain, tool_out, tool_plain, args = [], [], [], [], []
    pending_cursor_fences = 0
    after_summary = cursor_shell = False
    for i, line in enumerate(lines):
        if SS_USER.match(line):
            role = "user"
            continue
        if SS_AGENT.match(line):
            role = "agent"
            continue
        if line.startswith("<tool-use"):
            in_tool = True
        if line.startswith("<think>"):
            in_think = True
        if line.startswith("Tool use: **"):
            cursor_tool, pending_cursor_fences = True, 0
            cursor_shell = line.startswith("Tool use: **run_terminal_cmd**")
        if line.strip() == "---":
            cursor_tool = False
            if role == "user" and first_user_end is None:
                first_user_end = i
        tooling = in_tool or cursor_tool or in_think
        if role == "agent" and tooling and TODO_ITEM.match(line) and not inside(i, blocks):
            args.append((i, [(i + 1, f"- [ ] {markers['tool_args'].text}")]))
        opening = next(((a, b) for a, b in blocks if a == i), None)
        if opening and role == "agent":
            if tooling:
                lang = FENCE.match(line) and line.strip().lstrip("`~")
                if in_tool and lang in ("", "text"):
                    tool_out.append((i, [(i + 1, markers["tool_output"].text)]))
                elif cursor_tool and cursor_shell:
                    pending_cursor_fences += 1
                    if pending_cursor_fences == 2:  # Cursor: the command's fence, then its output's
                        tool_out.append((i, [(i + 1, markers["tool_output"].text)]))
            else:
                code.append((i, _around(opening[0], opening[1], markers)))
        elif (role == "agent" and not tooling and not inside(i, blocks) and line.strip()
              and not line.startswith(("<", "_**", "#")) and line.strip() != "---"):
            plain.append((i, [(i, markers["assistant_before_code"].text), (i + 1, markers["assistant_after_code"].text)]))
        if in_tool and after_summary and line.strip() and not inside(i, blocks) and not FENCE.match(line) \
                and not line.lstrip().startswith(("<", "Parameters:", "Additional data:", "Result:", "Status:", "- [")):
            tool_plain.append((i, [(i + 1, markers["tool_output"].text)]))  # an output rendered as plain lines
        if "</summary>" in line and in_tool:
            after_summary = True
        if "</tool-use>" in line:
            in_tool = after_summary = False
        if "</think>" in line:
            in_think = False
    if first_user_end is not None:
        inserts["user"] = [(first_user_end, markers["user"].text + "\n")]
    notes = []
    inserts["assistant"] = _pick(code, n) or []
    if not inserts["assistant"]:
        inserts["assistant"] = _pick(plain, n) or []
        if inserts["assistant"]:
            notes.append("no fenced block in assistant text: planted around one line of it")
    inserts["tool_output"] = _pick(tool_out, n) or _pick(tool_plain, n) or []
    inserts["tool_args"] = _pick(args, n) or []
    return _result(lines, inserts, notes)


PLANTERS = {"aider": plant_aider, "cline": plant_cline, "specstory": plant_specstory}
