"""An earlier conversation pasted into a user message, read back as the turns it was.

Why: a user who carries on in a new session often pastes the old one, copied from the agent's
terminal UI. Left as one user message, the agent's commands, outputs, edits and reasoning there
are the *user's* words to every source (its "Thinking: I should not…" a user's decision, its
commands never run, its edits never made). The OpenCode TUI's copy has a shape that says who did
what, and that is all this module reads (no words of any one session):
  - `▣  <mode> · <model> · <duration>` ends each assistant turn; the next lines, up to the agent's
    first line, are the user's next message;
  - `# <description>` over `$ <command>`: a shell call, its output up to the next marker line;
  - `→ Read <path> [offset=…]`, `← Edit <path>`, `← Write <path>` / `# Wrote <path>`,
    `✱ Grep "<pattern>" [in <dir>] (N matches)`: file reads, edits, writes and searches;
  - `Thinking: …` and the lines after it: the agent's own words.
A message without two such footers is left alone; the text before the first footer (an earlier
summary, the first request) stays the user's.
"""

from __future__ import annotations

import re

from compaction.model import Message, Role, ToolResult
from compaction.transcripts._agent_tools import make_call

# The footer the TUI prints under each finished assistant turn: mode, model and duration.
_FOOTER_RE = re.compile(r"^▣\s+[^·\n]{1,40}·[^·\n]{1,80}·(?:\s*+[\dhms.][\dhms. ]{0,19}\s*+|[^\S ]*+ \s*+)$")
_READ_RE = re.compile(r"^→ Read (\S+)(?:\s+\[(.*)\])?\s*$")
_EDIT_RE = re.compile(r"^← (Edit|Write) (\S+)\s*$")
_WROTE_RE = re.compile(r"^# Wrote (\S+)\s*$")
_GREP_RE = re.compile(r'^✱ (Grep|Glob|List) "(.*)"(?: in (\S+))?\s*(?:\((\d+) match(?:es)?\))?\s*$')
_TOOL_LINE_RE = re.compile(r"^(?:[→←✱] \S|Thinking:|# (?:Todos|Questions|Wrote \S)\s*$|# Wrote \S)")
_HEREDOC_RE = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
_ELIDED = {"…", "Click to expand"}  # the TUI's folded-output marks


def footers(text: str) -> list[int]:
    """Indices of the lines of `text` that end a pasted assistant turn (cheap gate first)."""
    if "▣" not in text:
        return []
    return [i for i, line in enumerate(text.split("\n")) if line.startswith("▣") and _FOOTER_RE.match(line)]


def _mode(footer: str) -> str:
    """The agent mode a footer names ("Build", "Plan", "Compaction"), lower-cased."""
    return footer.lstrip("▣").split("·", 1)[0].strip().lower()


def _agent_line(lines: list[str], i: int) -> bool:
    """Does line i open something the agent did or said (not a line of output or of a request)?"""
    line = lines[i]
    if _TOOL_LINE_RE.match(line) or _FOOTER_RE.match(line):
        return True
    return line.startswith("# ") and i + 1 < len(lines) and lines[i + 1].startswith("$ ")


def _double_quotes(line: str) -> int:
    """The double quotes a line opens or closes: not escaped ones, nor those inside single quotes
    (`sed -i 's/"//g' f` opens nothing)."""
    return len(re.findall(r'(?<!\\)"', re.sub(r"'[^'\n]*'", "''", line)))


def _command_end(lines: list[str], i: int) -> int:
    """The index after the last line of the command that starts at line i (`$ …`): a heredoc runs to
    its terminator, an open double quote to the line that closes it."""
    first = lines[i][2:]
    here = _HEREDOC_RE.search(first)
    if here:
        for j in range(i + 1, len(lines)):
            if lines[j].strip() == here.group(1):
                return j + 1
        return i + 1
    quotes = _double_quotes(first)
    j = i + 1
    while quotes % 2 and j < len(lines):
        quotes += _double_quotes(lines[j])
        j += 1
    return j if quotes % 2 == 0 else i + 1


def _output(lines: list[str], i: int) -> tuple[str, int]:
    """The output lines from i up to the next line the agent opens, with the fold marks dropped."""
    j = i
    while j < len(lines) and not _agent_line(lines, j):
        j += 1
    body = [x for x in lines[i:j] if x.strip() not in _ELIDED]
    text = "\n".join(body).strip("\n")
    return ("" if text == "(no output)" else text), j


class _Turn:
    """The messages of one pasted assistant turn, built line by line."""

    def __init__(self, line: int | None, turn: int) -> None:
        self.out: list[Message] = []
        self.text: list[str] = []
        self.line = line
        self.turn = turn  # its place in the paste: call ids are the same every run

    def flush(self) -> None:
        if self.text:
            text = "\n".join(self.text).strip()
            if text:
                self.out.append(Message(0, Role.ASSISTANT, text, line=self.line))
            self.text = []

    def call(self, name: str, args: dict, result: str, *, error: bool = False) -> None:
        self.flush()
        call_id = f"pasted-{self.line}-{self.turn}-{len(self.out)}"
        call = make_call(name, args, call_id)
        self.out.append(Message(0, Role.ASSISTANT, "", tool_calls=[call], line=self.line))
        self.out.append(Message(0, Role.TOOL, "", line=self.line, tool_results=[
            ToolResult(content=result, call_id=call_id, name=name, is_error=error)]))


def _assistant_turn(lines: list[str], line: int | None, k: int) -> list[Message]:
    """One pasted assistant turn's text, calls and their results, in order."""
    turn = _Turn(line, k)
    i = 0
    while i < len(lines):
        cur = lines[i]
        if cur.startswith("# ") and i + 1 < len(lines) and lines[i + 1].startswith("$ "):
            end = _command_end(lines, i + 1)
            command = "\n".join([lines[i + 1][2:], *lines[i + 2:end]])
            result, i = _output(lines, end)
            turn.call("bash", {"command": command, "description": cur[2:].strip()}, result)
            continue
        m = _READ_RE.match(cur)
        if m:
            result, i = _output(lines, i + 1)
            args = {"file_path": m.group(1)}
            for key, value in re.findall(r"(\w+)=(\d+)", m.group(2) or ""):
                args[key] = int(value)
            turn.call("read", args, result, error=result.startswith(("File not found", "Error")))
            continue
        m = _EDIT_RE.match(cur) or _WROTE_RE.match(cur)
        if m:
            path = m.group(m.lastindex or 1)
            body, i = _output(lines, i + 1)
            if m.re is _EDIT_RE and m.group(1) == "Edit":
                turn.call("edit", {"file_path": path}, body)  # the TUI's copy keeps no old/new text
            else:
                turn.call("write", {"file_path": path, "content": body}, "")
            continue
        m = _GREP_RE.match(cur)
        if m:
            count = m.group(4)
            args = {"pattern": m.group(2), **({"path": m.group(3)} if m.group(3) else {})}
            turn.call(m.group(1).lower(), args, f"{count} matches" if count else "No matches found")
            i += 1
            continue
        turn.text.append(cur[len("Thinking: "):] if cur.startswith("Thinking: ") else cur)
        i += 1
    turn.flush()
    return turn.out


def expand(msg: Message) -> list[Message] | None:
    """The turns a user message's pasted log holds (user, assistant, tool messages), or None when it
    holds none (fewer than two footers: one could be quoted text)."""
    if msg.role is not Role.USER or msg.harness:
        return None
    text = msg.text.replace("\r\n", "\n")  # a paste from a Windows terminal: its lines are read without \r
    marks = footers(text)
    if len(marks) < 2:
        return None
    lines = text.split("\n")
    out: list[Message] = []
    head = "\n".join(lines[:marks[0]]).strip()
    if head:
        first = Message(0, Role.USER, head, timestamp=msg.timestamp, line=msg.line)
        if _mode(lines[marks[0]]) == "compaction":
            # the turn the first footer closes was the pasted session's compaction: the head is its
            # summary, read by its sections too (`carried_summary`: not this agent's own compaction,
            # whose flag tells the watcher where the live context starts). It stays the user's: what
            # they pasted first opens the task, as it did before the paste was read back.
            first.meta["carried_summary"] = True
        out.append(first)
    for k, at in enumerate(marks):
        stop = marks[k + 1] if k + 1 < len(marks) else len(lines)
        chunk = lines[at + 1:stop]
        first = next((j for j in range(len(chunk)) if _agent_line(chunk, j)), len(chunk))
        request = "\n".join(chunk[:first]).strip()
        if request:
            out.append(Message(0, Role.USER, request, timestamp=msg.timestamp, line=msg.line))
        out.extend(_assistant_turn(chunk[first:], msg.line, k))
    if out:  # the paste as it was stays with the turns read from it: footers, fold marks and prefixes
        out[0].meta["pasted_log"] = msg.text  # are not text, but nothing the user sent is thrown away
    return out


def expand_pasted_logs(messages: list[Message]) -> list[Message]:
    """`messages` with every pasted log read back into its turns (renumbered), or `messages` itself."""
    if not any(m.role is Role.USER and "▣" in m.text for m in messages):
        return messages
    out: list[Message] = []
    for msg in messages:
        out.extend(expand(msg) or [msg])
    for i, msg in enumerate(out):
        msg.index = i
    return out
