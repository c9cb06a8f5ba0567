"""OpenAI chat-completions messages: a JSON list, or `{"messages": [...]}`.

Roles system/developer, user, assistant, tool (with `tool_call_id`) and the legacy `function`
(with `name`). Assistant `tool_calls[].function.arguments` is a JSON string; the legacy single
`function_call{name, arguments}` is read too. Consecutive assistant messages with nothing between
them stay one response (DESIGN.md §4), which `group_rounds` already ensures.
"""

from __future__ import annotations

import re
from typing import Any

from compaction.model import Message, Role, ToolCall, ToolResult, Transcript
from compaction.transcripts._agent_tools import exit_code_for, load_json_items, looks_jsonl, make_call, parse_arguments
from compaction.transcripts._io import content_text, expect

NAME = "openai-chat"
DESCRIPTION = "OpenAI chat messages (JSON list or {\"messages\": [...]}) with tool_calls / tool results"

_ROLE = re.compile(r'"role"\s*:\s*"(system|developer|user|assistant|tool|function)"')
# top-level keys of other formats that also hold a messages list (mini-swe-agent, SWE-agent, OpenHands)
_FOREIGN = re.compile(r'^\s*\{\s*"(info|trajectory|history|instance_id|environment|instruction)"\s*:')
_ROLES = {"system": Role.SYSTEM, "developer": Role.SYSTEM, "user": Role.USER, "assistant": Role.ASSISTANT,
          "tool": Role.TOOL, "function": Role.TOOL}


def sniff(head: str, path: str) -> int:
    start = head.lstrip()[:1]
    if start not in "[{" or not _ROLE.search(head) or looks_jsonl(head):
        return 0
    if _FOREIGN.match(head) or '"parts"' in head or re.search(r'"type"\s*:\s*"(tool_use|tool_result)"', head):
        return 5
    if start == "{" and not re.match(r'\s*\{\s*"(messages|model|id|object|metadata)"\s*:', head):
        return 10
    if '"tool_calls"' in head or re.search(r'"role"\s*:\s*"(tool|function)"', head) or re.search(r'"function_call"\s*:\s*\{', head):
        return 85
    if re.search(r'"role"\s*:\s*"(system|developer)"', head) or re.search(r'"content"\s*:\s*"', head):
        return 50
    return 35


def _calls(item: dict[str, Any]) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for tc in item.get("tool_calls") if isinstance(item.get("tool_calls"), list) else []:  # (fuzzing)
        if not isinstance(tc, dict):
            continue
        fn = tc.get("function") if isinstance(tc.get("function"), dict) else {}
        name = str(fn.get("name") or tc.get("name") or "unknown")
        calls.append(make_call(name, parse_arguments(fn.get("arguments", tc.get("arguments"))), tc.get("id")))
    fc = item.get("function_call")
    if isinstance(fc, dict):
        calls.append(make_call(str(fc.get("name") or "unknown"), parse_arguments(fc.get("arguments"))))
    return calls


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    top, items = load_json_items(path, ("messages",))
    if top is not None and isinstance(top.get("model"), str):
        t.meta["model"] = top["model"]
    msgs = t.messages
    names: dict[str, str] = {}
    pending_legacy: list[ToolCall] = []  # legacy function_call has no id: pair by order
    for line, item in items:
        expect(isinstance(item, dict), path, "each message must be an object", line)
        role = _ROLES.get(item["role"]) if isinstance(item.get("role"), str) else None
        expect(role is not None, path, f"unknown message role {item.get('role')!r}", line)
        content = item.get("content")
        expect(content is None or isinstance(content, (str, list, dict)), path,
               "'content' must be a string, a list of parts or null", line)
        text = content_text(content)
        ts = item.get("timestamp") if isinstance(item.get("timestamp"), str) else None
        if role is Role.ASSISTANT:
            calls = _calls(item)
            for c in calls:
                if c.id:
                    names[c.id] = c.name
                else:
                    pending_legacy.append(c)
            meta = {"reasoning": item["reasoning_content"]} if item.get("reasoning_content") else {}
            msgs.append(Message(len(msgs), role, text, tool_calls=calls, timestamp=ts, line=line, meta=meta))
        elif role is Role.TOOL:
            cid = item.get("tool_call_id") if isinstance(item.get("tool_call_id"), str) else None  # (fuzzing)
            name = (item.get("name") if isinstance(item.get("name"), str) else None) or names.get(cid)
            if cid is None and pending_legacy:
                legacy = pending_legacy.pop(0)
                name = name or legacy.name
            code = exit_code_for(name, text)
            msgs.append(Message(len(msgs), role, "", timestamp=ts, line=line, tool_results=[
                ToolResult(content=text, call_id=cid, name=name, exit_code=code,
                           is_error=(code is not None and code != 0) or item.get("is_error") is True)]))
        else:
            msgs.append(Message(len(msgs), role, text, timestamp=ts, line=line))
    return t
