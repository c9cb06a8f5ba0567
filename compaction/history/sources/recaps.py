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

import copy
import re
from dataclasses import dataclass

from compaction.events import EventKind
from compaction.history.condense import cut_at_word
from compaction.history.facts import Fact, cite
from compaction.history.flatten import flattened, unbold
from compaction.history.sections import Section
from compaction.history.sources.missed_edits import belied
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role, Round, ToolCall, ToolKind
from compaction.transcripts.path_spelling import NAMED_FILE_RE, file_name

MIN_ITEMS = 3
TEXT_CHARS = 700  # the line as first shown
FULL_CHARS = 1600  # what the filler may give back
SHORT_ITEMS = 3
MAX_RECAPS = 3  # the latest request's, then earlier requests' (each its last)
EDITED_AGAIN = "edited again from "  # an account of a state the session moved on from: "(r34; edited again from r36)"
SCORE = 50
LEAD_CHARS = 160
LEAD_READ = 300  # characters before a list read for the words that say what it is
LATER_CHARS = 220  # of each later account of the recapped files, as told after the recap
MAX_LATER = 3  # later accounts told: the latest

_ITEM_RE = re.compile(r"^([ \t]*)(?:[-*•+]|\d{1,2}[.)])[ \t]+(\S.*)$")
_WRITING = (ToolKind.EDIT, ToolKind.WRITE)
# The item's first word, past tense: a regular "-ed" verb (not "need", "proceed", nor a "Failed:" label),
# or one of English's common irregular ones that is no imperative as well.
_DONE_RE = re.compile(r"^(?!fail)(?:\w+(?<!e)ed|made|wrote|rewrote|built|rebuilt|kept|moved|ran|took|gave|got)\b",
                      re.I)
_LABEL_RE = re.compile(r"^[^:]{1,80}:\s+")  # "`offsetbox.py`: Added …", "**Pickling**: Added …"
# The words before the list say the work is done ("Done. Single `index.html` with:", "Here's what I
# changed:", "Summary of changes:"), not that it is to come or is a finding ("I'll make the following
# changes", "Next steps:", "Changes still to make:", "I've found three problems:").
_LEAD_DONE_RE = re.compile(r"(?i)\b(?:done|finished|completed?|summary|changes|all set|I(?:'ve| have)|we(?:'ve| have)|"
                           r"here(?:'s| is) what)\b")
_LEAD_TO_COME_RE = re.compile(r"(?i)\b(?:will|plan\w*|next|let me|let's|going to|should|would|could|can|need\w*|"
                              r"required|todo|to (?:do|make|finish|fix|add)|left|remaining|still|recommend\w*|"
                              r"propos\w*|suggest\w*|found|problems?|either|options?|alternatives?|possibilit\w*)\b|"
                              r"\b(?:I|we)'ll\b|^\W*if\b")  # a condition's cases ("If …, then either:") recap nothing


# An item that records a version-control step, not a change: a commit, a tag, a branch, a push, a pull request
_GIT_ITEM_RE = re.compile(r"(?i)^(?:commit(?:ted)?|tag(?:ged)?|branch|push(?:ed)?|pr|pull request|merged?)\b|"
                          r"\bpushed to\b")


@dataclass(frozen=True, slots=True)
class _List:
    lead: str  # the text before it, its last LEAD_READ characters
    items: tuple[tuple[int, str], ...]  # (indent, text without bold)


def _lists(text: str) -> list[_List]:
    """The message's lists outside code blocks, each with the text before it. A list goes on over blank
    lines and its items' indented continuations; a line of prose at the margin ends it."""
    out: list[_List] = []
    items: list[tuple[int, str]] = []
    before: list[str] = []  # the lines since the last list
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        m = None if fenced else _ITEM_RE.match(line)
        if m:
            items.append((len(m.group(1).expandtabs(4)), " ".join(unbold(m.group(2)).split())))
        elif items and (not line.strip() or line[:1] in " \t"):
            continue  # a blank line or an item's continuation
        else:
            if items:
                out.append(_List("\n".join(before)[-LEAD_READ:], tuple(items)))
                items, before = [], []
            if not fenced:
                before.append(line)
                if len(before) > 8:
                    before = before[-8:]
    if items:
        out.append(_List("\n".join(before)[-LEAD_READ:], tuple(items)))
    return out


def _last_sentence(lead: str) -> str:
    """The sentence that introduces the list: the last of the lead's last line (an exporter may glue the
    agent's reasoning, "I'll deliver this as a list.", to the heading that follows it)."""
    lines = [ln for ln in lead.splitlines() if ln.strip()]
    return re.split(r"(?<=[.!?])(?=\S)|(?<=[.!?])\s+", lines[-1])[-1] if lines else ""


def _done(item: str) -> bool:
    """The item says something was done: its first word, or the first word after its label, is past tense."""
    return bool(_DONE_RE.match(item) or ((m := _LABEL_RE.match(item)) and _DONE_RE.match(item[m.end():])))


def _recap(msg: Message, changed: set[str]) -> _List | None:
    """The message's first list that recaps work: at least three items, under words that say nothing is
    still to come; and either those words say the work is done, or most of its top-level items are done
    or name a changed file, one at least done (a list of files alone is an inventory)."""
    for lst in _lists(msg.text):
        items = lst.items
        if len(items) < MIN_ITEMS or _LEAD_TO_COME_RE.search(_last_sentence(lst.lead)):
            continue
        if all(_GIT_ITEM_RE.search(t) for _, t in items):  # "Commit: …", "Tag: v0.3.0 pushed": the completed
            continue  # actions tell those; a file's content went for them (bastion's `.gitignore`)
        if _LEAD_DONE_RE.search(lst.lead):
            return lst
        top = min(i for i, _ in items)
        heads = [t for i, t in items if i == top]
        done = sum(_done(t) for _, t in items)
        naming = sum(any(n in changed for n in NAMED_FILE_RE.findall(t)) for t in heads)
        telling = sum(_done(t) or any(n in changed for n in NAMED_FILE_RE.findall(t)) for t in heads)
        if done and telling * 2 >= len(heads) and (naming or done * 2 >= len(items)):
            return lst
    return None


def _ran(ctx: FactContext, rnd: Round, call: ToolCall) -> bool:
    """The call ran and did not fail (a write refused for a missing parameter wrote nothing)."""
    res = ctx.results_of(rnd).get(id(call))
    return res is not None and not res.is_error


def _lead_line(lead: str) -> str:
    """What the list is of: the last line before it, when it introduces it ("the roster list now names each
    agent's provider:"), its last sentence, without heading marks and bold, within LEAD_CHARS; else ""."""
    lines = [unbold(ln).lstrip("#").strip() for ln in lead.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines or not lines[-1].endswith(":"):
        return ""
    line = re.split(r"(?<=[.!?])\s+(?=[A-Z`])", lines[-1])[-1]
    return line if len(line) <= LEAD_CHARS else "…" + line[-(LEAD_CHARS - 1):]


def _join(items: tuple[tuple[int, str], ...], limit: int) -> str:
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
    """The last recap of each request that edited something, the latest request's first: only a recap
    written after an edit of its own request (an answer about code, with nothing edited, recaps nothing)."""
    return [copy.copy(f) for f in _recap_facts(ctx)]


def recapped(ctx: FactContext) -> dict[int, str]:
    """Each recap's round and its items: the request's closing report (`findings.request_reports`) often
    retells the same list, and then ranks below the other findings."""
    return {f.rounds[0]: f.full_text or f.text for f in _recap_facts(ctx)}


def _recap_facts(ctx: FactContext) -> list[Fact]:
    return ctx.shared(("recaps", "facts"), lambda: _found(ctx))


def _found(ctx: FactContext) -> list[Fact]:
    edits = sorted((e.message_index, e.path) for e in ctx.events
                   if e.kind in (EventKind.WRITE, EventKind.EDIT, EventKind.DELETE) and e.path and not e.failed)
    # an export that kept a write's call but not its arguments (`write({})`): the message that made it edited
    unnamed = {msg.index for rnd in ctx.transcript.rounds for msg in rnd.messages
               if any(c.kind in _WRITING and not c.path and _ran(ctx, rnd, c) for c in msg.tool_calls)}
    if not edits and not unnamed:
        return []
    changed = {file_name(p) for _, p in edits}
    found: list[tuple[int, int, _List]] = []  # (round, message, list): the last recap of each request, in order
    k = 0  # the next edit not yet passed
    edited = opened = False  # the current request edited something; has a recap already (a later one replaces it)
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            while k < len(edits) and edits[k][0] <= msg.index:  # a merged message's own edits come before its text
                edited, k = True, k + 1
            edited = edited or msg.index in unnamed
            if msg.role is Role.USER and not msg.harness and msg.text.strip():
                edited = opened = False
            elif edited and msg.role is Role.ASSISTANT and not msg.harness and msg.text \
                    and (lst := _recap(msg, changed)):
                if opened:
                    found.pop()
                found.append((rnd.number, msg.index, lst))
                opened = True
    later = sorted((e.round, file_name(e.path)) for e in ctx.events  # an edit seen, not a commit's report of it
                   if e.kind in (EventKind.WRITE, EventKind.EDIT) and e.path and not e.failed and not e.git_output)
    facts = []
    shown = {index for _, index, _ in found[-MAX_RECAPS:]}
    for n, (number, index, lst) in enumerate(reversed(found[-MAX_RECAPS:])):
        lead = _lead_line(lst.lead)
        # the files it tells of, edited again after it: the account is of a state that has moved on since
        named = {w for _, t in lst.items for w in NAMED_FILE_RE.findall(t)} | set(NAMED_FILE_RE.findall(lst.lead))
        again = next((r for r, name in later if r > number and name in named), None)
        when = f"{cite([number])[:-1]}; {EDITED_AGAIN}r{again})" if again else cite([number])
        head = f"The agent's own account {when}: " + (f"{lead} " if lead else "")
        note = belied(ctx, [number], f"{lst.lead} " + " ".join(t for _, t in lst.items), account=True)
        since = _since(ctx, index, named, edits, shown) if again else []
        text = head + _join(lst.items, TEXT_CHARS) + _told_since(since, LATER_CHARS) + note
        full = head + _join(lst.items, FULL_CHARS) + _told_since(since, LATER_CHARS) + note
        short = head + _join(lst.items[:SHORT_ITEMS], TEXT_CHARS // 2) + _told_since(since[-1:], LATER_CHARS // 2) + note
        facts.append(Fact(Section.CHANGES, text, [number], score=SCORE - 8 * n, short=short,
                          full_text=full if full != text else None, prose=True))
    return facts


def _since(ctx: FactContext, after: int, named: set[str], edits: list[tuple[int, str | None]],
           shown: set[int]) -> list[tuple[int, str]]:
    """What the agent said of the recapped files after the recap (message `after`), each later request's
    last words naming one of them once it had edited one (round, text), the latest MAX_LATER: a recap of
    a state edited since tells what later edits took away as if it stood (the git-provenance summary's
    "A single 10x7 matrix …" at r34, which r36 split into seven tables: "Updated … to replace the single
    wide 10x7 matrix with 7 separate tables", r39). A later recap shown in its own line (`shown`) is not
    told again, nor a question."""
    marks = sorted(i for i, p in edits if i > after and p and file_name(p) in named)
    out: list[tuple[int, str]] = []
    last: tuple[int, str] | None = None  # the current request's latest such words
    edited = False
    k = 0
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.index <= after:
                continue
            while k < len(marks) and marks[k] <= msg.index:
                edited, last, k = True, None, k + 1  # words before the edit are not about it
            if msg.role is Role.USER and not msg.harness and msg.text.strip():
                if last:
                    out.append(last)
                edited, last = False, None
            elif edited and msg.role is Role.ASSISTANT and not msg.harness and msg.text.strip() \
                    and msg.index not in shown and _reports_done(msg.text) \
                    and any(n in named for n in NAMED_FILE_RE.findall(msg.text)):
                last = (rnd.number, msg.text)
    if last:
        out.append(last)
    return out[-MAX_LATER:]


def _reports_done(text: str) -> bool:
    """A message that opens by saying what was done ("Updated `SYSTEM-SUMMARY.md` to replace …", "I've
    moved …", "Done: …"), not a finding ("Missing from README settings section: …"), an error ("It
    appears the section … does not exist") or a question."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    first = re.split(r"(?<=[.!?])\s+", unbold(first).lstrip("#").strip(), maxsplit=1)[0]
    if not first or text.rstrip().endswith("?"):
        return False
    # a past tense first word says it whatever follows ("Updated … to add prose …"); other words only
    # when nothing in them says it is still to come
    return _done(first) or bool(_LEAD_DONE_RE.search(first) and not _LEAD_TO_COME_RE.search(first))


def _told_since(since: list[tuple[int, str]], limit: int) -> str:
    """The later accounts after the recap's items: "; since then, in the agent's words: r39 “…”"."""
    if not since:
        return ""
    return "; since then, in the agent's words: " + "; ".join(f"r{r} “{cut_at_word(flattened(t), limit)}”" for r, t in since)
