"""GitHub Copilot CLI session events (JSONL: `~/.copilot/session-state/<id>/events.jsonl`, earlier
`session-state/<id>.jsonl`; or each event wrapped by a tool that saved the stream as `{"role", "content",
"raw": <event>}`).

Each line is an event `{"type", "data", "id", "parentId", "timestamp"}`: `session.start` (its context
holds the working directory), `system.message`, `user.message` (the user's words; `transformedContent`
is what the model got: the same words with the harness's reminders around them), `assistant.message`
(its text, its reasoning and its `toolRequests`), `tool.execution_complete` (a call's result, paired by
`toolCallId`), and bookkeeping the model never reads (turn and hook events, model changes, the start
of a tool's execution, which repeats the call's arguments).
"""

from __future__ import annotations

import re
from typing import Any

from compaction.model import Message, Role, ToolResult, Transcript, TranscriptError
from compaction.transcripts._agent_tools import as_text, exit_code_for, make_call
from compaction.transcripts._io import expect, iter_jsonl

NAME = "copilot-cli"
DESCRIPTION = "GitHub Copilot CLI session events (JSONL)"

_EVENT = re.compile(r'"type"\s*:\s*"(?:session\.start|user\.message|assistant\.message|tool\.execution_complete)"')
def sniff(head: str, path: str) -> int:
    if head.lstrip()[:1] != "{" or not _EVENT.search(head):
        return 0
    if '"copilot-agent"' in head or '"copilotVersion"' in head:
        return 96
    return 85 if '"toolRequests"' in head or '"toolCallId"' in head else 60


def _event(rec: dict[str, Any]) -> dict[str, Any]:
    """The event itself: a saved stream may wrap each one (`{"role", "content", "raw": event}`)."""
    raw = rec.get("raw")
    return raw if isinstance(raw, dict) and isinstance(raw.get("type"), str) else rec


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    msgs = t.messages
    names: dict[str, str] = {}  # toolCallId -> tool name
    seen = 0
    for lineno, rec in iter_jsonl(path, t.warnings):
        seen += 1
        expect(isinstance(rec, dict), path, "a JSONL record must be an object", lineno)
        event = _event(rec)
        kind = event.get("type") if isinstance(event.get("type"), str) else ""
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        ts = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
        if kind == "session.start":
            context = data.get("context") if isinstance(data.get("context"), dict) else {}
            if t.cwd is None and isinstance(context.get("cwd"), str):
                t.cwd = context["cwd"]
            t.skip(kind)
        elif kind == "system.message":
            text = as_text(data.get("content"))
            if text:
                msgs.append(Message(len(msgs), Role.SYSTEM, text, timestamp=ts, line=lineno, harness=True))
        elif kind == "user.message":
            _user(t, data, ts, lineno)
        elif kind == "assistant.message":
            _assistant(t, data, ts, lineno, names)
        elif kind == "tool.execution_complete":
            _result(t, data, ts, lineno, names)
        else:
            t.skip(kind or "untyped")
    if not seen:
        raise TranscriptError(path, "empty file (no JSON records)")
    return t


def _user(t: Transcript, data: dict[str, Any], ts: str | None, lineno: int) -> None:
    """The user's words; what the harness wrapped around them for the model (the time, reminders) beside
    them as the harness's own message: the prompt sent with the user's words, where they stand whole on
    their own lines, taken out."""
    text = as_text(data.get("content")).strip()
    if text:
        t.messages.append(Message(len(t.messages), Role.USER, text, timestamp=ts, line=lineno))
    sent = data.get("transformedContent")
    if not isinstance(sent, str) or not sent.strip() or sent.strip() == text:
        return
    sent = sent.strip()
    own = re.search(r"(?:^|\n)" + re.escape(text) + r"(?=\n|$)", sent) if text else None
    added = (sent[:own.start()] + sent[own.end():]).strip() if own else sent
    if added:
        t.messages.append(Message(len(t.messages), Role.USER, added, timestamp=ts, line=lineno, harness=True))


def _assistant(t: Transcript, data: dict[str, Any], ts: str | None, lineno: int, names: dict[str, str]) -> None:
    msg = Message(len(t.messages), Role.ASSISTANT, as_text(data.get("content")), timestamp=ts, line=lineno)
    reasoning = data.get("reasoningText")
    if isinstance(reasoning, str) and reasoning.strip():
        msg.meta["thinking"] = [reasoning]
    for req in data.get("toolRequests") if isinstance(data.get("toolRequests"), list) else ():
        if not isinstance(req, dict):
            continue
        name = str(req.get("name") or "unknown")
        args = req.get("arguments")
        cid = req.get("toolCallId") if isinstance(req.get("toolCallId"), str) else None
        msg.tool_calls.append(make_call(name, args if isinstance(args, dict) else {"input": as_text(args)}, cid))
        if cid:
            names[cid] = name
    t.messages.append(msg)


def _result(t: Transcript, data: dict[str, Any], ts: str | None, lineno: int, names: dict[str, str]) -> None:
    cid = data.get("toolCallId") if isinstance(data.get("toolCallId"), str) else None
    result = data.get("result") if isinstance(data.get("result"), dict) else {}
    error = data.get("error")
    text = as_text(result.get("content") if result else None) or as_text(
        error.get("message") if isinstance(error, dict) else error)
    name = names.get(cid or "")
    failed = data.get("success") is False or bool(error)
    t.messages.append(Message(len(t.messages), Role.TOOL, "", timestamp=ts, line=lineno, tool_results=[
        ToolResult(content=text, call_id=cid, name=name, is_error=failed, exit_code=exit_code_for(name, text))]))
