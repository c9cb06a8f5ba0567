"""pi coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`), versions 1-3.

A `session` header (cwd, `version` absent in v1), then entries: `message` holding an AgentMessage
(`user`, `assistant` with `text`/`thinking`/`toolCall{id,name,arguments}` blocks, `toolResult` with
`toolCallId`, `bashExecution` (a `!cmd` the user ran), `custom` (v3; `hookMessage` in v2),
`branchSummary`, `compactionSummary`), plus `compaction` / `branch_summary` / `custom_message` entries
whose text the model sees, and settings entries (`model_change`, `thinking_level_change`, `label`,
`session_info`, `custom`) that it does not. v2+ entries form a tree by `id`/`parentId`; every entry is
kept in file order (abandoned branches are still history). A line may hold two records.
"""

from __future__ import annotations

import re
from typing import Any

from compaction.model import Message, Role, ToolCall, ToolResult, Transcript, group_rounds
from compaction.transcripts._agent_tools import as_text, exit_code_for, make_call
from compaction.transcripts._io import content_text, expect, iter_json_records

NAME = "pi"
DESCRIPTION = "pi coding agent session JSONL, v1-v3 (~/.pi/agent/sessions/--<cwd>--/*.jsonl)"

_HEADER = re.compile(r'\A\s*\{\s*"type"\s*:\s*"session"\s*,')
_PI_ROLES = re.compile(r'"role"\s*:\s*"(toolResult|bashExecution|compactionSummary|branchSummary|hookMessage)"')
_PI_BLOCK = re.compile(r'"type"\s*:\s*"toolCall"|"type"\s*:\s*"thinking_level_change"|"type"\s*:\s*"model_change"')
_SETTINGS = {"model_change", "thinking_level_change", "label", "session_info", "custom", "session_state"}


def sniff(head: str, path: str) -> int:
    if not head.lstrip().startswith("{"):
        return 0
    if _HEADER.match(head) and ('"cwd"' in head or '"version"' in head):
        return 90 if (_PI_ROLES.search(head) or _PI_BLOCK.search(head) or '"message"' in head) else 70
    if _PI_ROLES.search(head) and '"type":"message"' in head.replace(" ", ""):
        return 75
    return 0


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    for lineno, rec in iter_json_records(path, t.warnings):
        expect(isinstance(rec, dict), path, "a JSONL record must be an object", lineno)
        kind = rec.get("type") if isinstance(rec.get("type"), str) else None
        ts = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
        if kind == "session":
            if isinstance(rec.get("cwd"), str):
                t.cwd = rec["cwd"]
            t.meta["pi_version"] = rec.get("version", 1)
            continue
        if kind == "message":
            msg = rec.get("message")
            expect(isinstance(msg, dict), path, "a message entry needs a 'message' object", lineno)
            _message(t, msg, ts, lineno)
        elif kind in ("compaction", "branch_summary") and isinstance(rec.get("summary"), str):
            label = "compaction summary" if kind == "compaction" else "branch summary"
            summary = _add(t, Role.USER, f"[{label}]\n{rec['summary']}", ts, lineno, harness=True, kind=kind)
            summary.meta["carried_summary"] = True  # an earlier part's summary: read by its sections
            kept = rec.get("firstKeptEntryIndex")
            if kind == "compaction" and isinstance(kept, int) and not isinstance(kept, bool):
                _before_kept(t, summary, kept)
        elif kind == "custom_message":
            _add(t, Role.USER, content_text(rec.get("content")), ts, lineno, harness=True, kind=kind)
        elif kind in _SETTINGS:
            t.skip(kind)
        else:
            t.skip(kind or "unknown")
    return t


def _before_kept(t: Transcript, summary: Message, kept: int) -> None:
    """A compaction entry is written when pi compacts, after the entries it keeps; it summarizes only
    those before the first kept one (`firstKeptEntryIndex`, counted from the file's first line). Said in
    its label, by round: at the end of a session it would read as the latest state, which it is not."""
    at = next((m for m in t.messages if m is not summary and m.line is not None and m.line > kept), None)
    if at is None:
        return
    rounds = group_rounds([m for m in t.messages if m is not summary])
    first = next((r.number for r in rounds if any(m is at for m in r.messages)), None)
    if first is None or first <= 1:
        return
    head, _, body = summary.text.partition("\n")
    last = first - 1
    summary.meta["summarizes_through"] = last  # this session's own rounds, not an earlier session's
    summary.text = (f"{head[:-1]} of r1-r{last} only, written after r{rounds[-1].number}: older than the rounds "
                    f"after r{last}]\n{body}")


def _add(t: Transcript, role: Role, text: str, ts: str | None, line: int, *, harness: bool = False,
         kind: str | None = None, **fields: Any) -> Message:
    msg = Message(len(t.messages), role, text, timestamp=ts, line=line, harness=harness,
                  meta={"pi_kind": kind} if kind else {}, **fields)
    t.messages.append(msg)
    return msg


def _message(t: Transcript, msg: dict[str, Any], ts: str | None, line: int) -> None:
    role = msg.get("role") if isinstance(msg.get("role"), str) else None
    content = msg.get("content")
    if role == "user":
        _add(t, Role.USER, content_text(content), ts, line)
    elif role == "assistant":
        _assistant(t, content, msg, ts, line)
    elif role == "toolResult":
        name = msg.get("toolName") if isinstance(msg.get("toolName"), str) else None
        body = content_text(content) if isinstance(content, list) else as_text(content)
        cid = msg.get("toolCallId") if isinstance(msg.get("toolCallId"), str) else None
        result = ToolResult(body, cid, name, is_error=msg.get("isError") is True, exit_code=exit_code_for(name, body))
        _add(t, Role.TOOL, "", ts, line, tool_results=[result])
    elif role == "bashExecution":
        command = as_text(msg.get("command"))
        code = msg.get("exitCode") if isinstance(msg.get("exitCode"), int) else None
        call = make_call("bash", {"command": command}, f"bash-{line}")
        _add(t, Role.USER, f"!{command}", ts, line, kind="bashExecution", tool_calls=[call])
        result = ToolResult(as_text(msg.get("output")), call.id, "bash", is_error=bool(code), exit_code=code)
        _add(t, Role.TOOL, "", ts, line, tool_results=[result])
    elif role in ("custom", "hookMessage"):
        _add(t, Role.USER, content_text(content), ts, line, harness=True, kind=str(role))
    elif role in ("branchSummary", "compactionSummary"):
        summary = _add(t, Role.USER, as_text(msg.get("summary")), ts, line, harness=True, kind=str(role))
        summary.meta["carried_summary"] = True  # an earlier part's summary: read by its sections
    else:
        t.skip(f"message:{role}")


def _assistant(t: Transcript, content: Any, msg: dict[str, Any], ts: str | None, line: int) -> None:
    texts: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[str] = []
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif btype == "toolCall":
            args = block.get("arguments")
            calls.append(make_call(str(block.get("name") or "unknown"), args if isinstance(args, dict) else {"input": args},
                                   block.get("id") if isinstance(block.get("id"), str) else None))
        elif btype == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
    if isinstance(msg.get("errorMessage"), str):
        texts.append(f"[error: {msg['errorMessage']}]")
    m = _add(t, Role.ASSISTANT, "\n".join(x for x in texts if x), ts, line, tool_calls=calls)
    if thinking:
        m.meta["thinking"] = thinking
