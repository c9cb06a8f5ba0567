"""Who is speaking, and what a tool does, inferred from words rather than from one agent's schema.

The generic reader meets formats nobody wrote a loader for. Speaker values (`USER_INPUT`, `human`,
`model`, `PLANNER_RESPONSE`, `observation` ...) are matched by the words they contain; a tool whose
name we do not know is classified by the keys of its arguments (a path with content is a write, a path
with old/new text or a diff is an edit, a command is a shell call, a path or pattern alone a read/search).
"""

from __future__ import annotations

import re
from typing import Any

from compaction.model import ToolKind
from compaction.transcripts.arg_names import (
    EDIT_MARKS,
    GENERIC_COMMAND,
    GENERIC_CONTENT,
    GENERIC_SEARCH,
    NAMES,
    ArgRole,
    spell,
)

# order matters: "tool_result" must be a tool before "user" could match a "user_tool_result"
_SPEAKER_WORDS: list[tuple[str, tuple[str, ...]]] = [
    ("call", ("tool_use", "tool_call", "function_call", "tool_calls", "function_calls", "tool_invocation")),
    ("tool", ("tool", "function", "observation", "toolresult", "tool_result", "ipython", "environment",
              "execution", "output")),
    ("system", ("system", "developer", "instruction")),
    ("user", ("user", "human", "customer", "prompt", "me", "you", "person")),
    ("assistant", ("assistant", "ai", "model", "bot", "agent", "planner", "response", "gpt", "claude", "gemini",
                   "copilot", "cursor", "cline", "llm", "chatbot", "answer")),
]
# Keys that only ever name a speaker come first; `type` / `source` may instead name an operation or an origin.
STRONG_SPEAKER_KEYS = ("role", "speaker", "author", "from", "sender", "participant", "who")
WEAK_SPEAKER_KEYS = ("type", "kind", "source", "actor")
SPEAKER_KEYS = STRONG_SPEAKER_KEYS + WEAK_SPEAKER_KEYS
TEXT_KEYS = ("content", "text", "parts", "message", "output", "observation", "value", "body", "result",
             "response", "prompt", "thought", "thinking", "markdown", "answer", "error", "stdout", "stderr")


def _words(value: str) -> list[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", value)
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def speaker_of(value: Any) -> str | None:
    """user / assistant / tool / system (or `call`: a tool call record) for a speaker value, or None when it names none of them."""
    if isinstance(value, dict):
        for key in ("role", "name", "type", "entity"):
            found = speaker_of(value.get(key))
            if found:
                return found
        return None
    if not isinstance(value, str) or not value or len(value) > 80:
        return None
    words = _words(value)
    joined = "_".join(words)
    for role, names in _SPEAKER_WORDS:
        for name in names:
            if name in words or ("_" in name and name in joined):
                return role
    return None


_TOOLISH = ("command", "file", "search", "grep", "view", "edit", "write", "read", "list", "browser", "tool",
            "action", "code", "patch", "diff", "terminal", "shell", "run", "find", "replace", "directory", "call")


def toolish(value: Any) -> bool:
    """A record type that names an operation (RUN_COMMAND, VIEW_FILE, CODE_ACTION, grep_search...)."""
    return isinstance(value, str) and any(w in _TOOLISH or w.rstrip("s") in _TOOLISH for w in _words(value))


# The shared argument names (`arg_names`), as sets: keys are tested one by one, in the record's order.
# and any key ending in path, uri or file (`infer_kind`); not a bare `target`, which an unknown tool uses
# as often for a deploy environment or a build target as for a file (a named agent's tools keep it)
_PATH = frozenset(NAMES[ArgRole.PATH]) - {"target"}
_CONTENT = frozenset(GENERIC_CONTENT)
_EDIT = frozenset(EDIT_MARKS)
_COMMAND = frozenset(GENERIC_COMMAND)
_QUERY = frozenset(GENERIC_SEARCH)


def _leaf_keys(args: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in args.items():
        last = spell(str(key).rsplit(".", 1)[-1])
        out.setdefault(last, value)
    return out


def infer_kind(args: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(kind, path, command) from argument keys alone (flattened `a.b` keys are judged by their last part)."""
    keys = _leaf_keys(args)
    path = next((v for k, v in keys.items() if (k in _PATH or k.endswith(("path", "uri", "file")))
                 and isinstance(v, str) and v.strip()), None)
    command = next((v for k, v in keys.items() if k in _COMMAND and isinstance(v, str) and v.strip()), None)
    if path and any(k in _EDIT for k in keys):
        return ToolKind.EDIT, path, None
    if path and any(k in _CONTENT for k in keys):
        return ToolKind.WRITE, path, None
    if command:
        return ToolKind.SHELL, None, command
    if any(k in _QUERY for k in keys):
        return ToolKind.SEARCH, path, None
    if path:
        return ToolKind.READ, path, None
    return ToolKind.OTHER, None, None


_NAME_WORDS: list[tuple[str, tuple[str, ...]]] = [
    (ToolKind.SHELL, ("run", "command", "exec", "execute", "shell", "terminal", "bash")),
    (ToolKind.EDIT, ("edit", "replace", "patch", "diff", "modify", "apply", "insert", "update")),
    (ToolKind.WRITE, ("write", "create", "save", "new")),
    (ToolKind.READ, ("view", "read", "open", "show", "cat")),
    (ToolKind.SEARCH, ("search", "grep", "find", "list", "glob", "ls", "lookup")),
    (ToolKind.TODO, ("todo", "todos", "plan", "task")),
]


def kind_from_words(name: str) -> str:
    """A hint from the words of an unknown tool name (VIEW_FILE, runCommand, grep_search), else OTHER."""
    words = set(_words(name)) if isinstance(name, str) else set()
    for kind, hints in _NAME_WORDS:
        if words & set(hints):
            return kind
    return ToolKind.OTHER
