"""OpenHands `output.jsonl` records and bare event lists.

A record is `{"instance_id", "instruction", "history": [event], "test_result": {"git_patch"}}`;
`output.jsonl` holds one record per line (we load the first and warn about the rest); an event
list is `[event, ...]` (older versions: `[[action, observation], ...]`). An event is an
*action* (`action`: run, read, edit, think, message, finish, task_tracking, recall, system…,
with `args`) or an *observation* (`observation`, `content`, `extras`, `cause` = the action's
id). Actions are the agent's steps; observations become tool results matched by `cause`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, TranscriptError
from compaction.transcripts._io import expect, load_json, open_binary

NAME = "openhands"
DESCRIPTION = "OpenHands output.jsonl record (instruction + history) or event list (actions/observations)"

_UPLOADED = re.compile(r"<uploaded_files>\s*(\S+?)\s*</uploaded_files>")
_EDIT_KEYS = ("command", "old_str", "new_str", "file_text", "insert_line", "content", "view_range")
_SKIP_ACTIONS = {"change_agent_state", "null", "condensation", "condensation_request"}
_SKIP_OBS = {"agent_state_changed", "null", "condensation"}


def sniff(head: str, path: str) -> int:
    s = head.lstrip()
    has_events = ('"observation"' in head and '"cause"' in head) or ('"action"' in head and '"source"' in head)
    if s.startswith("{") and '"history"' in head and ('"instruction"' in head or '"instance_id"' in head):
        return 92 if has_events or '"test_result"' in head else 70
    if s.startswith("[") and has_events and '"args"' in head:
        return 85
    if s.startswith("{") and has_events and '"args"' in head and '"id"' in head:
        return 60  # a single event or a record whose history starts beyond the head
    return 0


def _read(path: str, t: Transcript) -> Any:
    """One JSON document, or the first record of a JSONL file (streamed; the rest only counted)."""
    with open_binary(path) as fh:
        first = fh.readline()
        rest_nonblank = 0
        if first.strip().startswith(b"{"):
            try:
                record = json.loads(first.decode("utf-8"))
            except (ValueError, RecursionError):  # also numbers beyond int's digit limit (fuzzing)
                record = None
            if isinstance(record, dict):
                for raw in fh:
                    if raw.strip():
                        rest_nonblank += 1
                if rest_nonblank:
                    t.warnings.append(f"{path}: JSONL with {rest_nonblank + 1} records; loaded the first (line 1), "
                                      f"{rest_nonblank} more ignored")
                    t.meta["records_in_file"] = rest_nonblank + 1
                return record
    return load_json(path)


def _assistant_text(ev: dict[str, Any]) -> str:
    args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
    thought = args.get("thought")
    if isinstance(thought, str) and thought.strip():
        return thought
    meta = ev.get("tool_call_metadata")
    if isinstance(meta, dict):
        try:
            content = meta["model_response"]["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            content = None
        if isinstance(content, str):
            return content
    return ""


def _response_id(ev: dict[str, Any]) -> str | None:
    meta = ev.get("tool_call_metadata")
    if isinstance(meta, dict) and isinstance(meta.get("model_response"), dict):
        rid = meta["model_response"].get("id")
        return str(rid) if rid else None
    return None


def _tool_call(ev: dict[str, Any], action: str) -> ToolCall | None:
    args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
    meta = ev.get("tool_call_metadata") if isinstance(ev.get("tool_call_metadata"), dict) else {}
    name = str(meta.get("function_name") or action)
    cid = str(ev.get("id")) if ev.get("id") is not None else None
    if action == "run":
        cmd = args.get("command") if isinstance(args.get("command"), str) else ""
        if args.get("is_input"):  # keystrokes sent to a running process, not a new command line
            return ToolCall(name, {"input": cmd}, cid, ToolKind.OTHER)
        return ToolCall(name, {"command": cmd}, cid, ToolKind.SHELL, command=cmd)
    if action == "run_ipython":
        return ToolCall(name, {"code": args.get("code", "")}, cid, ToolKind.OTHER)
    if action == "read":
        return ToolCall(name, {"path": args.get("path"), "view_range": args.get("view_range")}, cid, ToolKind.READ,
                        path=args.get("path"))
    if action == "edit":
        sub = args.get("command") or ""
        kind = ToolKind.WRITE if sub == "create" else ToolKind.EDIT
        arguments = {k: args[k] for k in _EDIT_KEYS if args.get(k) not in (None, "")}
        arguments["path"] = args.get("path")
        return ToolCall(name, arguments, cid, kind, path=args.get("path"))
    if action == "task_tracking":
        return ToolCall(name, {"command": args.get("command"), "task_list": args.get("task_list")}, cid, ToolKind.TODO)
    if action in ("think", "finish"):
        return ToolCall(action, {}, cid, ToolKind.OTHER)
    if action in ("browse", "browse_interactive", "delegate", "call_tool_mcp", "mcp"):
        return ToolCall(name, {k: v for k, v in args.items() if k != "thought"}, cid, ToolKind.OTHER)
    return None


def _flatten(history: list[Any], path: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for i, ev in enumerate(history):
        if isinstance(ev, dict):
            events.append(ev)
        elif isinstance(ev, list):  # old format: [action, observation] pairs
            events.extend(e for e in ev if isinstance(e, dict))
        else:
            raise TranscriptError(path, f"unexpected shape: history[{i}] must be an event object")
    return events


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    data = _read(path, t)
    instruction: str | None = None
    if isinstance(data, dict):
        history = data.get("history")
        expect(isinstance(history, list), path, 'OpenHands record needs a "history" list', 1)
        if isinstance(data.get("instruction"), str):
            instruction = data["instruction"]
        tr = data.get("test_result")
        if isinstance(tr, dict) and isinstance(tr.get("git_patch"), str):
            t.meta["final_patch"] = tr["git_patch"]
        for key in ("instance_id", "error"):
            if data.get(key) is not None:
                t.meta[key] = data[key]
        md = data.get("metadata")
        if isinstance(md, dict) and md.get("agent_class"):
            t.meta["agent_class"] = md["agent_class"]
    else:
        expect(isinstance(data, list), path, "expected an OpenHands record object or an event list", 1)
        history = data
    events = _flatten(history, path)

    if instruction:
        m = _UPLOADED.search(instruction)
        if m:
            t.cwd = m.group(1)
    has_user_msg = any(ev.get("action") == "message" and ev.get("source") == "user" for ev in events)
    if instruction and not has_user_msg:
        t.messages.append(Message(0, Role.USER, instruction, meta={"instruction": True}))

    by_action: dict[str, ToolCall] = {}
    by_response: dict[str, Message] = {}
    for ev in events:
        idx = len(t.messages)
        ts = ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None
        action, obs = ev.get("action"), ev.get("observation")
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        if isinstance(action, str):
            source = ev.get("source")
            if action == "system":
                text = args.get("content") if isinstance(args.get("content"), str) else str(ev.get("message") or "")
                t.messages.append(Message(idx, Role.SYSTEM, text, timestamp=ts))
            elif action == "message":
                text = args.get("content") if isinstance(args.get("content"), str) else str(ev.get("message") or "")
                role = Role.USER if source == "user" else Role.ASSISTANT
                t.messages.append(Message(idx, role, text, timestamp=ts))
            elif action == "recall":
                t.messages.append(Message(idx, Role.TOOL, str(ev.get("message") or "recall"), timestamp=ts,
                                          harness=True, meta={"recall": True}))
            elif action in _SKIP_ACTIONS:
                t.skip(f"action:{action}")
            else:
                call = _tool_call(ev, action)
                if call is None:
                    t.skip(f"action:{action}")
                    continue
                if call.id:
                    by_action[call.id] = call
                rid = _response_id(ev)
                if rid and rid in by_response:  # several tool calls from one model response: one message
                    by_response[rid].tool_calls.append(call)
                    continue
                text = _assistant_text(ev)
                if action == "finish":
                    ft = args.get("final_thought")
                    text = ft if isinstance(ft, str) and ft.strip() else (text or str(ev.get("message") or ""))
                msg = Message(idx, Role.ASSISTANT, text, tool_calls=[call], timestamp=ts)
                if rid:
                    by_response[rid] = msg
                t.messages.append(msg)
        elif isinstance(obs, str):
            if obs in _SKIP_OBS:
                t.skip(f"observation:{obs}")
                continue
            content = ev.get("content") if isinstance(ev.get("content"), str) else str(ev.get("message") or "")
            if obs == "recall":
                t.messages.append(Message(idx, Role.TOOL, content, timestamp=ts, harness=True, meta={"recall": True}))
                continue
            cause = str(ev["cause"]) if ev.get("cause") is not None else None
            call = by_action.get(cause) if cause else None
            if call is None and obs != "error":
                t.skip(f"observation:{obs}")
                continue
            extras = ev.get("extras") if isinstance(ev.get("extras"), dict) else {}
            md = extras.get("metadata") if isinstance(extras.get("metadata"), dict) else {}
            code = md.get("exit_code")
            code = code if isinstance(code, int) and not isinstance(code, bool) else None
            is_error = (obs == "error" or (code is not None and code != 0) or ev.get("success") is False
                        or content.lstrip().startswith("ERROR:"))
            result = ToolResult(content, call_id=cause, name=call.name if call else obs, is_error=is_error,
                                exit_code=code)
            t.messages.append(Message(idx, Role.TOOL, "", tool_results=[result], timestamp=ts))
        else:
            t.skip("event:unknown")
    if t.cwd is None:
        for ev in events:
            md = (ev.get("extras") or {}).get("metadata") if isinstance(ev.get("extras"), dict) else None
            if isinstance(md, dict) and isinstance(md.get("working_dir"), str):
                t.cwd = md["working_dir"]
                break
    expect(bool(t.messages), path, "no messages (empty history and no instruction)")
    return t
