"""GitHub Copilot Chat sessions, as VS Code stores them per workspace.

VS Code (MIT; `src/vs/workbench/contrib/chat/common/chatSessionStore.ts`, `model/chatModel.ts`,
`model/objectMutationLog.ts`) keeps each chat session under
`<workspaceStorage>/<id>/chatSessions/` in one of two shapes:

1. `<sessionId>.json`: the serialized chat model `{version, sessionId, requesterUsername,
   responderUsername, requests: [...]}`.
2. `<sessionId>.jsonl` (newer): a change log whose replay gives the same object. Line kinds:
   `0` initial state `{kind, v}`; `1` set `{kind, k: path, v}`; `2` push/splice
   `{kind, k: path, v?: items, i?: truncate-at}`; `3` delete `{kind, k: path}`.

One request is one user turn: `message.text`, then `response[]` parts — Markdown
(`{value}` or `{kind: "markdownContent", content: {value}}`), `thinking`, tool invocations
(`toolInvocationSerialized` with `toolSpecificData` — `terminal` command lines, `input` raw
arguments — and `resultDetails` input/output), `textEditGroup` (the edited file's `uri`),
`inlineReference`; the agent's own record of its tool calls, when present, is
`result.metadata.toolCallRounds[] {response, toolCalls[{name, arguments, id}]}` with outputs in
`result.metadata.toolCallResults[id].content[].value`: that one is preferred (real tool names and
arguments). `result.errorDetails.message` is a failed turn.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from compaction.model import (
    Message,
    Role,
    Round,
    ToolCall,
    ToolKind,
    ToolResult,
    Transcript,
    TranscriptError,
    group_rounds,
)
from compaction.transcripts._agent_tools import as_text, exit_code_for, load_json_items, make_call, parse_arguments
from compaction.transcripts._io import expect, iter_jsonl, open_binary
from compaction.transcripts.arg_names import COPILOT_PATH, arg_value
from compaction.transcripts.path_spelling import file_url_path

NAME = "copilot-chat"
DESCRIPTION = "GitHub Copilot Chat sessions from VS Code's chatSessions/ (*.json serialized model, *.jsonl change log)"

_REQUESTS = re.compile(r'"requests"\s*:')
_COPILOT_HINT = re.compile(r'"(requesterUsername|responderUsername|requestId)"\s*:')
_LOG_FIRST = re.compile(r'^\s*\{\s*"kind"\s*:\s*0\s*,\s*"v"\s*:\s*\{')
_LOG_LINE = re.compile(r'^\s*\{\s*"kind"\s*:\s*\d')

# Copilot agent-mode tool names (canonical: `copilot_` prefix dropped, camelCase as snake_case) -> kind,
# and the arguments that hold a path.
_KINDS = {
    "run_in_terminal": ToolKind.SHELL, "runinterminal": ToolKind.SHELL, "run_vs_code_task": ToolKind.SHELL,
    "read_file": ToolKind.READ, "readfile": ToolKind.READ, "get_terminal_output": ToolKind.READ,
    "create_file": ToolKind.WRITE, "createfile": ToolKind.WRITE,
    "replace_string_in_file": ToolKind.EDIT, "multi_replace_string_in_file": ToolKind.EDIT,
    "insert_edit_into_file": ToolKind.EDIT, "apply_patch": ToolKind.EDIT, "edit_notebook_file": ToolKind.EDIT,
    "grep_search": ToolKind.SEARCH, "file_search": ToolKind.SEARCH, "semantic_search": ToolKind.SEARCH,
    "list_dir": ToolKind.SEARCH, "list_code_usages": ToolKind.SEARCH,
    "manage_todo_list": ToolKind.TODO,
    "replace_string": ToolKind.EDIT, "multi_replace_string": ToolKind.EDIT, "insert_edit": ToolKind.EDIT,
    "find_text_in_files": ToolKind.SEARCH, "find_files": ToolKind.SEARCH, "list_directory": ToolKind.SEARCH,
    "search_codebase": ToolKind.SEARCH,
}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _canonical(name: str) -> str:
    """`copilot_readFile` -> `read_file`, `run_in_terminal` unchanged."""
    return _CAMEL.sub("_", name.removeprefix("copilot_")).lower()


def sniff(head: str, path: str) -> int:
    if _LOG_FIRST.match(head) and _REQUESTS.search(head):
        return 93
    if head.lstrip().startswith("{") and _REQUESTS.search(head) and _COPILOT_HINT.search(head):
        return 90 if "chatSessions" in Path(path).parts or '"responderUsername"' in head else 75
    return 0


def load(path: str) -> Transcript:
    with open_binary(path) as fh:  # past a BOM: a change log is told by its first line
        first = fh.read(256).lstrip()
    if _LOG_LINE.match(first.decode("utf-8", "replace")):
        data, lines = _replay(path)
        expect(isinstance(data, dict) and isinstance(data.get("requests"), list), path,
               "the replayed change log holds no `requests` list")
        items = list(zip(lines, data["requests"], strict=False))
    else:
        data, items = load_json_items(path, ("requests",))
        expect(isinstance(data, dict), path, "a chat session must be a JSON object with `requests`")
    t = Transcript(path=path, format=NAME, messages=[])
    t.meta.update({k: data[k] for k in ("sessionId", "version", "responderUsername", "customTitle") if k in data})
    for i, (line, req) in enumerate(items):
        if not isinstance(req, dict):
            t.skipped_records += 1
            continue
        start = len(t.messages)
        _request(t, i, req)
        for msg in t.messages[start:]:
            msg.line = line
    if not t.messages:
        raise TranscriptError(path, "a chat session without any request")
    t.rounds = _rounds(t.messages)
    return t


_NEW_TURN = "new_turn"


def _rounds(messages: list[Message]) -> list[Round]:
    """DESIGN.md §4 rounds, plus the model turns the chat view's parts imply: the serialized
    response keeps no result of most tool calls, so text following a tool call (flagged
    `new_turn`) opens the next round, as the model wrote it after reading the results."""
    starts = [i for i, m in enumerate(messages) if m.meta.get(_NEW_TURN)]
    rounds: list[Round] = []
    for a, b in zip([0, *starts], [*starts, len(messages)], strict=True):
        for r in group_rounds(messages[a:b]):
            rounds.append(Round(len(rounds) + 1, r.messages))
    return rounds


# --- the change log ---------------------------------------------------------------------------------


def _replay(path: str) -> tuple[Any, list[int]]:
    """Apply the log's entries in order (as ObjectMutationLog.read does). Returns the state and,
    per request, the line of the entry that added it (a request rewritten later keeps that line)."""
    state: Any = None
    lines: list[int] = []
    for lineno, entry in iter_jsonl(path):
        expect(isinstance(entry, dict) and "kind" in entry, path, "a change-log line must be {kind, ...}", lineno)
        kind = entry["kind"]
        if kind == 0:
            state = entry.get("v")
            reqs = state.get("requests") if isinstance(state, dict) else None
            lines = [lineno] * len(reqs) if isinstance(reqs, list) else []
            continue
        expect(state is not None, path, "the change log has no initial (kind 0) entry before this one", lineno)
        keys = entry.get("k")
        expect(isinstance(keys, list) and bool(keys), path, "a change-log entry needs a key path `k`", lineno)
        try:
            _apply(state, kind, keys, entry)
        except (KeyError, IndexError, TypeError) as exc:
            raise TranscriptError(path, f"change-log path {keys!r} does not exist ({type(exc).__name__})",
                                  lineno) from None
        except ValueError as exc:
            raise TranscriptError(path, str(exc), lineno) from None
        if keys == ["requests"] and isinstance(state.get("requests"), list):
            kept = lines[: entry["i"]] if kind == 2 and isinstance(entry.get("i"), int) else lines
            lines = kept + [lineno] * (len(state["requests"]) - len(kept))
    return state, lines


def _apply(state: Any, kind: Any, keys: list, entry: dict) -> None:
    parent = state
    for key in keys[:-1]:
        parent = parent[key]
    last = keys[-1]
    if kind in (1, 3):
        value = entry.get("v") if kind == 1 else None
        if isinstance(parent, list) and last == len(parent):
            parent.append(value)
        else:
            parent[last] = value
    elif kind == 2:
        arr = parent.get(last) if isinstance(parent, dict) else parent[last]
        arr = list(arr) if isinstance(arr, list) else []
        if isinstance(entry.get("i"), int):
            del arr[entry["i"]:]
        values = entry.get("v") or []
        if not isinstance(values, list):
            raise ValueError("a push entry's `v` must be a list")
        arr.extend(values)
        parent[last] = arr
    else:
        raise ValueError(f"unknown change-log kind {kind!r}")


# --- one request --------------------------------------------------------------------------------------


def _md(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("value"), str):
            return value["value"]
        if isinstance(value.get("content"), dict | str):
            return _md(value["content"])
    return ""


def _uri_path(uri: Any) -> str | None:
    if isinstance(uri, str):
        return uri.removeprefix("file://") or None
    if isinstance(uri, dict):
        for key in ("fsPath", "path"):
            if isinstance(uri.get(key), str) and uri[key]:
                return uri[key]
        if isinstance(uri.get("uri"), dict | str):
            return _uri_path(uri["uri"])
    return None


_TODO_STATUS = {"not-started": "pending", "in-progress": "in_progress", "completed": "completed"}
_FILE_LINK = re.compile(r"\]\((file://[^)\s]+)\)")


def _todos(items: Any) -> list[dict[str, Any]]:
    """`manage_todo_list`'s `todoList` ({id, title, status: not-started|in-progress|completed})."""
    return [{"content": str(i.get("title") or ""), "status": _TODO_STATUS.get(str(i.get("status")), "pending")}
            for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _call(name: str, args: dict[str, Any], call_id: str | None) -> ToolCall:
    kind = _KINDS.get(_canonical(name))
    if "todoList" in args and "todos" not in args:
        args = {**args, "todos": _todos(args["todoList"])}
    path = _uri_path(arg_value(args, COPILOT_PATH, object))
    if path and "path" not in args:
        args = {**args, "path": path}
    return make_call(name, args, call_id, kind)


def _timestamp(req: dict) -> str | None:
    ts = req.get("timestamp")
    if isinstance(ts, int | float) and not isinstance(ts, bool):
        from datetime import UTC, datetime

        try:
            return datetime.fromtimestamp(ts / 1000, UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _request(t: Transcript, index: int, req: dict) -> None:
    msgs = t.messages
    ts = _timestamp(req)
    message = req.get("message")
    text = message.get("text") if isinstance(message, dict) else message if isinstance(message, str) else ""
    msgs.append(Message(len(msgs), Role.USER, text if isinstance(text, str) else "", timestamp=ts,
                        meta={"request": index, "requestId": req.get("requestId")}))
    result = req.get("result") if isinstance(req.get("result"), dict) else {}
    metadata = result.get("metadata") if isinstance(result.get("metadata"), dict) else {}
    rounds = metadata.get("toolCallRounds")
    if isinstance(rounds, list) and rounds:
        _from_tool_rounds(t, rounds, metadata.get("toolCallResults"), ts)
    else:
        _from_response(t, req.get("response"), ts)
    error = result.get("errorDetails")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        msgs.append(Message(len(msgs), Role.SYSTEM, error["message"], timestamp=ts, harness=True,
                            meta={"severity": "error"}))


def _result_text(value: Any) -> str:
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        return "\n".join(_md(part) or as_text(part.get("value")) if isinstance(part, dict) else as_text(part)
                         for part in value["content"]).strip()
    return as_text(value)


def _from_tool_rounds(t: Transcript, rounds: list, results: Any, ts: str | None) -> None:
    """Copilot's own log of the agent loop: each round's text and calls, then their outputs."""
    results = results if isinstance(results, dict) else {}
    for rnd in rounds:
        if not isinstance(rnd, dict):
            continue
        calls = [_call(str(c.get("name") or "unknown"), parse_arguments(c.get("arguments")), c.get("id"))
                 for c in _list(rnd.get("toolCalls")) if isinstance(c, dict)]
        t.messages.append(Message(len(t.messages), Role.ASSISTANT, _md(rnd.get("response")), tool_calls=calls,
                                  timestamp=ts))
        for call in calls:
            if call.id not in results:
                continue
            text = _result_text(results[call.id])
            code = exit_code_for(call.name, text)
            t.messages.append(Message(len(t.messages), Role.TOOL, "", timestamp=ts, tool_results=[
                ToolResult(content=text, call_id=call.id, name=call.name, is_error=bool(code), exit_code=code)]))


def _invocation(part: dict) -> tuple[ToolCall, ToolResult | None]:
    data = part.get("toolSpecificData") if isinstance(part.get("toolSpecificData"), dict) else {}
    name = str(part.get("toolId") or "unknown")
    call_id = part.get("toolCallId")
    args: dict[str, Any] = {}
    if data.get("kind") == "terminal":
        line = data.get("commandLine")
        command = (line.get("userEdited") or line.get("toolEdited") or line.get("original")) if isinstance(line, dict) else data.get("command")
        args = {"command": command} if isinstance(command, str) else {}
        name = "run_in_terminal" if name == "unknown" or "terminal" in name.lower() else name
    elif data.get("kind") == "input" and isinstance(data.get("rawInput"), dict):
        args = data["rawInput"]
    elif data.get("kind") == "todoList":
        args = {"todoList": data.get("todoList")}
    details = part.get("resultDetails")
    if not args and isinstance(details, dict) and isinstance(details.get("input"), str):
        args = parse_arguments(details["input"])
    if not args:  # "Read [](file:///…/app.py)": the file is only in the message's link
        link = _FILE_LINK.search(_md(part.get("pastTenseMessage")) or _md(part.get("invocationMessage")))
        if link:
            args = {"filePath": file_url_path(link.group(1))}
    call = _call(name, args, call_id)
    if call.kind == ToolKind.OTHER and isinstance(data.get("kind"), str) and data["kind"] == "terminal":
        call = make_call("run_in_terminal", args, call_id, ToolKind.SHELL)
    output = None
    if isinstance(details, dict) and isinstance(details.get("output"), list):
        output = "\n".join(_md(o) for o in details["output"] if isinstance(o, dict)).strip()
    state = data.get("terminalCommandState") if isinstance(data.get("terminalCommandState"), dict) else {}
    if output is None and isinstance(data.get("terminalCommandOutput"), dict):
        output = _md(data["terminalCommandOutput"].get("text"))
    if output is None and "exitCode" not in state:
        return call, None
    text = output or ""
    exit_code = state.get("exitCode") if isinstance(state.get("exitCode"), int) else exit_code_for(call.name, text)
    is_error = bool(details.get("isError")) if isinstance(details, dict) else False
    return call, ToolResult(content=text, call_id=call_id, name=call.name, is_error=is_error or bool(exit_code),
                            exit_code=exit_code)


def _from_response(t: Transcript, parts: Any, ts: str | None) -> None:
    """The response parts as shown in the chat view: text, tool invocations and their outputs, edits."""
    msgs = t.messages
    current: Message | None = None
    after_tool = False  # text after a tool call was written in the model's next turn

    def say(text: str) -> None:
        nonlocal after_tool, current
        if after_tool and text.strip():
            current = None
            assistant().meta[_NEW_TURN] = True
        assistant().text += text
        after_tool = False

    def assistant() -> Message:
        nonlocal current
        if current is None:
            current = Message(len(msgs), Role.ASSISTANT, "", timestamp=ts)
            msgs.append(current)
        return current

    for part in parts if isinstance(parts, list) else [parts] if isinstance(parts, str) else []:
        kind = part.get("kind") if isinstance(part, dict) else None
        if isinstance(part, str) or kind in (None, "markdownContent", "markdownVuln"):
            say(_md(part))
        elif kind == "inlineReference":
            ref = part.get("inlineReference")
            name = part.get("name") or _uri_path(ref) or ""
            say(f"`{name}`" if name else "")
        elif kind in ("toolInvocationSerialized", "toolInvocation"):
            call, result = _invocation(part)
            assistant().tool_calls.append(call)
            after_tool = True
            if result is not None:
                msgs.append(Message(len(msgs), Role.TOOL, "", tool_results=[result], timestamp=ts))
                current = None
        elif kind == "textEditGroup":
            path = _uri_path(part.get("uri"))
            if path:
                assistant().tool_calls.append(make_call("edit_file", {"path": path}, None, ToolKind.EDIT))
                after_tool = True
        elif kind == "thinking":
            value = part.get("value")
            text = "".join(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else _md(value)
            if text:
                assistant().meta.setdefault("thinking", []).append(text)
        else:
            t.skipped_kinds[str(kind)] = t.skipped_kinds.get(str(kind), 0) + 1


def _list(value: object) -> list:
    """A field that should hold a list, as one (a damaged log may hold a number there)."""
    return value if isinstance(value, list) else []
