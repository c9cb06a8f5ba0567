"""The agent's own replies from earlier rounds, verbatim (flattened to a line each): what the room
left over, once every other fact is shown whole, is worth most.

Why: a session that is a conversation (a document drafted with the user, a design talked through)
holds its substance in the agent's prose, which no extractor reads whole; the filler used to give
the room left to older rounds joining the verbatim tail, which shows the last quarter of a session
again while most of what a successor is asked lies before it. These facts rank below every section
(`EXCERPT_PRIORITY`): they are shown only when the rest fits, the most concrete replies first (the
names, values and paths they hold), in the order they were written; a reply whose words the document
already holds is passed over (`fill.SAID_ONCE`), and one the verbatim tail shows is not rendered.
"""

from __future__ import annotations

import re

from compaction.escape import escape_control
from compaction.history.facts import TIGHT_TARGET, Fact, relative_paths
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role
from compaction.transcripts._fences import FENCE_LINE, outside_fences

MIN_CHARS = 200  # a reply shorter than this says what the findings and the tail say ("Let me look at …")
EXCERPT_CHARS = 1500  # a reply's excerpt: its opening, cut at a sentence
OPENING_CHARS = 500  # the shorter excerpt shown where the longer does not fit
MAX_EXCERPTS = 60  # the most concrete replies offered (bounded work: each is counted once)
EXCERPT_PRIORITY = 7.0  # below every section and the leftover facts: the last room's
_SPECIFIC_RE = re.compile(r"`[^`\n]{2,80}`|\b\d[\d.,:]*\b|\b[A-Za-z_]+(?:_\w+|[a-z][A-Z]\w*|\.\w+\(?)|[\w.-]+/[\w./-]+")
REPORT_CHARS = 600  # a reply with calls of its own this long is a report the export merged with them
_THOUGHT_RE = re.compile(r"^\s*(?:THOUGHT|DISCUSSION|Thought):\s*")
_PLAN_RE = re.compile(r"(?:(?:okay|ok|first|now|next|then|so)\b,?\s*)?(?:I will|I['’]ll|let me|let['’]s|I need to|I['’]m going|"
                      r"I am going|I should|we need to)\b", re.I)
_BULLET_RE = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+|^\s*#{1,6}\s+|^\s*>\s?")
_BOLD_RE = re.compile(r"\*\*|__")
_SENTENCE_END_RE = re.compile(r"[.!?。！？](?=\s|$)")


def flattened(text: str) -> str:
    """A reply on one line: its prose lines joined by " · " without list marks, headings, quote marks or
    bold; a code block as "[N lines of code]" (the change records tell what was written)."""
    lines = text.splitlines()
    prose = dict(outside_fences(lines))
    out: list[str] = []
    code = 0
    for i, line in enumerate(lines):
        if i not in prose:
            code += not FENCE_LINE.match(line)  # a fence line itself is no line of code
            continue
        if code:
            out.append(_code_note(code))
            code = 0
        line = _BOLD_RE.sub("", _BULLET_RE.sub("", line)).strip()
        if line and line.strip("-=*_") and line != "---":
            out.append(line)
    if code:
        out.append(_code_note(code))
    flat = escape_control(" · ".join(out))
    return flat.replace("`", "") if flat.count("`") % 2 else flat  # an open code span would run on


def _code_note(n: int) -> str:
    return f"[{n} line{'' if n == 1 else 's'} of code]"


def _cut(text: str, limit: int) -> str:
    """`text` within `limit` characters, ended at its last sentence end when one is past the middle."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [m.end() for m in _SENTENCE_END_RE.finditer(head)]
    end = ends[-1] if ends and ends[-1] > limit // 2 else limit - 1
    cut = head[:end].rstrip()
    cut = cut.replace("`", "") if cut.count("`") % 2 else cut
    return cut + ("" if end < limit - 1 else "…") + " […]"


def _closing_replies(messages: list[Message]) -> set[int]:
    """The index of the agent's last message before each request of the user, and before the end."""
    out: set[int] = set()
    last: int | None = None
    for msg in messages:
        if msg.role is Role.ASSISTANT and not msg.harness and msg.text:
            last = msg.index
        elif msg.role is Role.USER and not msg.harness and not msg.tool_results and msg.text.strip() and last is not None:
            out.add(last)
            last = None
    if last is not None:
        out.add(last)
    return out


@fact_source(Section.EXCERPTS)
def excerpt_facts(ctx: FactContext) -> list[Fact]:
    """One fact per reply of the agent long enough to hold something, scored by the distinct names,
    values and paths it holds; the MAX_EXCERPTS most concrete."""
    if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET:
        return []  # a tight budget never has room left for them: no work
    found: list[tuple[int, int, str]] = []  # (specifics, round, text)
    closing = _closing_replies(ctx.transcript.messages)
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is not Role.ASSISTANT or msg.harness or len(msg.text) < MIN_CHARS:
                continue
            flat = _THOUGHT_RE.sub("", flattened(msg.text))
            # the agent's last words before the user spoke again (its answer, its report, which an export may
            # merge with the calls before it): not the narration around its calls ("I'm going to read…"), which
            # the findings read
            if msg.index not in closing or len(flat) < MIN_CHARS or _PLAN_RE.match(flat) or msg.tool_calls and (
                    len(flat) < REPORT_CHARS):
                continue
            full = _cut(relative_paths(flat, ctx.cwd), EXCERPT_CHARS)
            found.append((len(set(_SPECIFIC_RE.findall(full))), rnd.number, full))
    found.sort(key=lambda x: -x[0])
    # its opening first where the whole excerpt does not fit what is left (the filler's one-line fallback)
    return [Fact(Section.EXCERPTS, _cut(full, OPENING_CHARS), [number], score=float(specifics),
                 priority=EXCERPT_PRIORITY, full_text=full if len(full) > OPENING_CHARS else None)
            for specifics, number, full in found[:MAX_EXCERPTS]]
