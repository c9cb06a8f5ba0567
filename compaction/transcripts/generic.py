"""The reader of last resort: any JSON, JSONL or Markdown conversation no loader claims.

JSON (a list, or an object holding one at any depth) and JSONL records are read when they carry a
speaker (`role` / `type` / `source` / `author` / `speaker` / `from` ... with values such as user, human,
USER_INPUT, assistant, model, PLANNER_RESPONSE, tool, observation, system; a wrapper like `message`
is looked into) and text (`content` / `text` / `parts` / `message` / `output` / `observation` ...,
strings or block lists). Tool calls come from blocks (`tool_use`, `toolCall`, `functionCall`,
`tool_calls`) or records naming an operation (`RUN_COMMAND`, `view_file`); results from blocks
(`tool_result`, `functionResponse`) or tool-speaker records; they are paired by id, else by order.
Markdown sections open at a speaker heading or label (`## User`, `**User:**`, `_**Assistant**_`,
`### 🧑 Human`); Cline's XML tool tags and `[tool for 'x'] Result:` answers inside them are parsed.
What was inferred is named in `Transcript.meta["inferred"]` so `stats` can show it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, TranscriptError
from compaction.transcripts import anthropic
from compaction.transcripts._agent_tools import (
    as_text,
    exit_code_for,
    kind_of,
    make_call,
    parse_arguments,
    renumber,
    said_as_text,
)
from compaction.transcripts._fences import outside_fences
from compaction.transcripts._io import iter_json_records, read_text
from compaction.transcripts._speakers import (
    SPEAKER_KEYS,
    STRONG_SPEAKER_KEYS,
    TEXT_KEYS,
    WEAK_SPEAKER_KEYS,
    infer_kind,
    kind_from_words,
    speaker_of,
    toolish,
)
from compaction.transcripts.arg_names import ArgRole, is_name

NAME = "generic"
DESCRIPTION = "Any JSON / JSONL / Markdown conversation with speakers and text (inferred; last resort)"

_WRAPPERS = ("message", "msg", "data", "payload", "item", "entry", "step", "event", "record", "turn")
_LIST_KEYS = ("messages", "history", "conversation", "turns", "steps", "trajectory", "entries", "items",
              "chat", "log", "records", "events", "transcript", "dialog", "dialogue", "contents")
_ID_KEYS = ("tool_call_id", "toolCallId", "tool_use_id", "toolUseId", "call_id", "callId", "id")
_NAME_KEYS = ("name", "tool_name", "toolName", "tool", "function", "functionName")
_ARG_KEYS = ("arguments", "args", "input", "parameters", "params")
_CALL_BLOCKS = {"tool_use", "toolcall", "tool_call", "function_call", "functioncall", "server_tool_use"}
_RESULT_BLOCKS = {"tool_result", "toolresult", "function_result", "function_response", "functionresponse",
                  "tool_response"}
_SKIP_LEAVES = re.compile(r"(?:^|_|\b)(?:id|uuid|timestamp|ts|time|created|updated|signature|hash|token|tokens|"
                          r"usage|cost|model|version|index|status|mime)s?$", re.I)
_ROLE = {"user": Role.USER, "assistant": Role.ASSISTANT, "tool": Role.TOOL, "system": Role.SYSTEM}


def sniff(head: str, path: str) -> int:
    s = head.lstrip()
    if s[:1] in "[{":
        return 5 if re.search(r'"(?:' + "|".join(SPEAKER_KEYS) + r')"\s*:', head) else 0
    return 5 if len({r for r, _ in _md_markers(head)}) >= 1 else 0


# --- JSON and JSONL ------------------------------------------------------------------------------


def load(path: str) -> Transcript:
    text = read_text(path)
    if not text.strip():
        raise TranscriptError(path, "empty file")
    s = text.lstrip()
    if s[:1] not in "[{":
        return _load_markdown(path, text)
    try:
        doc: Any = json.loads(text)
        items: list[tuple[int | None, Any]] = [(None, x) for x in _find_list(doc)]
        shape = "json"
    except json.JSONDecodeError as exc:
        if "\n" not in s.strip() or exc.pos == 0:
            raise TranscriptError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
        items, shape = list(iter_json_records(path)), "jsonl"
        if len(items) == 1 and isinstance(items[0][1], (dict, list)):
            items = [(None, x) for x in _find_list(items[0][1])]
    except (RecursionError, ValueError) as exc:
        raise TranscriptError(path, f"invalid JSON: {type(exc).__name__}") from None
    t = Transcript(path=path, format=f"generic-{shape}", messages=[])
    _Builder(t).run(items)
    return t


def _speaker(rec: Any, depth: int = 0) -> tuple[str, str, dict[str, Any]] | None:
    """(role, key that named it, the dict that carries the message) for one record. A record whose type
    names an operation (RUN_COMMAND, view_file) is an operation even if a `source` names who issued it."""
    if not isinstance(rec, dict) or depth > 2:
        return None
    for key in STRONG_SPEAKER_KEYS:
        role = speaker_of(rec.get(key))
        if role:
            return role, key, rec
    if depth == 0 and _op_type(rec):
        return None
    for key in WEAK_SPEAKER_KEYS:
        role = speaker_of(rec.get(key))
        if role:
            return role, key, rec
    for key in _WRAPPERS:
        found = _speaker(rec.get(key), depth + 1)
        if found:
            return found
    return None


def _find_list(doc: Any, depth: int = 0) -> list[Any]:
    """The list of records with the most speakers anywhere in the document (a bare record: itself)."""
    best: list[Any] = []
    best_score = 0
    if isinstance(doc, list):
        score = sum(1 for x in doc if _speaker(x) or (isinstance(x, dict) and _op_type(x)))
        if score:
            best, best_score = doc, score
    if depth < 4:
        children = doc.values() if isinstance(doc, dict) else (doc if isinstance(doc, list) else [])
        for child in children:
            if isinstance(child, (dict, list)):
                found = _find_list(child, depth + 1)
                score = sum(1 for x in found if _speaker(x))
                if score > best_score:
                    best, best_score = found, score
    if not best and isinstance(doc, dict) and _speaker(doc):
        return [doc]
    return best


def _op_type(rec: dict[str, Any]) -> str | None:
    value = rec.get("type") or rec.get("kind") or rec.get("action")
    return value if toolish(value) and speaker_of(value) is None else None


def _flatten(value: Any, prefix: str = "", out: dict[str, Any] | None = None, depth: int = 0) -> dict[str, Any]:
    out = {} if out is None else out
    if isinstance(value, dict) and depth < 6:
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)
    elif prefix:
        out[prefix] = value
    return out


class _Builder:
    """Turns records into messages; remembers which keys it relied on, to report them."""

    def __init__(self, t: Transcript) -> None:
        self.t = t
        self.speaker_keys: Counter[str] = Counter()
        self.text_keys: Counter[str] = Counter()
        self.calls: dict[str, ToolCall] = {}
        self.thoughts: list[str] = []  # thinking found beside the text of the record being read
        self.unanswered: list[ToolCall] = []

    def run(self, items: list[tuple[int | None, Any]]) -> None:
        for line, rec in items:
            self.record(rec, line)
        if not any(m.role in (Role.USER, Role.ASSISTANT) for m in self.t.messages):
            for msg in [m for m in self.t.messages if m.meta.get("unspoken")]:  # notes alone are no conversation
                self.t.messages.remove(msg)
                self.t.skip("no speaker")
            renumber(self.t.messages)
        speaker = ",".join(k for k, _ in self.speaker_keys.most_common(2)) or "none"
        text = ",".join(k for k, _ in self.text_keys.most_common(3)) or "none"
        self.t.meta["inferred"] = f"speaker={speaker}, text={text}"
        self.t.meta["speaker_keys"] = [k for k in self.speaker_keys if not k.endswith(")")]

    def record(self, rec: Any, line: int | None) -> None:
        found = _speaker(rec)
        if found is None:
            op = _op_type(rec) if isinstance(rec, dict) else None
            if op:
                self.operation(rec, op, line)
            elif isinstance(rec, dict) and (note := self.note(rec)):
                msg = self.add(Role.SYSTEM, note, line)
                msg.harness = True
                msg.meta["unspoken"] = str(rec.get("type") or "record")[:80]
            else:
                self.t.skip(type(rec).__name__ if not isinstance(rec, dict) else "no speaker")
            return
        role, key, body = found
        self.speaker_keys[key] += 1
        self.thoughts = []
        if role == "call":
            self.call_record(body, line)
            return
        texts: list[str] = []
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        for tk in TEXT_KEYS:
            if tk != key and tk in body and body[tk] not in (None, "", []):
                before = len(texts) + len(calls) + len(results)
                self.collect(body[tk], texts, calls, results)
                if len(texts) + len(calls) + len(results) > before:
                    self.text_keys[tk] += 1
        for ck in ("tool_calls", "toolCalls", "function_call", "functionCall", "tool_use"):
            if body.get(ck):
                for c in body[ck] if isinstance(body[ck], list) else [body[ck]]:
                    self.collect({"type": "tool_call", **c} if isinstance(c, dict) else c, texts, calls, results)
        if not texts and not calls and not results:
            leaves = [v for k, v in _flatten(body).items() if isinstance(v, str) and v.strip()
                      and k.rsplit(".", 1)[-1] not in SPEAKER_KEYS and not _SKIP_LEAVES.search(k.rsplit(".", 1)[-1])]
            texts.extend(leaves)
            if leaves:
                self.text_keys["(string leaves)"] += 1
        text = "\n".join(x for x in texts if x)
        if not text.strip() and not calls and not results:
            self.t.skip(f"{key}:{str(body.get(key))[:40]} without text")
            return
        if role == "tool" or (role == "user" and results and not text.strip()):
            if not results:
                results.append(ToolResult(text, _first_str(body, _ID_KEYS), _first_str(body, _NAME_KEYS)))
                text = ""
            self.add(Role.TOOL, text, line, results=results)
        elif role == "assistant":
            msg = self.add(Role.ASSISTANT, text, line, calls=calls)
            if self.thoughts:
                msg.meta["thinking"] = list(self.thoughts)
        else:
            msg = self.add(_ROLE[role], text, line, results=results)
            msg.tool_calls.extend(calls)

    @staticmethod
    def note(rec: dict[str, Any]) -> str:
        """The text of a record with no speaker (a harness notice, an ephemeral message), if it holds any."""
        texts = [v for k, v in _flatten(rec).items() if isinstance(v, str) and v.strip()
                 and any(t in k.rsplit(".", 1)[-1].lower() for t in TEXT_KEYS)]
        return "\n".join(texts)

    def collect(self, value: Any, texts: list[str], calls: list[ToolCall], results: list[ToolResult]) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list):
            for item in value:
                self.collect(item, texts, calls, results)
        elif isinstance(value, dict):
            btype = str(value.get("type") or "").lower().replace("-", "_")
            if btype in _CALL_BLOCKS or "functionCall" in value or "function_call" in value:
                inner = value.get("functionCall") or value.get("function_call") or value.get("function") or value
                inner = inner if isinstance(inner, dict) else value
                calls.append(self.make(inner.get("name") or value.get("name"), _args(inner),
                                       _first_str(value, ("id", "call_id", "tool_call_id")) or _first_str(inner, ("id",))))
            elif btype in _RESULT_BLOCKS or "functionResponse" in value:
                inner = value.get("functionResponse") if isinstance(value.get("functionResponse"), dict) else value
                body: list[str] = []
                for k in ("content", "response", "output", "result", "text"):
                    if inner.get(k) not in (None, ""):
                        sub: list[str] = []
                        self.collect(inner[k], sub, calls, results)
                        body.extend(sub)
                        if not sub and not isinstance(inner[k], (str, list)):
                            body.append(as_text(inner[k]))
                name = _first_str(inner, _NAME_KEYS)
                content = "\n".join(body)
                results.append(ToolResult(content, _first_str(value, _ID_KEYS) or _first_str(inner, _ID_KEYS), name,
                                          is_error=value.get("is_error") is True or value.get("isError") is True,
                                          exit_code=exit_code_for(name, content)))
            elif isinstance(value.get("text"), str):
                texts.append(value["text"])
                self.thoughts.extend(value[k] for k in ("thinking", "thought", "reasoning") if isinstance(value.get(k), str))
            else:
                for k in ("content", "parts", "value", "output", "message"):
                    if k in value:
                        self.collect(value[k], texts, calls, results)
                        break
        elif value is not None and not isinstance(value, bool):
            texts.append(str(value))

    def make(self, name: Any, args: dict[str, Any], cid: str | None) -> ToolCall:
        name = name if isinstance(name, str) and name else "tool"
        args = {k: _json_string(v) for k, v in args.items()} if isinstance(args, dict) else args
        cid = cid or f"generic-{len(self.t.messages)}-{len(self.unanswered)}-{len(self.calls)}"
        kind, path, command = infer_kind(_flatten(args))
        named = kind_of(name)
        if named == ToolKind.OTHER:  # the table first, then the name's words, then what the arguments hold
            hinted = kind_from_words(name)
            kind = hinted if hinted != ToolKind.OTHER and not (hinted == ToolKind.WRITE and kind == ToolKind.EDIT) else kind
        call = make_call(name, args, cid, None if named != ToolKind.OTHER else kind)
        if call.kind in (ToolKind.READ, ToolKind.WRITE, ToolKind.EDIT, ToolKind.SEARCH):
            call.path = call.path or path
            if call.path and call.path.startswith("file://"):
                call.path = call.path[len("file://"):]
        elif call.kind == ToolKind.SHELL:
            call.command = call.command or command
        if call.id:
            self.calls[call.id] = call
        self.unanswered.append(call)
        return call

    def call_record(self, body: dict[str, Any], line: int | None) -> None:
        fn = body.get("function") if isinstance(body.get("function"), dict) else body
        for tk in TEXT_KEYS:  # ShareGPT-style `{"from": "function_call", "value": "{\"name\": …}"}`
            inner = parse_arguments(body.get(tk)) if isinstance(body.get(tk), str) else None
            if inner and "raw" not in inner and _first_str(inner, _NAME_KEYS):
                fn = inner
                break
        call = self.make(_first_str(fn, _NAME_KEYS), _args(fn), _first_str(body, _ID_KEYS))
        self.attach(call, line)

    def operation(self, rec: dict[str, Any], op: str, line: int | None) -> None:
        """A record naming an operation (RUN_COMMAND, view_file): one call and the output it recorded; or,
        right after a reply whose call has no result yet, that call's output (Antigravity's SEARCH_WEB
        step after the planner's `search_web` call)."""
        leaves = _flatten(rec)
        pending = self.pending_call()
        if pending is not None and (output := _output_only(leaves)):
            self.add(Role.TOOL, "", line, results=[ToolResult(output, pending.id, pending.name,
                                                              exit_code=exit_code_for(pending.name, output))])
            self.speaker_keys["type(operation result)"] += 1
            return
        out_keys = [k for k in leaves if re.search(r"(?:output|result|stdout|stderr|observation|response)", k, re.I)]
        args = {k: v for k, v in leaves.items() if k not in out_keys and v not in (None, "")
                and not _SKIP_LEAVES.search(k.rsplit(".", 1)[-1]) and k not in ("type", "kind", "action")}
        call = self.make(op, args, _first_str(rec, _ID_KEYS))
        self.attach(call, line)
        output = "\n".join(as_text(leaves[k]) for k in out_keys if leaves[k] not in (None, ""))
        if output:
            self.unanswered.remove(call)
            code = next((v for k, v in leaves.items() if k.rsplit(".", 1)[-1].lower().replace("_", "") in
                         ("exitcode", "returncode", "status_code") and isinstance(v, int) and not isinstance(v, bool)),
                        None)
            code = code if code is not None else exit_code_for(call.name, output)
            self.add(Role.TOOL, "", line, results=[ToolResult(output, call.id, call.name, is_error=bool(code),
                                                               exit_code=code)])
        self.speaker_keys["type(operation)"] += 1

    def pending_call(self) -> ToolCall | None:
        """The first call without a result of the last reply, when only results followed it (a reply's
        parallel calls are answered one record each, in order)."""
        for msg in reversed(self.t.messages):
            if msg.role is Role.ASSISTANT:
                return next((c for c in msg.tool_calls if c in self.unanswered), None)
            if msg.role is not Role.TOOL:
                return None
        return None

    def attach(self, call: ToolCall, line: int | None) -> None:
        last = self.t.messages[-1] if self.t.messages else None
        if last is not None and last.role is Role.ASSISTANT:
            last.tool_calls.append(call)
        else:
            self.add(Role.ASSISTANT, "", line, calls=[call])

    def add(self, role: Role, text: str, line: int | None, *, calls: list[ToolCall] | None = None,
            results: list[ToolResult] | None = None) -> Message:
        for r in results or []:  # pair by id, else with the oldest unanswered call
            call = self.calls.get(r.call_id) if r.call_id else None
            if call is None and self.unanswered and (r.call_id is None or r.call_id not in self.calls):
                call = self.unanswered[0]
                r.call_id = r.call_id if r.call_id in self.calls else call.id or r.call_id
            if call is not None:
                r.name = r.name or call.name
                if call in self.unanswered:
                    self.unanswered.remove(call)
        msg = Message(len(self.t.messages), role, text, tool_calls=calls or [], tool_results=results or [], line=line)
        self.t.messages.append(msg)
        return msg


# What an operation record carries as what the call did, not as what it was asked: none of these
_ASKED_ROLES = (ArgRole.PATH, ArgRole.COMMAND, ArgRole.PATTERN, ArgRole.OLD, ArgRole.NEW, ArgRole.PATCH,
                ArgRole.EDIT_LIST)


def _output_only(leaves: dict[str, Any]) -> str:
    """The text of a record that holds only an outcome (its text, who made it, when, its status), not a
    call's arguments (a path, a command, a pattern, an edit): "" when it names an argument or has no text."""
    texts: list[str] = []
    for key, value in leaves.items():
        last = key.rsplit(".", 1)[-1]
        if last in TEXT_KEYS and isinstance(value, str):
            texts.append(value)
        elif last in SPEAKER_KEYS or _SKIP_LEAVES.search(last) or last.endswith("_at") or value in (None, ""):
            continue
        elif any(is_name(last, role) for role in _ASKED_ROLES):
            return ""
    return "\n".join(t for t in texts if t.strip())


def _first_str(d: Any, keys: tuple[str, ...]) -> str | None:
    if not isinstance(d, dict):
        return None
    for k in keys:
        v = d.get(k)
        if isinstance(v, str) and v:
            return v
        if isinstance(v, dict) and isinstance(v.get("name"), str):
            return v["name"]
    return None


def _json_string(value: Any) -> Any:
    """A value some agents store JSON-encoded a second time (a path kept as the JSON text of a
    string, quotes and doubled backslashes included): the string it encodes, so a path or a command
    reads as the agent meant it; anything else unchanged."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, str) else value
    return value


def _args(d: dict[str, Any]) -> dict[str, Any]:
    for k in _ARG_KEYS:
        if k in d:
            return parse_arguments(d[k])
    return {k: v for k, v in d.items() if k not in ("type", "name", "id")}


# --- Markdown ------------------------------------------------------------------------------------

_MD_WORDS = {
    "user": "user", "human": "user", "you": "user", "me": "user", "prompt": "user", "question": "user",
    "assistant": "assistant", "ai": "assistant", "model": "assistant", "bot": "assistant", "agent": "assistant",
    "claude": "assistant", "chatgpt": "assistant", "gpt": "assistant", "gemini": "assistant", "copilot": "assistant",
    "cursor": "assistant", "cline": "assistant", "answer": "assistant", "response": "assistant",
    "system": "system", "developer": "system",
    "tool": "tool", "tool result": "tool", "tool output": "tool", "function": "tool", "observation": "tool",
    "function result": "tool", "output": "tool",
}
_WORD_RE = "|".join(sorted((re.escape(w) for w in _MD_WORDS), key=len, reverse=True))
_HEAD_MARK = re.compile(r"^#{1,6}[ \t]++(?:[^\w\s*_#]{1,4}[ \t]*)?[*_]*(" + _WORD_RE + r")[*_]*"
                        r"[ \t]*+(?:\([^)\n]*\)[ \t]*+)?(?::[ \t]*+)?$", re.I)
_LABEL_MARK = re.compile(r"^[ \t]*(?:_\*\*|\*\*_?|__)(?:[^\w\s*_]{1,4}[ \t]*)?(" + _WORD_RE + r")"
                         r"(?:[ \t]*\([^)\n]*\))?[ \t]*:?[ \t]*(?:\*\*_|_?\*\*|__)[ \t]*:?[ \t]?(.*)$", re.I)
_TOOL_USE = re.compile(r"^\[Tool Use: ([^\]\n]+)\]\n((?:[A-Z][\w ]*: .*(?:\n(?!\[Tool).*)*)?)", re.M)
_TOOL_ANSWER = re.compile(r"^\[Tool( \(Error\))?\]\n?", re.M)
_UNCLOSED = ("tool_use",)  # the fences an export leaves open before the next speaker (Cline's ```tool_use)


def _md_markers(text: str) -> list[tuple[str, int]]:
    """(role, line index) of every speaker marker outside fenced code (a marker after a `---`
    separator ends a tool block's fence the export left open)."""
    out: list[tuple[str, int]] = []
    for i, line in outside_fences(text.split("\n"), boundary=_speaker_mark, unclosed_info=_UNCLOSED):
        m = _speaker_mark(line)
        if m:
            out.append((_MD_WORDS[m.group(1).lower()], i))
    return out


def _speaker_mark(line: str) -> re.Match[str] | None:
    return _HEAD_MARK.match(line) or _LABEL_MARK.match(line)


def _load_markdown(path: str, text: str) -> Transcript:
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    markers = _md_markers(text)
    t = Transcript(path=path, format="generic-markdown", messages=[])
    if not markers:
        return t
    styles: Counter[str] = Counter()
    if markers[0][1] > 0:
        pre = "\n".join(lines[:markers[0][1]]).strip()
        if pre:
            t.messages.append(Message(0, Role.SYSTEM, pre, line=1, harness=True))
    for n, (role, start) in enumerate(markers):
        end = markers[n + 1][1] if n + 1 < len(markers) else len(lines)
        first = lines[start]
        label = _LABEL_MARK.match(first)
        styles["heading" if first.lstrip().startswith("#") else "label"] += 1
        body_lines = ([label.group(2)] if label and label.group(2).strip() else []) + lines[start + 1:end]
        body = "\n".join(body_lines).strip()
        if body.endswith("\n---") or body == "---":
            body = body[:-3].rstrip()
        _md_section(t, role, body, start + 1)
    t.meta["inferred"] = f"speaker={'/'.join(k for k, _ in styles.most_common())}, text=section body"
    return t


def _md_section(t: Transcript, role: str, body: str, line: int) -> None:
    if role == "assistant":
        calls: list[ToolCall] = []
        said: list[str] = []  # per `[Tool Use: x]` block, what replaces it in the text: a speech call's words
        for m in _TOOL_USE.finditer(body):
            args = {}
            for kv in m.group(2).split("\n"):
                k, sep, v = kv.partition(": ")
                if sep:
                    args[k.strip().lower().replace(" ", "_")] = v
                elif args:
                    last = list(args)[-1]
                    args[last] += "\n" + kv
            kind = kind_of(m.group(1))
            if kind == ToolKind.OTHER:
                kind = infer_kind(args)[0]
            args["raw"] = m.group(0).rstrip("\n")  # Cline's `[Tool Use: x]` rendering, as the reader saw it
            calls.append(make_call(m.group(1).strip(), args, f"md-{line}-{len(calls)}", kind))
            words = said_as_text(calls[-1], drop=("raw",))
            said.append(f"{words}\n" if words else "")
        replacement = iter(said)
        text = _TOOL_USE.sub(lambda _: next(replacement), body) if calls else body
        anthropic._assistant(t, [{"type": "text", "text": text}], None, line)
        t.messages[-1].tool_calls.extend(calls)
    elif role == "user":
        answer = _TOOL_ANSWER.match(body)
        if answer:
            prev = next((m for m in reversed(t.messages) if m.role is Role.ASSISTANT), None)
            pending = [c for c in (prev.tool_calls if prev else [])]
            content = body[answer.end():]
            t.messages.append(Message(len(t.messages), Role.TOOL, "", line=line, tool_results=[
                ToolResult(content, pending[0].id if pending else None, pending[0].name if pending else None,
                           is_error=bool(answer.group(1)))]))
            return
        anthropic._user(t, [{"type": "text", "text": body}], None, line)
    elif role == "tool":
        prev = next((m for m in reversed(t.messages) if m.role is Role.ASSISTANT), None)
        answered = {r.call_id for m in t.messages for r in m.tool_results}
        call = next((c for c in (prev.tool_calls if prev else []) if c.id not in answered), None)
        t.messages.append(Message(len(t.messages), Role.TOOL, "", line=line, tool_results=[
            ToolResult(body, call.id if call else None, call.name if call else None)]))
    else:
        t.messages.append(Message(len(t.messages), Role.SYSTEM, body, line=line))
