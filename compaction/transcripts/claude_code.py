"""Claude Code session JSONL (`~/.claude/projects/<escaped cwd>/<session>.jsonl`), and the same
records as `claude -p --output-format stream-json --verbose` prints them (`system` init with the cwd,
`result` at the end: kept only when the run ended in an error).

One JSON record per line: `user` / `assistant` / `system` / `summary` / `file-history-snapshot` ...
Claude Code writes one `assistant` record per content block, all sharing `message.id`; they are merged
back into one assistant Message (even when a tool result record sits between two blocks of the same
response). Tool results arrive as `user` records holding `tool_result` blocks: they become TOOL messages.
Sidechain (sub-agent) records are skipped and counted; `isMeta` user records are harness messages.
"""

from __future__ import annotations

import re
from typing import Any

from compaction.model import Message, Role, ToolResult, Transcript, TranscriptError, compact_messages
from compaction.transcripts._agent_tools import as_text, exit_code_for, make_call
from compaction.transcripts._io import content_text, expect, iter_jsonl

NAME = "claude-code"
DESCRIPTION = "Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl)"

_RECORD = re.compile(r'"type"\s*:\s*"(user|assistant|summary|system|file-history-snapshot|result)"')
_STREAM_INIT = re.compile(r'"type"\s*:\s*"system"\s*,\s*"subtype"\s*:\s*"init"')
_HARNESS_TEXT = re.compile(r"^\s*<(command-name|command-message|local-command-stdout|local-command-stderr|"
                           r"bash-input|bash-stdout|bash-stderr|user-memory-input)>")


def sniff(head: str, path: str) -> int:
    first = head.lstrip()[:1]
    if first != "{" or not _RECORD.search(head):
        return 0
    score = 0
    if '"sessionId"' in head and ('"parentUuid"' in head or '"leafUuid"' in head):
        score = 90
    elif '"session_id"' in head and (_STREAM_INIT.search(head) or '"parent_tool_use_id"' in head):
        score = 85  # `claude -p --output-format stream-json --verbose`
    elif re.search(r'"type"\s*:\s*"summary"', head) and '"leafUuid"' in head:
        score = 80  # a session file holding only its title
    elif '"isSidechain"' in head or '"userType"' in head:
        score = 80
    if score and '"message"' in head:
        score += 5
    return min(score, 100)


def _result_content(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return content_text(content)
    return as_text(content)


def load(path: str) -> Transcript:
    t = Transcript(path=path, format=NAME, messages=[])
    msgs = t.messages
    by_id: dict[str, Message] = {}  # message.id -> assistant Message of the current response
    summaries: list[str] = []
    seen = 0
    finished = 0  # messages before this index are compacted (no record can add to them any more)
    for lineno, rec in iter_jsonl(path, t.warnings):
        seen += 1
        expect(isinstance(rec, dict), path, "a JSONL record must be an object", lineno)
        kind = rec.get("type")
        if rec.get("isSidechain") is True or rec.get("parent_tool_use_id"):  # a sub-agent's (Task) records
            t.skip("sidechain")
            continue
        if t.cwd is None and isinstance(rec.get("cwd"), str):
            t.cwd = rec["cwd"]
        if "git_branch" not in t.meta and isinstance(rec.get("gitBranch"), str) and rec["gitBranch"]:
            t.meta["git_branch"] = rec["gitBranch"]  # the project is a git work tree (on this branch)
        ts = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
        if kind == "summary":
            if isinstance(rec.get("summary"), str):
                summaries.append(rec["summary"])
            t.skip("summary")
            continue
        if kind == "system":
            text = as_text(rec.get("content") or "")
            if not text:
                t.skip("system")
                continue
            msgs.append(Message(len(msgs), Role.SYSTEM, text, timestamp=ts, line=lineno, harness=True,
                                meta={k: rec[k] for k in ("subtype", "level") if k in rec}))
            continue
        if kind == "result" and (rec.get("is_error") is True or rec.get("subtype") not in (None, "success")):
            text = f"run ended: {rec.get('subtype') or 'error'}\n{as_text(rec.get('result') or '')}".strip()
            msgs.append(Message(len(msgs), Role.SYSTEM, text, timestamp=ts, line=lineno, harness=True))
            continue
        if kind == "attachment":  # what the harness attached to the model's next turn (2.1.x)
            text = _attachment_text(rec.get("attachment"))
            if text:
                own = _typed_by_user(rec.get("attachment"), text)  # a prompt the user typed while the agent worked
                msgs.append(Message(len(msgs), Role.USER, text, timestamp=ts, line=lineno, harness=not own))
            else:
                t.skip("attachment")
            continue
        if kind not in ("user", "assistant"):
            t.skip(str(kind) if kind else "untyped")
            continue
        message = rec.get("message")
        expect(isinstance(message, dict), path, f"a {kind} record needs a 'message' object", lineno)
        content = message.get("content")
        expect(isinstance(content, (str, list)) or content is None, path,
               "'message.content' must be a string or a list of blocks", lineno)
        if kind == "assistant":
            _assistant(t, by_id, message, content, ts, lineno)
        else:
            if _user(t, rec, content, ts, lineno):
                by_id.clear()  # a real user message ends the response; ids never continue across it
        if len(msgs) - finished >= _COMPACT_EVERY:
            finished = _compact_finished(msgs, by_id, finished)
    if not seen:
        raise TranscriptError(path, "empty file (no JSON records)")
    if summaries:
        t.meta["summaries"] = summaries
    return t


_COMPACT_EVERY = 4096
_LOOKBACK = 8  # `_user` names tool results from the calls of the last 8 messages


def _compact_finished(msgs: list[Message], by_id: dict[str, Message], finished: int) -> int:
    """Compact the messages no later record can change (memory bounded while reading, not after):
    those before the open response (`by_id`) and the last few that tool results look back to."""
    stop = min([len(msgs) - _LOOKBACK, *(m.index for m in by_id.values())])
    if stop > finished:
        compact_messages(msgs, finished, stop)
        return stop
    return finished


def _assistant(t: Transcript, by_id: dict[str, Message], message: dict, content: Any, ts: str | None,
               lineno: int) -> None:
    mid = message.get("id") if isinstance(message.get("id"), str) else None
    msg = by_id.get(mid) if mid else None
    if msg is None:
        msg = Message(len(t.messages), Role.ASSISTANT, "", timestamp=ts, line=lineno)
        if isinstance(message.get("model"), str):
            msg.meta["model"] = message["model"]
        t.messages.append(msg)
        if mid:
            by_id[mid] = msg
            msg.meta["message_id"] = mid
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
    texts: list[str] = [msg.text] if msg.text else []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif btype == "tool_use":
            args = block.get("input") if isinstance(block.get("input"), dict) else {}
            msg.tool_calls.append(make_call(str(block.get("name") or "unknown"), args, block.get("id")))
        elif btype in ("thinking", "redacted_thinking"):
            msg.meta.setdefault("thinking", []).append(block.get("thinking") or "")
        # images and unknown blocks carry no text
    msg.text = "\n".join(x for x in texts if x)


# What wrote a user record in the user's place (`origin.kind`): a background task's notification. Only the
# kinds known to be the harness's: an unknown kind may be the user's own input.
_HARNESS_ORIGINS = frozenset({"task-notification"})
MAX_ATTACHMENT_DEPTH = 32  # real attachments nest a few levels; a deeper one must not exhaust the stack
# Attachment fields that tag or place what is attached, not text the model reads.
_ATTACHMENT_TAGS = frozenset({"type", "commandMode", "displayPath", "status"})


def _attachment_text(attachment: Any) -> str:
    """The text of an attachment the harness hands the model with its next turn (a queued prompt, a
    background task's notification, a file's text, the skills or tools now available): its string
    values in order, tags and places left out. Read by shape: every new kind is text too."""
    if not isinstance(attachment, dict):
        return ""
    out: list[str] = []

    def walk(value: Any, key: str = "", depth: int = 0) -> None:
        if isinstance(value, str):
            if value.strip() and key not in _ATTACHMENT_TAGS:
                out.append(value)
        elif depth >= MAX_ATTACHMENT_DEPTH:  # a record nested past any real attachment: not walked further
            return
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, k, depth + 1)
        elif isinstance(value, list):
            for v in value:
                walk(v, key, depth + 1)

    walk(attachment)
    return "\n".join(out).strip()


def _typed_by_user(attachment: Any, text: str) -> bool:
    """A queued prompt the user typed (not a task's notification or a reminder the harness wrote)."""
    return isinstance(attachment, dict) and attachment.get("type") == "queued_command" \
        and attachment.get("commandMode") in (None, "prompt") and not text.lstrip().startswith("<")


# A text block that is one tagged element (`<ide_opened_file>The user opened the file … in the IDE. This may or
# may not be related to the current task.</ide_opened_file>`, `<ide_selection>…`): the VS Code extension's
# context, sent beside the user's own words in blocks of their own.
_CONTEXT_BLOCK_RE = re.compile(r"\s*<([a-z]+[_-][a-z_-]+)>(?:(?!</?\1>).)*</\1>\s*", re.DOTALL)


def _user(t: Transcript, rec: dict, content: Any, ts: str | None, lineno: int) -> bool:
    """Append the user record's messages; True when it was a real (round-opening) user message."""
    msgs = t.messages
    # a record the harness wrote in the user's place (a background task's notification): `origin.kind`
    origin = rec.get("origin") if isinstance(rec.get("origin"), dict) else {}
    written_by_harness = bool(rec.get("isMeta")) or bool(rec.get("isCompactSummary")) or origin.get("kind") in _HARNESS_ORIGINS
    if isinstance(content, str) or content is None:
        text = content or ""
        harness = written_by_harness or bool(_HARNESS_TEXT.match(text))
        msg = Message(len(msgs), Role.USER, text, timestamp=ts, line=lineno, harness=harness)
        if rec.get("isCompactSummary"):
            msg.meta["compact_summary"] = True
        msgs.append(msg)
        return not harness
    results: list[ToolResult] = []
    texts: list[str] = []
    names = {c.id: c.name for m in msgs[-8:] for c in m.tool_calls if c.id}
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            text = _result_content(block)
            tid = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None  # (fuzzing)
            name = names.get(tid)
            results.append(ToolResult(content=text, call_id=tid, name=name,
                                      is_error=block.get("is_error") is True, exit_code=exit_code_for(name, text)))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
    if results:
        msgs.append(Message(len(msgs), Role.TOOL, "", tool_results=results, timestamp=ts, line=lineno))
    context = [x for x in texts if _CONTEXT_BLOCK_RE.fullmatch(x)]
    if len(context) < len(texts):  # beside the user's words; alone, it is what the user sent
        texts = [x for x in texts if not _CONTEXT_BLOCK_RE.fullmatch(x)]
    else:
        context = []
    text = "\n".join(texts)
    if text or not results:
        harness = written_by_harness or bool(_HARNESS_TEXT.match(text))
        # "[Request interrupted by user for tool use]" rides along with results: the harness wrote it
        if results and text.startswith("[Request interrupted"):
            harness = True
        msgs.append(Message(len(msgs), Role.USER, text, timestamp=ts, line=lineno, harness=harness))
        if context:  # the client's context beside the user's words: the harness's, in the round they open
            msgs.append(Message(len(msgs), Role.USER, "\n".join(context), timestamp=ts, line=lineno, harness=True))
        return not harness
    return False
