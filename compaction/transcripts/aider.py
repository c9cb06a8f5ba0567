"""Aider chat history (`.aider.chat.history.md`).

`# aider chat started at …` opens a session; `#### ` lines are the user's input (consecutive
lines are one message); `> ` lines are aider's own output (prompts and their answers,
`Applied edit to X`, `Commit <hash> <msg>`, `Running <cmd>`), kept verbatim as harness tool
messages; everything else is the model's reply, whose SEARCH/REPLACE blocks become edit calls.
The user's answers to aider's yes/no prompts are also logged as `#### ` lines: they are
harness echoes that belong to the round they interrupt, not new requests.
"""

from __future__ import annotations

import re

from compaction.model import (
    Message,
    Role,
    Round,
    ToolCall,
    ToolKind,
    ToolResult,
    Transcript,
    TranscriptError,
    group_rounds,
)
from compaction.transcripts._io import read_text

NAME = "aider"
DESCRIPTION = "Aider chat history (.aider.chat.history.md): #### user lines, > aider output, SEARCH/REPLACE edits"

_SESSION = re.compile(r"^# aider chat started at (.*)$")
_PROMPT_ANSWER = re.compile(r"\?\s.*\((?:Y)\)es/\(N\)o.*\]:\s*\S*\s*$")
_SEARCH = re.compile(r"^<{5,9} SEARCH[^\n]*$", re.M)
_DIVIDER = re.compile(r"^={5,9}[ \t]*$", re.M)
_REPLACE = re.compile(r"^>{5,9} REPLACE[^\n]*$", re.M)
_RUN_CMD = re.compile(r"\A/(?:run|test)\s+(.+)\Z|\A!(.+)\Z", re.S)
_RUNNING = re.compile(r"^> Running (.*\S)\s*$", re.M)
_APPLIED = re.compile(r"^> Applied edit to (.*\S)\s*$", re.M)
_MODEL = re.compile(r"^> (?:Main )?[Mm]odel: (\S+)", re.M)  # the model a run (or a `/model` switch) uses
# Aider's own messages that it sends back to the model as unprefixed text (edit failures, lint output).
_NO_MATCH = re.compile(r"^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$", re.M)
# Where aider's failure report ends: a reply the model wrote next follows it after a blank line, in the
# same unprefixed text; it is the model's message, not part of the tool's report.
_REFLECTION_END = re.compile(r"^The SEARCH section must exactly match an existing block of lines[^\n]*\n?"
                             r"(?:\s*# The other \d+ SEARCH/REPLACE blocks? (?:were|was) applied successfully\.[^\n]*\n"
                             r"Don't re-send them\.[^\n]*\n?)?(?:\s*Just reply with fixed versions? of the blocks? above"
                             r"[^\n]*\n?)?", re.M)
_REFLECTION = re.compile(r"\A(?:## SearchReplaceNoExactMatch|# \d+ SEARCH/REPLACE blocks? failed to match|"
                         r"# Fix any errors below)")


def sniff(head: str, path: str) -> int:
    if re.search(r"^# aider chat started at ", head, re.M):
        return 100
    users = len(re.findall(r"^#### \S", head, re.M))
    tools = len(re.findall(r"^> \S", head, re.M))
    if users and tools and ("<<<<<<< SEARCH" in head or "> Tokens:" in head or "Applied edit to" in head):
        return 80
    if users >= 1 and tools >= 1:
        return 40 + (10 if path.endswith(".aider.chat.history.md") else 0)
    return 0


def _clean_path(line: str) -> str | None:
    p = line.strip().strip("`*").strip()
    if p.startswith("#"):
        p = p.lstrip("#").strip()
    p = p.rstrip(":").strip().strip("`*").strip()
    if not p or p.startswith("```") or _FENCE_OPEN.match(p) or (" " in p and "/" not in p and "." not in p):
        return None
    return p


def search_replace_calls(text: str, msg_index: int) -> list[ToolCall]:
    """The SEARCH/REPLACE blocks in a reply: path line, optional fence, SEARCH, =======, REPLACE."""
    calls: list[ToolCall] = []
    pos, last_path = 0, None
    while True:
        m = _SEARCH.search(text, pos)
        if not m:
            break
        div = _DIVIDER.search(text, m.end())
        rep = _REPLACE.search(text, div.end()) if div else None
        if not div or not rep:
            break
        path = None
        for line in reversed(text[max(0, m.start() - 2000):m.start()].split("\n")[-4:]):
            if not line.strip() or line.lstrip().startswith("```"):
                continue
            path = _clean_path(line)
            break
        path = path or last_path
        last_path = path
        search = text[m.end() + 1:div.start()]
        replace = text[div.end() + 1:rep.start()]
        calls.append(ToolCall("search_replace", {"path": path, "search": search, "replace": replace},
                              f"sr-{msg_index}-{len(calls)}", ToolKind.EDIT, path=path))
        pos = rep.end()
    return calls


# aider's own lines that end a reply whose fence was never closed: its reports; and, right after a blank or
# a `>` line (not inside a quoted history), an interrupt (`^C`), the model's token limit that cut the reply,
# or a new session's header (a restart)
_AIDER_OWN = re.compile(r"^> (?:Applied edit to |Tokens: |Commit [0-9a-f]{7} |Did not apply edit)")
_AIDER_BREAK = re.compile(r"^(?:> \^C |> Model \S+ has hit a token limit!|# aider chat started at )")


def _blocks(lines: list[str]) -> list[tuple[str, int, list[str]]]:
    """Split into (kind, first line number, lines) with kind session/user/harness/assistant."""
    blocks: list[tuple[str, int, list[str]]] = []
    kind, start, cur = "", 0, []
    in_fence = False
    fence = "```"

    def flush() -> None:
        nonlocal kind, cur
        if kind and any(s.strip() for s in cur):
            blocks.append((kind, start, cur))
        kind, cur = "", []

    for n, line in enumerate(lines, 1):
        if kind == "assistant" and in_fence:
            before = lines[n - 2] if n >= 2 else ""
            if _AIDER_OWN.match(line) or (_AIDER_BREAK.match(line) and (not before.strip() or before.startswith(">"))):
                in_fence = False  # aider's own line: the reply's fence was never closed
            else:
                cur.append(line)
                fence_line = line.strip()
                if fence_line.startswith(fence) and not fence_line.strip("`"):
                    in_fence = False
                continue
        if line.startswith("# aider chat started at "):
            flush()
            blocks.append(("session", n, [line]))
            continue
        if line.startswith("####") and (len(line) == 4 or line[4] == " "):
            new = "user"
        elif line.startswith("> ") or line.rstrip() == ">":
            new = "harness"
        elif not line.strip():
            if kind == "assistant":
                cur.append(line)
            else:
                flush()
            continue
        else:
            new = "assistant"
            if line.lstrip().startswith("```"):
                in_fence = True
                fence = "`" * (len(line.lstrip()) - len(line.lstrip().lstrip("`")))
        if new != kind:
            flush()
            kind, start = new, n
        cur.append(line)
    flush()
    return blocks


def load(path: str) -> Transcript:
    text = read_text(path)
    if not text.strip():
        raise TranscriptError(path, "empty file")
    t = Transcript(path=path, format=NAME, messages=[])
    sessions: list[dict[str, object]] = []
    last_user: Message | None = None
    last_assistant: Message | None = None
    n_calls = 0
    watched = False  # aider saw an `AI!` comment in a watched file and is answering it (no `####` prompt)
    for kind, line_no, lines in _blocks(text.split("\n")):
        idx = len(t.messages)
        if kind == "session":
            started = _SESSION.match(lines[0])
            sessions.append({"started": started.group(1).strip() if started else "", "line": line_no,
                             "message_index": idx})
            t.messages.append(Message(idx, Role.SYSTEM, lines[0].rstrip(), line=line_no, harness=True,
                                      meta={"session_start": sessions[-1]["started"]}))
            last_user = last_assistant = None
        elif kind == "user":
            watched = False
            body = "\n".join(s[5:].rstrip() if len(s) > 4 else "" for s in lines).strip("\n")
            if len(lines) == 1 and _PROMPT_ANSWER.search(body):
                t.messages.append(Message(idx, Role.TOOL, body, line=line_no, harness=True,
                                          meta={"prompt_answer": True}))
                continue
            if last_assistant is not None and _echoes(body, last_assistant.text):
                # architect mode: the architect's reply handed to the editor model as its prompt, not the user's
                t.messages.append(Message(idx, Role.USER, body, line=line_no, harness=True,
                                          meta={"architect_handoff": True}))
                continue
            msg = Message(idx, Role.USER, body, line=line_no)
            run = _RUN_CMD.match(body.strip())
            if run:
                cmd = (run.group(1) or run.group(2)).strip()
                n_calls += 1
                msg.tool_calls.append(ToolCall("run", {"command": cmd}, f"run-{n_calls}", ToolKind.SHELL, command=cmd))
            t.messages.append(msg)
            last_user, last_assistant = msg, None
        elif kind == "assistant":
            body = "\n".join(lines).strip("\n")
            if _REFLECTION.match(body):
                # Failed SEARCH/REPLACE blocks: an error result for the matching edit call of the last reply.
                ends = list(_REFLECTION_END.finditer(body))
                reply = body[ends[-1].end():] if ends else ""
                reply_line = line_no + body.count("\n", 0, len(body) - len(reply.lstrip("\n")))
                if reply.strip():
                    body = body[:ends[-1].end()].rstrip("\n")
                calls = last_assistant.tool_calls if last_assistant else []
                t.messages.append(Message(idx, Role.TOOL, "", line=line_no, harness=True, meta={"reflection": True},
                                          tool_results=_reflection_results(body, calls)))
                if not reply.strip():
                    continue
                idx, line_no, body = len(t.messages), reply_line, reply.strip("\n")
            calls = search_replace_calls(body, idx)
            if watched and (asked := _ai_comments(calls)):
                # the request the user wrote in the code: its own message, before the reply that carries it out
                t.messages.append(Message(idx, Role.USER, asked, line=line_no, meta={"ai_comment": True}))
                idx = len(t.messages)
                calls = search_replace_calls(body, idx)  # the calls' ids name their message
            watched = False
            msg = Message(idx, Role.ASSISTANT, body, line=line_no, tool_calls=calls)
            if msg.tool_calls:
                msg.meta["calls_in_text"] = True  # the SEARCH/REPLACE blocks are also in the text
            t.messages.append(msg)
            last_assistant = msg
        else:  # harness output, verbatim (trailing spaces aside)
            body = "\n".join(s.rstrip() for s in lines).strip("\n")
            watched = watched or _PROCESSING in body
            msg = Message(idx, Role.TOOL, body, line=line_no, harness=True)
            model = _MODEL.search(body) if "odel: " in body else None
            if model:
                msg.meta["model"] = model.group(1)
            blocks: list[tuple[str, str]] | None = None
            for m in _APPLIED.finditer(body):
                target = m.group(1)
                call = next((c for c in (last_assistant.tool_calls if last_assistant else [])
                             if c.kind == ToolKind.EDIT and _same_path(c.path, target)), None)
                if call is None and last_assistant is not None:
                    # whole-file or diff edit formats carry no SEARCH/REPLACE block: the reply's fence for
                    # this file says what was written, else aider's report is the only record of the edit
                    n_calls += 1
                    if blocks is None:  # the reply's fences, read once for all the files it edited
                        blocks = _fence_blocks(last_assistant.text)
                    call = ToolCall("applied_edit", {"path": target, **_fenced_edit(blocks, target)},
                                    f"applied-{n_calls}", ToolKind.EDIT, path=target)
                    last_assistant.tool_calls.append(call)
                msg.tool_results.append(ToolResult(m.group(0)[2:], call.id if call else None, "search_replace"))
            for m in _RUNNING.finditer(body):
                cmd = m.group(1)
                owner = last_assistant or last_user
                call = None
                for cand in (last_user, last_assistant):
                    if cand is not None:
                        call = next((c for c in cand.tool_calls if c.kind == ToolKind.SHELL and c.command == cmd), call)
                if call is None and owner is not None:
                    n_calls += 1
                    call = ToolCall("shell", {"command": cmd}, f"run-{n_calls}", ToolKind.SHELL, command=cmd)
                    owner.tool_calls.append(call)
                msg.tool_results.append(ToolResult(m.group(0)[2:], call.id if call else None, "shell"))
            t.messages.append(msg)
    if not any(m.role in (Role.USER, Role.ASSISTANT) for m in t.messages):
        raise TranscriptError(path, "no user (#### ) or assistant lines: not an aider chat history")
    t.meta["sessions"] = sessions
    t.rounds = _rounds_by_session(t.messages)
    return t


_OTHERS_APPLIED = re.compile(r"^# The other \d+ SEARCH/REPLACE blocks? (?:were|was) applied successfully", re.M)


def _reflection_results(body: str, calls: list[ToolCall]) -> list[ToolResult]:
    """Aider's report of failed SEARCH/REPLACE blocks, as results of the reply's edit calls: an error for
    each block it quotes (the one whose SEARCH text it echoes, else the file's next block), and, when it
    says the other blocks were applied, a success for each of those (it prints no `Applied edit to` then,
    only the commit)."""
    edits = [c for c in calls if c.kind == ToolKind.EDIT]
    reports = list(_NO_MATCH.finditer(body))
    failed: list[ToolCall] = []
    for i, m in enumerate(reports):
        part = body[m.start():reports[i + 1].start() if i + 1 < len(reports) else len(body)]
        same = [c for c in edits if c not in failed and _same_path(c.path, m.group(1).strip())]
        call = next((c for c in same if (sought := str(c.arguments.get("search") or "").strip())
                     and sought in part), None) or next(iter(same), None)
        if call is not None:
            failed.append(call)
    if not failed:
        return [ToolResult(body, None, "search_replace", is_error=True)]
    results = [ToolResult(body, c.id, "search_replace", is_error=True) for c in failed]
    if _OTHERS_APPLIED.search(body):
        results += [ToolResult(f"Applied edit to {c.path}", c.id, "search_replace") for c in edits if c not in failed]
    return results


# aider's watch mode: an `AI!` comment in a watched file starts a reply with no `####` prompt logged; the
# reply's SEARCH blocks quote the comment they remove (`// AI! Reorganize this!`)
_PROCESSING = "Processing your request..."
# (a block may quote aider's own margin marks before the line: `│` for context, `█` for the line it points at)
_AI_COMMENT = re.compile(r"^[│█\s]*(?://|#|--|;|/?\*)\s*(?:AI!\s*(.+?)|(.+?)\s*AI!)\s*(?:\*/)?\s*$")


def _ai_comments(calls: list[ToolCall]) -> str:
    """The `AI!` comments a watch-mode reply's SEARCH blocks remove, as the user's request: their words,
    each with its block's file (`Reorganize this! (an AI! comment in packages/module/es/src/index.ts)`);
    "" when the reply quotes none."""
    found: list[str] = []
    for call in calls:
        for line in str(call.arguments.get("search") or "").split("\n"):
            m = _AI_COMMENT.match(line)
            words = (m.group(1) or m.group(2)).strip() if m else ""
            said = f"{words} (an AI! comment in {call.path or 'a watched file'})" if words else ""
            if said and said not in found:
                found.append(said)
    return "\n".join(found)


_ECHO_CHARS = 300  # of a prompt compared with the reply before it


def _echoes(prompt: str, reply: str) -> bool:
    """The prompt is the reply before it, sent on (aider's architect mode logs the hand-off to its editor
    model as a `####` prompt): the same opening and about the same length, whitespace aside."""
    a, b = " ".join(prompt.split()), " ".join(reply.split())
    return len(a) >= 40 and a[:_ECHO_CHARS] == b[:_ECHO_CHARS] and 0.8 <= len(a) / max(len(b), 1) <= 1.25


# aider's fences: backticks, or a tag on its own line for models that write Markdown in code (`<source>`)
_FENCE_OPEN = re.compile(r"^(?:(`{3,}|~{3,})[\w+-]*|<(source|code|pre|codeblock|sourcecode)>)[ \t\r]*$")
_DIFF_TARGET = re.compile(r"^\+\+\+ (?:b/)?([^\n]+)", re.M)


def _fence_blocks(reply: str) -> list[tuple[str, str]]:
    """(the line before it, its text) of each fenced block of a reply, in order, read in one pass outside
    fences (a closing fence never opens a block); none from an unclosed one on (the rest of the reply is
    no file's content)."""
    lines = reply.split("\n")
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        if opening is None:
            i += 1
            continue
        close = opening.group(1) or f"</{opening.group(2)}>"
        end = next((k for k in range(i + 1, len(lines)) if lines[k].strip() == close), None)
        if end is None:
            break
        out.append((lines[i - 1] if i > 0 else "", "\n".join(line.rstrip("\r") for line in lines[i + 1:end]) + "\n"))
        i = end + 1
    return out


def _fenced_edit(blocks: list[tuple[str, str]], target: str) -> dict[str, str]:
    """What a reply in aider's other edit formats wrote to `target`: the first of its fenced `blocks`
    that is a unified diff whose `+++` names it (`udiff`) or that follows a line naming it (the `whole`
    format: the file's new content). Empty when none is."""
    for before, body in blocks:
        if "+++ " in body and _is_diff_for(body, target):
            return {"diff": body}
        if before.strip() and _same_path(_clean_path(before), target):
            return {"content": body}
    return {}


def _is_diff_for(body: str, target: str) -> bool:
    return "\n@@" in body and any(_same_path(m.group(1).strip(), target) for m in _DIFF_TARGET.finditer(body))


def _same_path(a: str | None, b: str) -> bool:
    """aider reports Windows paths with backslashes while the reply's block may use slashes."""
    return a is not None and a.replace("\\", "/") == b.replace("\\", "/")


def _rounds_by_session(messages: list[Message]) -> list[Round]:
    """DESIGN §4 rounds, but a new aider session always starts a new round (no turn spans two runs)."""
    rounds: list[Round] = []
    start = 0
    cuts = [i for i, m in enumerate(messages) if "session_start" in m.meta and i > 0] + [len(messages)]
    for cut in cuts:
        for r in group_rounds(messages[start:cut]):
            rounds.append(Round(len(rounds) + 1, r.messages))
        start = cut
    return rounds
