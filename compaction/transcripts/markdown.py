"""Plain Markdown conversations: `## User` / `## Assistant` headings (also `## System`,
`### Tool call: NAME`, `### Tool` / `## Tool result`).

The body under a heading is that message. A tool-call section attaches a call to the assistant
message before it (a fenced shell block in it becomes the command); a tool/tool-result section
is a tool message and never opens a round. Headings inside fenced code are content.
"""

from __future__ import annotations

import re

from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, TranscriptError
from compaction.transcripts._io import read_text

NAME = "markdown"
DESCRIPTION = "Plain Markdown chat: ## User / ## Assistant headings (### Tool call / ## Tool result optional)"

_ROLE_WORDS = {
    "user": "user", "human": "user", "you": "user", "prompt": "user",
    "assistant": "assistant", "ai": "assistant", "model": "assistant", "claude": "assistant",
    "chatgpt": "assistant", "gpt": "assistant", "copilot": "assistant",
    "system": "system", "developer": "system",
    "tool": "tool", "tool result": "tool", "tool output": "tool", "function result": "tool",
    "observation": "tool",
    "tool call": "call", "tool use": "call", "function call": "call",
}
_HEADING = re.compile(
    r"^(#{1,4})[ \t]+\**(" + "|".join(sorted((re.escape(w) for w in _ROLE_WORDS), key=len, reverse=True))
    + r")\**[ \t]*+(?:[:(\-–—|][ \t]*+((?:.*?(?<![ \t]))??))?[ \t]*+\)?[ \t]*+$",
    re.I | re.M,
)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)  # headings there are content
_FIRST_FENCE = re.compile(r"^```[ \t]*([\w+-]*)[ \t]*\n(.*?)^```", re.M | re.S)
_SHELL_NAMES = {"bash", "shell", "sh", "terminal", "run", "execute_command", "command", "run_command", "exec"}
_SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh", "powershell", "cmd"}
_WHOLE_FENCE = re.compile(r"\A```[^\n]*\n(.*?)\n?```\Z", re.S)
_EXIT = re.compile(r"\bexit(?:[ _]code)?[ \t]*+(?:[:=][ \t]*+)?(-?\d+)\b", re.I)


def sniff(head: str, path: str) -> int:
    s = head.lstrip()
    if s.startswith(("{", "[")) or re.search(r"^# aider chat started at ", head, re.M):
        return 0
    roles = {_ROLE_WORDS[m.group(2).lower()] for m in _HEADING.finditer(_FENCED.sub("", head))}
    if "user" in roles and "assistant" in roles:
        return 60
    if roles & {"user", "assistant"}:
        return 25 if path.endswith((".md", ".markdown")) else 15
    return 0


def _call(title: str | None, body: str, cid: str) -> ToolCall:
    name = (title or "tool").strip().strip("`") or "tool"
    fence = _FIRST_FENCE.search(body)
    lang = fence.group(1).lower() if fence else ""
    if fence and (name.lower() in _SHELL_NAMES or lang in _SHELL_LANGS):
        cmd = fence.group(2).rstrip("\n")
        return ToolCall(name, {"command": cmd}, cid, ToolKind.SHELL, command=cmd)
    return ToolCall(name, {"input": body}, cid, ToolKind.OTHER)


def _sections(text: str) -> list[tuple[str, str | None, int, str]]:
    """(role word, heading suffix, line number, body) per role heading outside fenced code."""
    lines = text.split("\n")
    out: list[tuple[str, str | None, int, list[str]]] = []
    in_fence = False
    for n, line in enumerate(lines, 1):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            m = _HEADING.match(line)
            if m:
                out.append((_ROLE_WORDS[m.group(2).lower()], m.group(3) or None, n, []))
                continue
        if out:
            out[-1][3].append(line)
    return [(r, s, n, "\n".join(b).strip("\n")) for r, s, n, b in out]


def load(path: str) -> Transcript:
    text = read_text(path)
    if not text.strip():
        raise TranscriptError(path, "empty file")
    sections = _sections(text)
    if not sections:
        raise TranscriptError(path, "no role headings (## User / ## Assistant) found", 1)
    t = Transcript(path=path, format=NAME, messages=[])
    last_call: ToolCall | None = None
    for role, suffix, line_no, body in sections:
        idx = len(t.messages)
        if role == "call":
            last_call = _call(suffix, body, f"call-{idx}")
            if not t.messages or t.messages[-1].role is not Role.ASSISTANT:
                t.messages.append(Message(idx, Role.ASSISTANT, "", line=line_no))
            t.messages[-1].tool_calls.append(last_call)
        elif role == "tool":
            code_m = _EXIT.search(suffix or "")
            code = int(code_m.group(1)) if code_m else None
            whole = _WHOLE_FENCE.match(body)
            if whole and "```" not in whole.group(1):
                body = whole.group(1)
            result = ToolResult(body, last_call.id if last_call else None, last_call.name if last_call else suffix,
                                is_error=bool(code), exit_code=code)
            t.messages.append(Message(idx, Role.TOOL, "", tool_results=[result], line=line_no))
            last_call = None
        else:
            msg = Message(idx, Role(role), body, line=line_no)
            t.messages.append(msg)
            if msg.role is Role.ASSISTANT:
                last_call = None
    return t
