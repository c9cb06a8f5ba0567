"""Anthropic Messages lists and Cline's `api_conversation_history.json`.

A JSON list of `{role: user|assistant, content: str | [blocks]}` (or `{"system": ..., "messages": [...]}`)
with blocks `text`, `tool_use{id, name, input}`, `tool_result{tool_use_id, content, is_error}`,
`image`, `thinking`. User messages made only of tool results are TOOL messages.

Cline (XML tool protocol) writes tool calls as XML inside assistant text
(`<execute_command><command>npm test</command></execute_command>`) and answers with user text blocks
`[execute_command for 'npm test'] Result:` followed by the output and an `<environment_details>` block;
those are parsed into ToolCalls and TOOL messages (environment details kept in meta, not in text).
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from typing import Any

from compaction.model import Message, Role, ToolCall, ToolResult, Transcript
from compaction.transcripts._agent_tools import (
    as_text,
    checklist_todos,
    exit_code_for,
    load_json_items,
    looks_jsonl,
    make_call,
    said_as_text,
)
from compaction.transcripts._io import content_text, expect

NAME = "anthropic"
DESCRIPTION = "Anthropic Messages list / Cline, Roo, Kilo api_conversation_history.json (tool_use or XML tags)"

CLINE_TOOLS = (
    "execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
    "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource",
    "ask_followup_question", "attempt_completion", "plan_mode_respond", "new_task", "apply_diff",
    "insert_content", "search_and_replace", "load_mcp_documentation", "web_fetch", "condense",
    "new_rule", "report_bug", "summarize_task", "focus_chain",
    # Roo Code / Kilo Code additions
    "update_todo_list", "switch_mode", "fetch_instructions", "codebase_search", "run_slash_command",
    "generate_image", "simple_read_file", "edit_file",
)
_TOOL_XML = re.compile(r"<(" + "|".join(CLINE_TOOLS) + r")>(.*?)(?:</\1>|\Z)", re.S)
_PARAM_XML = re.compile(r"<([a-z_]+)>(.*?)(?:</\1>|\Z)", re.S)  # a cut-off export may leave the last one open
_NESTED_PATH = re.compile(r"<path>(.*?)</path>", re.S)
_ROO_TODO = re.compile(r"^[^\S\n]*(?:[-*]\s*)?\[([ xX-])\]\s*+(.*\S)\s*$", re.M)
_THINKING = re.compile(r"<thinking>(.*?)</thinking>\s*", re.S)
_RESULT_HEAD = re.compile(r"^\[([a-z_]+)(?: for '(.*?)')?(?:[^\]\n]*)\] Result:\s*", re.S)
_LATER_RESULT_HEAD = re.compile(r"(?<=\n)\[[a-z_]+(?: for '[^'\n]*')?[^\]\n]*\] Result:")
_FEEDBACK_LAST = re.compile(r"^<feedback>[ \t\r]*\n.*^</feedback>\s*\Z", re.S | re.M | re.I)  # before a result head
_ENV = re.compile(r"\s*<environment_details>.*?(?:</environment_details>|\Z)\s*", re.S)
_ERROR_RESULT = re.compile(r"\A\s*(?:The tool execution failed with the following error|"
                           r"The user denied this operation|Missing value for required parameter)")
_CWD = re.compile(r"# Current Working Directory \((.+?)\) Files")
_HARNESS_USER = re.compile(r"^\s*\[ERROR\] You did not use a tool|^\s*\[TASK RESUMPTION\]", re.M)


def sniff(head: str, path: str) -> int:
    start = head.lstrip()[:1]
    if start not in "[{" or not re.search(r'"role"\s*:\s*"(user|assistant)"', head) or looks_jsonl(head):
        return 0
    if start == "{" and not re.match(r'\s*\{\s*"(messages|system|model|max_tokens|id)"\s*:', head):
        return 0  # an object must be a Messages request body; JSONL records (Claude Code) are not
    if re.search(r'"role"\s*:\s*"(tool|function|model)"', head) or '"tool_calls"' in head or '"parts"' in head:
        return 0
    if "<environment_details>" in head or "] Result:" in head or re.search(r"<task>\\n", head):
        return 90
    if re.search(r'"type"\s*:\s*"(tool_use|tool_result)"', head):
        return 85
    if re.search(r'"content"\s*:\s*\[\s*\{\s*"type"\s*:\s*"text"', head):
        return 40 if start == "[" else 30
    return 0


def _iso(ts: Any) -> str | None:
    if isinstance(ts, str):
        return ts
    if isinstance(ts, (int, float)) and ts > 0:  # Cline stores epoch milliseconds
        try:
            return datetime.fromtimestamp(ts / 1000 if ts > 1e11 else ts, UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):  # out of range (found by fuzzing): no timestamp
            return None
    return None


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    top, items = load_json_items(path, ("messages",))
    if top is not None and top.get("system"):
        system = top["system"] if isinstance(top["system"], str) else content_text(top["system"])
        t.messages.append(Message(0, Role.SYSTEM, system, line=1))
    cline = False
    for line, item in items:
        expect(isinstance(item, dict), path, "each message must be an object", line)
        role, content = item.get("role"), item.get("content")
        expect(role in ("user", "assistant", "system"), path, f"message role must be user/assistant, not {role!r}", line)
        expect(isinstance(content, (str, list)), path, "'content' must be a string or a list of blocks", line)
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        ts = _iso(item.get("ts") or item.get("timestamp"))
        if role == "assistant":
            cline = _assistant(t, blocks, ts, line) or cline
        elif role == "system":
            t.messages.append(Message(len(t.messages), Role.SYSTEM, content_text(content), timestamp=ts, line=line))
        else:
            cline = _user(t, blocks, ts, line, cline) or cline
    if cline:
        t.meta["dialect"] = "cline"
        for msg in t.messages:  # Cline names its working directory inside <environment_details>
            m = next((_CWD.search(e) for e in msg.meta.get("environment_details", []) if _CWD.search(e)), None)
            if m:
                t.cwd = m.group(1)
                break
    return t


def _xml_calls(text: str) -> tuple[str, list[ToolCall], dict[str, Any]]:
    """Cline XML tool calls in assistant text -> (remaining text, calls, meta)."""
    meta: dict[str, Any] = {}
    thinking = _THINKING.findall(text)
    if thinking:
        meta["thinking"] = [x.strip() for x in thinking]
        text = _THINKING.sub("", text)
    calls: list[ToolCall] = []
    if "<" not in text:
        return text.strip(), calls, meta
    said: list[str] = []  # per call tag, what replaces it in the text: a speech call's words, else nothing
    for m in _TOOL_XML.finditer(text):
        name, body = m.group(1), m.group(2)
        args = {k: html.unescape(v.strip("\n")) for k, v in _PARAM_XML.findall(body)}
        paths = [html.unescape(p.strip()) for p in _NESTED_PATH.findall(body)] if "path" not in args else []
        if paths:  # Roo's `<args><file><path>…</path></file>…</args>`
            args.update({"path": paths[0], "paths": paths})
        if name == "update_todo_list" and "todos" in args:
            args["raw"], args["todos"] = args["todos"], _roo_todos(args["todos"])
        call = make_call(name, args)
        if name == "execute_command" and "command" in args:
            call.command = args["command"]
        words = said_as_text(call)
        said.append(f"\n{words}\n" if words else "")
        calls.append(call)
        if args.get("task_progress"):
            todos = checklist_todos(args["task_progress"])
            calls.append(make_call("task_progress", {"todos": todos, "raw": args["task_progress"]}))
    if calls:
        replacement = iter(said)
        text = _TOOL_XML.sub(lambda _: next(replacement), text)
    return text.strip(), calls, meta


def _roo_todos(text: str) -> list[dict[str, str]]:
    """Roo's `update_todo_list`: `[ ]` pending, `[-]` in progress, `[x]` done, one per line."""
    status = {"x": "completed", "X": "completed", "-": "in_progress"}
    return [{"content": m.group(2), "status": status.get(m.group(1), "pending")} for m in _ROO_TODO.finditer(text)]


def _assistant(t: Transcript, blocks: list, ts: str | None, line: int) -> bool:
    texts: list[str] = []
    calls: list[ToolCall] = []
    meta: dict[str, Any] = {}
    cline = False
    for block in blocks:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            text, xml_calls, xmeta = _xml_calls(block["text"])
            cline = cline or bool(xml_calls)
            calls.extend(xml_calls)
            for k, v in xmeta.items():
                meta.setdefault(k, []).extend(v)
            if text:
                texts.append(text)
        elif btype == "tool_use":
            args = block.get("input") if isinstance(block.get("input"), dict) else {}
            calls.append(make_call(str(block.get("name") or "unknown"), args, block.get("id")))
            if words := said_as_text(calls[-1]):
                texts.append(words)
        elif btype in ("thinking", "redacted_thinking"):
            meta.setdefault("thinking", []).append(block.get("thinking") or "")
    index = len(t.messages)
    for j, call in enumerate(calls):
        if call.id is None:  # XML calls carry no ids; results are paired with them by order below
            call.id = f"xml-{index}-{j}"
    t.messages.append(Message(index, Role.ASSISTANT, "\n".join(texts), tool_calls=calls,
                              timestamp=ts, line=line, meta=meta))
    return cline


def _cline_result(name: str, target: str | None, body: str) -> ToolResult:
    is_error = bool(_ERROR_RESULT.match(body))
    code = exit_code_for(name, body)
    if code is not None and code != 0:
        is_error = True
    return ToolResult(content=body.strip(), name=name, is_error=is_error, exit_code=code)


def _user(t: Transcript, blocks: list, ts: str | None, line: int, cline: bool = False) -> bool:
    """Append the user turn `blocks` make (a TOOL message when they hold results); whether it is Cline's.
    `cline`: the conversation is known to be Cline's already."""
    results: list[ToolResult] = []
    texts: list[str] = []
    env: list[str] = []
    known, cline = cline, False
    pending: ToolResult | None = None  # a Cline "[x] Result:" block collects the text blocks after it
    names = {c.id: c.name for m in t.messages[-4:] for c in m.tool_calls if c.id}
    for block in _results_apart(blocks, known):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "tool_result":
            pending = None
            body = content_text(block.get("content")) if isinstance(block.get("content"), list) else as_text(block.get("content"))
            tid = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None  # (fuzzing)
            name = names.get(tid)
            results.append(ToolResult(content=body, call_id=tid, name=name,
                                      is_error=block.get("is_error") is True, exit_code=exit_code_for(name, body)))
            continue
        if btype != "text" or not isinstance(block.get("text"), str):
            continue
        text = block["text"]
        found = _ENV.findall(text)
        if found:
            env.extend(x.strip() for x in found)
            text = _ENV.sub("\n", text).strip()
        head = _RESULT_HEAD.match(text)
        if head:
            cline = True
            pending = _cline_result(head.group(1), head.group(2), text[head.end():])
            results.append(pending)
        elif pending is not None and text:
            pending.content = f"{pending.content}\n{text}".strip()
            replacement = _cline_result(pending.name or "", None, pending.content)
            pending.is_error, pending.exit_code = replacement.is_error, replacement.exit_code
        elif text:
            texts.append(text)
    if cline and results:  # XML calls carry no ids: pair results with the preceding calls in order
        prev = next((m for m in reversed(t.messages) if m.role is Role.ASSISTANT), None)
        if prev is not None:
            for call, r in zip([c for c in prev.tool_calls if c.name != "task_progress"], results, strict=False):
                r.call_id = r.call_id or call.id
    meta = {"environment_details": env} if env else {}
    if results:  # (the user's feedback in them is taken apart after loading: user_feedback.py)
        t.messages.append(Message(len(t.messages), Role.TOOL, "\n".join(texts), tool_results=results,
                                  timestamp=ts, line=line, meta=meta))
        return cline
    text = "\n".join(texts)
    body = text.strip()  # not a lazy regex group before `\s*</task>`: quadratic on a long run of spaces
    if len(body) >= len("<task></task>") and body.startswith("<task>") and body.endswith("</task>"):
        text, cline = body[len("<task>"):-len("</task>")].strip(), True
    t.messages.append(Message(len(t.messages), Role.USER, text, timestamp=ts, line=line, meta=meta,
                              harness=bool(_HARNESS_USER.match(text))))
    return cline


def _results_apart(blocks: list, cline: bool) -> list:
    """The blocks, a text block holding a Cline result head after other text cut in two there: an
    export may put the user's feedback first and the `[x] Result:` it belongs to after it. Only in
    Cline's content (`cline`: the conversation is known to be Cline's; else the text before the head
    must be Cline's feedback block): elsewhere such a line is the user's, pasted."""
    out = []
    for block in blocks:
        text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
        at = _LATER_RESULT_HEAD.search(text) if isinstance(text, str) and "] Result:" in text else None
        if at is None or not (cline or _FEEDBACK_LAST.search(text, 0, at.start())):
            out.append(block)
            continue
        out += [{"type": "text", "text": text[:at.start()]}, {"type": "text", "text": text[at.start():]}]
    return out
