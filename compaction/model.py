"""The in-memory shape of a transcript: messages grouped into rounds.

Every loader produces this shape, so everything downstream (events, errors, history,
restore) is format-agnostic. Plain slotted dataclasses rather than pydantic models: a
1,000,000-token transcript holds tens of thousands of messages and validation would cost
more than parsing. Pydantic lives at the boundaries (config, CLI/LSP/MCP payloads).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"  # tool results, observations, harness echoes: never open a round


class ToolKind:
    """Normalised tool families, so events need not know every agent's vocabulary."""

    READ = "read"  # read a file (Read, read_file, OpenHands read, str_replace_editor view)
    WRITE = "write"  # create/overwrite a whole file (Write, write_to_file, create)
    EDIT = "edit"  # change part of a file (Edit, MultiEdit, replace_in_file, apply_patch, SEARCH/REPLACE)
    SHELL = "shell"  # run a command line (Bash, shell, execute_command, mini-swe-agent bash block)
    SEARCH = "search"  # Grep, Glob, search_files, list_files
    TODO = "todo"  # TodoWrite, update_plan, task_tracking
    OTHER = "other"


@dataclass(slots=True)
class ToolCall:
    """One tool invocation by the assistant, normalised across agents.

    `name` keeps the agent's own tool name (Bash, shell, execute_command, run, str_replace_editor…);
    `command` is the shell command line when the call runs one; `path` the file it targets.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    kind: str = "other"  # one of ToolKind's values: read, write, edit, shell, search, todo, other
    command: str | None = None
    path: str | None = None
    continues: str | None = None  # the id of the running command whose output this call reads on


@dataclass(slots=True)
class ToolResult:
    """The output of one tool call (or an observation the harness sent back)."""

    content: str
    call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    exit_code: int | None = None


@dataclass(slots=True)
class Message:
    """One logical message. A loader merges records that a format splits one response into."""

    index: int
    role: Role
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    timestamp: str | None = None
    line: int | None = None  # 1-based line in the source file where the message starts, if known
    harness: bool = False  # echoed by the harness/tool (format complaints, aider prompts)
    meta: dict[str, Any] = field(default_factory=dict)
    tokens: int | None = None  # filled once by compaction.tokens.count_messages

    def full_text(self) -> str:
        """All text the message carries, as a model would see it (for token counts and search)."""
        parts = [self.text] if self.text else []
        # Agents whose calls are written in the text (mini-swe-agent bash blocks, aider SEARCH/REPLACE)
        # would otherwise count them twice.
        for call in [] if self.meta.get("calls_in_text") else self.tool_calls:
            parts.append(call.command or (f"{call.name} {call.arguments}" if call.arguments else call.name))
        for result in self.tool_results:
            parts.append(result.content)
        return "\n".join(parts)


@dataclass(slots=True)
class Round:
    """One model turn: the user message that opened it (if any), one assistant response and the
    results of its tool calls (DESIGN.md §4). Numbered from 1."""

    number: int
    messages: Sequence[Message] = field(default_factory=list)  # a tuple once grouped: read-only

    @property
    def tokens(self) -> int:
        return sum(m.tokens or 0 for m in self.messages)


@dataclass(slots=True)
class Transcript:
    path: str
    format: str
    messages: list[Message]
    rounds: list[Round] = field(default_factory=list)
    cwd: str | None = None  # the working directory the agent recorded, if any
    skipped_records: int = 0  # unknown record types, skipped and counted
    skipped_kinds: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def skip(self, kind: str) -> None:
        self.skipped_records += 1
        self.skipped_kinds[kind] = self.skipped_kinds.get(kind, 0) + 1


def group_rounds(messages: list[Message]) -> list[Round]:
    """Group messages into rounds by DESIGN.md §4.

    A user message opens a round once the current round has an assistant response; an
    assistant message opens one when the current round already has an assistant response
    followed by anything else (so `U1 A1 T1 A2 T2 U2 A3` gives `[U1 A1 T1] [A2 T2] [U2 A3]`).
    Consecutive assistant records with nothing between them stay one response. System, tool
    and harness messages never open a round.
    """
    rounds: list[Round] = []
    current: list[Message] = []
    has_assistant = False
    after_assistant = False  # something non-assistant followed the assistant response
    for msg in messages:
        opens = False
        if msg.role is Role.USER and not msg.harness:
            opens = has_assistant
        elif msg.role is Role.ASSISTANT:
            opens = has_assistant and after_assistant
        if opens and current:
            rounds.append(Round(len(rounds) + 1, tuple(current)))  # one exact-size block per round (memory bound)
            current, has_assistant, after_assistant = [], False, False
        current.append(msg)
        if msg.role is Role.ASSISTANT:
            has_assistant = True
            after_assistant = False
        elif has_assistant:
            after_assistant = True
    if current:
        rounds.append(Round(len(rounds) + 1, tuple(current)))
    return rounds


NO_CALLS: tuple = ()  # shared by every message without tool calls (see `compact_messages`)
NO_RESULTS: tuple = ()
NO_META: Mapping[str, Any] = MappingProxyType({})


def compact_messages(messages: list[Message], start: int = 0, stop: int | None = None) -> None:
    """Let finished messages share one empty, read-only container for their empty `tool_calls`,
    `tool_results` and `meta`, instead of three of their own.

    Why: a session of a million tiny records holds a million messages, and two empty lists and an
    empty dict cost ~180 bytes a message, more than the text most of them carry. Call it only on
    messages no loader will append to any more: the shared containers are immutable, so a late
    append fails loudly instead of changing every message."""
    for msg in messages[start:stop]:
        if not msg.tool_calls:
            msg.tool_calls = NO_CALLS  # type: ignore[assignment]
        if not msg.tool_results:
            msg.tool_results = NO_RESULTS  # type: ignore[assignment]
        if not msg.meta:
            msg.meta = NO_META  # type: ignore[assignment]


class TranscriptError(Exception):
    """Bad input: names the file and, where known, the line. The CLI exits 1 on it."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")
