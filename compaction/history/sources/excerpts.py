"""The agent's own replies from earlier rounds, in its words (flattened to a line each): what the room
left over, once every other fact is shown whole, is worth most after the files the session created.

Why: a session that is a conversation (a document drafted with the user, a design talked through)
holds its substance in the agent's prose, which no extractor reads whole; the filler used to give
the room left to older rounds joining the verbatim tail, which shows the last quarter of a session
again while most of what a successor is asked lies before it. A reply is the agent's last words
before the user spoke again (its answer, its report; not the narration around its calls, which the
findings read). These facts are the filler's alone (`sections.LAST_ROOM`), the most concrete replies
first (the names, values and paths they hold), in the order they were written; a reply whose words the
document already holds is passed over (`fill.SAID_ONCE`), and one the verbatim tail shows is not rendered.
"""

from __future__ import annotations

import re

from compaction.history.condense import cut_at_clause
from compaction.history.facts import TIGHT_TARGET, Fact, relative_paths
from compaction.history.flatten import flattened
from compaction.history.sections import Section
from compaction.history.sentences import THOUGHT_RE, straight
from compaction.history.sources.findings import SPECIFIC_RE
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role

MIN_CHARS = 200  # a reply shorter than this says what the findings and the tail say ("Let me look at …")
EXCERPT_CHARS = 1500  # a reply's excerpt: its opening, cut at a clause
OPENING_CHARS = 500  # the shorter excerpt shown where the longer does not fit
READ_CHARS = 3 * EXCERPT_CHARS  # of a reply's text, what is flattened (bounded work: the excerpt is its opening)
MAX_EXCERPTS = 60  # the most concrete replies offered (bounded work: each is counted once)
REPORT_CHARS = 600  # a reply with calls of its own this long is a report the export merged with them
# What it will do next ("I'll read…", "Let me…"), not what it found or did (apostrophes straightened first)
_PLAN_RE = re.compile(r"(?:(?:okay|ok|first|now|next|then|so)\b,?\s*)?(?:I will|I'll|let me|let's|I need to|I'm going|"
                      r"I am going|I should|we need to)\b", re.I)
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
    """One fact per closing reply of the agent long enough to hold something, scored by the distinct names,
    values and paths it holds; the MAX_EXCERPTS most concrete."""
    if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET:
        return []  # a tight budget never has room left for them: no work
    found: list[tuple[int, int, str]] = []  # (specifics, round, text)
    closing = _closing_replies(ctx.transcript.messages)
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.index not in closing or msg.role is not Role.ASSISTANT or msg.harness or len(msg.text) < MIN_CHARS:
                continue
            flat = flattened(relative_paths(THOUGHT_RE.sub("", msg.text[:READ_CHARS]), ctx.cwd))
            # not the narration before a call ("I'm going to read…"); a reply with calls of its own only when it
            # is a report an export merged with them
            if len(flat) < MIN_CHARS or _PLAN_RE.match(straight(flat)) or msg.tool_calls and len(flat) < REPORT_CHARS:
                continue
            full = cut_at_clause(flat, EXCERPT_CHARS)
            found.append((len(set(SPECIFIC_RE.findall(full))), rnd.number, full))
    found.sort(key=lambda x: -x[0])
    # its opening first where the whole excerpt does not fit what is left (the filler's one-line fallback)
    return [Fact(Section.EXCERPTS, cut_at_clause(full, OPENING_CHARS), [number], score=float(specifics),
                 full_text=full if len(full) > OPENING_CHARS else None)
            for specifics, number, full in found[:MAX_EXCERPTS]]
