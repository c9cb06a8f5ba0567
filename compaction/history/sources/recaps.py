"""The agent's own account of what it changed: the list it writes once the work of a request is done
("Summary of changes: 1. Modified `offsetbox.py`: added `__getstate__` to exclude `canvas`, `cids`
and `_c1` …").

Why: the change records are read off the edits, and an edit a script or a heredoc made is opaque to
them; the agent's recap says, in a few lines, what each change does and why, which is what a
successor is asked about. It is the agent's word, so it is told as such, beside the records.

Why inferred from the message's shape rather than phrases: a recap is a list written after edits,
whose items say what was done (past tense: "Added", "Updated", "rewrote") or name the files the
session changed. A plan is a list too, but in the imperative and before the edits it plans.
"""

from __future__ import annotations

import re

from compaction.events import EventKind
from compaction.history.facts import Fact, cite
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role

MIN_ITEMS = 3
TEXT_CHARS = 700  # the line as first shown
FULL_CHARS = 1600  # what the filler may give back
SHORT_ITEMS = 3
MAX_RECAPS = 3  # the latest request's, then earlier requests' (each its last)
SCORE = 58

_ITEM_RE = re.compile(r"^(\s*)(?:[-*•+]|\d{1,2}[.)])\s+(.+)$")
_MARKUP_RE = re.compile(r"\*\*")  # bold; code spans stay: they say what is code
# The item's first word, past tense: a regular "-ed" verb, or one of English's common irregular ones.
_DONE_RE = re.compile(r"^(?:\w+ed|made|wrote|rewrote|built|rebuilt|kept|left|set|put|split|moved|ran|"
                      r"took|gave|found|got|removed|fixed)\b", re.I)
_LABEL_RE = re.compile(r"^[^:]{1,80}:\s+")  # "`offsetbox.py`: Added …", "**Pickling**: Added …"
_NAME_RE = re.compile(r"[\w.-]+\.[A-Za-z]\w{0,5}\b")


def _items(text: str) -> list[tuple[int, str]]:
    """The message's list items outside code blocks: (indent, text without markup)."""
    out: list[tuple[int, str]] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else _ITEM_RE.match(line)
        if m:
            out.append((len(m.group(1).expandtabs(4)), " ".join(_MARKUP_RE.sub("", m.group(2)).split())))
    return out


def _done(item: str) -> bool:
    """The item says something was done: its first word, or the first word after its label, is past tense."""
    return bool(_DONE_RE.match(item) or ((m := _LABEL_RE.match(item)) and _DONE_RE.match(item[m.end():])))


# The words before the list say the work is done ("Done. Single `index.html` with:", "Here's what I
# changed:", "Summary of changes:"), not that it is to come ("I will", "Next steps:", "Plan:").
_LEAD_DONE_RE = re.compile(r"(?i)\b(?:done|finished|completed?|summary|changes|all set|I(?:'ve| have)|we(?:'ve| have)|"
                           r"here(?:'s| is) what)\b")
_LEAD_TO_COME_RE = re.compile(r"(?i)\b(?:will|plan\w*|next|let me|let's|going to|should|would|could|need\w*|required|"
                              r"todo|recommend\w*|propos\w*|suggest\w*)\b")


def _lead(text: str) -> str:
    """The message's words before its first list item (its last 300 characters)."""
    m = re.search(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+\S", text, re.M)
    return text[:m.start()][-300:] if m else ""


def _recap(msg: Message, changed: set[str]) -> list[tuple[int, str]] | None:
    """The items of a recap: at least three, under words that say the work is done; or most of the
    top-level ones done or naming a changed file, one at least done (a list of files alone is an
    inventory)."""
    items = _items(msg.text)
    if len(items) < MIN_ITEMS:
        return None
    lead = _lead(msg.text)
    if _LEAD_DONE_RE.search(lead) and not _LEAD_TO_COME_RE.search(lead):
        return items
    top = min(i for i, _ in items)
    heads = [t for i, t in items if i == top]
    done = sum(_done(t) for _, t in items)
    naming = sum(any(n in changed for n in _NAME_RE.findall(t)) for t in heads)
    telling = sum(_done(t) or any(n in changed for n in _NAME_RE.findall(t)) for t in heads)
    if not done or telling * 2 < len(heads) or (not naming and done * 2 < len(items)):
        return None
    return items


LEAD_CHARS = 160


def _lead_line(text: str) -> str:
    """What the list is of: the last line before it, when it introduces it ("the roster list now names each
    agent's provider:"), its last sentence, without heading marks and bold, within LEAD_CHARS; else ""."""
    lines = [_MARKUP_RE.sub("", ln).lstrip("#").strip() for ln in _lead(text).splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("```")]
    if not lines or not lines[-1].endswith(":"):
        return ""
    line = lines[-1]
    line = re.split(r"(?<=[.!?])\s+(?=[A-Z`])", line)[-1]
    return line if len(line) <= LEAD_CHARS else "…" + line[-(LEAD_CHARS - 1):]


def _join(items: list[tuple[int, str]], limit: int) -> str:
    """The items on one line: a nested item after its parent's colon, siblings by "; ", cut at an item."""
    top = min(i for i, _ in items)
    out = ""
    for indent, text in items:
        piece = text.rstrip(".;")
        sep = "" if not out else (" " if out.endswith(":") else "; ") if indent > top else "; "
        if len(out) + len(sep) + len(piece) > limit:
            return out + ("; …" if out else piece[:limit - 1] + "…")
        out += sep + piece
    return out


@fact_source(Section.CHANGES)
def recap_facts(ctx: FactContext) -> list[Fact]:
    """The last recap of each request, the latest request's first; only one written after an edit."""
    edits = [e for e in ctx.events if e.kind in (EventKind.WRITE, EventKind.EDIT, EventKind.DELETE) and e.path
             and not e.failed]
    if not edits:
        return []
    first_edit = min(e.message_index for e in edits)
    changed = {e.path.replace("\\", "/").rsplit("/", 1)[-1] for e in edits if e.path}
    found: list[tuple[int, Message, list[tuple[int, str]]]] = []  # the last recap of each request, in order
    opened = False  # the current request has a recap already: a later one replaces it
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is Role.USER and not msg.harness and msg.text.strip():
                opened = False
            elif msg.role is Role.ASSISTANT and not msg.harness and msg.index > first_edit and msg.text \
                    and (items := _recap(msg, changed)):
                if opened:
                    found.pop()
                found.append((rnd.number, msg, items))
                opened = True
    facts = []
    for k, (number, msg, items) in enumerate(reversed(found[-MAX_RECAPS:])):
        lead = _lead_line(msg.text)
        head = f"The agent's own account {cite([number])}: " + (f"{lead} " if lead else "")
        text = head + _join(items, TEXT_CHARS)
        full = head + _join(items, FULL_CHARS)
        short = head + _join(items[:SHORT_ITEMS], TEXT_CHARS // 2)
        facts.append(Fact(Section.CHANGES, text, [number], score=SCORE - 8 * k, short=short,
                          full_text=full if full != text else None, prose=True))
    return facts
