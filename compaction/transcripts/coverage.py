"""Loss accounting: how much of the text the model saw reached the parsed messages.

Measured independently of the loaders: the source file is scanned on its own (every string leaf of a
JSON / JSONL document, every line of a Markdown or text file), each leaf split into normalised lines,
and a line counts as reached when the parsed messages (texts, tool-call names, commands, paths and
arguments, tool results, message meta such as thinking) hold an equal line, or, for a line of 20
characters or more, contain it (a loader may move a line's head into a field: `<path>a</path>`). Fields never shown to the model are
excluded by the one table below, each with its reason; their share is reported beside coverage.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from compaction.model import Transcript
from compaction.transcripts._io import read_text, split_records
from compaction.transcripts.glued_titles import unglue
from compaction.transcripts.terminal import clean_text


@dataclass(frozen=True, slots=True)
class Exclusion:
    """What `key` names: the key of a string leaf (default); with `subtree`, a key whose whole value is
    left out; with `record`, a `type` value (or a key set to true) whose whole record is left out; with `line`, a regex a whole
    line matches (a Markdown line, or a line inside a JSON string). `formats`: the formats it applies to ("*": every format)."""

    formats: tuple[str, ...]
    key: str
    reason: str
    subtree: bool = False
    record: bool = False
    line: bool = False
    pattern: bool = False  # `key` is a regex over key names (the generic reader meets unknown schemas)


INFERRED_SPEAKER = "<speaker key>"  # stands for the key(s) named in Transcript.meta["speaker_keys"]

# THE table: every field or line left out of coverage, and why the model never saw it.
EXCLUSIONS: tuple[Exclusion, ...] = (
    # identifiers and bookkeeping, in every format
    Exclusion(("*",), "id", "record / call identifier (the pairing it encodes is kept, the string is not text)"),
    Exclusion(("*",), "uuid", "record identifier"),
    Exclusion(("*",), "parentUuid", "record tree link (parent / child ids)"),
    Exclusion(("*",), "parentId", "record tree link (parent / child ids)"),
    Exclusion(("*",), "leafUuid", "record tree link (parent / child ids)"),
    Exclusion(("*",), "logicalParentUuid", "record tree link (parent / child ids)"),
    Exclusion(("*",), "sessionId", "session identifier"),
    Exclusion(("*",), "session_id", "session identifier"),
    Exclusion(("*",), "requestId", "API request identifier"),
    Exclusion(("*",), "tool_use_id", "pairing id (the pairing is kept)"),
    Exclusion(("*",), "tool_call_id", "pairing id (the pairing is kept)"),
    Exclusion(("*",), "toolCallId", "pairing id (the pairing is kept)"),
    Exclusion(("*",), "call_id", "pairing id (the pairing is kept)"),
    Exclusion(("*",), "timestamp", "when a record was written; not shown to the model"),
    Exclusion(("*",), "ts", "when a record was written"),
    Exclusion(("*",), "created", "when a record was written"),
    Exclusion(("*",), "signature", "cryptographic signature of a thinking block"),
    Exclusion(("*",), "thoughtSignature", "Gemini's opaque signature of a thought part"),
    Exclusion(("*",), "encrypted_content", "encrypted reasoning: unreadable"),
    Exclusion(("*",), "data", "base64 payload (images)"),
    Exclusion(("*",), "version", "writer's version"),
    Exclusion(("*",), "model", "model name (settings, not conversation)"),
    Exclusion(("*",), "type", "record / block type tag (structure, not text)"),
    Exclusion(("*",), "role", "speaker tag (kept as the message's role)"),
    Exclusion(("*",), "stop_reason", "API stop reason"),
    Exclusion(("*",), "stopReason", "API stop reason"),
    Exclusion(("*",), "usage", "token accounting", subtree=True),
    Exclusion(("*",), "cwd", "working directory (kept as the transcript's cwd)"),
    Exclusion(("*",), "media_type", "image MIME type"),
    Exclusion(("*",), "mimeType", "image MIME type"),
    # Claude Code
    Exclusion(("claude-code",), "toolUseResult", "the UI's structured copy of a tool result; the model got the "
              "tool_result block, which is counted", subtree=True),
    Exclusion(("claude-code",), "gitBranch", "session bookkeeping"),
    Exclusion(("claude-code",), "userType", "session bookkeeping"),
    Exclusion(("claude-code",), "entrypoint", "session bookkeeping"),
    Exclusion(("claude-code",), "slug", "session bookkeeping"),
    Exclusion(("claude-code",), "permissionMode", "session bookkeeping"),
    Exclusion(("claude-code",), "snapshot", "file-history snapshot for undo; never sent", subtree=True),
    Exclusion(("claude-code",), "summary", "session title for the resume picker; never sent"),
    Exclusion(("claude-code",), "level", "log level of a system record"),
    Exclusion(("claude-code",), "subtype", "record subtype tag"),
    Exclusion(("claude-code",), "todos", "the UI's todo state (the TodoWrite input, which is counted, carries it)", subtree=True),
    Exclusion(("claude-code",), "operation", "compaction bookkeeping"),
    Exclusion(("claude-code",), "trigger", "compaction bookkeeping"),
    Exclusion(("claude-code",), "source", "image source descriptor (base64)", subtree=True),
    Exclusion(("claude-code",), "progress", "hook and tool progress records for the UI", record=True),
    Exclusion(("claude-code",), "queue-operation", "the prompt queue's bookkeeping: a queued prompt reaches the model "
              "as a queued_command attachment or a user record, both read", record=True),
    Exclusion(("claude-code",), "last-prompt", "the UI's memory of the last prompt (the prompt itself is read)", record=True),
    Exclusion(("claude-code",), "origin", "what wrote a user record (a task notification): kept as the message's "
              "harness flag", subtree=True),
    Exclusion(("claude-code",), "commandMode", "how a queued prompt was typed (prompt / bash): a tag"),
    Exclusion(("claude-code",), "displayPath", "a file's path as the UI shows it (its full path is read)"),
    Exclusion(("claude-code",), "toolUseID", "id pairing a result with its call (the pairing is kept)"),
    Exclusion(("claude-code",), "parentToolUseID", "id pairing a result with its call (the pairing is kept)"),
    Exclusion(("claude-code",), "sourceToolAssistantUUID", "record tree link (parent / child ids)"),
    Exclusion(("claude-code",), "promptId", "prompt identifier"),
    Exclusion(("claude-code",), "messageId", "message identifier"),
    Exclusion(("claude-code",), "hookInfos", "which hooks ran (their commands); not sent", subtree=True),
    # GitHub Copilot CLI session events
    Exclusion(("copilot-cli",), "hook.start", "a hook the CLI ran: its input repeats the prompt or the call", record=True),
    Exclusion(("copilot-cli",), "hook.end", "a hook the CLI ran: its outcome is the CLI's", record=True),
    Exclusion(("copilot-cli",), "tool.execution_start", "a tool's start: its arguments are the call's, read from the "
              "assistant's message", record=True),
    Exclusion(("copilot-cli",), "session.start", "the session's metadata (start time, branch, commits); its working "
              "directory is kept as the transcript's", record=True),
    Exclusion(("copilot-cli",), "session.model_change", "a change of model or reasoning effort: settings", record=True),
    Exclusion(("copilot-cli",), "reasoningOpaque", "encrypted reasoning: unreadable"),
    Exclusion(("copilot-cli",), "detailedContent", "the UI's fuller rendering of a result; the model got its content"),
    Exclusion(("copilot-cli",), "intentionSummary", "the UI's label of a call"),
    Exclusion(("copilot-cli",), "toolTelemetry", "usage telemetry", subtree=True),
    Exclusion(("copilot-cli",), "shellToolInfo", "the CLI's analysis of a shell command for permissions", subtree=True),
    Exclusion(("copilot-cli",), r"interactionId|hookInvocationId|clientRequestId|serviceRequestId|messageId|apiCallId|"
              r"turnId|producer|copilotVersion|parentAgentTaskId|delivery", "identifiers, the writer's version and delivery "
              r"tags", pattern=True),
    # Codex
    Exclusion(("codex",), "turn_context", "per-turn settings (sandbox, approval policy, model)", record=True),
    Exclusion(("codex",), "event_msg", "UI events echoing response items, which are counted", record=True),
    Exclusion(("codex",), "base_instructions", "the CLI's built-in system prompt, recorded for replay", subtree=True),
    Exclusion(("codex",), "originator", "session bookkeeping"),
    Exclusion(("codex",), "cli_version", "session bookkeeping"),
    Exclusion(("codex",), "instructions", "the CLI's built-in system prompt"),
    Exclusion(("codex",), "git", "repository state recorded for replay", subtree=True),
    Exclusion(("codex",), "source", "session bookkeeping"),
    Exclusion(("codex",), "model_provider", "model / provider settings, not conversation"),
    Exclusion(("codex",), "status", "call status tag"),
    Exclusion(("codex",), "internal_chat_message_metadata_passthrough", "client bookkeeping", subtree=True),
    Exclusion(("codex",), "phase", "turn phase tag"),
    # Codex exec --json, Claude Code stream-json, Gemini CLI stream-json
    Exclusion(("codex-exec",), "thread_id", "thread identifier"),
    Exclusion(("codex-exec",), "status", "item status tag (started / completed / failed)"),
    Exclusion(("claude-code",), "parent_tool_use_id", "sub-agent link of a stream-json record"),
    Exclusion(("claude-code",), "apiKeySource", "stream-json init bookkeeping"),
    Exclusion(("claude-code",), "tools", "tool names listed by stream-json init (interface, not conversation)",
              subtree=True),
    Exclusion(("gemini-cli",), "tool_id", "id pairing a stream-json tool result with its call (the pairing is kept)"),
    # pi
    Exclusion(("pi",), "thinkingSignature", "signature of a thinking block"),
    Exclusion(("pi",), "details", "tool-specific metadata; pi documents it as not sent to the LLM", subtree=True),
    Exclusion(("pi",), "api", "provider settings"),
    Exclusion(("pi",), "provider", "provider settings"),
    Exclusion(("pi",), "modelId", "model / provider settings, not conversation"),
    Exclusion(("pi",), "thinkingLevel", "model / provider settings, not conversation"),
    Exclusion(("pi",), "responseId", "API response identifier"),
    Exclusion(("pi",), "firstKeptEntryId", "compaction bookkeeping"),
    Exclusion(("pi",), "customType", "extension identifier tag"),
    Exclusion(("pi",), "label", "a user's bookmark on an entry; not part of the context"),
    Exclusion(("pi",), "fromId", "record tree link (parent / child ids)"),
    Exclusion(("pi",), "targetId", "record tree link (parent / child ids)"),
    # mini-swe-agent
    Exclusion(("mini-swe-agent",), "info", "run metadata (config templates, model stats, the final submission)", subtree=True),
    Exclusion(("mini-swe-agent",), "trajectory_format", "trajectory format tag"),
    Exclusion(("mini-swe-agent",), "extra", "the raw API response beside each message: its content is the "
              "message; provider tags and reasoning are not sent back", subtree=True),
    Exclusion(("mini-swe-agent",), "instance_id", "benchmark bookkeeping"),
    # SWE-agent
    Exclusion(("swe-agent",), "info", "run metadata"),
    Exclusion(("swe-agent",), "environment", "environment name"),
    Exclusion(("swe-agent",), "trajectory", "per-step replay of the history (action, observation, state); the "
              "history the model saw is counted", subtree=True),
    Exclusion(("swe-agent",), "replay_config", "run configuration", subtree=True),
    Exclusion(("swe-agent",), "agent", "agent name tag"),
    Exclusion(("swe-agent",), "is_demo", "the harness's canned demonstration of another task; the loader skips it "
              "so its edits are not taken for this session's", record=True),
    Exclusion(("swe-agent",), "message_type", "history entry tag"),
    # OpenHands
    Exclusion(("openhands",), "extras", "structured copies of arguments / observations the message already holds", subtree=True),
    Exclusion(("openhands",), "tool_call_metadata", "the raw LLM response, duplicated by action args", subtree=True),
    Exclusion(("openhands",), "llm_metrics", "token accounting", subtree=True),
    Exclusion(("openhands",), "source", "speaker tag"),
    Exclusion(("openhands",), "action", "action type tag"),
    Exclusion(("openhands",), "observation", "observation type tag"),
    Exclusion(("openhands",), "message", "UI summary line of an action or observation (the arguments / content "
              "the model saw are counted)"),
    Exclusion(("openhands",), "security_risk", "UI annotation"),
    Exclusion(("openhands",), "tools", "tool schemas sent with each request: interface, not conversation",
              subtree=True),
    Exclusion(("openhands",), "metrics", "token and latency accounting", subtree=True),
    Exclusion(("openhands",), "metadata", "evaluation run configuration", subtree=True),
    Exclusion(("openhands",), "test_result", "the benchmark's evaluation of the final patch, after the session",
              subtree=True),
    Exclusion(("openhands",), "instance", "benchmark instance record (its problem statement reaches the model "
              "as the first message, which is counted)", subtree=True),
    Exclusion(("openhands",), "instance_id", "benchmark bookkeeping"),
    Exclusion(("openhands",), "confirmation_state", "confirmation state shown in the UI"),
    Exclusion(("openhands",), "impl_source", "action origin tag"),
    Exclusion(("openhands",), "recall_type", "memory recall tag"),
    Exclusion(("openhands",), "agent_class", "agent name tag"),
    Exclusion(("openhands",), "openhands_version", "writer's version"),
    # Gemini CLI
    Exclusion(("gemini-cli",), "projectHash", "session bookkeeping"),
    Exclusion(("gemini-cli",), "startTime", "when the session started"),
    Exclusion(("gemini-cli",), "lastUpdated", "when the session was written"),
    Exclusion(("gemini-cli",), "displayName", "UI label of a tool"),
    Exclusion(("gemini-cli",), "description", "UI description of a tool call"),
    Exclusion(("gemini-cli",), "resultDisplay", "the UI's rendering of a result the model got as functionResponse", subtree=True),
    Exclusion(("gemini-cli",), "status", "call status tag"),
    # Markdown renderings: markup lines that carry no text of their own
    Exclusion(("*",), r"-{3,}|\*{3,}|_{3,}", "section rule", line=True),
    Exclusion(("specstory",), r"_\*\*(?:User|Agent|Assistant|Human|AI)\b.*\*\*_", "speaker line (kept as the "
              "message's role and time)", line=True),
    Exclusion(("specstory",), r"</?(?:tool-use|details|think)\b.*|<think><details><summary>Thought Process</summary>",
              "rendering markup around a tool call or thinking", line=True),
    # the generic reader: the keys it took the speaker from, and keys whose names say they hold no text
    Exclusion(("generic",), INFERRED_SPEAKER, "the speaker field the generic reader inferred (kept as the "
              "message's role)"),
    Exclusion(("generic",), r"(?i).*(?:_id|Id|uuid|time|Time|date|Date|_at|At|stamp)|sent|status|kind|title|"
              r"content_type|name|mime_?type|lang(?:uage)?", "identifiers, times, status and type tags, titles "
              "and names (judged by the key's name)", pattern=True),
    Exclusion(("anthropic", "generic"), r"\[[a-z_]+(?: for '.*?')?[^\]]*\] Result:|\[Tool(?: \(Error\))?\]",
              "Cline's result header: kept as the result's tool name and its pairing with the call", line=True),
    Exclusion(("cursor-export",), r"\*\*(?:User|Cursor)\*\*", "speaker line (kept as the message's role)",
              line=True),
    Exclusion(("generic-markdown", "markdown"), r"#{1,6}\s.{0,40}|(?:_?\*\*|__).{1,40}(?:\*\*_?|__):?.*",
              "speaker heading or label (kept as the message's role) when nothing else reached", line=True),
)


class Coverage(BaseModel):
    path: str
    format: str
    seen_chars: int  # text the model saw (source minus exclusions)
    reached_chars: int
    excluded_chars: int
    coverage: float  # reached / seen
    excluded_share: float  # excluded / (seen + excluded)
    missing: list[tuple[str, int]]  # (kind: key path or line sample, chars), largest first
    excluded: list[tuple[str, int]]


TOP = 10  # kinds listed in a report
_WS = re.compile(r"\s+")
_TAG = re.compile(r"</?[A-Za-z_][\w-]*(?:\s[^<>\n]*)?/?>")
_LEAD = re.compile(r"^(?:[#>]+\s*)+")


def _norm(line: str) -> str:
    line = _TAG.sub(" ", html.unescape(line))
    return _WS.sub(" ", _LEAD.sub("", line.strip())).strip()


def _lines(text: str) -> Iterator[str]:
    for raw in text.replace("\r", "\n").split("\n"):
        n = _norm(raw)
        if n:
            yield n


def _applies(ex: Exclusion, fmt: str) -> bool:
    return "*" in ex.formats or fmt in ex.formats or (fmt.startswith("generic-") and "generic" in ex.formats)


# --- the parsed side --------------------------------------------------------------------------------


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 40:
        return
    if isinstance(value, str):
        out.append(value)
        parsed = _json_in_string(value)
        if parsed is not None:
            _strings(parsed, out, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _strings(v, out, depth + 1)


def _json_in_string(value: str) -> Any:
    """The JSON a string leaf holds: an object or list (`"arguments": "{…}"`), or a string encoded a
    second time (`"\"C:\\\\proj\\\\a.py\""`, as the generic reader decodes it)."""
    s = value.strip()
    if len(s) < 2 or (s[0], s[-1]) not in (("[", "]"), ("{", "}"), ('"', '"')):
        return None
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        return None


class _Parsed:
    def __init__(self, t: Transcript) -> None:
        texts: list[str] = []
        for m in t.messages:
            texts.append(m.text)
            for c in m.tool_calls:
                texts.extend(x for x in (c.name, c.command, c.path) if x)
                _strings(c.arguments, texts)
            for r in m.tool_results:
                texts.extend(x for x in (r.content, r.name) if x)
            _strings(m.meta, texts)
        self.lines: set[str] = set()
        for text in texts:
            self.lines.update(_lines(text))
        self.joined = "\n".join(sorted(self.lines))

    def has(self, line: str) -> bool:
        return line in self.lines or (len(line) >= 20 and line in self.joined)


# --- the source side --------------------------------------------------------------------------------


def _json_leaves(value: Any, path: tuple[str, ...], rules: _Rules, inherited: Exclusion | None = None,
                 depth: int = 0) -> Iterator[tuple[tuple[str, ...], str, Exclusion | None]]:
    """(path, string, the exclusion that covers it or None) for every string leaf."""
    if depth > 60:
        return
    if isinstance(value, dict):
        if inherited is None and isinstance(value.get("type"), str):
            inherited = rules.records.get(value["type"])
        if inherited is None:
            inherited = next((rules.records[k] for k, v in value.items() if v is True and k in rules.records), None)
        for k, v in value.items():
            yield from _json_leaves(v, (*path, str(k)), rules, inherited or rules.subtrees.get(str(k)), depth + 1)
    elif isinstance(value, list):
        for v in value:
            yield from _json_leaves(v, (*path, "[]"), rules, inherited, depth + 1)
    elif isinstance(value, str):
        inner = _json_in_string(value)  # `"arguments": "{\"path\": …}"`: judge the decoded leaves
        if inner is not None and isinstance(inner, (dict, list, str)):
            yield from _json_leaves(inner, path, rules, inherited, depth + 1)
        else:
            names = [p for p in path if p != "[]"]
            yield path, value, inherited or (rules.leaf(names[-1]) if names else None)


class _Rules:
    def __init__(self, fmt: str, speaker_keys: list[str] | None = None) -> None:
        mine = [ex for ex in EXCLUSIONS if not ex.line and _applies(ex, fmt)]
        self.records = {ex.key: ex for ex in mine if ex.record}
        self.subtrees = {ex.key: ex for ex in mine if ex.subtree}
        self.leaves = {ex.key: ex for ex in mine if not (ex.record or ex.subtree or ex.pattern)}
        self.patterns = [(re.compile(ex.key), ex) for ex in mine if ex.pattern]
        if INFERRED_SPEAKER in self.leaves:
            row = self.leaves.pop(INFERRED_SPEAKER)
            self.leaves.update({k: row for k in speaker_keys or []})

    def leaf(self, name: str) -> Exclusion | None:
        found = self.leaves.get(name)
        if found is None and self.patterns:
            found = next((ex for rx, ex in self.patterns if rx.fullmatch(name)), None)
        return found


def _source_json(text: str) -> list[Any] | None:
    try:
        return [json.loads(text)]
    except (ValueError, RecursionError):
        pass
    docs: list[Any] = []
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                docs.extend(split_records("", n, line))
            except Exception:  # noqa: BLE001 - a broken line is scanned as text below
                return None
    return docs


def _label(path: tuple[str, ...]) -> str:
    names = [p for p in path if p != "[]"]
    return ".".join(names[-3:]) or "(top)"


class _Tally:
    """Adds up one line at a time: reached, left out (by kind), or excluded (by its table row)."""

    def __init__(self, parsed: _Parsed, patterns: list[tuple[re.Pattern[str], Exclusion]]) -> None:
        self.parsed, self.patterns = parsed, patterns
        self.seen = self.reached = self.excluded = 0
        self.missing: Counter[str] = Counter()
        self.left: Counter[str] = Counter()

    def add(self, raw: str, ex: Exclusion | None, kind: str) -> None:
        line = _norm(raw)
        if not line:
            return
        if ex is None and not self.parsed.has(line) and not self._reached_apart(raw):
            ex = next((rule for rx, rule in self.patterns if rx.fullmatch(raw.strip()) or rx.fullmatch(line)), None)
            if ex is None:
                self.seen += len(line)
                self.missing[kind] += len(line)
                return
        if ex is not None:
            self.excluded += len(line)
            self.left[f"{ex.key}: {ex.reason}"] += len(line)
            return
        self.seen += len(line)
        self.reached += len(line)

    def _reached_apart(self, raw: str) -> bool:
        """A line whose glued titles the loading put apart (`glued_titles`): reached when each part is."""
        apart = unglue(raw)
        return apart != raw and all(self.parsed.has(p) for p in map(_norm, apart.split("\n")) if p)


def measure(path: str | Path, transcript: Transcript) -> Coverage:
    """Coverage of `transcript` (loaded from `path`, preferably unredacted) against the file itself.

    The source is read as a terminal shows it (colour escapes gone, a line redrawn after `\r` as
    its last drawing), as the loaders clean text (compaction.transcripts.terminal): what a redraw
    overwrote is not text the parsed messages should be blamed for."""
    fmt = transcript.format
    text = read_text(path)
    parsed = _Parsed(transcript)
    tally = _Tally(parsed, [(re.compile(ex.key), ex) for ex in EXCLUSIONS if ex.line and _applies(ex, fmt)])
    docs = _source_json(text) if text.lstrip()[:1] in "[{" else None
    if docs is not None:
        rules = _Rules(fmt, transcript.meta.get("speaker_keys"))
        for doc in docs:
            for leaf_path, value, ex in _json_leaves(doc, (), rules):
                for raw in clean_text(value).replace("\r", "\n").split("\n"):
                    tally.add(raw, ex, _label(leaf_path))
    else:
        for raw in clean_text(text.replace("\r\n", "\n")).split("\n"):
            tally.add(raw, None, raw.strip()[:60])
    seen, reached, excluded, missing, left = tally.seen, tally.reached, tally.excluded, tally.missing, tally.left
    return Coverage(
        path=str(path), format=fmt, seen_chars=seen, reached_chars=reached, excluded_chars=excluded,
        coverage=round(reached / seen, 4) if seen else 1.0,
        excluded_share=round(excluded / (seen + excluded), 4) if seen + excluded else 0.0,
        missing=missing.most_common(TOP), excluded=left.most_common(TOP),
    )
