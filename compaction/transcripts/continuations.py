"""A call that only feeds or reads a command still running is that command going on.

Harnesses stop waiting for a long command and hand the agent a way to keep reading it: OpenHands'
`is_input` call with empty input, Codex's `write_stdin` to a session, Claude Code's `BashOutput` of a
background shell. The run's outcome (`BUILD SUCCESS` after 5 minutes) is in that call's result, while
the command's own result ends mid-log with "the command did not finish". Read apart, the session
seems to have no finished run and a timeout nobody got past. Here such a call takes the running
command's line (its last simple command: the ones before it had finished) and the shell kind, with
`continues` naming the call it goes on from, so every later step reads its output as the run's.
Recognised by its arguments (a short input or a session/shell id, no command, no path), not by name.
"""

from __future__ import annotations

import re

from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult

# What a continuation's arguments may hold: keystrokes, the running session's id, how long to wait
_FEED_KEYS = frozenset({"input", "chars", "text", "keys"})
_SESSION_KEYS = frozenset({"session_id", "bash_id", "shell_id", "process_id"})
_WAIT_KEYS = frozenset({"is_input", "yield_time_ms", "timeout", "timeout_ms", "max_output_tokens", "filter", "wait"})
MAX_INPUT = 16  # Enter, C-c, y: keystrokes, not a new command line
# The harness's own word that a command is still running (its result ends there, not in an exit)
_UNFINISHED_RE = re.compile(
    r"(?i)(?:command (?:timed out|is still running)|no new output after \d+|still running|"
    r"running in (?:the )?background|process running with session id|timed out after \d+)")


def continuation(call: ToolCall) -> bool:
    """Whether a call's arguments only feed or read a running process (no command, no path)."""
    if call.command or call.path or call.kind not in (ToolKind.OTHER, ToolKind.SHELL):
        return False
    keys = set(call.arguments)
    if not keys or not keys <= _FEED_KEYS | _SESSION_KEYS | _WAIT_KEYS:
        return False
    if keys & _SESSION_KEYS:
        return True
    fed = [call.arguments[k] for k in keys & _FEED_KEYS]
    return bool(fed) and all(isinstance(v, str) and len(v.strip()) <= MAX_INPUT for v in fed)


def unfinished(result: ToolResult) -> bool:
    """A shell result the harness stopped waiting for: a negative status, or its own words at the end."""
    if result.exit_code is not None and result.exit_code < 0:
        return True
    tail = result.content[-400:]
    return _UNFINISHED_RE.search(tail) is not None


def fold_continuations(messages: list[Message]) -> None:
    """Give each continuation call, in place, the command it goes on with (see the module's docstring)."""
    results: dict[str, ToolResult] = {r.call_id: r for m in messages if m.role is Role.TOOL
                                      for r in m.tool_results if r.call_id}
    running: ToolCall | None = None  # the last shell call whose result said it had not finished
    for msg in messages:
        if msg.role is not Role.ASSISTANT:
            continue
        for call in msg.tool_calls:
            if running is not None and continuation(call):
                call.kind = ToolKind.SHELL
                call.command = last_command(running.command or "")
                call.continues = running.id
                res = results.get(call.id or "")
                running = running if res is None or unfinished(res) else None
                continue
            running = None
            if call.kind == ToolKind.SHELL and call.command and call.id:
                res = results.get(call.id)
                if res is not None and unfinished(res):
                    running = call


def last_command(line: str) -> str:
    """The last simple command of a line (split at unquoted `&&`, `||`, `;` and newlines; a pipeline
    stays whole): what was still running when the harness stopped waiting."""
    cut = 0
    quote = ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c in ";\n" or line.startswith(("&&", "||"), i):
            cut = i + (1 if c in ";\n" else 2)
        i += 1
    return line[cut:].strip() or line.strip()
