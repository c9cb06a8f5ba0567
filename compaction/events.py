"""Events: what happened in a transcript, each with its round number.

Loaders normalise every agent's tool vocabulary into ToolCall.kind (read/write/edit/shell/...);
this module turns those calls, their results, the shell command lines themselves (`sed -i`,
`cat > f <<EOF`, `git apply`, ...), aider's "Applied edit to" lines and the text of every
message (markers, decisions, todos, test counts) into one flat, ordered list of events.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from compaction.model import NO_META, Message, Role, ToolCall, ToolKind, ToolResult, Transcript


class EventKind(StrEnum):
    READ = "read"
    WRITE = "write"  # whole file created or overwritten
    EDIT = "edit"
    DELETE = "delete"
    REVERT = "revert"  # `git checkout -- f`, `git restore f`: back to the committed state
    COMMAND = "command"
    TEST = "test"  # a test run's reported counts (also emitted as a COMMAND)
    COMMIT = "commit"
    MARKER = "marker"  # @important / @decision / @warning / @todo, verbatim
    DECISION = "decision"
    CONSTRAINT = "constraint"
    TODO = "todo"  # a todo list item or a stated next step
    REQUEST = "request"  # a user request (the task and later asks)


@dataclass(slots=True)
class Event:
    kind: EventKind
    round: int
    message_index: int
    path: str | None = None
    command: str | None = None
    exit_code: int | None = None
    text: str = ""
    tool: str | None = None
    state_changing: bool = False  # commands: changed files, packages, git state
    meta: Mapping[str, Any] = field(default_factory=lambda: NO_META)  # most have none: one shared empty mapping


MARKER_RE = re.compile(r"@(important|decision|warning|todo)\b", re.IGNORECASE)
_MARKER_LINE_RE = re.compile(r"[^\n]*@(?:important|decision|warning|todo)\b[^\n]*", re.IGNORECASE)

# --- shell command analysis -------------------------------------------------------------------

_REDIRECT_RE = re.compile(r"(?<![0-9&<>])>{1,2}\s*(['\"]?)([^\s'\";&|<>()]+)\1")
_HEREDOC_CAT_RE = re.compile(r"\bcat\s+(?:<<-?\s*['\"]?\w+['\"]?\s*)?>{1,2}\s*(['\"]?)([^\s'\";&|<>]+)\1")
_TEE_RE = re.compile(r"\btee\s+(?:-a\s+)?(['\"]?)([^\s'\";&|<>-][^\s'\";&|<>]*)\1")
_SED_I_RE = re.compile(r"\bsed\s+(?:-[a-zA-Z]*\s+)*-i")
_PY_OPEN_W_RE = re.compile(r"open\(\s*['\"]([^'\"]+)['\"]\s*,\s*['\"][wa]")
_WRITE_TEXT_RE = re.compile(r"Path\(\s*['\"]([^'\"]+)['\"]\s*\)\.write_text")
_PATCH_FILE_RE = re.compile(r"^(?:\+\+\+ b/|\*\*\* (?:Update|Add) File: )(\S+)", re.MULTILINE)
_PATCH_DELETE_RE = re.compile(r"^\*\*\* Delete File: (\S+)", re.MULTILINE)
_READ_CMDS = {"cat", "head", "tail", "nl", "less", "more", "bat", "view"}
_SEARCH_CMDS = {"grep", "rg", "ag", "find", "ls", "tree", "fd", "git grep", "locate", "wc"}
_STATE_CMDS = re.compile(
    r"^(?:sudo\s+)?(?:pip3?|python3? -m pip|uv pip|poetry|npm|yarn|pnpm|cargo|go|mvn|gradle|apt-get|apt|brew|conda)"
    r"\s+(?:install|add|remove|uninstall|update|upgrade|get|mod)\b"
    r"|^(?:git\s+(?:commit|apply|am|checkout|switch|reset|revert|merge|rebase|stash|add|rm|mv|restore|cherry-pick|push|pull|clone|init))\b"
    r"|^(?:mv|cp|rm|mkdir|rmdir|touch|chmod|chown|ln|patch|unzip|tar\s+-?x)\b"
    r"|^(?:make|cmake|npm run build|tsc\b(?!.*--noEmit))"
)
_TEST_CMD_RE = re.compile(
    r"\b(?:pytest|py\.test|tox|nox|unittest|runtests\.py|manage\.py test|npm (?:run )?test|yarn test|pnpm test|"
    r"jest|vitest|mocha|go test|cargo test|mvn\b[^\n]*\btest|gradle\w*\s+test|ctest|make (?:test|check)|rspec|bin/test)"
)

# Test summaries: pytest "=== 3 failed, 14 passed in 1.2s ===", unittest "Ran 12 tests", maven, jest, go, cargo.
_PYTEST_SUMMARY_RE = re.compile(
    r"^=+ ((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, )?)+)"
    r"(?: in [\d.]+s(?: \([\d:]+\))?)? =+$",
    re.MULTILINE,
)
_UNITTEST_RE = re.compile(r"^Ran (\d+) tests? in [\d.]+s\s*\n+\s*(OK(?: \([^)]*\))?|FAILED \([^)]*\))", re.MULTILINE)
_MAVEN_RE = re.compile(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(?!,\s*Time)")
_JEST_RE = re.compile(r"^Tests:\s+(.*\d+ total)$", re.MULTILINE)
_CARGO_RE = re.compile(r"^test result: (ok|FAILED)\. (\d+ passed; \d+ failed[^\n]*)$", re.MULTILINE)
_SYMPY_RE = re.compile(r"tests finished: ([^=\n]*?), in [\d.]+ seconds")
_GO_RE = re.compile(r"^(ok|FAIL)\s+(\S+)\s+[\d.]+s$", re.MULTILINE)

# --- text analysis ----------------------------------------------------------------------------

_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s+(?=[A-Z`\"'(\[]|[\u4e00-\u9fff])|\n{1,}")
_DECISION_RE = re.compile(
    r"\b(?:I(?:'ll| will) (?:use|go with|keep|switch|implement|change|modify|add|avoid|not)|"
    r"I (?:decided|chose|choose|prefer)|we (?:decided|should|must|will use|need to keep)|decid(?:e|ed|ing) to|"
    r"instead of|rather than|the (?:best|right|correct|cleanest|simplest|proper) (?:fix|approach|solution|way|place)|"
    r"the fix (?:is|should|will)|the root cause|root cause is|the issue is (?:that|caused)|the problem is (?:that|caused)|"
    r"to (?:preserve|maintain|keep) (?:backward|compatib)|backward[- ]compatib|approach:|plan:|strategy:)",
    re.IGNORECASE,
)
_CONSTRAINT_RE = re.compile(
    r"\b(?:do not|don't|never|must not|must|should not|shouldn't|only|make sure|ensure|without modifying|"
    r"you (?:need|have) to|requirement|constraint|禁止|必须|不要)\b",
    re.IGNORECASE,
)
_NEXT_RE = re.compile(
    r"\b(?:next,? I(?:'ll| will)|next step|next steps|then I(?:'ll| will)|now I(?:'ll| will| need to)|"
    r"I still need to|remaining|TODO\b|still to do|left to do|I should now|let me now|下一步|待办)",
    re.IGNORECASE,
)
_TODO_LINE_RE = re.compile(r"^\s*(?:[-*]|\d+\.)\s*\[( |x|X)\]\s+(.+)$", re.MULTILINE)
_AIDER_APPLIED_RE = re.compile(r"^>?\s*Applied edit to (.+?)\s*$", re.MULTILINE)
_AIDER_COMMIT_RE = re.compile(r"^>?\s*Commit ([0-9a-f]{7,40}) (.+)$", re.MULTILINE)
_GIT_COMMIT_OUT_RE = re.compile(r"^\[[\w./-]+ (?:\(root-commit\) )?([0-9a-f]{7,40})\] (.+)$", re.MULTILINE)


_UNQUOTED_SPLIT_RE = re.compile(r"&&|\|\||[;\n|]")
# One token per quoted string (an unclosed one runs to the end), escape, separator or plain run.
_COMMAND_TOKEN_RE = re.compile(
    r"""'[^']*'?|"(?:\\.|[^"\\])*(?:\\\Z)?"?|\\\n|\\.|&&|\|\||[;\n|]|[^'"\\;|&\n]+|[&\\]""", re.DOTALL)
_COMMAND_SEPARATORS = frozenset({"&&", "||", ";", "\n", "|"})


def split_commands(command: str) -> list[str]:
    """Top-level simple commands of a command line: split on unquoted `&&`, `||`, `;`, `|` and
    newlines (not escaped ones); a heredoc's body is not analysed."""
    line = command.split("<<", 1)[0] if "<<" in command else command
    if "'" not in line and '"' not in line and "\\" not in line:
        return [p.strip() for p in _UNQUOTED_SPLIT_RE.split(line) if p.strip()]
    parts: list[str] = []
    buf: list[str] = []
    for token in _COMMAND_TOKEN_RE.findall(line):
        if token in _COMMAND_SEPARATORS:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(" " if token == "\\\n" else token)  # an escaped newline continues the line
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


def _first_word(cmd: str) -> str:
    cmd = cmd.strip()
    while cmd.startswith(("cd ", "(", "time ", "sudo ", "env ")):
        if cmd.startswith("cd "):
            return "cd"
        cmd = cmd.split(None, 1)[1] if " " in cmd else ""
    return cmd.split(None, 1)[0] if cmd else ""


_WORD_RE = re.compile(r"""(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"\\])+""")
_QUOTED_PART_RE = re.compile(r"""'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)""")


def _unquote(word: str) -> str:
    return _QUOTED_PART_RE.sub(lambda m: m.group(1) if m.group(1) is not None else (
        re.sub(r'\\(["\\$`])', r"\1", m.group(2)) if m.group(2) is not None else m.group(3)), word)


def _args(cmd: str) -> list[str]:
    """Shell words with quotes removed (the subset of shlex.split we need, without its cost)."""
    return [_unquote(w) if ("'" in w or '"' in w or "\\" in w) else w for w in _WORD_RE.findall(cmd)]


def shell_writes(command: str) -> list[tuple[EventKind, str]]:
    """Files a shell command line writes, edits or deletes (best effort, no execution)."""
    return list(_shell_writes(command))


@lru_cache(maxsize=4096)
def _shell_writes(command: str) -> tuple[tuple[EventKind, str], ...]:
    out: list[tuple[EventKind, str]] = []
    seen: set[str] = set()

    def add(kind: EventKind, path: str) -> None:
        path = path.strip().strip("'\"")
        if not path or path in seen or path.startswith(("/dev/", "&")) or path in {"-", "/dev/null"}:
            return
        if not re.search(r"[\w]", path):
            return
        seen.add(path)
        out.append((kind, path))

    head = command.split("<<", 1)[0] if "<<" in command else command
    body = command[len(head):]
    # Redirections in the command part (not inside a heredoc body or a python -c string).
    for m in _HEREDOC_CAT_RE.finditer(command.split("\n", 1)[0] if "<<" in command else head):
        add(EventKind.WRITE, m.group(2))
    for m in _REDIRECT_RE.finditer(command.split("\n", 1)[0] if "<<" in command else head):
        target = m.group(2)
        if re.fullmatch(r"\d+", target) or target.startswith("$"):
            continue
        add(EventKind.WRITE, target)
    for m in _TEE_RE.finditer(command.split("\n", 1)[0]):
        add(EventKind.WRITE, m.group(2))
    for part in split_commands(command):
        word = _first_word(part)
        args = _args(part)
        if word == "sed" and _SED_I_RE.search(part):
            files = _sed_files(args)
            for f in files:
                add(EventKind.EDIT, f)
        elif word in {"perl", "ruby"} and any(a.startswith("-i") or a == "-pi" or a.startswith("-pi") for a in args):
            for a in args[1:]:
                if not a.startswith("-") and re.search(r"\.\w+$", a) and " " not in a:
                    add(EventKind.EDIT, a)
        elif word == "rm":
            for a in args[1:]:
                if not a.startswith("-"):
                    add(EventKind.DELETE, a)
        elif word in {"mv", "cp"}:
            rest = [a for a in args[1:] if not a.startswith("-")]
            if len(rest) >= 2:
                add(EventKind.WRITE, rest[-1])
                if word == "mv":
                    add(EventKind.DELETE, rest[0])
        elif word == "touch":
            for a in args[1:]:
                if not a.startswith("-"):
                    add(EventKind.WRITE, a)
        elif word == "git" and len(args) > 2 and args[1] in {"checkout", "restore"}:
            for a in args[2:]:
                if a.startswith("-") or a in {"HEAD", "."} or not re.search(r"/|\.\w+$", a):
                    continue
                add(EventKind.REVERT, a)
        elif word == "git" and len(args) > 1 and args[1] in {"apply", "am"}:
            for m in _PATCH_FILE_RE.finditer(body):
                add(EventKind.EDIT, m.group(1))
        elif word == "patch":
            for m in _PATCH_FILE_RE.finditer(body):
                add(EventKind.EDIT, m.group(1))
    if re.search(r"\bpython[0-9.]*\s+(?:-\s*<<|-c\b)", command):
        for m in _PY_OPEN_W_RE.finditer(command):
            add(EventKind.WRITE, m.group(1))
        for m in _WRITE_TEXT_RE.finditer(command):
            add(EventKind.WRITE, m.group(1))
    if "*** Begin Patch" in command:
        for m in _PATCH_FILE_RE.finditer(command):
            add(EventKind.EDIT, m.group(1))
        for m in _PATCH_DELETE_RE.finditer(command):
            add(EventKind.DELETE, m.group(1))
    return tuple(out)


def _sed_files(args: list[str]) -> list[str]:
    """Files of `sed -i [-e SCRIPT]... SCRIPT FILE...`."""
    files: list[str] = []
    script_seen = False
    i = 1
    while i < len(args):
        a = args[i]
        if a in {"-e", "--expression", "-f"}:
            script_seen = True
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        if not script_seen:
            script_seen = True
        else:
            files.append(a)
        i += 1
    return [f for f in files if f not in {"|", ">"}]


def shell_reads(command: str) -> list[str]:
    """Files a read-only command prints (cat/head/tail/nl/sed -n ...p)."""
    paths: list[str] = []
    for part in split_commands(command.split("<<", 1)[0]):
        for piece in part.split("|")[:1]:
            args = _args(piece)
            if not args:
                continue
            word = args[0]
            if word in _READ_CMDS or (word == "sed" and "-n" in args and not _SED_I_RE.search(piece)):
                for a in args[1:]:
                    if a.startswith("-") or re.fullmatch(r"[\d,]+p?|'.*'|\d+", a) or a.endswith("p") and "," in a:
                        continue
                    if re.search(r"[\w]\.[\w]+$|/", a) and not a.startswith(("$", "<", ">")):
                        paths.append(a)
    return paths


def is_state_changing(command: str) -> bool:
    if shell_writes(command):
        return True
    for part in split_commands(command):
        stripped = re.sub(r"^(?:cd\s+\S+\s*&&\s*)", "", part.strip())
        if _STATE_CMDS.search(stripped):
            return True
    return False


_SUMMARY_HINTS = ("passed", "failed", "Tests run:", "tests finished", "test result:", "Ran ", "error", "FAIL", "ok ")


def parse_test_summary(output: str) -> str | None:
    """The test runner's closing counts, verbatim (e.g. '3 failed, 14 passed')."""
    if not any(hint in output for hint in _SUMMARY_HINTS):
        return None
    found = None
    for m in _PYTEST_SUMMARY_RE.finditer(output):
        found = m.group(1).strip().rstrip(",")
    if found:
        return found
    unittest_runs = list(_UNITTEST_RE.finditer(output))
    if unittest_runs:
        m = unittest_runs[-1]
        return f"Ran {m.group(1)} tests: {m.group(2)}"
    maven = list(_MAVEN_RE.finditer(output))
    if maven:
        return maven[-1].group(0)
    sympy = _SYMPY_RE.findall(output)
    if sympy:
        return sympy[-1]
    for rx in (_JEST_RE, _CARGO_RE):
        hits = rx.findall(output)
        if hits:
            h = hits[-1]
            return " ".join(h) if isinstance(h, tuple) else h
    hits = _GO_RE.findall(output)
    if hits:
        return ", ".join(f"{a} {b}" for a, b in hits[-5:])
    return None


# --- extraction ---------------------------------------------------------------------------------


def _results_by_call(round_messages: list[Message]) -> tuple[dict[str, ToolResult], list[ToolResult]]:
    by_id: dict[str, ToolResult] = {}
    ordered: list[ToolResult] = []
    for msg in round_messages:
        for res in msg.tool_results:
            if res.call_id:
                by_id[res.call_id] = res
            ordered.append(res)
    return by_id, ordered


def _todo_items(call: ToolCall) -> list[tuple[str, str]]:
    """(status, text) items of a todo tool call, across agents' shapes."""
    args = call.arguments or {}
    items = args.get("todos") or args.get("plan") or args.get("task_list") or args.get("items") or []
    out = []
    if isinstance(items, list):
        for it in items:
            if isinstance(it, dict):
                text = it.get("content") or it.get("step") or it.get("title") or it.get("description") or ""
                status = str(it.get("status") or it.get("state") or "pending")
                if text:
                    out.append((status, str(text)))
            elif isinstance(it, str):
                out.append(("pending", it))
    return out


_SLASH_RE = re.compile(r"^/[a-z-]+\b(?:\s+\S+){0,3}\s*$")


def is_follow_up_request(text: str) -> bool:
    """A later user message that states a request: not a slash command (`/exit`, `/add f`, `/run x`
    drive the tool) and more than a few characters."""
    stripped = text.strip()
    return len(stripped) > 3 and not _SLASH_RE.match(stripped)


def extract_events(transcript: Transcript, max_requests: int | None = None) -> list[Event]:
    """All events of a transcript in order. Pure; safe to call more than once.

    `max_requests` keeps the first REQUEST event (the task) and only the last `max_requests`
    follow-up requests (`is_follow_up_request`) of the others: a compaction can show no more than
    its budget holds, so memory follows what is kept, not the number of user messages read — a
    session of 500,000 requests would otherwise hold 500,000 events that no summary can show."""
    events: list[Event] = []
    state = _CommandState()
    later: deque[tuple[int, Event]] | None = None if max_requests is None else deque(maxlen=max(0, max_requests))
    first_request = True
    for rnd in transcript.rounds:
        by_id, ordered = _results_by_call(rnd.messages)
        positional = iter(ordered)
        for msg in rnd.messages:
            if msg.meta.get("final_patch_echo"):
                continue  # the harness's diff of the final state: not evidence of an edit
            start = len(events)
            _text_events(events, rnd.number, msg)
            if later is not None and msg.role is Role.USER:
                i = next((k for k in range(start, len(events)) if events[k].kind is EventKind.REQUEST), None)
                if i is not None and not first_request:
                    request = events.pop(i)  # re-inserted at its place below, if still kept
                    if is_follow_up_request(request.text):
                        later.append((i, request))
                elif i is not None and events[i].text.strip():
                    first_request = False  # the task: always kept
            for call in msg.tool_calls:
                result = by_id.get(call.id) if call.id else None
                if result is None:
                    result = next(positional, None)
                _call_events(events, rnd.number, msg, call, result, state)
    if later:
        return _merge_at(events, later)
    return events


def _merge_at(events: list[Event], kept: deque[tuple[int, Event]]) -> list[Event]:
    """`events` with each kept (position, event) put back where it was taken out: positions count
    the events present when it was taken, so later ones shift by the number of those dropped."""
    out: list[Event] = []
    it = iter(kept)
    nxt = next(it, None)
    for i, e in enumerate(events):
        while nxt is not None and nxt[0] <= i:
            out.append(nxt[1])
            nxt = next(it, None)
        out.append(e)
    while nxt is not None:
        out.append(nxt[1])
        nxt = next(it, None)
    return out


def _text_events(events: list[Event], rnd: int, msg: Message) -> None:
    texts = [msg.text] if msg.text else []
    texts += [r.content for r in msg.tool_results if r.content]
    for text in texts:
        if "@" in text and MARKER_RE.search(text):
            for m in _MARKER_LINE_RE.finditer(text):
                line = m.group(0).strip()
                kind = MARKER_RE.search(line).group(1).lower()
                events.append(Event(EventKind.MARKER, rnd, msg.index, text=line, meta={"marker": kind}))
    if msg.harness or msg.role is Role.TOOL:
        for text in texts:
            for m in _AIDER_APPLIED_RE.finditer(text):
                events.append(Event(EventKind.EDIT, rnd, msg.index, path=m.group(1).strip(), tool="aider"))
            for m in _AIDER_COMMIT_RE.finditer(text):
                events.append(Event(EventKind.COMMIT, rnd, msg.index, text=m.group(2).strip(), meta={"hash": m.group(1)}))
        return
    if msg.role is Role.USER:
        events.append(Event(EventKind.REQUEST, rnd, msg.index, text=msg.text))
        for sentence in _sentences_matching(msg.text, 30000, _CONSTRAINT_RE):
            if len(sentence) < 400:
                events.append(Event(EventKind.CONSTRAINT, rnd, msg.index, text=sentence))
        return
    if msg.role is Role.ASSISTANT and msg.text:
        todo_lines = _TODO_LINE_RE.findall(msg.text) if "]" in msg.text else []
        for status, item in ((("done" if c.strip() else "pending"), t) for c, t in todo_lines):
            events.append(Event(EventKind.TODO, rnd, msg.index, text=item.strip(), meta={"status": status}))
        decisions = _sentences_matching(msg.text, 6000, _DECISION_RE)
        for sentence in decisions:
            if len(sentence) <= 500 and not sentence.startswith("    "):
                events.append(Event(EventKind.DECISION, rnd, msg.index, text=sentence))
        for sentence in _sentences_matching(msg.text, 6000, _NEXT_RE):
            if len(sentence) <= 500 and sentence not in decisions and not sentence.startswith("    "):
                events.append(Event(EventKind.TODO, rnd, msg.index, text=sentence, meta={"status": "next"}))


def _without_fences(text: str) -> str:
    """`text` with each fenced block (an unclosed one runs to the end) replaced by a space; str.find
    does in one pass what a lazy DOTALL regex does a character at a time."""
    start = text.find("```")
    if start < 0:
        return text
    out: list[str] = []
    pos = 0
    while start >= 0:
        out.append(text[pos:start])
        out.append(" ")
        close = text.find("```", start + 3)
        if close < 0:  # unclosed: to the end, keeping a final newline as `$` does
            pos = len(text) - 1 if text.endswith("\n") and len(text) - 1 >= start + 3 else len(text)
            break
        pos = close + 3
        start = text.find("```", pos)
    out.append(text[pos:])
    return "".join(out)


def _lowercase_twin(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], bool]:
    """The same case-insensitive pattern for lowercased text, and whether its leading `\\b` was
    taken off: Python's IGNORECASE matching costs about twice a plain scan of `text.lower()`, and a
    pattern that opens with `\\b` is tried at every position, while one that opens with a branch of
    literals is searched by its first letters (the boundary is then checked by `_twin_matches`)."""
    assert not re.search(r"\\[A-Z]", pattern.pattern)
    source = pattern.pattern.lower()
    bounded = source.startswith("\\b(?:")
    if bounded:
        source = source[2:]
    return re.compile(source, pattern.flags & ~re.IGNORECASE), bounded


_LOWER_TWINS: dict[re.Pattern[str], tuple[re.Pattern[str], bool]] = {}


def _twin_matches(pattern: re.Pattern[str], lowered: str):
    """The matches `pattern` (case-insensitive) would find in the text whose lowercase is `lowered`."""
    twin, bounded = _LOWER_TWINS.get(pattern) or _LOWER_TWINS.setdefault(pattern, _lowercase_twin(pattern))
    if not bounded:
        yield from twin.finditer(lowered)
        return
    pos = 0
    while (m := twin.search(lowered, pos)) is not None:
        before = lowered[m.start() - 1] if m.start() else " "
        if before.isalnum() or before == "_":  # no word boundary here: try one character later
            pos = m.start() + 1
            continue
        yield m
        pos = max(m.end(), m.start() + 1)


def _sentences_matching(text: str, limit: int, pattern: re.Pattern[str]) -> list[str]:
    """The sentences of `text` (code blocks excluded) that contain a match of `pattern`, in order.

    One scan of the whole text finds the matches; only the sentences around them are cut out,
    so long messages cost one regex pass rather than one per sentence."""
    text = _without_fences(text[:limit])
    out: list[str] = []
    last_end = -1
    lowered = text.lower()
    if len(lowered) == len(text):  # offsets agree (a few Unicode letters change length when lowered)
        matches = _twin_matches(pattern, lowered)
    else:
        matches = pattern.finditer(text)
    for m in matches:
        if m.start() < last_end:
            continue
        start = 0
        for b in _SENTENCE_RE.finditer(text, max(0, m.start() - 600), m.start() + 1):
            start = b.end()
        nxt = _SENTENCE_RE.search(text, m.end())
        end = nxt.start() if nxt else len(text)
        sentence = text[start:end].strip()
        last_end = end
        if len(sentence) > 12:
            out.append(sentence)
    return out


@dataclass(slots=True)
class _CommandState:
    last_command: Event | None = None


def _continued_output(events: list[Event], rnd: int, msg: Message, result: ToolResult | None,
                      state: _CommandState) -> None:
    """A shell call without a command line (OpenHands reading more output of a running process):
    its output, test counts included, belongs to the command still running."""
    prev = state.last_command
    summary = parse_test_summary(result.content) if result and result.content else None
    if prev is None or not summary:
        return
    old = prev.meta.get("test_summary")
    prev.meta = {**prev.meta, "test_summary": summary if not old or old == summary else f"{old}; then {summary}",
                 "test": True}  # rebound, never changed in place: events without meta share one empty mapping
    events.append(Event(EventKind.TEST, rnd, msg.index, command=prev.command, exit_code=result.exit_code,
                        text=summary, tool=prev.tool, meta={"continued": True}))


def _call_events(events: list[Event], rnd: int, msg: Message, call: ToolCall, result: ToolResult | None,
                 state: _CommandState) -> None:
    exit_code = result.exit_code if result else None
    failed = bool(result and (result.is_error or (result.exit_code not in (None, 0))))
    if result is None and call.name == "search_replace":
        failed = True  # aider prints "Applied edit to X" for every edit it applied; this one it did not
    base = {"tool": call.name}
    if call.kind == ToolKind.TODO:
        for status, text in _todo_items(call):
            events.append(Event(EventKind.TODO, rnd, msg.index, text=text, tool=call.name, meta={"status": status}))
        return
    if call.kind in (ToolKind.READ, ToolKind.WRITE, ToolKind.EDIT):
        paths = list(call.arguments.get("paths") or []) if isinstance(call.arguments, dict) else []
        if call.path and call.path not in paths:
            paths.insert(0, call.path)
        kind = {ToolKind.READ: EventKind.READ, ToolKind.WRITE: EventKind.WRITE, ToolKind.EDIT: EventKind.EDIT}[call.kind]
        for path in paths:
            events.append(Event(kind, rnd, msg.index, path=path, exit_code=exit_code, tool=call.name,
                                meta={"failed": failed, **base}))
        return
    if call.kind in (ToolKind.SHELL, ToolKind.OTHER) and not (call.command or "").strip() and call.name in (
            "run", "bash", "execute_bash"):
        _continued_output(events, rnd, msg, result, state)
        return
    if call.kind == ToolKind.SHELL and call.command:
        cmd = call.command.strip()
        output = result.content if result else ""
        summary = parse_test_summary(output) if output else None
        is_test = bool(_TEST_CMD_RE.search(cmd.split("<<", 1)[0])) or summary is not None
        writes = shell_writes(cmd)
        command_event = Event(EventKind.COMMAND, rnd, msg.index, command=cmd, exit_code=exit_code, tool=call.name,
                              state_changing=bool(writes) or is_state_changing(cmd),
                              meta={"failed": failed, "test": is_test, "test_summary": summary})
        events.append(command_event)
        state.last_command = command_event
        if summary:
            events.append(Event(EventKind.TEST, rnd, msg.index, command=cmd, exit_code=exit_code, text=summary,
                                tool=call.name))
        if not failed:
            for kind, path in writes:
                events.append(Event(kind, rnd, msg.index, path=path, command=cmd, tool=call.name,
                                    meta={"failed": failed, "via": "shell"}))
        for path in shell_reads(cmd):
            events.append(Event(EventKind.READ, rnd, msg.index, path=path, command=cmd, tool=call.name))
        if output and "] " in output:
            for m in _GIT_COMMIT_OUT_RE.finditer(output):
                events.append(Event(EventKind.COMMIT, rnd, msg.index, text=m.group(2), meta={"hash": m.group(1)}))
        return
    if call.kind == ToolKind.SEARCH:
        events.append(Event(EventKind.COMMAND, rnd, msg.index, command=call.command or _describe(call),
                            exit_code=exit_code, tool=call.name, meta={"failed": failed, "search": True}))


def _describe(call: ToolCall) -> str:
    args = call.arguments or {}
    bits = [str(v) for k, v in args.items() if isinstance(v, (str, int)) and k not in {"thought"}][:3]
    return f"{call.name} {' '.join(bits)}".strip()
