"""Codex CLI `codex exec --json` event stream (JSONL on stdout, often saved with `> run.jsonl`).

Lines are thread events: `thread.started`, `turn.started|completed|failed`, `item.started|updated|
completed` carrying one item (`agent_message`, `reasoning`, `plan`, `command_execution`,
`file_change`, `mcp_tool_call`, `web_search`, `todo_list`, `error`), and `error`. An item may appear
several times as it progresses; it is placed where it first appeared and takes its last state, so a
stream cut while a command runs still shows the command (without a result). The prompt itself is
not in the stream (it is the command's argument); the rollout file Codex writes beside it under
`~/.codex/sessions/` has it and is what discovery offers first.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from compaction.model import Message, Role, ToolKind, ToolResult, Transcript, TranscriptError
from compaction.transcripts._agent_tools import as_text, join_command, make_call
from compaction.transcripts._io import content_text, expect, iter_jsonl

NAME = "codex-exec"
DESCRIPTION = "Codex CLI `codex exec --json` event stream (JSONL)"

_EVENT = re.compile(r'"type"\s*:\s*"(thread\.started|turn\.started|turn\.completed|turn\.failed|item\.completed|'
                    r'item\.started|item\.updated)"')
_ITEM_EVENTS = ("item.started", "item.updated", "item.completed")
_FILE_KINDS = {"add": ToolKind.WRITE, "update": ToolKind.EDIT, "delete": ToolKind.EDIT}


def sniff(head: str, path: str) -> int:
    if head.lstrip()[:1] != "{" or not _EVENT.search(head):
        return 0
    if re.search(r'"type"\s*:\s*"thread\.started"', head) and '"thread_id"' in head:
        return 95
    return 85 if '"item"' in head else 60


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    items: dict[str, tuple[int, dict[str, Any]]] = {}  # id -> (line first seen, last state)
    order: list[str] = []
    failures: list[tuple[int, str]] = []  # (line, text) of turn.failed / error events
    runs = 0  # `codex exec resume` appended to the same file starts its item ids again
    seen = 0
    for lineno, rec in iter_jsonl(path, t.warnings):
        seen += 1
        expect(isinstance(rec, dict), path, "a JSONL record must be an object", lineno)
        etype = rec.get("type") if isinstance(rec.get("type"), str) else None
        if etype in _ITEM_EVENTS:
            item = rec.get("item")
            expect(isinstance(item, dict), path, f"an {etype} event needs an 'item' object", lineno)
            iid = f"{runs}:{item.get('id') or f'line{lineno}'}"
            if iid not in items:
                order.append(iid)
                items[iid] = (lineno, item)
            else:
                items[iid] = (items[iid][0], item)
            continue
        if etype == "thread.started":
            t.meta["thread_id"] = rec.get("thread_id")
            runs += 1
            continue
        if etype in ("turn.failed", "error"):
            error = rec.get("error") if isinstance(rec.get("error"), dict) else rec
            order.append(f"\0failure{len(failures)}")
            label = "turn failed" if etype == "turn.failed" else "error"
            failures.append((lineno, f"{label}: {as_text(error.get('message') or 'unknown error')}"))
            continue
        t.skip(etype or "untyped")  # turn.started / turn.completed (usage) / plan deltas / input requests
    if not seen:
        raise TranscriptError(path, "empty file (no JSON records)")
    current: Message | None = None  # the assistant message the next call joins (one per response)
    for key in order:
        if key.startswith("\0failure"):
            lineno, text = failures[int(key.removeprefix("\0failure"))]
            t.messages.append(Message(len(t.messages), Role.SYSTEM, text, line=lineno, harness=True))
            current = None
            continue
        lineno, item = items[key]
        current = _item(t, key.split(":", 1)[1], item, lineno, current)
    return t


_SHELL_WRAPPED = re.compile(r"^(?:/\S*/)?(?:bash|sh|zsh) -(?:lc|c|ic) ")


def _command(value: Any) -> str:
    """The command line without Codex's `bash -lc '…'` wrapper (as the rollout loader shows it)."""
    text = as_text(value)
    if _SHELL_WRAPPED.match(text):
        try:
            return join_command(shlex.split(text)) or text
        except ValueError:
            return text
    return text


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []  # a wrong-shaped field is empty, not a crash


def _assistant(t: Transcript, current: Message | None, lineno: int) -> Message:
    if current is None:
        current = Message(len(t.messages), Role.ASSISTANT, "", line=lineno)
        t.messages.append(current)
    return current


def _result(t: Transcript, call_id: str, name: str, text: str, lineno: int, exit_code: int | None,
            failed: bool) -> None:
    t.messages.append(Message(len(t.messages), Role.TOOL, "", line=lineno, tool_results=[
        ToolResult(content=text, call_id=call_id, name=name, is_error=failed, exit_code=exit_code)]))


def _item(t: Transcript, iid: str, item: dict[str, Any], lineno: int, current: Message | None) -> Message | None:
    """Add one item in its last state; returns the assistant message a following call may join."""
    kind = item.get("type") if isinstance(item.get("type"), str) else None
    status = str(item.get("status") or "")
    if kind in ("agent_message", "plan"):
        current = _assistant(t, current, lineno)
        text = as_text(item.get("text"))
        current.text = f"{current.text}\n{text}" if current.text else text
        return current
    if kind == "reasoning":
        current = _assistant(t, current, lineno)
        current.meta.setdefault("reasoning", []).append(as_text(item.get("text")))
        return current
    if kind == "command_execution":
        args = {"command": _command(item.get("command"))}
        if isinstance(item.get("command"), str) and item["command"] != args["command"]:
            args["raw_command"] = item["command"]  # as the model wrote it, wrapper and all
        call = make_call("shell", args, iid, ToolKind.SHELL)
        _assistant(t, current, lineno).tool_calls.append(call)
        if status != "in_progress":
            code = item.get("exit_code") if isinstance(item.get("exit_code"), int) else None
            failed = status in ("failed", "declined") or (code is not None and code != 0)
            text = as_text(item.get("aggregated_output"))
            if status == "declined":
                text = f"{text}\n(command declined)".lstrip()
            _result(t, iid, "shell", text, lineno, code, failed)
        return None
    if kind == "file_change":
        changes = [c for c in _list(item.get("changes")) if isinstance(c, dict) and isinstance(c.get("path"), str)]
        paths = [c["path"] for c in changes]
        kinds = {_FILE_KINDS.get(str(c.get("kind")), ToolKind.EDIT) for c in changes}
        tool_kind = ToolKind.WRITE if kinds == {ToolKind.WRITE} else ToolKind.EDIT
        call = make_call("file_change", {"paths": paths, "changes": changes, "path": paths[0] if paths else None},
                         iid, tool_kind)
        _assistant(t, current, lineno).tool_calls.append(call)
        if status != "in_progress":
            summary = "\n".join(f"{c.get('kind', 'update')} {c['path']}" for c in changes)
            _result(t, iid, "file_change", f"patch {status or 'completed'}\n{summary}".strip(), lineno, None,
                    status == "failed")
        return None
    if kind == "mcp_tool_call":
        name = f"{item.get('server') or 'mcp'}.{item.get('tool') or 'tool'}"
        args = item.get("arguments") if isinstance(item.get("arguments"), dict) else {"input": item.get("arguments")}
        _assistant(t, current, lineno).tool_calls.append(make_call(name, args, iid, ToolKind.OTHER))
        if status != "in_progress":
            error = item.get("error") if isinstance(item.get("error"), dict) else None
            result = item.get("result") if isinstance(item.get("result"), dict) else {}
            text = as_text(error.get("message")) if error else content_text(_list(result.get("content")))
            _result(t, iid, name, text, lineno, None, bool(error) or status == "failed")
        return None
    if kind == "web_search":
        args = {"query": as_text(item.get("query"))}
        _assistant(t, current, lineno).tool_calls.append(make_call("web_search", args, iid, ToolKind.OTHER))
        return current
    if kind == "todo_list":
        todos = [{"content": as_text(x.get("text")), "status": "completed" if x.get("completed") else "pending"}
                 for x in _list(item.get("items")) if isinstance(x, dict)]
        current = _assistant(t, current, lineno)
        current.tool_calls.append(make_call("todo_list", {"todos": todos}, iid, ToolKind.TODO))
        return current
    if kind == "error":
        t.messages.append(Message(len(t.messages), Role.SYSTEM, f"error: {as_text(item.get('message'))}",
                                  line=lineno, harness=True))
        return None
    t.skip(f"item:{kind}")
    return current
