"""From events to the template's facts: goal, completed actions, modified files, decisions, next steps.

Every fact carries the rounds it came from and a score used when the budget forces a choice.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field

from compaction.events import Event, EventKind, is_follow_up_request
from compaction.mdsafe import escape_path
from compaction.model import Transcript

_TAG_RE = re.compile(r"</?[a-z_]+>")
_WS_RE = re.compile(r"[ \t]+")
_BLANKS_RE = re.compile(r"\n{3,}")


@dataclass(slots=True)
class Fact:
    section: str  # goal | completed | modified | decisions | problems | next | marked
    text: str
    rounds: list[int] = field(default_factory=list)
    score: float = 1.0
    essential: bool = False  # kept before any optional fact (priority tier 1)
    short: str | None = None  # a shorter form used when the budget is tight
    meta: dict = field(default_factory=dict)


def display_path(path: str, cwd: str | None) -> str:
    """A transcript path as the agent's project sees it: relative to the recorded cwd when inside it,
    with newlines, bidi and other control characters escaped (it is printed inside Markdown)."""
    return escape_path(_relative_path(path, cwd))


def _relative_path(path: str, cwd: str | None) -> str:
    p = path.strip().strip("'\"")
    for root in filter(None, [cwd, "/testbed", "/workspace", "/repo", "/app"]):
        root = root.rstrip("/")
        if p.startswith(root + "/"):
            rest = p[len(root) + 1:]
            # OpenHands-style /workspace/<repo>/...: drop the repo folder when cwd is /workspace.
            if root == "/workspace" and cwd in (None, "/workspace") and "/" in rest:
                first, tail = rest.split("/", 1)
                if "__" in first or "." not in first:
                    return tail if "__" in first else rest
            return rest
    if p.startswith("./"):
        p = p[2:]
    return p


def cite(rounds: list[int]) -> str:
    """`(r3)`, `(r3, r7)`, `(r3-r6, r9)`: compact round citations."""
    rs = sorted(set(rounds))
    if not rs:
        return ""
    parts: list[str] = []
    start = prev = rs[0]
    for r in rs[1:] + [None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        parts.append(f"r{start}" if start == prev else (f"r{start}, r{prev}" if prev == start + 1 else f"r{start}-r{prev}"))
        if r is not None:
            start = prev = r
    if len(parts) > 8:
        parts = parts[:3] + ["…"] + parts[-4:]
    return "(" + ", ".join(parts) + ")"


_TRAILING_WS_RE = re.compile(r"[ \t]+$", re.MULTILINE)
# Where an agent harness's generic instructions begin inside a task message (mini-swe-agent,
# SWE-agent, OpenHands): the request before it is the user's; the rest is boilerplate.
_BOILERPLATE_RE = re.compile(
    r"^\s*(?:#+\s*Task Instructions\b|<instructions>|INSTRUCTIONS:|Follow these steps to resolve the issue)",
    re.MULTILINE,
)
_FIRST_SENTENCE_RE = re.compile(r"^.{0,400}?(?:[.!?](?=\s)|\n\n)", re.DOTALL)


def clean_task(text: str) -> str:
    text = _TAG_RE.sub("", text)
    text = _TRAILING_WS_RE.sub("", text)
    return _BLANKS_RE.sub("\n\n", text).strip()


def split_task(text: str) -> tuple[str, str]:
    """(the request, the harness's generic instructions after it) of a task message."""
    m = _BOILERPLATE_RE.search(text)
    if not m or m.start() < 40:
        return text, ""
    return text[: m.start()], text[m.start():]


def task_text(raw: str) -> str:
    """The task as the goal section shows it: the request whole; of the harness's boilerplate only
    its opening sentence (its rules reach the decisions section as constraints)."""
    request, boilerplate = split_task(raw)
    request = clean_task(request)
    if not boilerplate.strip():
        return request
    bp = clean_task(boilerplate)
    first = _FIRST_SENTENCE_RE.match(bp)
    opening = first.group(0).strip() if first else bp[:200]
    # Keep the first numbered step too when the boilerplate opens with a heading line.
    if len(opening) < 60:
        more = _FIRST_SENTENCE_RE.match(bp[len(first.group(0)) if first else 200:].lstrip())
        if more:
            opening = f"{opening} {more.group(0).strip()}"
    elided = len(bp) - len(opening)
    note = f" […harness instructions, {elided} characters, elided; their rules are under the decisions…]"
    return f"{request}\n\n{opening}{note if elided > 0 else ''}"


def first_line(command: str, limit: int = 160) -> str:
    line = command.strip().split("\n", 1)[0]
    more = "\n" in command.strip()
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    elif more:
        line += " …"
    return line


def goal_facts(transcript: Transcript, events: list[Event], limit: int | None = None) -> list[Fact]:
    """The task, the current request and (at most `limit` of) the requests in between, latest first
    in score. `limit` bounds memory by what a summary can hold, not by the requests read: a session
    of 500,000 requests would otherwise build 500,000 facts of which a few hundred can be shown."""
    requests = [e for e in events if e.kind is EventKind.REQUEST and e.text.strip()]
    facts: list[Fact] = []
    if not requests:
        return facts
    task = requests[0]
    facts.append(Fact("goal", task_text(task.text), [task.round], score=100, essential=True, meta={"task": True}))
    # Slash commands (`/exit`, `/add f`, `/run x`) drive the tool, they are not requests.
    later = [r for r in requests[1:] if is_follow_up_request(r.text)]
    # Interactive sessions: every later request matters, the latest most (the current goal).
    first = 0 if limit is None else max(0, len(later) - limit)
    for i, req in enumerate(later[first:], first):
        latest = i == len(later) - 1
        text = clean_task(req.text)
        if latest:
            facts.append(Fact("goal", "Current request: " + text, [req.round], score=90, essential=True,
                              short="Current request: " + text[:160]))
        else:  # history: the completed actions carry what was done about it
            facts.append(Fact("goal", "Then asked: " + (text if len(text) <= 160 else text[:159] + "…"),
                              [req.round], score=10 + i * 0.01, meta={"priority": 2.5}))
    return facts


def modified_file_facts(events: list[Event], cwd: str | None, role_tests_first: bool = False) -> list[Fact]:
    files: OrderedDict[str, dict] = OrderedDict()
    for e in events:
        if e.kind not in (EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.REVERT) or not e.path:
            continue
        if e.meta.get("failed") and e.meta.get("via") != "shell":
            continue
        path = display_path(e.path, cwd)
        if not path or path.endswith("/") or path.startswith(("/tmp/", "/dev/", "/proc/")):
            continue
        info = files.setdefault(path, {"rounds": [], "kinds": [], "last": 0})
        info["rounds"].append(e.round)
        info["kinds"].append(e.kind)
        info["last"] = e.round
    facts: list[Fact] = []
    scratch: list[tuple[str, str, list[int]]] = []
    for path, info in files.items():
        kinds = info["kinds"]
        if set(kinds) == {EventKind.DELETE} and not re.search(r"\.\w+$", path):
            continue  # `rm -rf some_dir`: a folder the transcript never showed being filled
        if kinds[-1] is EventKind.REVERT:
            what = "edited, then reverted"
        elif kinds[-1] is EventKind.DELETE:
            what = "created then removed" if EventKind.WRITE in kinds else "deleted"
        elif kinds[0] is EventKind.WRITE and EventKind.EDIT not in kinds:
            what = "created"
        elif kinds[0] is EventKind.WRITE:
            what = "created, then edited"
        else:
            what = "edited"
        n = len(set(info["rounds"]))
        is_test = bool(re.search(r"(^|/)(tests?|spec)(/|_)|_test\.|\.test\.|\.spec\.|test_", path))
        score = 50 + n + (5 if is_test and role_tests_first else 0)
        if what in SCRATCH:
            scratch.append((path, what, info["rounds"]))
            continue
        facts.append(Fact("modified", f"`{path}`: {what} {cite(info['rounds'])}", info["rounds"], score=score,
                          essential=True, short=f"`{path}` {cite([info['last']])}", meta={"path": path, "what": what}))
    # Scratch files and reverted edits: one line, so the list above is what the work tree still holds.
    for what in SCRATCH:
        group = [(p, r) for p, w, r in scratch if w == what]
        if group:
            rounds = sorted({x for _, r in group for x in r})
            names = ", ".join(f"`{p}`" for p, _ in group)
            label = {"created then removed": "Scratch files (created, later removed)",
                     "edited, then reverted": "Edited, then reverted"}[what]
            facts.append(Fact("modified", f"{label}: {names} {cite(rounds)}", rounds, score=20,
                              short=f"{label}: {len(group)} files {cite(rounds)}", meta={"scratch": True}))
    return facts


SCRATCH = ("created then removed", "edited, then reverted")


def completed_facts(events: list[Event], cwd: str | None, code: bool) -> list[Fact]:
    """State-changing commands, test runs and commits, repeats folded into one line."""
    facts: list[Fact] = []
    folded: OrderedDict[str, Fact] = OrderedDict()
    tests_by_cmd: dict[str, Event] = {}
    for e in events:
        if e.kind is EventKind.TEST and e.command:
            tests_by_cmd[e.command] = e
    for e in events:
        if e.kind is EventKind.COMMIT:
            facts.append(Fact("completed", f"Commit {e.meta.get('hash', '')[:10]} “{e.text}”", [e.round], score=70))
        if e.kind is not EventKind.COMMAND or not e.command or e.meta.get("search"):
            continue
        is_test = e.meta.get("test")
        if not (e.state_changing or is_test):
            continue
        line = first_line(e.command)
        key = line
        outcome = ""
        if is_test:
            summary = e.meta.get("test_summary")
            outcome = f" → {summary}" if summary else (f" → exit {e.exit_code}" if e.exit_code not in (None,) else "")
        elif e.exit_code not in (None, 0):
            outcome = f" → exit {e.exit_code}"
        if key in folded:
            f = folded[key]
            f.rounds.append(e.round)
            f.meta["count"] += 1
            if outcome and (not f.meta["outcomes"] or f.meta["outcomes"][-1][1] != outcome):
                f.meta["outcomes"].append((e.round, outcome))
            continue
        score = 60 if e.state_changing else 45
        if is_test and e.meta.get("test_summary"):
            score = 65
        folded[key] = Fact("completed", line, [e.round], score=score,
                           meta={"count": 1, "outcomes": [(e.round, outcome)] if outcome else [],
                                 "command": e.command, "test": bool(is_test)})
    for key, f in folded.items():
        count = f.meta["count"]
        times = f" ×{count}" if count > 1 else ""
        outcomes = f.meta["outcomes"]
        if len(outcomes) > 1:  # every distinct result of a re-run command, each with its round
            outcome = "".join(f"{o} (r{r})" for r, o in outcomes[-6:])
        else:
            outcome = outcomes[0][1] if outcomes else ""
        text = f"`{key}`{times}{outcome}" if code else f"Ran a {'test' if f.meta['test'] else 'command'}{outcome}"
        f.text = f"{text} {cite(f.rounds)}"
        f.short = f"`{first_line(f.meta['command'], 80)}` {cite(f.rounds[-1:])}" if code else None
        facts.append(f)
    facts.sort(key=lambda f: min(f.rounds))
    return facts


def decision_facts(events: list[Event]) -> list[Fact]:
    facts: list[Fact] = []
    seen: set[str] = set()
    for e in events:
        if e.kind not in (EventKind.DECISION, EventKind.CONSTRAINT):
            continue
        text = _WS_RE.sub(" ", e.text.strip()).lstrip("-*• ").strip()
        key = text.lower()[:120]
        if key in seen or len(text) < 15 or text.endswith(":"):
            continue
        seen.add(key)
        score = 30 if e.kind is EventKind.DECISION else 35
        if e.kind is EventKind.CONSTRAINT and e.round == 1:
            score = 55  # the task's own rules
        if len(text) > 300:
            text = text[:297] + "…"
        facts.append(Fact("decisions", text, [e.round], score=score + min(e.round, 500) / 1000))
    return facts


def next_step_facts(events: list[Event], last_round: int) -> list[Fact]:
    """Unfinished todos (the last state of each todo list item) and recently stated next steps."""
    todos: OrderedDict[str, Event] = OrderedDict()
    stated: list[Event] = []
    # A todo tool (TodoWrite, update_plan, task_tracking…) sends the whole list each time: only its
    # last list counts, so items dropped from it are not left "pending" forever.
    last_list: dict[str, tuple[int, int]] = {}
    for e in events:
        if e.kind is EventKind.TODO and e.tool:
            last_list[e.tool] = max(last_list.get(e.tool, (0, -1)), (e.round, e.message_index))
    for e in events:
        if e.kind is not EventKind.TODO:
            continue
        if e.meta.get("status") == "next":
            stated.append(e)
        elif e.tool is None or (e.round, e.message_index) == last_list[e.tool]:
            todos[e.text.strip().lower()] = e
    facts: list[Fact] = []
    for e in todos.values():
        status = str(e.meta.get("status", "pending")).lower()
        if status in {"completed", "done", "complete", "finished"}:
            continue
        facts.append(Fact("next", f"[{status}] {e.text.strip()}", [e.round], score=70, essential=True))
    recent = [e for e in stated if e.round > last_round - 5]  # older plans were acted on or dropped
    seen: set[str] = set()
    for e in recent[-6:]:
        text = _WS_RE.sub(" ", e.text.strip())
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        facts.append(Fact("next", text[:300], [e.round], score=25 + e.round / 10000))
    return facts


def marked_facts(events: list[Event]) -> list[Fact]:
    facts: list[Fact] = []
    seen: set[tuple[str, int]] = set()
    for e in events:
        if e.kind is EventKind.MARKER and (e.text, e.round) not in seen:
            seen.add((e.text, e.round))
            facts.append(Fact("marked", e.text, [e.round], score=1000, essential=True,
                              meta={"marker": e.meta.get("marker")}))
    return facts


def reads_dropped(events: list[Event], upto_round: int) -> tuple[int, int]:
    """(file reads in the summarized part, of which repeated reads of the same file)."""
    seen: set[str] = set()
    total = repeated = 0
    for e in events:
        if e.kind is EventKind.READ and e.round < upto_round:
            total += 1
            if e.path in seen:
                repeated += 1
            seen.add(e.path or "")
    return total, repeated
