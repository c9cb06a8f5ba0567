"""A fact of the compaction document, and the helpers its sources share (paths, citations, the task).

Every fact carries its section, the rounds it came from and a score used when the budget forces a
choice. The sources that make facts are in `compaction.history.sources`, one module per kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from operator import attrgetter

from compaction.events import Event, EventKind
from compaction.history.sections import Section
from compaction.mdsafe import escape_path
from compaction.memo import per_text
from compaction.shell import code_lines
from compaction.template_noise import outside_code, without_template_noise
from compaction.transcripts._fences import outside_fences
from compaction.transcripts.path_spelling import is_windows_path

MIN_FACT_TOKENS = 7  # a fact's cost in selection is its tokens + 6: no budget holds more than target/7 facts
GOAL_CAP = 0.3  # the task's share of the summary's budget at most (the engine's choice; a source sizes to it)
# A fact worth only the room every section leaves: no section's share serves it, the by-priority pass takes it
# last and the filler before the older rounds (a final diff too long for the change records' share).
LEFTOVER_PRIORITY = 6.0
TIGHT_TARGET = 3000  # below this many tokens the budget is tight: no tail share, shorter requests
_TAG_NAME_RE = re.compile(r"</?([a-z][a-z0-9_-]*)>")  # lower case: a harness's (`<Foo>` is a JSX component)
# A tag named inside a sentence ("ensure the <issue_description> is satisfied", "described in the
# <issue_description>.") refers to the tagged part: it becomes its name in words, not a gap.
# (Its `<` first, the word and space before it looked behind from there: a pattern opening with a
# lookbehind is tried at every position of the text, one opening with a literal only where it occurs.)
_TAG_IN_SENTENCE_RE = re.compile(r"<(?<=\w <)([a-z][a-z0-9_-]*)>(?=[ .,;:!?)]|$)", re.MULTILINE)
WS_RE = re.compile(r"[ \t]+")
_BLANKS_RE = re.compile(r"\n{3,}")


@dataclass(slots=True)
class Fact:
    section: Section
    text: str
    rounds: list[int] = field(default_factory=list)
    score: float = 1.0
    essential: bool = False  # kept before any optional fact (priority tier 1)
    short: str | None = None  # a shorter form used when the budget is tight
    priority: float | None = None  # overrides the section's priority (earlier requests of a chat)
    task: bool = False  # the task itself: never dropped, shortened head-and-tail instead
    full_text: str | None = None  # the fuller text the filler upgrades to (the task whole, a record in full)
    # shorter forms than its full text, longest first, tried before a cut: the task's (pastes trimmed, then
    # condensed), a rules digest's (its most binding rules at smaller sizes)
    forms: tuple[str, ...] = ()
    long_paste: bool = False  # the task: its first form trims a long paste (its words all kept)
    path: str | None = None  # modified files: the path as the summary's file list shows it
    scratch: bool = False  # modified files: a folded line (scratch, reverted, moved or deleted files), not one file
    test: bool = False  # completed actions: a test run
    marker: str | None = None  # marked items: important | decision | warning | todo
    error_id: str | None = None  # problems: the error-memory record's id
    # problems: the id of the record whose failures this line tells in its own words (a refused edit's
    # cause and what ended it): said inside that record's `Error:` line when the block shows the record
    tells: str | None = None
    pending: bool = False  # current work shown even beside the verbatim tail (an unanswered request, a state it does not show)
    prose: bool = False  # the agent's own narration: rendered telegraphically (never the user's words)
    # goal: a later request shown short whose full text is the user's own asks (no paste): given back
    # before the other sections' fuller texts, not after them like a paste or the condensed task
    asks_whole: bool = False
    # prose: the agent's words the fact quotes; from a round the verbatim tail shows, the fact stays when
    # the tail elides them (`tail_says`)
    quote: str | None = None

    def rank(self) -> float:
        """The selection priority: the section's, unless the source set its own."""
        return self.section.priority if self.priority is None else self.priority

    def __copy__(self) -> Fact:
        """A shallow copy: every field read at once (`_FIELD_VALUES`, in C) and handed to the
        constructor, which sets them in its own order (a loop of getattr/setattr over the slots cost
        four times more, `copy.copy`'s generic protocol more still); the engine copies the whole fact
        pool for each selection it tries."""
        return type(self)(*_FIELD_VALUES(self))


# Every field of a Fact, in the constructor's order (a Fact's slots are its fields: a shallow copy)
_FIELD_VALUES = attrgetter(*(f.name for f in fields(Fact)))


@per_text(maxsize=8192)  # each file is shown by several sections, most of them many times
def display_path(path: str, cwd: str | None) -> str:
    """A transcript path as the agent's project sees it: relative to the recorded cwd when inside it,
    with newlines, bidi and other control characters escaped (it is printed inside Markdown)."""
    return escape_path(relative_path(path, cwd))


def relative_path(path: str, cwd: str | None) -> str:
    """A transcript path as the agent's project names it (relative to the recorded cwd when inside it),
    not escaped: for a caller that escapes it where it prints it."""
    p = path.strip().strip("'\"")
    if cwd and is_windows_path(cwd):  # `C:\\repo` and `c:/repo/src/x.ts`: one spelling, compared without case
        cwd = cwd.replace("\\", "/")
        if p.replace("\\", "/").casefold().startswith(cwd.rstrip("/").casefold() + "/"):
            return p.replace("\\", "/")[len(cwd.rstrip("/")) + 1:]
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
    # An export that dropped an absolute path's leading `/` (`Users/dev/shop/src/a.ts`): only under a root two
    # folders deep at least, a `/app` root's own relative `app/main.py` being no such path.
    if cwd and cwd.startswith("/") and "/" in cwd.strip("/") and p.startswith(cwd.strip("/") + "/"):
        return p[len(cwd.strip("/")) + 1:]
    if p.startswith("./"):
        p = p[2:]
    return p


_ABS_IN_TEXT_RE = re.compile(r"(?<![\w./\\~-])(?:[A-Za-z]:[\\/]|/)[^\s`'\"()<>,;|]+")


def relative_paths(text: str, cwd: str | None) -> str:
    """Each absolute path inside prose as the project sees it (`relative_path`: relative to the
    recorded cwd, whatever its Windows spelling): a sentence names files as the rest of the document."""
    return _ABS_IN_TEXT_RE.sub(lambda m: relative_path(m.group(0), cwd), text) if "/" in text or ":" in text else text


# A test file by its path: a tests/spec dir, or a test_/_test/.test./.spec. name (any language).
# a tests folder, `test_x.py`, `x_test.go`, `x.test.ts`; Django's `tests.py` (not a scratch `test.py`);
# JUnit's `PersonMappingTest.java`, `HTTPTest.java`
_TEST_PATH_RE = re.compile(r"(?:^|/)(?:tests?|spec|__tests__)/|(?:^|/)test_|_(?:test|spec)\.|\.(?:unit\.)?(?:test|spec)\.|"
                           r"(?:^|/)tests\.py$|(?-i:[A-Za-z0-9]Tests?\.(?:java|kt|scala|cs|groovy)$)", re.IGNORECASE)


def is_test_path(path: str) -> bool:
    """Whether a file is a test by its path (one rule for every section that tells tests apart)."""
    return bool(_TEST_PATH_RE.search(path))


# A test file by its own name (`test_x.py`, `tree.spec.ts`, `FooTest.java`), not a helper in a tests folder (`hooks.ts`)
_TEST_FILE_RE = re.compile(r"(?:^|[/\\])test_[^/\\]*$|_(?:tests?|spec)\.\w+$|\.(?:unit\.)?(?:test|spec)\.\w+$|"
                           r"(?:^|[/\\])tests\.py$|(?:^|[/\\])__tests__[/\\]|(?-i:(?:^|[/\\])Test[A-Z]\w*\.\w+$)|"
                           r"(?-i:[A-Za-z0-9]Tests?\.(?:java|kt|scala|cs|groovy)$)", re.IGNORECASE)


def names_a_test(path: str) -> bool:
    """Whether a file is a test by its own name: `is_test_path`'s files, less the helpers a tests folder
    holds (a claim that a test never ran is about test files, not `tests/hooks.ts`)."""
    return bool(_TEST_FILE_RE.search(path))


def cite(rounds: list[int]) -> str:
    """`(r3)`, `(r3, r7)`, `(r3-r6, r9)`: compact round citations."""
    return _cite(tuple(rounds))


@per_text(maxsize=8192)  # each chosen fact is cited again at every render of the document
def _cite(rounds: tuple[int, ...]) -> str:
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


# Where an agent harness's generic instructions begin inside a task message (mini-swe-agent,
# SWE-agent, OpenHands): the request before it is the user's; the rest is boilerplate.
_BOILERPLATE_RE = re.compile(
    r"^[^\S\n]*(?:#+\s*Task Instructions\b|<instructions>|INSTRUCTIONS:|Follow these steps to resolve the issue)",
    re.MULTILINE,
)
_FIRST_SENTENCE_RE = re.compile(r"^.{0,400}?(?:[.!?](?=\s)|\n\n)", re.DOTALL)


def without_tags(text: str) -> str:
    """The markup a harness wraps text in (`<pr_description>…</pr_description>`) left out, a tag named
    in a sentence said in words. Markup: a tag that closes in the text, or a name made of words joined by
    `_` (a harness's, though the piece read holds only its mention); else the tag is the text's own (a
    placeholder: `gccli event <id>`). Fenced code is the user's sample, whatever tags it holds (an HTML
    sample's `<div>…</div>`): left as it is."""
    if "<" not in text:
        return text
    fenced = "```" in text or "~~~" in text
    prose = "\n".join(line for _, line in outside_fences(text.split("\n"))) if fenced else text
    closed = {m.group(1) for m in _TAG_NAME_RE.finditer(prose) if m.group(0)[1] == "/"}  # a wrapper closes outside code

    def markup(name: str) -> bool:
        return name in closed or "_" in name

    def removed(run: str) -> str:
        run = _TAG_IN_SENTENCE_RE.sub(lambda m: m.group(1).replace("_", " ") if markup(m.group(1)) else m.group(0), run)
        return _TAG_NAME_RE.sub(lambda m: "" if markup(m.group(1)) else m.group(0), run)

    return outside_code(text, removed) if fenced else removed(text)


def clean_task(text: str) -> str:
    # Each rewrite only where its pattern can match (one C-speed find each); trailing blanks go line
    # by line (the anchored regex tries every blank of the text).
    text = without_template_noise(without_tags(text))
    if " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
        text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    if "\n\n\n" in text:
        text = _BLANKS_RE.sub("\n\n", text)
    return text.strip()


def split_task(text: str) -> tuple[str, str]:
    """(the request, the harness's generic instructions after it) of a task message."""
    m = _BOILERPLATE_RE.search(text)
    if not m:
        return text, ""
    # the instructions begin with the blank lines before their first line (the pattern starts at that line
    # alone: a `^\s*` over blank lines rescanned them from every line start)
    last = len(text[: m.start()].rstrip())
    newline = text.find("\n", last, m.start())
    start = newline + 1 if newline >= 0 else m.start()
    if start < 40:
        return text, ""
    return text[:start], text[start:]


RULES_POINTER = "; binding rules under Project rules…]"  # dropped by the renderer when that section is not shown


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
    note = f" […harness instructions, {elided} characters, elided{RULES_POINTER}"
    return f"{request}\n\n{opening}{note if elided > 0 else ''}"


def first_line(command: str, limit: int = 160) -> str:
    """A command's first line that runs something (`shell.code_lines`), "…" when another follows."""
    lines = code_lines(command)
    line = lines[0] if lines else ""
    more = len(lines) > 1
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    elif more:
        line += " …"
    return line


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


# What a successor can act on: a name, a path, a value, a quoted string. A line that names several
# says more per token than one that retells ("the issue is related to the handling of options").
_SPECIFIC_RE = re.compile(r"`[^`\n]{2,}`|\"[^\"\n]{2,}\"|\b\w+[_./:]\w[\w./:-]*|\b[A-Za-z]+[a-z][A-Z]\w*|(?<![\w.])\d[\d.,:]*\d|(?<![\w.])\d\b")
SPECIFIC_WEIGHT = 1.0  # score points per distinct specific term, up to SPECIFIC_CAP of them
SPECIFIC_CAP = 6


@per_text(maxsize=8192)
def specifics(text: str) -> int:
    """How many distinct specific terms (identifiers, paths, numbers, quoted values) `text` names."""
    return len(set(_SPECIFIC_RE.findall(text)))


def value(f: Fact) -> float:
    """An optional fact's worth when a section's room is short: its source's score, plus a little for
    each specific term it names (`specifics`), so a concrete line outranks a vague one of its kind. A
    request is the user's: its pasted code is no measure of what it asks; a decision's worth is its
    reason, which names few terms (a user's constraint, the concern two proposals share)."""
    if f.section is Section.GOAL or f.section is Section.DECISIONS:
        return f.score
    return f.score + SPECIFIC_WEIGHT * min(specifics(f.text), SPECIFIC_CAP)


_NOT_LETTERS_RE = re.compile(r"[\W_]+")


def letters(text: str) -> str:
    """The text's letters and digits, lower-cased: what it says, whatever its marks, quotes and spacing."""
    return _NOT_LETTERS_RE.sub("", text.lower())


_tail_letters = per_text(maxsize=16)(letters)  # the few tails one compaction renders: large texts, few kept


def tail_says(f: Fact, tail: str) -> bool:
    """Whether the verbatim tail shows what a fact from its rounds says: yes, unless the fact quotes the agent's
    words and the tail elided them (tree-vanilla's last edit: its reason, "移除了 `expandAllBtn.click()` 步骤，
    因为…", was in the 326 tokens the tail cut from the round's reply, and the fact was left out as said there)."""
    return f.quote is None or letters(f.quote) in _tail_letters(tail)
