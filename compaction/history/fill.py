"""Spend what the required facts leave of the budget by value (issue 14 item 5).

Once the must-keep facts fit, the room left goes, in order, to what a successor needs most: facts that
were shortened get their full text back and facts that were dropped come back — the user's requests
first (all of them, whole), then the other sections by their priority (change records and findings
included, whatever sources are registered) — then the kept rounds are rendered with larger caps, then
older rounds join the verbatim tail, until the document is within 90–100% of its target. Every step
is checked against a real token count; a step that overshoots is taken back.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from compaction import tokens
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.steering import Steering
from compaction.history.tail import CAPS, TailRenderer, _Piece, _pieces
from compaction.model import Round

FULL = 0.90  # a document at or above this share of its target is full enough
_MARGIN = 0.01  # estimated costs are kept this share (plus a few tokens) under the target


@dataclass
class Draft:
    """What the document is rendered from; `render(draft)` gives the Markdown."""

    chosen: list[Fact]
    tail_text: str
    shown_start: int
    extra: list[str] = field(default_factory=list)  # older rounds rendered for the tail, oldest first


Render = Callable[[Draft], str]


def fill(render: Render, draft: Draft, *, target: int, origin: dict[int, Fact], all_facts: list[Fact],
         tail: TailRenderer, rounds: list[Round], code: bool, steering: Steering) -> tuple[str, Draft]:
    """The fuller document and its draft; the draft given back unchanged when nothing fits."""
    markdown = render(draft)
    used = tokens.count(markdown)
    if used >= FULL * target:
        return markdown, draft
    markdown, used, draft = _more_facts(render, draft, markdown, used, target, origin, all_facts)
    if used < FULL * target:
        markdown, used, draft = _wider_tail(render, draft, markdown, used, target, tail)
    if used < FULL * target:
        markdown, used, draft = _older_rounds(render, draft, markdown, used, target, rounds, code, steering)
    return markdown, draft


def _room(used: int, target: int) -> int:
    return target - used - int(target * _MARGIN) - 8


def _value_order(f: Fact) -> tuple[bool, float, float]:
    return (f.section is not Section.GOAL, f.rank(), -f.score)


def _more_facts(render: Render, draft: Draft, markdown: str, used: int, target: int, origin: dict[int, Fact],
                all_facts: list[Fact]) -> tuple[str, int, Draft]:
    """Shortened facts back to full text, dropped facts back, most valuable first, while they fit."""
    kept_origins = {id(origin[id(f)]): f for f in draft.chosen if id(f) in origin}
    steps: list[tuple[Fact, Fact | None]] = []  # (original, the chosen copy it upgrades, or None: add it)
    for o in all_facts:
        c = kept_origins.get(id(o))
        full = o.full_text or o.text
        if c is None or c.text != full:
            steps.append((o, c))
    steps.sort(key=lambda s: _value_order(s[0]))
    fulls = [o.full_text or o.text for o, _ in steps]
    costs = tokens.count_many(fulls)
    room = _room(used, target)
    for _ in range(3):  # a real count that overshoots the estimate retries with that much less room
        chosen = list(draft.chosen)
        left = room
        applied = 0
        for (o, c), full, cost in zip(steps, fulls, costs, strict=True):
            delta = cost + 6 - (tokens.count(c.text) + 6 if c is not None else 0)
            if delta > left:
                continue
            g = copy.copy(o)
            g.text, g.short = full, None
            if c is not None:
                chosen[chosen.index(c)] = g
            else:
                chosen.append(g)
            left -= delta
            applied += 1
        if not applied:
            break
        trial = Draft(chosen, draft.tail_text, draft.shown_start, draft.extra)
        text = render(trial)
        n = tokens.count(text)
        if n <= target:
            return text, n, trial
        room -= (n - target) + int(target * _MARGIN)
    return markdown, used, draft


def _wider_tail(render: Render, draft: Draft, markdown: str, used: int, target: int,
                tail: TailRenderer) -> tuple[str, int, Draft]:
    """The kept rounds again, with the room left added to their share (larger caps, fewer elisions)."""
    if not tail.rounds:
        return markdown, used, draft
    have = tokens.count(draft.tail_text) if draft.tail_text else 0
    room = _room(used, target)
    for _ in range(3):
        if room <= 0:
            break
        text, cut = tail.render(have + room)
        if text == draft.tail_text:
            break
        trial = Draft(draft.chosen, text, tail.rounds[cut].number if cut < len(tail.rounds) else draft.shown_start,
                      draft.extra)
        md = render(trial)
        n = tokens.count(md)
        if n <= target:
            return md, n, trial
        room -= (n - target) + int(target * _MARGIN)
    return markdown, used, draft


def _older_rounds(render: Render, draft: Draft, markdown: str, used: int, target: int, rounds: list[Round],
                  code: bool, steering: Steering) -> tuple[str, int, Draft]:
    """Rounds before the verbatim tail join it, newest first, each with the largest cap that fits."""
    room = _room(used, target)
    budget_chars = max(room * 64, 1_000_000)  # bounded work: never encode far more text than the room shows
    start = draft.shown_start - 1  # round numbers are 1-based: rounds[start - 1] is the round before
    added: list[str] = []
    while start >= 1 and room > 40 and budget_chars > 0:
        rnd = rounds[start - 1]
        pieces = [p for msg in rnd.messages for p in _pieces(msg, rnd.number, code, steering)]
        budget_chars -= sum(len(m.text) + sum(len(r.content) for r in m.tool_results) for m in rnd.messages)
        text = _fit_round(rnd.number, pieces, room)
        if text is None:
            break
        added.insert(0, text)
        room -= tokens.count(text) + 4
        start -= 1
    while added:
        trial = Draft(draft.chosen, draft.tail_text, start + 1, added + draft.extra)
        md = render(trial)
        n = tokens.count(md)
        if n <= target:
            return md, n, trial
        added.pop(0)  # over by the estimate's error: the oldest added round gives way
        start += 1
    return markdown, used, draft


def _fit_round(number: int, pieces: list[_Piece], room: int) -> str | None:
    for cap in CAPS:
        if cap is not None and cap < 120:
            break
        if sum(p.cost(cap) for p in pieces) + 8 <= room:
            return f"### r{number}\n\n" + "".join(p.render(cap) for p in pieces).rstrip()
    return None
