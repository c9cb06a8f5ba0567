"""Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Records are `{timestamp, type, payload}` with types `session_meta`, `response_item`, `event_msg`,
`turn_context`, `compacted` (older rollouts put the response items directly on the line). One model
response is split into several `response_item`s — `reasoning`, `message`, `function_call`,
`custom_tool_call`, `local_shell_call` — which are merged into ONE assistant Message until a tool
output or a user message intervenes. `event_msg` records repeat what the response items say for the
UI; they are skipped (counted), except that `exec_command_end` exit codes fill results lacking one.
"""

from __future__ import annotations

import json
import re
from typing import Any

from compaction.model import Message, Role, ToolKind, ToolResult, Transcript, TranscriptError
from compaction.transcripts._agent_tools import as_text, exit_code_for, make_call, parse_arguments
from compaction.transcripts._io import content_text, expect, iter_jsonl

NAME = "codex"
DESCRIPTION = "Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)"

_ENVELOPE = re.compile(r'"type"\s*:\s*"(session_meta|response_item|turn_context|event_msg|compacted)"')
_ITEM = re.compile(r'"type"\s*:\s*"(function_call|function_call_output|local_shell_call|custom_tool_call)"')
_HARNESS_USER = re.compile(r"^\s*<(environment_context|user_instructions|user_shell_command|turn_aborted)>|"
                           r"^\s*# AGENTS\.md instructions", re.I)
_CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call"}
_OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output"}


def sniff(head: str, path: str) -> int:
    if head.lstrip()[:1] != "{":
        return 0
    if _ENVELOPE.search(head) and '"payload"' in head:
        return 95 if '"session_meta"' in head or '"response_item"' in head else 70
    if re.search(r'"record_type"\s*:\s*"state"', head):
        return 70  # pre-envelope rollouts mark state snapshots this way
    if _ITEM.search(head) and '"call_id"' in head:
        return 60  # pre-envelope rollouts: bare response items
    return 0


def _output(payload: dict[str, Any], name: str | None) -> tuple[str, int | None, bool]:
    """(text, exit code, is_error) of a function-call output in any of its historical shapes."""
    out = payload.get("output")
    success: Any = None
    if isinstance(out, dict):  # {"content": "...", "success": false}
        success = out.get("success")
        out = out.get("content", out.get("output"))
    if isinstance(out, list):
        out = content_text(out)
    text = as_text(out)
    exit_code: int | None = None
    stripped = text.lstrip()
    if stripped.startswith("{") and '"output"' in stripped[:200] or stripped.startswith('{"metadata"'):
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict) and "output" in obj:
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
            if isinstance(meta.get("exit_code"), int):
                exit_code = meta["exit_code"]
            text = as_text(obj["output"])
    if exit_code is None:
        exit_code = exit_code_for(name, text)
    is_error = success is False or (exit_code is not None and exit_code != 0)
    return text, exit_code, is_error


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    msgs = t.messages
    current: Message | None = None  # the assistant message the next call/message item joins
    reasoning: list[str] = []
    exit_codes: dict[str, int] = {}
    names: dict[str, str] = {}
    seen = 0
    for lineno, rec in iter_jsonl(path, t.warnings):
        seen += 1
        expect(isinstance(rec, dict), path, "a JSONL record must be an object", lineno)
        rtype = rec.get("type")
        ts = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
        if "payload" in rec and rtype in ("session_meta", "response_item", "event_msg", "turn_context", "compacted"):
            payload = rec["payload"]
            expect(isinstance(payload, dict), path, f"'payload' of a {rtype} record must be an object", lineno)
        elif rec.get("record_type") == "state":
            t.skip("state")
            continue
        elif isinstance(rtype, str) and ("role" in rec or rtype in _CALL_TYPES | _OUTPUT_TYPES | {"reasoning"}):
            payload, rtype = rec, "response_item"  # pre-envelope rollout line
        elif lineno == 1 and "id" in rec and "timestamp" in rec and "type" not in rec:
            payload, rtype = rec, "session_meta"  # pre-envelope header
        else:
            t.skip(str(rtype) if rtype else "untyped")
            continue
        if rtype == "session_meta":
            if isinstance(payload.get("cwd"), str):
                t.cwd = t.cwd or payload["cwd"]
            t.meta.update({k: payload[k] for k in ("id", "cli_version", "originator", "model_provider") if k in payload})
            continue
        if rtype == "turn_context":
            if t.cwd is None and isinstance(payload.get("cwd"), str):
                t.cwd = payload["cwd"]
            if isinstance(payload.get("model"), str):
                t.meta["model"] = payload["model"]
            t.skip("turn_context")
            continue
        if rtype == "event_msg":
            if payload.get("type") == "exec_command_end" and isinstance(payload.get("exit_code"), int):
                exit_codes[str(payload.get("call_id"))] = payload["exit_code"]
            t.skip("event_msg")
            continue
        if rtype == "compacted":
            text = as_text(payload.get("message") or "")
            msgs.append(Message(len(msgs), Role.SYSTEM, text, timestamp=ts, line=lineno, harness=True,
                                meta={"compacted": True, "carried_summary": True}))
            current = None
            continue
        current = _item(t, payload, current, reasoning, names, ts, lineno)
    if not seen:
        raise TranscriptError(path, "empty file (no JSON records)")
    for msg in msgs:  # exit codes the UI events recorded but the output text did not state
        for r in msg.tool_results:
            if r.exit_code is None and r.call_id in exit_codes:
                r.exit_code = exit_codes[r.call_id]
                r.is_error = r.is_error or r.exit_code != 0
    return t


def _assistant(t: Transcript, current: Message | None, reasoning: list[str], ts: str | None, lineno: int) -> Message:
    if current is None:
        current = Message(len(t.messages), Role.ASSISTANT, "", timestamp=ts, line=lineno)
        t.messages.append(current)
    if reasoning:
        current.meta.setdefault("reasoning", []).extend(reasoning)
        reasoning.clear()
    return current


def _item(t: Transcript, p: dict[str, Any], current: Message | None, reasoning: list[str], names: dict[str, str],
          ts: str | None, lineno: int) -> Message | None:
    """Add one response item; returns the assistant message later items of the same response join."""
    itype = p.get("type") if isinstance(p.get("type"), str) else None  # unhashable types crashed (fuzzing)
    msgs = t.messages
    if itype == "reasoning":
        summary = p.get("summary")
        text = content_text(summary) if isinstance(summary, list) else ""
        if not text and isinstance(p.get("content"), list):
            text = content_text(p["content"])
        if text:
            reasoning.append(text)
        return current
    if itype == "message":
        role = p.get("role")
        text = content_text(p.get("content"))
        if role == "assistant":
            current = _assistant(t, current, reasoning, ts, lineno)
            current.text = f"{current.text}\n{text}" if current.text else text
            return current
        if role in ("system", "developer"):
            msgs.append(Message(len(msgs), Role.SYSTEM, text, timestamp=ts, line=lineno))
            return None
        expect(role == "user", t.path, f"unknown message role {role!r}", lineno)
        msgs.append(Message(len(msgs), Role.USER, text, timestamp=ts, line=lineno,
                            harness=bool(_HARNESS_USER.match(text))))
        return None
    if itype in _CALL_TYPES:
        current = _assistant(t, current, reasoning, ts, lineno)
        call_id = p.get("call_id") or p.get("id")
        if itype == "local_shell_call":
            action = p.get("action") if isinstance(p.get("action"), dict) else {}
            args = {k: v for k, v in action.items() if k != "type"}
            call = make_call("local_shell", args, call_id, ToolKind.SHELL)
        elif itype == "custom_tool_call":
            name = str(p.get("name") or "unknown")
            raw = p.get("input")
            args = parse_arguments(raw) if isinstance(raw, str) and raw.lstrip().startswith("{") else {"input": raw}
            call = make_call(name, args, call_id)
        else:
            call = make_call(str(p.get("name") or "unknown"), parse_arguments(p.get("arguments")), call_id)
        if call_id:
            names[str(call_id)] = call.name
        current.tool_calls.append(call)
        return current
    if itype in _OUTPUT_TYPES:
        cid = p.get("call_id")
        text, code, is_error = _output(p, names.get(str(cid)))
        msgs.append(Message(len(msgs), Role.TOOL, "", timestamp=ts, line=lineno, tool_results=[
            ToolResult(content=text, call_id=cid, name=names.get(str(cid)), is_error=is_error, exit_code=code)]))
        return None
    t.skip(f"response_item:{itype}")
    return current
