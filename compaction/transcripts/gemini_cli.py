"""Gemini CLI transcripts, in the three shapes the CLI writes.

1. `--output-format stream-json`: JSONL events `init`, `message{role, content, delta}`,
   `tool_use{tool_name, tool_id, parameters}`, `tool_result{tool_id, status, output, error}`, `error`,
   `result`. Assistant text arrives in delta chunks: consecutive chunks form one Message.
2. Saved sessions (`~/.gemini/tmp/<project>/chats/session-*.json[l]`): a metadata record
   `{sessionId, projectHash, ...}` then message records `{id, type: user|gemini|info|error|warning,
   content, toolCalls[{id, name, args, result, status}]}`; the JSONL form appends a record again
   whenever it changes (same `id`: the later one wins), `{"$rewindTo": id}` drops that message and
   everything after, `{"$set": {...}}` updates metadata. The legacy `.json` form holds `messages`.
3. `/chat save` checkpoints: a JSON list of API contents `{role: user|model, parts: [...]}`.
"""

from __future__ import annotations

import re
from typing import Any

from compaction.model import Message, Role, ToolResult, Transcript, TranscriptError
from compaction.transcripts._agent_tools import as_text, exit_code_for, load_json_items, make_call
from compaction.transcripts._io import expect, iter_jsonl, open_binary

NAME = "gemini-cli"
DESCRIPTION = "Gemini CLI stream-json events, saved chat sessions (session-*.json/.jsonl) and checkpoints"

_NESTED_MESSAGE = re.compile(r'"message"\s*:\s*\{\s*"(?:id|type|role|model)"')
_EVENT = re.compile(r'"type"\s*:\s*"(init|message|tool_use|tool_result|result)"')


def sniff(head: str, path: str) -> int:
    start = head.lstrip()[:1]
    if start == "{" and _EVENT.search(head) and ('"tool_id"' in head or '"session_id"' in head or
                                                 re.search(r'"type"\s*:\s*"init"', head)):
        # Claude Code's stream-json has `result` and `session_id` too, but nests Anthropic messages
        return 0 if _NESTED_MESSAGE.search(head) else 90
    if start == "{" and '"sessionId"' in head and '"projectHash"' in head:
        return 92
    if start == "[" and re.search(r'"role"\s*:\s*"model"', head) and '"parts"' in head:
        return 85
    return 0


def load(path: str) -> Transcript:
    return _snapshots_marked(_load(path))


def _snapshots_marked(t: Transcript) -> Transcript:
    """Gemini CLI opens a chat with a `<session_context>` user message (the date, the OS, the folders) and
    compresses a long one into a `<state_snapshot>` user message, its summary of the earlier turns (read by
    its sections as carried work): the harness's words, not requests of the user's."""
    for msg in t.messages:
        if msg.role is not Role.USER:
            continue
        opening = msg.text.lstrip()[:20]
        if opening.startswith("<state_snapshot>"):
            msg.harness = True
            msg.meta["carried_summary"] = True
        elif opening.startswith("<session_context>"):
            msg.harness = True
    return t


def _load(path: str) -> Transcript:
    with open_binary(path) as fh:
        first = fh.read(4096).lstrip()
    if first.startswith(b"["):
        return _load_contents(path)
    t = Transcript(path=path, format=NAME, messages=[])
    try:
        records = iter_jsonl(path, t.warnings)
        lineno, rec = next(records)
    except StopIteration:
        raise TranscriptError(path, "empty file") from None
    except TranscriptError:
        # a pretty-printed legacy session (.json) is not JSONL
        if first.startswith(b"{"):
            return _load_session_json(path)
        raise
    expect(isinstance(rec, dict), path, "a JSONL record must be an object", lineno)
    if "sessionId" in rec and "projectHash" in rec:
        return _load_session_jsonl(t, lineno, rec, records)
    return _load_stream(t, lineno, rec, records)


# --- 1. stream-json ------------------------------------------------------------------------------

def _load_stream(t: Transcript, lineno: int, rec: dict, records: Any) -> Transcript:
    msgs = t.messages
    current: Message | None = None  # assistant message receiving chunks and tool calls
    names: dict[str, str] = {}

    def assistant(ts: str | None, line: int) -> Message:
        nonlocal current
        if current is None:
            current = Message(len(msgs), Role.ASSISTANT, "", timestamp=ts, line=line)
            msgs.append(current)
        return current

    def handle(line: int, rec: Any) -> None:
        nonlocal current
        expect(isinstance(rec, dict), t.path, "a JSONL record must be an object", line)
        etype = rec.get("type")
        ts = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
        if etype == "init":
            t.meta.update({k: rec[k] for k in ("session_id", "model") if k in rec})
            for key in ("cwd", "working_directory", "workingDirectory"):
                if isinstance(rec.get(key), str):
                    t.cwd = rec[key]
                    break
        elif etype == "message":
            role = rec.get("role")
            text = as_text(rec.get("content"))
            if role == "assistant":
                msg = assistant(ts, line)
                msg.text += text
            elif role == "user":
                msgs.append(Message(len(msgs), Role.USER, text, timestamp=ts, line=line))
                current = None
            else:
                raise TranscriptError(t.path, f"unexpected shape: message role {role!r}", line)
        elif etype == "tool_use":
            params = rec.get("parameters") if isinstance(rec.get("parameters"), dict) else {}
            call = make_call(str(rec.get("tool_name") or "unknown"), params, rec.get("tool_id"))
            names[str(rec.get("tool_id"))] = call.name
            assistant(ts, line).tool_calls.append(call)
        elif etype == "tool_result":
            err = rec.get("error") if isinstance(rec.get("error"), dict) else None
            text = as_text(rec.get("output")) if rec.get("output") is not None else ""
            if err and err.get("message"):
                text = f"{text}\n{err['message']}" if text else str(err["message"])
            code = exit_code_for(names.get(str(rec.get("tool_id"))), text)
            result = ToolResult(content=text, call_id=rec.get("tool_id"), name=names.get(str(rec.get("tool_id"))),
                                is_error=rec.get("status") == "error" or bool(code), exit_code=code)
            msgs.append(Message(len(msgs), Role.TOOL, "", tool_results=[result], timestamp=ts, line=line,
                                meta={"error_type": err.get("type")} if err else {}))
            current = None
        elif etype == "error":
            msgs.append(Message(len(msgs), Role.SYSTEM, as_text(rec.get("message")), timestamp=ts, line=line,
                                harness=True, meta={"severity": rec.get("severity")}))
        elif etype == "result":
            t.meta["result"] = {k: rec[k] for k in ("status", "error", "stats") if k in rec}
        else:
            t.skip(str(etype) if etype else "untyped")

    handle(lineno, rec)
    for line, r in records:
        handle(line, r)
    for msg in msgs:
        if msg.role is Role.ASSISTANT:
            msg.text = msg.text.strip("\n")
    return t


# --- 2. saved sessions ---------------------------------------------------------------------------

def _load_session_jsonl(t: Transcript, lineno: int, meta: dict, records: Any) -> Transcript:
    t.meta.update({k: meta[k] for k in ("sessionId", "projectHash", "startTime", "kind", "directories") if k in meta})
    order: dict[str, tuple[int, dict]] = {}  # id -> (first line, latest record); dicts keep insertion order
    if isinstance(meta.get("messages"), list):  # a legacy session saved on one line
        order = {str(m.get("id", i)): (lineno, m) for i, m in enumerate(meta["messages"]) if isinstance(m, dict)}
    for line, rec in records:
        expect(isinstance(rec, dict), t.path, "a JSONL record must be an object", line)
        if isinstance(rec.get("$rewindTo"), str):
            ids = list(order)
            if rec["$rewindTo"] in order:
                for mid in ids[ids.index(rec["$rewindTo"]):]:
                    del order[mid]
            else:
                order.clear()
            t.skip("$rewindTo")
        elif isinstance(rec.get("$set"), dict):
            update = rec["$set"]
            if isinstance(update.get("messages"), list):
                order = {str(m.get("id", i)): (line, m) for i, m in enumerate(update["messages"]) if isinstance(m, dict)}
            t.meta.update({k: v for k, v in update.items() if k != "messages"})
            t.skip("$set")
        elif isinstance(rec.get("id"), str):
            if rec["id"] in order:  # an update of a message: a field it leaves out (its thoughts) is still the earlier's
                first_line, earlier = order[rec["id"]]
                order[rec["id"]] = (first_line, {**earlier, **rec})
            else:
                order[rec["id"]] = (line, rec)
        elif "sessionId" in rec:
            t.meta.update({k: v for k, v in rec.items() if k != "messages"})
        else:
            t.skip("unknown")
    for line, rec in order.values():
        _session_message(t, rec, line)
    _directories_cwd(t)
    return t


def _load_session_json(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    top, items = load_json_items(path, ("messages",))
    expect(top is not None and "sessionId" in top, path, "a Gemini CLI session object needs 'sessionId'", 1)
    t.meta.update({k: top[k] for k in ("sessionId", "projectHash", "startTime", "directories") if k in top})
    for line, rec in items:
        expect(isinstance(rec, dict), path, "each message must be an object", line)
        _session_message(t, rec, line)
    _directories_cwd(t)
    return t


def _directories_cwd(t: Transcript) -> None:
    dirs = t.meta.get("directories")
    if t.cwd is None and isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        t.cwd = dirs[0]


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):  # a number or a boolean (found by fuzzing)
        return ""
    out = []
    for part in content:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            out.append(part["text"])
    return "".join(out)


def _response_text(result: Any) -> str:
    """Text of a tool result: functionResponse.response.output / error, or plain parts."""
    parts = result if isinstance(result, list) else [result]
    out = []
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
            resp = part["functionResponse"].get("response")
            if isinstance(resp, dict):
                out.append(as_text(resp.get("output", resp.get("error", resp.get("content", resp)))))
            else:
                out.append(as_text(resp))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            out.append(part["text"])
        elif isinstance(part, str):
            out.append(part)
    return "\n".join(x for x in out if x)


def _session_message(t: Transcript, rec: dict, line: int) -> None:
    msgs = t.messages
    mtype = rec.get("type")
    ts = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
    text = _parts_text(rec.get("content"))
    parts = rec.get("content") if isinstance(rec.get("content"), list) else []
    if mtype == "user":
        # Gemini CLI 0.61 records a tool's answer as a user message of functionResponse parts (and keeps the
        # API's form when it rewrites the history after a compression or on resume).
        results = [_function_result(p["functionResponse"]) for p in parts
                   if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
        if results:
            msgs.append(Message(len(msgs), Role.TOOL, text, tool_results=results, timestamp=ts, line=line))
        else:
            msgs.append(Message(len(msgs), Role.USER, text, timestamp=ts, line=line))
    elif mtype == "gemini":
        msg = Message(len(msgs), Role.ASSISTANT, text, timestamp=ts, line=line)
        thoughts = _thought_texts(rec.get("thoughts"))
        if thoughts:  # the reasoning as text, like every loader's "thinking"
            msg.meta["thinking"] = thoughts
        msgs.append(msg)
        for p in parts:  # functionCall parts (the API's form), when the record has no toolCalls
            if isinstance(p, dict) and isinstance(p.get("functionCall"), dict) and not rec.get("toolCalls"):
                fc = p["functionCall"]
                args = fc.get("args") if isinstance(fc.get("args"), dict) else {}
                msg.tool_calls.append(make_call(str(fc.get("name") or "unknown"), args, fc.get("id")))
        results = []
        for tc in rec.get("toolCalls") if isinstance(rec.get("toolCalls"), list) else []:
            if not isinstance(tc, dict):
                continue
            args = tc.get("args") if isinstance(tc.get("args"), dict) else {}
            call = make_call(str(tc.get("name") or "unknown"), args, tc.get("id"))
            msg.tool_calls.append(call)
            if "result" in tc or "status" in tc:
                out = _response_text(tc.get("result"))
                code = exit_code_for(call.name, out)
                results.append(ToolResult(content=out, call_id=tc.get("id"), name=call.name, exit_code=code,
                                          is_error=tc.get("status") in ("error", "cancelled") or bool(code)))
        if results:
            msgs.append(Message(len(msgs), Role.TOOL, "", tool_results=results, timestamp=ts, line=line))
    elif mtype in ("info", "error", "warning"):
        msgs.append(Message(len(msgs), Role.SYSTEM, text, timestamp=ts, line=line, harness=True,
                            meta={"type": mtype}))
    else:
        t.skip(f"message:{mtype}")


def _function_result(fr: dict) -> ToolResult:
    out = _response_text({"functionResponse": fr})
    resp = fr.get("response") if isinstance(fr.get("response"), dict) else {}
    code = exit_code_for(fr.get("name"), out)
    return ToolResult(content=out, call_id=fr.get("id"), name=fr.get("name"), is_error="error" in resp or bool(code),
                      exit_code=code)


# --- 3. checkpoints (API contents) ---------------------------------------------------------------

def _load_contents(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    _, items = load_json_items(path)
    msgs = t.messages
    names: dict[str, str] = {}
    for line, item in items:
        expect(isinstance(item, dict) and isinstance(item.get("parts"), list), path,
               "each content needs a 'parts' list", line)
        role = item.get("role")
        calls, results, texts, thoughts = [], [], [], []
        for part in item["parts"]:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("functionCall"), dict):
                fc = part["functionCall"]
                args = fc.get("args") if isinstance(fc.get("args"), dict) else {}
                call = make_call(str(fc.get("name") or "unknown"), args, fc.get("id"))
                names[str(fc.get("id"))] = call.name
                calls.append(call)
            elif isinstance(part.get("functionResponse"), dict):
                fr = part["functionResponse"]
                out = _response_text(part)
                resp = fr.get("response") if isinstance(fr.get("response"), dict) else {}
                code = exit_code_for(fr.get("name") or names.get(str(fr.get("id"))), out)
                results.append(ToolResult(content=out, call_id=fr.get("id"), name=fr.get("name"),
                                          is_error="error" in resp or bool(code), exit_code=code))
            elif isinstance(part.get("text"), str):
                (thoughts if part.get("thought") else texts).append(part["text"])
        text = "".join(texts)
        if role == "model":
            msgs.append(Message(len(msgs), Role.ASSISTANT, text, tool_calls=calls, line=line,
                                meta={"thinking": thoughts} if thoughts else {}))
        elif results:
            msgs.append(Message(len(msgs), Role.TOOL, text, tool_results=results, line=line))
        elif role == "user":
            msgs.append(Message(len(msgs), Role.USER, text, line=line))
        else:
            raise TranscriptError(path, f"unexpected shape: content role {role!r}", line)
    return t


def _thought_texts(thoughts: object) -> list[str]:
    """A recording's thoughts ({"subject", "description"} records, or strings) as "subject: description"
    texts: the findings read a message's reasoning as text."""
    out: list[str] = []
    for t in thoughts if isinstance(thoughts, list) else ():
        if isinstance(t, str) and t.strip():
            out.append(t)
        elif isinstance(t, dict):
            said = [str(t[k]).strip() for k in ("subject", "description") if isinstance(t.get(k), str) and t[k].strip()]
            if said:
                out.append(": ".join(said))
    return out
