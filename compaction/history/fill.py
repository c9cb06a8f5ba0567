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
from compaction.history.tail import TailRenderer, _Piece, _pieces
from compaction.model import Round

FULL = 0.90  # a document at or above this share of its target is full enough
TAIL_FLOOR = 0.15  # the verbatim tail's least share of the target when the user's requests need room
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
    steps = _steps(draft, origin, all_facts)
    markdown, used, draft = _room_for_requests(render, draft, markdown, used, target, steps, tail)
    markdown, used, draft = _more_facts(render, draft, markdown, used, target, _steps(draft, origin, all_facts))
    if used < FULL * target:
        markdown, used, draft = _wider_tail(render, draft, markdown, used, target, tail)
    if used < FULL * target:
        markdown, used, draft = _older_rounds(render, draft, markdown, used, target, rounds, code, steering)
    return markdown, draft


def _room(used: int, target: int) -> int:
    return target - used - int(target * _MARGIN) - 8


def _value_order(f: Fact) -> tuple[bool, float, float]:
    return (f.section is not Section.GOAL, f.rank(), -f.score)


@dataclass
class _Step:
    """Give `original` its full text: in place of `copy` (a shortened form chosen), or added."""

    original: Fact
    copy: Fact | None
    full: str
    delta: int  # tokens it adds


def _steps(draft: Draft, origin: dict[int, Fact], all_facts: list[Fact]) -> list[_Step]:
    """Every fact not shown whole, most valuable first: the user's requests, then by section priority."""
    kept = {id(origin.get(id(f), f)): f for f in draft.chosen}
    pending = []
    for o in all_facts:
        c = kept.get(id(o))
        full = o.full_text or o.text
        if c is None or c.text != full:
            pending.append((o, c, full))
    pending.sort(key=lambda s: _value_order(s[0]))
    costs = tokens.count_many([full for _, _, full in pending])
    shown = tokens.count_many([c.text if c is not None else "" for _, c, _ in pending])
    return [_Step(o, c, full, cost + 6 - (n + 6 if c is not None else 0))
            for (o, c, full), cost, n in zip(pending, costs, shown, strict=True)]


def _room_for_requests(render: Render, draft: Draft, markdown: str, used: int, target: int, steps: list[_Step],
                       tail: TailRenderer) -> tuple[str, int, Draft]:
    """The user's requests whole come before the verbatim tail's default share: the tail gives way for
    them, down to TAIL_FLOOR of the target (the newest rounds stay)."""
    need = sum(s.delta for s in steps if s.original.section is Section.GOAL)
    short = need - _room(used, target)
    if short <= 0 or not draft.tail_text or draft.extra:
        return markdown, used, draft
    have = tokens.count(draft.tail_text)
    budget = max(have - short, int(target * TAIL_FLOOR))
    if budget >= have:
        return markdown, used, draft
    text, cut = tail.render(budget)
    if not text:
        return markdown, used, draft
    trial = Draft(draft.chosen, text, tail.rounds[cut].number, draft.extra)
    md = render(trial)
    return md, tokens.count(md), trial


def _more_facts(render: Render, draft: Draft, markdown: str, used: int, target: int,
                steps: list[_Step]) -> tuple[str, int, Draft]:
    """Shortened facts back to full text, dropped facts back, most valuable first, while they fit."""
    room = _room(used, target)
    for _ in range(3):  # a real count that overshoots the estimate retries with that much less room
        chosen = list(draft.chosen)
        left = room
        applied = 0
        for step in steps:
            if step.delta > left:
                continue
            g = copy.copy(step.original)
            g.text, g.short = step.full, None
            if step.copy is not None:
                chosen[chosen.index(step.copy)] = g
            else:
                chosen.append(g)
            left -= step.delta
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
    """The kept rounds again at the largest cap the room left allows (fewer, shorter elisions)."""
    if not tail.rounds:
        return markdown, used, draft
    numbers = [r.number for r in tail.rounds]
    first = numbers.index(draft.shown_start) if draft.shown_start in numbers else len(numbers) - 1
    kept = tail.per_round[first:]
    pieces = [p for round_pieces in kept for p in round_pieces]
    have = tokens.count(draft.tail_text) if draft.tail_text else 0
    room = _room(used, target)
    for _ in range(3):
        if room <= 0:
            break
        cap = _largest_cap(pieces, have + room, overhead=8 * len(kept))
        if cap is False:
            break
        text = "\n\n".join(f"### r{rnd.number}\n\n" + "".join(p.render(cap) for p in round_pieces).rstrip()
                           for rnd, round_pieces in zip(tail.rounds[first:], kept, strict=True))
        if text == draft.tail_text:
            break
        trial = Draft(draft.chosen, text, numbers[first], draft.extra)
        md = render(trial)
        n = tokens.count(md)
        if n <= target:
            return md, n, trial
        room -= (n - target) + int(target * _MARGIN)
    return markdown, used, draft


def _older_rounds(render: Render, draft: Draft, markdown: str, used: int, target: int, rounds: list[Round],
                  code: bool, steering: Steering) -> tuple[str, int, Draft]:
    """Rounds before the verbatim tail join it, newest first, each with the largest standard cap that
    fits; room still left then widens the caps of the rounds added, newest first."""
    room = _room(used, target)
    budget_chars = max(room * 64, 1_000_000)  # bounded work: never encode far more text than the room shows
    start = draft.shown_start - 1  # round numbers are 1-based: rounds[start - 1] is the round before
    added: list[_Added] = []  # newest first
    while start >= 1 and room > 40 and budget_chars > 0:
        rnd = rounds[start - 1]
        pieces = [p for msg in rnd.messages for p in _pieces(msg, rnd.number, code, steering)]
        budget_chars -= sum(len(m.text) + sum(len(r.content) for r in m.tool_results) for m in rnd.messages)
        cap = _largest_cap(pieces, room)
        if cap is False:
            break
        one = _Added(rnd.number, pieces, cap)
        added.append(one)
        room -= one.cost()
        start -= 1
    for one in added:  # the room left widens the caps, newest first
        if room <= 40 or one.cap is None:
            continue
        before = one.cost()
        cap = _largest_cap(one.pieces, before + room)
        if cap is not False and cap != one.cap and (cap is None or one.cap is None or cap > one.cap):
            one.cap = cap
            room -= one.cost() - before
    while added:
        texts = [a.render() for a in reversed(added)]
        trial = Draft(draft.chosen, draft.tail_text, added[-1].number, texts + draft.extra)
        md = render(trial)
        n = tokens.count(md)
        if n <= target:
            return md, n, trial
        added.pop()  # over by the estimate's error: the oldest added round gives way
    return markdown, used, draft


@dataclass
class _Added:
    """An older round joining the verbatim tail, at a cap."""

    number: int
    pieces: list[_Piece]
    cap: int | None

    def cost(self) -> int:
        return sum(p.cost(self.cap) for p in self.pieces) + 12

    def render(self) -> str:
        return f"### r{self.number}\n\n" + "".join(p.render(self.cap) for p in self.pieces).rstrip()


def _largest_cap(pieces: list[_Piece], room: int, overhead: int = 12) -> int | None | bool:
    """The largest cap (None: no elision) at which the pieces fit `room`; False when even 30 does not."""
    def cost(cap: int | None) -> int:
        return sum(p.cost(cap) for p in pieces) + overhead

    if cost(None) <= room:
        return None
    lo, hi = 30, max((len(p.ids) for p in pieces), default=30)
    if cost(lo) > room:
        return False
    while lo < hi:  # cost grows with the cap: the largest cap that still fits
        mid = (lo + hi + 1) // 2
        if cost(mid) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo
