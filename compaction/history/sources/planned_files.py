"""Files a plan meant to create that the session never wrote: work the plan left undone.

Why: an agent that plans a layout ("create `cli.py`, `setup.cfg`, `MANIFEST.in`"), then writes some of
it, leaves the rest silently: the change records list what was written, the plan what was meant, and
neither says what is missing. A successor asked to finish the work needs that difference.

A plan is the agent's reply that calls itself one in its opening lines. A file it means to create is
named in a layout tree (a code block of `├──`/`│` lines, or of indented names under a folder line), or as a
whole code span (`cli.py`) on a line that says create/add/new: prose's "e.g." or "Node.js", a call's
`os.path.join(…)` and a value's `np.float64` are no files. Only names the session had not seen before the
plan count (a layout lists existing files too: a README, a LICENSE), and only a plan the session acted
on (it wrote at least one of the files) is compared: an unapproved plan is the next step as a whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from compaction.events import EventKind
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role
from compaction.transcripts.path_spelling import file_name

_PLAN_RE = re.compile(r"\bplan\b", re.IGNORECASE)
PLAN_HEAD = 300  # a plan calls itself one in its opening characters
PLAN_CHARS = 20_000  # and names its files within these (a 200 KB reply holding a script is no longer read whole)
_FILE_RE = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/-])")
# On a line of prose, a file is a whole code span whose extension is letters (`setup.cfg`, `MANIFEST.in`)
_SPAN_FILE_RE = re.compile(r"`((?:[\w.-]+/)*[\w][\w.-]*\.[A-Za-z]{1,8})`(?!\s*\()")
_TREE_LINE_RE = re.compile(r"^[\s│├└─|`+\\-]*[├└│]")  # a line of a drawn tree
_CREATE_RE = re.compile(r"\b(?:create|creating|add|adding|new|write|writing|generate|scaffold)\b", re.IGNORECASE)
_FENCE_RE = re.compile(r"^\s*```")
MAX_NAMED = 6
SCORE = 58  # beside the other work left: after failing checks and unfinished asks, before open questions


def _planned(text: str) -> list[str]:
    """The file names the plan means to create: in a drawn tree or an indented layout in a code block, or
    on a line outside code that says create/add/new. In order, once each."""
    out: list[str] = []
    in_code = False
    block: list[str] = []
    for line in text.splitlines():
        if _FENCE_RE.match(line):
            if in_code:
                out += _layout_names(block)
                block = []
            in_code = not in_code
            continue
        if in_code:
            block.append(line)
        elif "`" in line and "." in line and _CREATE_RE.search(line):  # most lines need no search
            out += [n for m in _SPAN_FILE_RE.finditer(line) if not _abbreviation(n := m.group(1))]
    return list(dict.fromkeys(file_name(n) or n for n in out))


def _abbreviation(name: str) -> bool:
    """`e.g`, `i.e`: a letter, a dot, a letter."""
    stem, _, ext = name.rpartition(".")
    return len(stem) <= 1 and len(ext) <= 1


def _layout_names(block: list[str]) -> list[str]:
    """The names of a layout block: a drawn tree, or a folder line (`pkg/`) with indented names under it.
    Not code: a line of code holds more than a name and a comment."""
    drawn = any(_TREE_LINE_RE.match(ln) for ln in block)
    folder = any(ln.strip().endswith("/") and " " not in ln.strip() for ln in block)
    if not (drawn or folder):
        return []
    names: list[str] = []
    for ln in block:
        body = re.sub(r"^[\s│├└─|`+\\-]+", "", ln).split("#", 1)[0].strip()
        m = _FILE_RE.fullmatch(body)
        if m:
            names.append(m.group(1))
    return names


def _seen_before(ctx: FactContext, until_message: int, names: set[str]) -> set[str]:
    """Which of `names` the session's messages before the plan mention (a listing, the user's words, a
    read, a client's file list beside a message): those files existed or were known, not planned new."""
    seen: set[str] = set()
    for msg in ctx.transcript.messages[:until_message]:
        for text in _texts(msg):
            seen.update(n for n in names - seen if n in text)
        if seen == names:
            break
    return seen


def _texts(msg: Message) -> Iterator[str]:
    """Every text of a message: its own, its results', its calls' string arguments, and what a client
    showed beside it (Cline's environment details)."""
    if msg.text:
        yield msg.text
    for r in msg.tool_results:
        yield r.content or ""
    for c in msg.tool_calls:
        yield from (v for v in c.arguments.values() if isinstance(v, str))
    for value in msg.meta.values() if msg.meta else ():
        if isinstance(value, str):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, str))


@fact_source(Section.NEXT)
def planned_files_source(ctx: FactContext) -> list[Fact]:
    plans: list[tuple[int, int, list[str]]] = []  # (round, message, names) of each plan that names files
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is Role.ASSISTANT and not msg.harness and msg.text \
                    and _PLAN_RE.search(msg.text[:PLAN_HEAD]) and (names := _planned(msg.text[:PLAN_CHARS])):
                plans.append((rnd.number, msg.index, names))
    if not plans:
        return []
    touched = [(e.message_index, file_name(e.path)) for e in ctx.events
               if e.kind in (EventKind.WRITE, EventKind.EDIT, EventKind.MOVE) and e.path]
    for rnd_no, index, names in reversed(plans):  # the newest plan the session acted on
        written = {name for at, name in touched if at > index}
        if not written & set(names):
            continue
        read = {file_name(e.path) for e in ctx.events if e.kind is EventKind.READ and e.path}
        missing = [n for n in names if n not in written and n not in read]
        if missing:
            seen = _seen_before(ctx, index, set(missing))
            missing = [n for n in missing if n not in seen]
        if not missing:
            return []
        more = f" (+{len(missing) - MAX_NAMED} more)" if len(missing) > MAX_NAMED else ""
        listed = ", ".join(f"`{n}`" for n in missing[:MAX_NAMED])
        return [Fact(Section.NEXT, f"[planned, never written] {listed}{more} (plan r{rnd_no}; its other files were "
                                   "written)", [rnd_no], score=SCORE)]
    return []
