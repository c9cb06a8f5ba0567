"""Stand-in loader for the real transcript formats, used by the error-memory tests and benches only
while `compaction.transcripts` lacks a loader for a format. It builds the same model.Transcript
(tool outputs as Role.TOOL messages with ToolResult, shell commands as ToolCall) so the code under
test consumes the shared model either way. `load(path)` prefers the real loader."""

from __future__ import annotations

import json
import re
from pathlib import Path

from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, TranscriptError, group_rounds

_BASH = re.compile(r"```(?:bash|sh)?\n(.*?)```", re.S)
_RC = re.compile(r"<returncode>(-?\d+)</returncode>")


def load(path: str | Path) -> Transcript:
    """The real loader when it exists for this file, else the stand-in."""
    try:
        from compaction.transcripts import load_transcript

        return load_transcript(path)
    except TranscriptError:
        return load_raw(path)


def load_raw(path: str | Path) -> Transcript:
    p = Path(path)
    if p.suffix == ".md":
        msgs = _aider(p.read_text(encoding="utf-8"))
        fmt = "aider"
    else:
        data = json.loads(p.read_text(encoding="utf-8"))
        if "history" in data and isinstance(data["history"], list) and data["history"] and "source" in data["history"][0]:
            msgs, fmt = _openhands(data), "openhands"
        elif "trajectory" in data:
            msgs, fmt = _swe_agent(data), "swe-agent"
        else:
            msgs, fmt = _mini(data), "mini-swe-agent"
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript(path=str(p), format=fmt, messages=msgs, rounds=group_rounds(msgs))


def _mini(data: dict) -> list[Message]:
    out: list[Message] = []
    for m in data["messages"]:
        content = m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        if m["role"] == "system":
            out.append(Message(0, Role.SYSTEM, content))
        elif m["role"] == "assistant":
            calls = [ToolCall("bash", {"command": b.strip()}, kind=ToolKind.SHELL, command=b.strip())
                     for b in _BASH.findall(content)[:1]]
            out.append(Message(0, Role.ASSISTANT, content, tool_calls=calls))
        elif content.startswith("<returncode>") or (out and out[-1].role is Role.ASSISTANT and "<output" in content):
            rc = _RC.search(content)
            out.append(Message(0, Role.TOOL, "", tool_results=[
                ToolResult(content, exit_code=int(rc.group(1)) if rc else None)]))
        elif out and out[-1].role is Role.ASSISTANT:
            out.append(Message(0, Role.USER, content, harness=True))
        else:
            out.append(Message(0, Role.USER, content))
    return out


def _swe_agent(data: dict) -> list[Message]:
    out: list[Message] = []
    for m in data["history"]:
        if m.get("is_demo"):
            continue
        content = m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        if m["role"] == "system":
            out.append(Message(0, Role.SYSTEM, content))
        elif m["role"] == "assistant":
            action = (m.get("action") or "").strip()
            calls = [ToolCall("swe-agent", {"action": action}, kind=ToolKind.SHELL, command=action)] if action else []
            out.append(Message(0, Role.ASSISTANT, m.get("thought") or content, tool_calls=calls))
        elif out and out[-1].role is Role.ASSISTANT:
            out.append(Message(0, Role.TOOL, "", tool_results=[ToolResult(content)]))
        else:
            out.append(Message(0, Role.USER, content))
    return out


def _openhands(data: dict) -> list[Message]:
    out: list[Message] = []
    for e in data["history"]:
        if e.get("action") == "system":
            out.append(Message(0, Role.SYSTEM, e.get("message", "")))
        elif e.get("source") == "user" and e.get("action") == "message":
            out.append(Message(0, Role.USER, e["args"].get("content", e.get("message", ""))))
        elif e.get("action"):
            if e["action"] in ("recall",):
                continue
            args = e.get("args", {})
            kind = {"run": ToolKind.SHELL, "read": ToolKind.READ, "edit": ToolKind.EDIT}.get(e["action"], ToolKind.OTHER)
            call = ToolCall(e["action"], args, id=str(e["id"]), kind=kind, command=args.get("command") if kind == ToolKind.SHELL else None,
                            path=args.get("path"))
            out.append(Message(0, Role.ASSISTANT, args.get("thought", "") or "", tool_calls=[call]))
        elif e.get("observation"):
            if e["observation"] == "recall":
                continue
            meta = (e.get("extras") or {}).get("metadata") or {}
            ec = meta.get("exit_code") if isinstance(meta, dict) else None
            out.append(Message(0, Role.TOOL, "", tool_results=[ToolResult(
                e.get("content", ""), call_id=str(e.get("cause")), name=e["observation"],
                is_error=e["observation"] == "error", exit_code=ec)]))
    return out


def _aider(text: str) -> list[Message]:
    out: list[Message] = []
    buf: list[str] = []
    kind = None

    def flush() -> None:
        if not buf or kind is None:
            return
        body = "\n".join(buf).strip("\n")
        if kind == "user":
            out.append(Message(0, Role.USER, body))
        elif kind == "tool":
            out.append(Message(0, Role.TOOL, "", tool_results=[ToolResult(body)], harness=True))
        elif body.strip():
            out.append(Message(0, Role.ASSISTANT, body))

    for line in text.split("\n"):
        k = "user" if line.startswith("#### ") else "tool" if line.startswith(">") else "assistant" if line.strip() else kind
        if line.startswith("# aider chat started"):
            k = "tool"
        if k != kind:
            flush()
            buf, kind = [], k
        buf.append(line)
    flush()
    return out
