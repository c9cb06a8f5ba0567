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
_KILL_RE = re.compile(r"(?i)kill|stop|terminate|cancel")  # a tool that ends a run by its id is no read-on
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
    """Give each continuation call, in place, the command it goes on with (see the module's docstring):
    the run whose result names the session id the call gives (`BashOutput {bash_id: sh1}`, a background
    start's "…with ID: sh1"), else, for one that gives none (OpenHands' input), the last run left
    unfinished, unless a shell command ran since."""
    results: dict[str, ToolResult] = {r.call_id: r for m in messages if m.role is Role.TOOL
                                      for r in m.tool_results if r.call_id}
    running: ToolCall | None = None  # the last shell call whose result said it had not finished
    by_id: dict[str, ToolCall] = {}  # the unfinished runs by the id their result gave (`…with ID: sh1`)
    for msg in messages:
        if msg.role is not Role.ASSISTANT:
            continue
        for call in msg.tool_calls:
            if continuation(call) and not _KILL_RE.search(call.name):
                target = _named_run(call, by_id) if set(call.arguments) & _SESSION_KEYS else running
                if target is not None:
                    call.kind = ToolKind.SHELL
                    call.command = last_command(target.command or "")
                    call.continues = target.id
                    continue
            if call.kind != ToolKind.SHELL or not call.command:
                continue  # a read or a search meanwhile: the run goes on
            running = None
            res = results.get(call.id or "") if call.id else None
            if res is not None and unfinished(res):
                running = call
                for run_id in _RUN_ID_RE.findall(res.content[-400:]):
                    by_id[run_id] = call


def _named_run(call: ToolCall, by_id: dict[str, ToolCall]) -> ToolCall | None:
    """The unfinished run whose result gave the session id the call names."""
    ids = [str(v) for k, v in call.arguments.items() if k in _SESSION_KEYS and isinstance(v, (str, int))]
    return next((by_id[i] for i in ids if i in by_id), None)


# A harness's own words giving a running command's id ("Command running in background with ID: sh1", "Process
# running with session ID 12", "shell id: 3")
_RUN_ID_RE = re.compile(r"(?i)(?:session|shell|bash|process|background)\b[^\n]{0,20}?\bid\b:?\s*([\w-]+)")


def last_command(line: str) -> str:
    """The last simple command of a line (split at unquoted `&&`, `||`, `;` and newlines; a pipeline
    stays whole; a comment left out): what was still running when the harness stopped waiting. The
    whole line when it holds a heredoc or a compound command (`for …; do …; done`): its last part is
    no command."""
    line = line.strip().rstrip(";").rstrip()
    if "<<" in line or _COMPOUND_RE.search(line):
        return line
    cut = 0
    quote = ""
    i = 0
    end = len(line)
    while i < end:
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
        elif c == "#" and (i == 0 or line[i - 1] in " \t;\n"):
            end = line.find("\n", i)  # a comment, to the end of its line
            end = len(line) if end < 0 else end
            if end < len(line):
                line = line[:i] + line[end:]
                end = len(line)
                continue
            return last_command(line[:i]) if line[:i].strip() else line  # the command before it
        elif c in ";\n" or line.startswith(("&&", "||"), i):
            cut = i + (1 if c in ";\n" else 2)
        i += 1
    last = line[cut:end].strip()
    return last or line[:end].strip() or line.strip()


# A compound command's keywords: its last part (`done`, `fi`) is no command
_COMPOUND_RE = re.compile(r"(?:^|[;&|\s])(?:for|while|until|if|case|select)\s|[{}]\s*$")
