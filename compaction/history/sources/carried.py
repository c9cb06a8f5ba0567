"""What an earlier session's summary carries into this one: a user message that holds a summary (an
agent's own compaction, a progress report pasted to continue the work) is read by its sections — a
heading, then its bullets ("Next Steps", "Critical Context", "Relevant Files", "4. Errors and fixes:") —
and each section is one line. Why: such a message is most of a continued session's text, yet as a
request it is condensed to a few sentences picked for asks, and a harness-marked summary is not read
at all; its sections are the earlier work's decisions, state and next steps, said by whoever knew them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compaction.events import EventKind
from compaction.history.condense import cut_at_word
from compaction.history.facts import GOAL_CAP, WS_RE, Fact, cite
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role
from compaction.transcripts.path_spelling import NAMED_FILE_RE, file_name

MIN_CHARS = 1500  # a message shorter than this is a request, however it is laid out
LONG_RATIO = 4  # a pasted report: this many times the characters the task section may show
CHARS_PER_TOKEN = 4
MIN_SECTIONS = 2  # headed bullet lists one after another: a summary's shape, not one list in a request
ITEM_CHARS = 220  # one bullet, cut at a word
SECTION_CHARS = 900  # one section's line
SHORT_ITEMS = 2  # the short form: its first bullets
# A heading: Markdown's, a numbered title ("4. Errors and fixes:"), or a short title line ("Next Steps").
_HEADING_RE = re.compile(r"^\s{0,3}(?:#{1,4}\s+(?P<md>[^\n]{2,60}?)\s*+#*+|\d{1,2}\.\s+(?P<num>[A-Z][^\n:]{2,50}):"
                         r"|(?P<plain>[A-Z][\w'/&-]*(?: [\w'/&()-]+){0,5}):?)\s*+$")  # possessive tails: linear
_BULLET_RE = re.compile(r"^(\s*)(?:[-*•]|\d{1,2}[.)])\s+(\S.*)$")
_NEXT_RE = re.compile(r"(?i)\b(?:next|pending|to ?do|remaining|open (?:items|questions))\b|下一步|待办|后续|未完成")
_FILES_RE = re.compile(r"(?i)\bfiles?\b")
_DECIDED_RE = re.compile(r"(?i)\b(?:decision|decided|constraint|instruction|preference|rules?)s?\b|决策|约束|决定")


@dataclass(slots=True)
class _Part:
    heading: str | None
    items: list[str] = field(default_factory=list)
    end: int = 0  # the index of its last line
    numbered: bool = False  # its heading is a numbered title: the next one ends it


@fact_source(Section.FINDINGS)
def carried_facts(ctx: FactContext) -> list[Fact]:
    out: list[Fact] = []
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            # a user message, or a summary a harness put in another role (Codex's `compacted` is a system one)
            if not (msg.role is Role.USER or msg.meta.get("carried_summary")) or len(msg.text) < MIN_CHARS \
                    or not _carries(msg, ctx.target_tokens):
                continue
            later: list[tuple[int, str]] | None = None  # the user's short messages after it, read once
            for part in summary_parts(msg.text):
                done = _done_later(part, rnd.number, ctx) if _NEXT_RE.search(part.heading or "") else {}
                overturned: dict[int, tuple[int, str]] = {}
                if _DECIDED_RE.search(part.heading or ""):
                    later = _users_after(msg, ctx) if later is None else later
                    overturned = _overturned_later(part, later)
                out.append(_fact(part, rnd.number, done, overturned, _label(msg)))
    return out


def _label(summary: Message) -> str:
    """Whose summary it is: the harness's of this session's own first rounds (pi compacts in place, and its
    entry can come last: pi-mono's r1-r167 read as "an earlier session's"), else an earlier session's."""
    through = summary.meta.get("summarizes_through")
    return f"The harness's summary of r1-r{through}" if isinstance(through, int) else "Earlier session's summary"


# A rule's verb ("Active team selection MUST persist…", "always run the linter"), and the user's later words
# that deny it ("agent teams shouldn't persist", "don't run the linter", "non-persistent")
_RULE_VERB_RE = re.compile(r"\b(?:MUST|[Mm]ust|[Ss]hould|[Aa]lways|[Ss]hall)\s+([A-Za-z]{4,})\b")
_DENIAL = r"(?:n't|\bnot|\bnever|\bno longer|\bstop|\bnon-?)\s*(?:\w+\s+){{0,2}}?{stem}"
USER_SAID_CHARS = 80


def _users_after(summary: Message, ctx: FactContext) -> list[tuple[int, str]]:
    """(round, text) of the user's own short messages after the carried summary (a long one is another
    summary or a paste, not a reversal)."""
    return [(rnd.number, m.text) for rnd in ctx.transcript.rounds for m in rnd.messages
            if m.index > summary.index and m.role is Role.USER and not m.harness and m.text
            and len(m.text) < MIN_CHARS]


def _overturned_later(part: _Part, later: list[tuple[int, str]]) -> dict[int, tuple[int, str]]:
    """{item index: (round, the user's words)} for the carried rules one of the user's `later` messages
    denies ("agent teams shouldn't persist" against "selection MUST persist"). Why: a carried constraint
    shown as active after the user reversed it is one a successor would restore."""
    out: dict[int, tuple[int, str]] = {}
    for k, item in enumerate(part.items):
        m = _RULE_VERB_RE.search(item)
        if m is None or m.group(1).lower() in ("not", "never", "only", "also", "have", "keep", "stay", "remain"):
            continue
        denial = re.compile(_DENIAL.format(stem=re.escape(m.group(1).lower())), re.IGNORECASE)
        found = next(((number, text) for number, text in later if denial.search(text)), None)
        if found:
            out[k] = (found[0], cut_at_word(WS_RE.sub(" ", found[1]), USER_SAID_CHARS))
    return out


_WORD_RE = re.compile(r"[a-z][a-z0-9_-]{2,}")
_STOP = frozenset("and the for all with from into that this then when will must should any are was were its "
                  "our their them they new now not use using also each".split())
MIN_WORDS_DONE = 2  # a step shares at least this many of its words with the command that did it


def _words(text: str) -> set[str]:
    return {w for w in _WORD_RE.findall(text.lower()) if w not in _STOP}


def _done_later(part: _Part, rnd: int, ctx: FactContext) -> dict[int, int]:
    """{item index: round} for the carried next steps a later round's command did. Why: a summary's
    "Next Steps" are the work this session opened with; shown as still open once the agent ran them
    (a commit whose message says what the step said, a tag named as the step named it), a successor
    would do them twice. A step is done by a command that holds at least half of its words (and
    MIN_WORDS_DONE of them), in the summary's round or later: the agent's own command, never prose."""
    commands = [(e.round, _words(e.command)) for e in ctx.events  # a read of the step's file does not do it
                if e.kind is EventKind.COMMAND and e.command and e.round >= rnd and (e.state_changing or e.test)]
    # a step that names a file the session then edited or wrote (`custom-tools.md`): that file's work was done
    edited: dict[str, int] = {}
    for e in ctx.events:
        if e.kind in (EventKind.EDIT, EventKind.WRITE) and e.path and not e.failed and e.round >= rnd:
            edited.setdefault(file_name(e.path), e.round)
    done: dict[int, int] = {}
    for k, item in enumerate(part.items):
        named = [edited[n] for n in NAMED_FILE_RE.findall(item) if n in edited]
        if named:
            done[k] = min(named)
            continue
        want = _words(item)
        if len(want) < MIN_WORDS_DONE:
            continue
        for number, have in commands:
            shared = len(want & have)
            if shared >= MIN_WORDS_DONE and 2 * shared >= len(want):
                done[k] = number
                break
    return done


def _carries(msg: Message, target_tokens: int | None) -> bool:
    """A summary the agent's harness wrote at a compaction (each loader marks it its way), or a user
    message far longer than the task section can show (LONG_RATIO times its room): a pasted report
    of earlier work. A structured request or a harness's instructions, shown as the task, are neither."""
    if msg.meta.get("compact_summary") or msg.meta.get("carried_summary"):  # set by the loaders
        return True
    room = (target_tokens or 0) * GOAL_CAP * CHARS_PER_TOKEN
    return not msg.harness and room > 0 and len(msg.text) >= LONG_RATIO * room


def summary_parts(text: str) -> list[_Part]:
    """The first run of at least MIN_SECTIONS headed bullet lists that follow one another (blank lines
    between them allowed), with the bullets just before its first heading (a summary whose opening
    was cut off) as a part without a heading; or the sections of an XML-shaped summary."""
    if text.lstrip().startswith("<"):
        xml = xml_parts(text)
        if xml:
            return xml
    if text.count("\n") < 2 * MIN_SECTIONS or not any(b in text for b in ("\n- ", "\n* ", "\n• ", "\n1. ")):
        return []
    lines = text.split("\n")
    run: list[_Part] = []
    i = 0
    while i < len(lines):
        part = _part_at(lines, i)
        if part is None:
            if len(run) >= MIN_SECTIONS:
                break
            if lines[i].strip():
                run = []
            i += 1
            continue
        run.append(part)
        i = part.end + 1
    if len(run) < MIN_SECTIONS:
        return []
    parts = run
    lead = _bullets_before(lines, _start_of(lines, run[0]))
    if len(lead) >= 2:
        parts = [_Part(None, lead), *run]
    return parts


_ELEMENT_RE = re.compile(r"<([A-Za-z][\w-]*)((?:\s[^<>]*)?)>(.*?)</\1>", re.S)
_ATTRIBUTE_VALUE_RE = re.compile(r"=\s*[\"']([^\"']*)[\"']")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_TAG_RE = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?>")


def xml_parts(text: str) -> list[_Part]:
    """The sections of a summary written as XML (Gemini CLI's `<state_snapshot>`: `<overall_goal>`,
    `<active_constraints>` of `<constraint>` items…): one part per element inside the outer one, named by
    its tag, its items its child elements' texts (or its own text). Read with patterns, not a parser: a
    summary is model-written and need not be well-formed XML."""
    outer = _ELEMENT_RE.search(text)
    if outer is None:
        return []
    parts: list[_Part] = []
    for section in _ELEMENT_RE.finditer(outer.group(3)):
        inner = _COMMENT_RE.sub("", section.group(3))
        items = [_item(m) for m in _ELEMENT_RE.finditer(inner)] or [inner]
        items = [WS_RE.sub(" ", _TAG_RE.sub(" ", it)).strip() for it in items]
        if any(items):
            heading = section.group(1).replace("_", " ").replace("-", " ")
            parts.append(_Part(heading[:1].upper() + heading[1:], [it for it in items if it]))
    return parts if len(parts) >= MIN_SECTIONS else []


def _item(element: re.Match[str]) -> str:
    """An item's text, its attributes' values first (`<step status="DONE">Build it</step>`: `[DONE] Build it`)."""
    said = _ATTRIBUTE_VALUE_RE.findall(element.group(2))
    return f"[{', '.join(said)}] {element.group(3)}" if said else element.group(3)


def _heading(line: str) -> re.Match[str] | None:
    """A section's heading (`**bold**` too); a numbered title ("4. Errors and fixes:") though it reads as a
    list item, Claude Code's own summary's layout."""
    m = _HEADING_RE.match(line.replace("**", ""))
    if m is None or (_BULLET_RE.match(line) and not m.group("num")):
        return None
    return m


def _numbered_heading(line: str) -> bool:
    return not line.startswith((" ", "\t")) and (m := _heading(line)) is not None and m.group("num") is not None


def _part_at(lines: list[str], i: int) -> _Part | None:
    """A heading at line `i` directly followed by bullets (blank lines allowed), else None."""
    m = _heading(lines[i])
    if m is None:
        return None
    heading = (m.group("md") or m.group("num") or m.group("plain") or "").strip().strip("*").strip()
    numbered = m.group("num") is not None  # its sections are numbered titles (Claude Code's layout)
    in_markdown = m.group("md") is not None  # under a `##` heading a numbered line is an item of its list
    if heading.count("(") != heading.count(")"):  # the tail of a cut-off line, not a title
        return None
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    items: list[str] = []
    end, base = i, 0
    while j < len(lines):
        if not in_markdown and _numbered_heading(lines[j]):  # the next numbered section, not one more item
            break
        b = _BULLET_RE.match(lines[j])
        if b is None:
            if lines[j].strip() and lines[j].startswith((" ", "\t")) and items:  # a bullet's wrapped line
                items[-1] += " " + lines[j].strip()
                end = j
                j += 1
                continue
            if not lines[j].strip():
                j += 1
                continue
            break
        if not items:
            base = len(b.group(1).expandtabs(4))  # the section's own bullets (Claude Code indents them)
        if len(b.group(1).expandtabs(4)) <= base:  # a deeper bullet is read with its parent
            items.append(b.group(2).strip())
        else:
            items[-1] += "; " + b.group(2).strip()
        end = j
        j += 1
    if not items:
        return None
    return _Part(heading, items, end, numbered)


def _start_of(lines: list[str], part: _Part) -> int:
    """The line of the part's heading (its first bullet's line, less the blank lines and the heading)."""
    i = part.end
    while i > 0 and not (part.numbered and _numbered_heading(lines[i])) and (
            _BULLET_RE.match(lines[i]) or not lines[i].strip() or lines[i].startswith((" ", "\t"))):
        i -= 1
    return i


def _bullets_before(lines: list[str], start: int) -> list[str]:
    items: list[str] = []
    i = start - 1
    while i >= 0 and (b := _BULLET_RE.match(lines[i])) is not None and not b.group(1):
        items.insert(0, b.group(2).strip())
        i -= 1
    return items


def _fact(part: _Part, rnd: int, done: dict[int, int] | None = None,
          overturned: dict[int, tuple[int, str]] | None = None, label: str = "Earlier session's summary") -> Fact:
    """One section's line; `done`: its next steps done since (by round); `overturned`: its rules the user
    denied since (round, their words); `label`: whose summary it is (`_label`)."""
    done, overturned = done or {}, overturned or {}
    items: list[str] = []
    for k, it in enumerate(part.items):
        item = cut_at_word(WS_RE.sub(" ", it), ITEM_CHARS)
        if k in overturned:  # first, and marked before its words: a line cut to fit keeps the reversal
            said_at, said = overturned[k]
            items.insert(0, f"OVERTURNED by the user (r{said_at}: “{said}”): {item}")
        else:
            items.append(item + (f" (done since, r{done[k]})" if k in done else ""))
    name = f"{label}, {part.heading}" if part.heading else label
    text = cut_at_word(f"{name}: " + "; ".join(items), SECTION_CHARS)
    short = cut_at_word(f"{name}: " + "; ".join(items[:SHORT_ITEMS]), SECTION_CHARS)
    heading = part.heading or ""
    if _NEXT_RE.search(heading) and len(done) == len(part.items):  # all done since: what it was asked, not open
        section, score = Section.FINDINGS, 66.0
    elif _NEXT_RE.search(heading):
        section, score = Section.NEXT, 66.0
    elif _DECIDED_RE.search(heading):
        section, score = Section.DECISIONS, 50.0
    elif _FILES_RE.search(heading):  # a list of files: the document's own file sections say most of it
        section, score = Section.FINDINGS, 50.0
    else:
        section, score = Section.FINDINGS, 70.0
    c = cite([rnd])
    # its words, for a summary the verbatim tail shows: kept unless the tail shows them (pi's summary at its
    # last round: the tail elided its "Remaining Work", and the line was left out as said there)
    said = WS_RE.sub(" ", part.items[0])[:QUOTE_CHARS] if part.items else None
    return Fact(section, f"{text} {c}", [rnd], score=score, short=f"{short} {c}" if short != text else None,
                quote=said)


QUOTE_CHARS = 120  # of a section's first item: enough to tell whether the tail shows it

