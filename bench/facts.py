"""Independent ground truth: the facts a compaction should keep, read straight from the raw file.

Deliberately independent of `compaction` (no loader, no event extractor, no error classifier):
small raw readers per format and plain regular expressions, so a bug in the system under test
cannot make its own exam easier.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from bench.copies import SUBMIT, detect_format


@dataclass
class RawItem:
    kind: str  # task | user | assistant | command | output
    text: str


@dataclass
class Expected:
    modified_files: list[str] = field(default_factory=list)  # ground truth the transcript shows being written
    patch_files: list[str] = field(default_factory=list)  # the whole ground-truth list (final patch / Applied edit to)
    written: set[str] = field(default_factory=set)  # every path the scan sees written (for precision)
    error_ids: dict[str, str] = field(default_factory=dict)  # ERR_* id -> raw evidence name (lenient match)
    commands: list[str] = field(default_factory=list)  # state-changing commands, first line (<= 60 chars)
    numbers: list[str] = field(default_factory=list)  # "14 passed", "Tests run: 5", numbers the user gave
    task: str = ""  # GROUND_TRUTH task_excerpt, normalised
    task_opening: str = ""  # first 20 words of the task, normalised
    task_source: str = "ground_truth"
    markers: list[str] = field(default_factory=list)  # planted `@kind token`
    todos: list[str] = field(default_factory=list)  # todo-tool items and @todo markers


# --------------------------------------------------------------------------- raw readers

def raw_items(path: Path, fmt: str | None = None) -> list[RawItem]:
    fmt = fmt or detect_format(path)
    if fmt == "aider":
        return _aider(path.read_text(encoding="utf-8"))
    data = json.loads(path.read_text(encoding="utf-8"))
    return {"mini": _mini, "sweagent": _sweagent, "openhands": _openhands}[fmt](data)


def _text(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "\n".join(_text(x.get("text") if isinstance(x, dict) else x) for x in v)
    return "" if v is None else str(v)


_FENCE = re.compile(r"```(?:bash|sh)[ \t]*\n(.*?)\n```", re.S)


def _mini(data: dict) -> list[RawItem]:
    out: list[RawItem] = []
    seen_task = False
    for m in data["messages"]:
        role, text = m.get("role"), _text(m.get("content"))
        if role == "user" and not seen_task:
            seen_task = True
            out.append(RawItem("task", text))
        elif role == "assistant":
            out.append(RawItem("assistant", text))
            blocks = _FENCE.findall(text)
            if len(blocks) == 1 and SUBMIT not in blocks[0]:
                out.append(RawItem("command", blocks[0]))
        elif role in ("user", "tool") and text.strip():
            out.append(RawItem("output", text))
    return out


def _sweagent(data: dict) -> list[RawItem]:
    out: list[RawItem] = []
    for h in data.get("history", []):
        if h.get("role") == "user" and not h.get("is_demo") and h.get("message_type") != "demonstration":
            out.append(RawItem("task", _text(h.get("content"))))
            break
    for step in data.get("trajectory", []):
        out.append(RawItem("assistant", _text(step.get("thought") or step.get("response"))))
        action = _text(step.get("action")).strip()
        if action and not action.startswith("submit"):
            out.append(RawItem("command", action))
        if _text(step.get("observation")).strip():
            out.append(RawItem("output", _text(step.get("observation"))))
    return out


def _openhands(data: dict) -> list[RawItem]:
    out: list[RawItem] = []
    task_done = False
    for ev in data.get("history", []):
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        if ev.get("action") == "message" and ev.get("source") == "user":
            out.append(RawItem("task" if not task_done else "user", _text(args.get("content") or ev.get("message"))))
            task_done = True
        elif ev.get("source") == "agent" and ev.get("action"):
            if isinstance(args.get("thought"), str) and args["thought"].strip():
                out.append(RawItem("assistant", args["thought"]))
            if ev.get("action") == "run" and isinstance(args.get("command"), str) and args["command"].strip():
                out.append(RawItem("command", args["command"]))
            if ev.get("action") == "edit" and args.get("path"):
                out.append(RawItem("edit", str(args["path"])))
            if ev.get("action") == "task_tracking":
                for item in args.get("task_list") or []:
                    if isinstance(item, dict) and (item.get("title") or item.get("content")):
                        out.append(RawItem("todo", f"{item.get('status') or 'todo'}\t{item.get('title') or item.get('content')}"))
        if ev.get("observation") and isinstance(ev.get("content"), str) and ev["content"].strip():
            out.append(RawItem("output", ev["content"]))
    if not task_done and isinstance(data.get("instruction"), str):
        out.insert(0, RawItem("task", data["instruction"]))
    return out


def _aider(text: str) -> list[RawItem]:
    out: list[RawItem] = []
    first_user = True
    for line in text.split("\n"):
        if line.startswith("#### "):
            out.append(RawItem("task" if first_user else "user", line[5:]))
            first_user = False
            run = re.match(r"/(?:run|test)\s+(.+)", line[5:].strip())
            if run:
                out.append(RawItem("command", run.group(1)))
        elif line.startswith("> "):
            out.append(RawItem("output", line[2:]))
            run = re.match(r"Running (.+)", line[2:].strip())
            if run:
                out.append(RawItem("command", run.group(1)))
            applied = re.match(r"Applied edit to (.+)", line[2:].strip())
            if applied:
                out.append(RawItem("edit", applied.group(1).strip()))
        elif line.strip() and not line.startswith("# aider chat started"):
            out.append(RawItem("assistant", line))
    return out


# --------------------------------------------------------------------------- scans

_TRACEBACK = "Traceback (most recent call last):"
_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::|\s*$)")
_PYTEST_FAILED = re.compile(r"^FAILED [^\s]+", re.M)
_JUNIT_FAIL = re.compile(r"Tests run: \d+, Failures: (\d+), Errors: (\d+)")


def scan_errors(outputs: list[str]) -> dict[str, str]:
    """Error identifiers by four simple rules (id -> the raw words that prove it)."""
    found: dict[str, str] = {}
    for text in outputs:
        if _TRACEBACK in text:
            for block in text.split(_TRACEBACK)[1:]:
                name = _exception_name(block)
                if name:
                    found.setdefault(f"ERR_PY_{name}", name)
        if "command not found" in text:
            found.setdefault("ERR_TOOL_CommandNotFound", "command not found")
        if "No such file or directory" in text:
            found.setdefault("ERR_TOOL_FileNotFound", "No such file or directory")
        if _PYTEST_FAILED.search(text):
            found.setdefault("ERR_LOGIC_TestFailed", "FAILED")
    return found


def _exception_name(block: str) -> str | None:
    """The exception of a traceback: the first unindented line after the indented frames."""
    lines = block.split("\n")
    in_frames = False
    for line in lines[1:]:
        if line.startswith("  "):
            in_frames = True
            continue
        if not line.strip():
            continue
        if not in_frames:
            return None
        m = _EXC_LINE.match(line.strip())
        if not m:
            return None
        name = m.group(1).rsplit(".", 1)[-1]
        return name if re.fullmatch(r"[A-Z][a-z]\w*", name) else None
    return None


_STATE_CMD = re.compile(
    r"(\bsed\s+-i|\bperl\s+-[a-z]*i|\bcat\s+(?:<<-?\s*['\"]?\w+['\"]?\s*)?>\s*[^\s&>]|\btee\s|\bgit\s+(?:apply|commit|add|"
    r"checkout|reset|stash|am|rm|mv|restore)\b|\bpip3?\s+install|\bpython3?\s+-m\s+pip\s+install|\bnpm\s+(?:install|i)\b|"
    r"(?:^|[;&|]\s*)(?:mv|cp|rm|mkdir|touch|patch|chmod)\s|\becho\s[^|]*[^2&]>\s*[^\s&/]|"
    r"\bprintf\s[^|]*[^2&]>\s*[^\s&/])", re.M)


def is_state_changing(command: str) -> bool:
    return bool(_STATE_CMD.search(command))


def command_key(command: str) -> str:
    """What must survive of a command: its first line, at most 60 characters, whitespace folded."""
    first = command.strip().split("\n", 1)[0]
    return norm(first)[:60].strip()


_WRITE_PATTERNS = [
    re.compile(r"\bsed\s+-i(?:''|\.\w+)?\s+(?:-e\s+)?(?:'[^']*'|\"[^\"]*\"|[^\s'\"]+)\s+([^\s;&|<>'\"]+)"),
    re.compile(r"\bcat\s+(?:<<-?\s*['\"]?\w+['\"]?\s*)?>\s*([^\s;&|<>]+)"),
    re.compile(r"\bcat\s+>\s*([^\s;&|<>]+)"),
    re.compile(r"[^2&>]>>?\s*([\w./-]+\.\w+)"),
    re.compile(r"\btee\s+(?:-a\s+)?([^\s;&|<>]+)"),
    re.compile(r"^(?:create|touch)\s+(\S+)", re.M),
    re.compile(r"\b(?:mv|cp)\s+\S+\s+([^\s;&|<>]+)"),
    re.compile(r"str_replace_editor\s+(?:create|str_replace|insert)\s+(\S+)"),
]


def scan_written(items: list[RawItem]) -> set[str]:
    """Paths the transcript shows being written (commands, editor calls, 'Applied edit to')."""
    written: set[str] = set()
    open_file: str | None = None
    for it in items:
        if it.kind == "edit":
            written.add(norm_path(it.text))
        if it.kind != "command":
            continue
        cmd = it.text
        m = re.match(r"open\s+\"?([^\s\"]+)", cmd.strip())
        if m:
            open_file = m.group(1)
        if re.match(r"edit\s+\d+:\d+", cmd.strip()) and open_file:
            written.add(norm_path(open_file))
        for pat in _WRITE_PATTERNS:
            for m in pat.finditer(cmd):
                p = m.group(1).strip("'\"")
                if p and not p.startswith("/dev/") and "$" not in p:
                    written.add(norm_path(p))
    written.discard("")
    return written


_TEST_COUNTS = re.compile(r"\b(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b")
_JUNIT = re.compile(r"Tests run: \d+, Failures: \d+, Errors: \d+(?:, Skipped: \d+)?")
_RAN = re.compile(r"\bRan \d+ tests?\b")
_USER_NUM = re.compile(r"(?<![\w./#-])(\d+(?:\.\d+)+|\d{2,})(?![\w/-])")


def _is_test_summary(line: str) -> bool:
    """pytest/sympy-style count lines (passed or failed, then `in 0.97s`), JUnit aggregate lines (not the
    per-class `... -- in pkg.Class` ones) and unittest's `Ran N tests`."""
    if (_TEST_COUNTS.search(line) and re.search(r"\b(passed|failed)\b", line)
            and re.search(r"\bin [\d.]+ ?s(?:econds)?\b", line)):  # a runner's line ends with its duration
        return True
    if _JUNIT.search(line) and "Time elapsed" not in line:
        return True
    return bool(_RAN.search(line))


def scan_numbers(items: list[RawItem]) -> list[str]:
    """The counts of each test run (the last summary line of each output: "3 failed, 42 passed",
    "Tests run: 19, Failures: 0, ...", "Ran 390 tests") and numbers in the user's own (non-task) messages."""
    found: dict[str, None] = {}
    for it in items:
        if it.kind == "output":
            summary = [ln for ln in it.text.split("\n") if _is_test_summary(ln)]
            if summary:
                line = summary[-1]
                for m in _TEST_COUNTS.finditer(line):
                    found.setdefault(f"{m.group(1)} {m.group(2)}", None)
                for pat in (_JUNIT, _RAN):
                    for m in pat.finditer(line):
                        found.setdefault(m.group(0), None)
        elif it.kind == "user":
            for m in _USER_NUM.finditer(it.text):
                found.setdefault(m.group(1), None)
    return list(found)


def number_present(number: str, text: str) -> bool:
    return re.search(r"(?<![\w.])" + re.escape(number) + r"(?![\w])", text) is not None


# --------------------------------------------------------------------------- normalisation

_TAGS = re.compile(r"</?[A-Za-z_][\w-]*>")
_WS = re.compile(r"\s+")


# An HTML comment, or one the excerpt cuts open at its end: hidden in the rendered issue (astropy's template:
# "<!-- This comments are hidden when you submit the issue …"), no part of what was asked, and not kept by the
# compactor since 2026-12-05 (compaction.template_noise): the task's excerpt is compared without it
_HIDDEN_RE = re.compile(r"<!--.*?(?:-->|$)", re.S)


def norm(text: str) -> str:
    """Whitespace-folded, tags stripped, markdown code ticks ignored: how the task is compared."""
    return _WS.sub(" ", _TAGS.sub(" ", text).replace("`", "")).strip()


def norm_path(path: str) -> str:
    p = path.strip().strip("'\"`")
    for root in ("/testbed/", "/workspace/", "/repo/", "/app/"):
        if p.startswith(root):
            p = p[len(root):]
            if root == "/workspace/" and "/" in p and ("__" in p.split("/", 1)[0] or "." not in p.split("/", 1)[0]):
                p = p.split("/", 1)[1]
            break
    if p.startswith("/") and p.count("/") >= 1:
        p = p.lstrip("/")
        if "__" in p.split("/", 1)[0] and "/" in p:  # SWE-agent /<owner>__<repo>/...
            p = p.split("/", 1)[1]
    while p.startswith("./"):
        p = p[2:]
    return p


def same_file(a: str, b: str) -> bool:
    a, b = norm_path(a), norm_path(b)
    return bool(a and b) and (a == b or a.endswith("/" + b) or b.endswith("/" + a))


# --------------------------------------------------------------------------- putting it together

def expected_facts(copy_path: Path, truth: dict, markers: list[str], fmt: str | None = None) -> Expected:
    items = raw_items(copy_path, fmt)
    exp = Expected()
    if "files_edited(Applied edit to)" in truth:
        exp.patch_files = sorted(truth["files_edited(Applied edit to)"])
    else:
        exp.patch_files = list(truth.get("modified_files_from_final_patch") or [])
    seen_written = scan_written(items)
    # A file in the final patch that no agent action wrote (e.g. setup.py/tox.ini changed by the
    # benchmark's environment set-up) cannot be known from the transcript: scored apart.
    exp.modified_files = [p for p in exp.patch_files if any(same_file(p, w) for w in seen_written)]
    exp.written = seen_written | {norm_path(p) for p in exp.patch_files}
    exp.error_ids = scan_errors([it.text for it in items if it.kind == "output"])
    cmds: dict[str, None] = {}
    for it in items:
        if it.kind == "command" and is_state_changing(it.text):
            key = command_key(it.text)
            if key:
                cmds.setdefault(key, None)
    exp.commands = list(cmds)
    exp.numbers = scan_numbers(items)
    exp.task = norm(_HIDDEN_RE.sub(" ", truth.get("task_excerpt", "")))
    task_text = norm(next((it.text for it in items if it.kind == "task"), ""))
    if exp.task and task_text and exp.task not in task_text:
        # GROUND_TRUTH's excerpt for the SWE-agent file comes from the demonstration, not this task:
        # use the opening of the task statement the raw file really gives.
        exp.task = task_text[:160].rsplit(" ", 1)[0]
        exp.task_source = "scan"
    exp.task_opening = " ".join(exp.task.split(" ")[:20])
    exp.markers = list(markers)
    last_status: dict[str, str] = {}  # todo-tool items: the last state of each; done ones are not next steps
    for it in items:
        if it.kind == "todo":
            status, title = it.text.split("\t", 1)
            last_status[norm(title)[:60]] = status.lower()
    exp.todos = [t for t, st in last_status.items() if st not in _DONE]
    exp.todos += [m for m in markers if m.startswith("@todo")]
    return exp


_DONE = {"done", "completed", "complete", "finished", "cancelled"}


def load_truth(transcripts: Path) -> dict[str, dict]:
    out = {}
    for line in (transcripts / "GROUND_TRUTH.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out[d["file"]] = d
    return out
