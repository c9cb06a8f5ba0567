"""Spend what the required facts leave of the budget by value (issue 14 item 5).

Once the must-keep facts fit, the room left goes, in order, to what a successor needs most: facts that
were shortened get their full text back and facts that were dropped come back — a request not shown
first, then the other sections by their priority (change records and findings included, whatever
sources are registered), then the full text of a request shown short (the engine's shares already gave
every section its part) — then the kept rounds are rendered with larger caps, then older rounds join
the verbatim tail, until the document holds 97–100% of its target (90% at least when nothing left fits
the rest). Steps are
planned on estimated costs and the plan checked by one real count; a plan that overshoots is made
again with less room, so a document never leaves here over its target.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from compaction import tokens
from compaction.history import overlap
from compaction.history.facts import Fact, tail_says
from compaction.history.sections import LAST_ROOM, Section
from compaction.history.steering import Steering
from compaction.history.tail import (
    ROUND_HEADING_TOKENS,
    TOOL_OUTPUT_MOST,
    TailRenderer,
    _Piece,
    outputs_shown,
    point_repeats,
    render_rounds,
    round_end,
    round_pieces,
)
from compaction.model import Round
from compaction.transcripts._fences import FENCE_LINE

FULL = 0.9  # a document below this share of its target is not full: what was kept short may grow
ROOMY = 0.97  # below this share of its target another pass spends the exact room left (a fact the estimate left out)
TAIL_FLOOR = 0.15  # the verbatim tail's least share of the target when the user's requests need room
_MARGIN = 0.01  # estimated costs are kept this share (plus a few tokens) under the target
# The agent's narration (what it found, read and concluded) is offered only when it adds words to the
# document (`overlap.Held`): it often retells a change, a request or another finding. A request, a
# change, a rule or a labelled line ("Edited, then reverted: …") says something by its label: kept.
SAID_ONCE = frozenset({Section.FINDINGS, Section.EVIDENCE, Section.DECISIONS, Section.EXCERPTS})


@dataclass
class Draft:
    """What the document is rendered from; `render(draft)` gives the Markdown."""

    chosen: list[Fact]
    tail_text: str
    shown_start: int
    extra: list[str] = field(default_factory=list)  # older rounds rendered for the tail, oldest first
    partial: int = 0  # the older round shown by its last messages (the oldest of `extra`), 0: none


Render = Callable[[Draft], str]


def fill(render: Render, draft: Draft, *, target: int, origin: dict[int, Fact], all_facts: list[Fact],
         tail: TailRenderer, rounds: list[Round], code: bool, steering: Steering, held: str = "",
         lang: str = "en", rendered: tuple[str, int] | None = None) -> tuple[str, Draft]:
    """The fuller document and its draft; the draft given back unchanged when nothing fits. `held`: what
    the document says besides its facts (the error records), which a fact need not say again.
    `rendered`: the draft's Markdown and its count, when the caller has them (not rendered again).

    Each pass plans every step on estimated costs, then renders and counts once: a plan that
    overshoots is planned again with that much less room; one that falls short of ROOMY gets another
    pass (facts and older rounds) with the exact room left, four passes in all at most (estimated costs
    can overstate what a pass spends: tree-vanilla stayed at 88% after two). A few counts in all."""
    if rendered is None:
        markdown = render(draft)
        rendered = markdown, tokens.count(markdown)
    markdown, used = rendered
    if used > target:
        return markdown, draft
    have_tail = tokens.count(draft.tail_text) if draft.tail_text else 0
    best = (markdown, draft)
    shrink = 0
    first_pass = True
    for _ in range(4):
        room = _room(used, target) - shrink
        if room <= 0:
            break
        steps = _steps(draft, origin, all_facts)
        plan = _plan(draft, room, steps, tail, have_tail, rounds, code, steering, target, origin, widen=first_pass,
                     held=held, lang=lang)
        if plan is None:
            break
        md = render(plan)
        n = tokens.count(md)
        if n > target:
            shrink += (n - target) + int(target * _MARGIN)
            continue
        best = (md, plan)
        if n >= ROOMY * target:
            break
        draft, used, shrink, first_pass = plan, n, 0, False  # room left: another pass, exact room
    return best


def _plan(draft: Draft, room: int, steps: list[_Step], tail: TailRenderer, have_tail: int, rounds: list[Round],
          code: bool, steering: Steering, target: int, origin: dict[int, Fact], *, widen: bool,
          held: str = "", lang: str = "en") -> Draft | None:
    """The draft with the room spent in value order, on estimated costs; None when nothing changes."""
    chosen = list(draft.chosen)
    tail_text, start, extra, partial = draft.tail_text, draft.shown_start, list(draft.extra), draft.partial
    changed = False
    # The user's requests whole come before the verbatim tail's default share: the tail gives way for
    # them, down to TAIL_FLOOR of the target (the newest rounds stay).
    need = sum(s.delta for s in steps if s.original.section is Section.GOAL)
    if widen and need > room and tail_text and not extra:
        budget = max(have_tail - (need - room), int(target * TAIL_FLOOR))
        if budget < have_tail:
            text, cut = tail.render(budget)
            if text:
                room += have_tail - budget
                tail_text, start, have_tail, changed = text, tail.rounds[cut].number, budget, True
    tries = _PARTIAL_TRIES
    said = overlap.Held([held, *(f.text for f in chosen)])
    shown = "\n".join([*extra, tail_text])  # what the verbatim rounds show (the loop adds none)
    for step in steps:  # facts shown whole, facts back, most valuable first
        if step.original.section in LAST_ROOM and not (tail_text or extra):
            continue  # where the work stopped (the newest round's end, `_older`) comes before the last room's
        if step.copy is None and step.fallback is not None and step.original.section is Section.GOAL:
            step.full, step.delta = step.fallback  # a request comes back in one line: more of them are seen
            if step.delta > room and step.brief is not None:
                step.full, step.delta = step.brief  # its opening ask, where the line does not fit
        if step.delta > room and tries > 0 and room > 20:
            tries -= 1
            cut = _partial(step, room)  # a fact that does not fit whole: as many of its lines as fit
            if cut is not None:
                step.full, step.delta = cut
        if step.delta > room:
            continue
        rounds_of = step.original.rounds
        if step.copy is None and step.original.section not in (Section.GOAL, Section.WRITTEN) \
                and not step.original.pending and rounds_of and min(rounds_of) >= start \
                and tail_says(step.original, shown):
            continue  # its rounds are in the verbatim tail already: it would say what the tail shows (a file's
            # text as the session left it is no round's)
        if step.copy is None and step.original.section in SAID_ONCE and not said.adds(step.full):
            continue  # the document says it already: it would only cost room
        said.add(step.full)
        g = copy.copy(step.original)
        g.text, g.short = step.full, None
        origin[id(g)] = step.original  # a later pass sees it as shown whole
        if step.copy is not None:
            chosen[_index(chosen, step.copy)] = g
        else:
            chosen.append(g)
        room -= step.delta
        changed = True
    if widen and tail_text and room > 40:  # the kept rounds at the largest cap the room allows
        text, cost = _widened(tail, start, have_tail + room)
        if text is not None and text != tail_text and cost > have_tail:
            room -= cost - have_tail
            tail_text, changed = text, True
    # Older rounds join the tail (none past a round shown in part). The newest round, when it never fitted
    # (where the work stopped), shows its last messages at once; an older round that fits no more does
    # once the room is known exactly (a later pass: the first one's estimates may overstate) or when
    # nothing else would be added. Their facts stay told above.
    later = outputs_shown([pieces for r, pieces in zip(tail.rounds, tail.per_round, strict=True) if r.number >= start])
    older, first, end_of = (_older(rounds, start, room, code, steering, tail.cwd, lang, ends=not (widen and changed),
                                   output_most=tail.output_most, later=later)
                            if not partial else ([], start, 0))
    if older:
        extra = older + extra
        start, partial, changed = first, end_of, True
        # a reply the tail now shows is not said twice (the next pass spends its room); a file's text as the
        # session left it is no round's: the tail shows a file tool's call by its line, its writes and edits cut
        chosen = [f for f in chosen if f.section is not Section.EXCERPTS or min(f.rounds) < (partial or start)]
    elif partial and extra and room > _PARTIAL_TAIL_ROOM and not (widen and changed):
        # the room a later pass found left (the facts' estimates overstated, a reply the tail shows given
        # back): the round shown by its end shows more of its end
        pieces = round_pieces(rounds[partial - 1], code, steering, tail.cwd, tail.output_most)
        point_repeats(pieces, later)
        have = tokens.count(extra[0])
        end, _ = round_end(partial, pieces, have + room, lang)
        if end and end != extra[0] and tokens.count(end) > have:
            extra = [end, *extra[1:]]
            changed = True
    return Draft(chosen, tail_text, start, extra, partial) if changed else None


def _index(facts: list[Fact], fact: Fact) -> int:
    """`facts.index(fact)`: the first fact equal to it. Its text compared first: `list.index` calls the
    dataclass's `__eq__`, which builds two tuples of every field, for each fact before it."""
    return next(i for i, f in enumerate(facts) if f is fact or (f.text == fact.text and f == fact))


def _room(used: int, target: int) -> int:
    return target - used - int(target * _MARGIN) - 8


def _value_order(f: Fact, shown: bool) -> tuple[int, float, float]:
    """A request not shown at all first; then a shown request's full text when it is the user's own
    asks (`asks_whole`: the details a one-line form drops, "AirPods", "the last 10", are what the user
    will check); then the other sections by priority; a shown paste's or the condensed task's full text
    last (its short form already says what was asked: the other sections had their share)."""
    if f.section is Section.GOAL:
        return ((1 if f.asks_whole else 3) if shown else 0, f.rank(), -f.score)
    return (2, f.rank(), -f.score)


@dataclass
class _Step:
    """Give `original` its full text: in place of `copy` (a shortened form chosen), or added."""

    original: Fact
    copy: Fact | None
    full: str
    delta: int  # tokens it adds
    shown: int = 0  # tokens of the shortened copy it replaces (0: none)
    fallback: tuple[str, int] | None = None  # a fact not shown: its one-line text and cost, when `full` is longer
    brief: tuple[str, int] | None = None  # a request not shown: its shortest form and cost, when it has one


_PARTIAL_TRIES = 40  # facts per pass that may come back in part: bounded counting
_PARTIAL_TAIL_ROOM = 80  # tokens left before a round's last messages are worth showing


def _partial(step: _Step, room: int) -> tuple[str, int] | None:
    """(text, tokens added) for a fact that does not fit whole: its longest shorter form that fits (`Fact.forms`:
    the task condensed, a rules digest's most binding rules); else a multi-line fact's leading lines that fit
    (`leading_lines`); else its one-line form (`fallback`); else None."""
    if step.copy is not None and step.original.forms:
        longer = [t for t in step.original.forms if len(t) > len(step.copy.text)]
        for t, n in zip(longer, tokens.count_many(longer), strict=True):
            if n + 6 - step.shown <= room:
                return t, n + 6 - step.shown
    if step.original.section is not Section.GOAL:
        cut = leading_lines(step.full, room + step.shown, step.copy.text if step.copy is not None else "")
        if cut is not None and cut[1] > step.shown:  # never fewer than shown: its shown form was picked as the best
            return cut[0], cut[1] - step.shown
    if step.fallback is not None and step.fallback[1] <= room:
        return step.fallback
    return None


def leading_lines(full: str, budget: int, shown: str = "") -> tuple[str, int] | None:
    """(text, tokens) of a multi-line fact's leading lines within `budget`, never cut mid-line, with
    a count of the rest; None when fewer than two lines fit, or none but its head and a fence. Its first
    line is its one-line form, so any cut still reads whole. The lines its shown one-line form (`shown`)
    quotes come first, in their place: a fuller form never loses the line a source picked as the best."""
    lines = full.split("\n")
    if len(lines) <= 2:
        return None
    costs = tokens.count_many(lines)
    order = range(len(lines))
    if shown:
        picked = [i for i in range(1, len(lines)) if len(lines[i].strip(" -")) > 8 and lines[i].strip(" -") in shown]
        if len(picked) == 1:  # the line a one-line form quotes; several: an excerpt, kept in order
            order = [0, *picked, *(i for i in range(1, len(lines)) if i not in picked)]
    total, keep = 6 + 8, []  # the fact's overhead and the "(… n more lines)" line
    for i in order:
        if total + costs[i] + 1 > budget:
            break
        total = total + costs[i] + 1
        keep.append(i)
    if len(keep) < 2 or all(i == 0 or FENCE_LINE.match(lines[i]) for i in keep):
        return None  # a head and a fence's opening line: an empty block says nothing (code review 24)
    kept = [lines[i] for i in sorted(keep)]
    # a fence the kept lines open is closed before the count (a long diff cut to its first lines left the
    # rest of the document read as code)
    if (close := _closing_fence(kept)) is not None:
        kept.append(close)
        total += 2
    return "\n".join(kept) + f"\n  (… {len(lines) - len(keep)} more lines)", total


def _closing_fence(lines: list[str]) -> str | None:
    """The line that closes the fence `lines` leave open, indented as its opening line (a fence in a list
    item closed at the margin ends the item and opens a new block), else None. Read as CommonMark does: a
    fence closes only on a run of its own character at least as long, with nothing after it; the lines of
    a file shown inside a longer fence (its own ``` blocks) open nothing."""
    opened: tuple[str, str, int] | None = None  # (indentation, character, length)
    for line in lines:
        m = FENCE_LINE.match(line)
        if m is None:
            continue
        indent, run, rest = line[:m.start(1)], m.group(1), line[m.end():]
        if opened is None:
            if not (run[0] == "`" and "`" in rest):  # a backtick fence's info string holds no backtick
                opened = (indent, run[0], len(run))
        elif run[0] == opened[1] and len(run) >= opened[2] and not rest.strip():
            opened = None
    return f"{opened[0]}{opened[1] * opened[2]}" if opened is not None else None


def _steps(draft: Draft, origin: dict[int, Fact], all_facts: list[Fact]) -> list[_Step]:
    """Every fact not shown whole, most valuable first: the user's requests, then by section priority."""
    kept = {id(origin.get(id(f), f)): f for f in draft.chosen}
    pending = []
    for o in all_facts:
        c = kept.get(id(o))
        full = o.full_text or o.text
        if c is None or c.text != full:
            pending.append((o, c, full))
    pending.sort(key=lambda s: _value_order(s[0], s[1] is not None))
    costs = tokens.count_many([full for _, _, full in pending])
    shown = tokens.count_many([c.text if c is not None else (o.text if o.text != full else "") for o, c, _ in pending])
    briefs = tokens.count_many([o.short if c is None and o.short and o.section is Section.GOAL and not o.task else ""
                                for o, c, _ in pending])
    return [_Step(o, c, full, cost + 6 - (n + 6 if c is not None else 0), n + 6 if c is not None else 0,
                  (o.text, n + 6) if c is None and n and not o.task else None,
                  (o.short, b + 6) if b and o.short else None)
            for (o, c, full), cost, n, b in zip(pending, costs, shown, briefs, strict=True)]


def _widened(tail: TailRenderer, start: int, budget: int) -> tuple[str | None, int]:
    """The kept rounds from round `start` at the largest cap within `budget` (text, estimated cost)."""
    numbers = [r.number for r in tail.rounds]
    first = numbers.index(start) if start in numbers else len(numbers) - 1
    kept = tail.per_round[first:]
    pieces = [p for each in kept for p in each]
    overhead = ROUND_HEADING_TOKENS * len(kept)
    cap = _largest_cap(pieces, budget, overhead=overhead)
    if cap is False:
        return None, 0
    cost = sum(p.cost(cap) for p in pieces) + overhead
    if first == 0 and cap is None and tail.holds_session() and not tail.cuts_outputs() \
            and (fuller := tail.with_written(budget - cost)):
        return fuller[0], cost + fuller[1]  # the whole session uncut, and room for what its file tools wrote
    return render_rounds(tail.rounds[first:], kept, cap), cost


def _older(rounds: list[Round], start: int, room: int, code: bool, steering: Steering,
           cwd: str | None = None, lang: str = "en", *, ends: bool = True,
           output_most: int | None = TOOL_OUTPUT_MOST,
           later: dict[str, int] | None = None) -> tuple[list[str], int, int]:
    """Rounds before round `start` joining the verbatim tail, newest first, each with the largest
    standard cap that fits; room still left then widens their caps, newest first; then the round that
    did not fit even at the smallest cap shows its last messages (`round_end`) in what is left: the
    newest round always, an older one with `ends`.
    (texts oldest first, the oldest round shown whole or `start`, the round shown in part or 0). `later`:
    the tool outputs the rounds from `start` show (`outputs_shown`): one an older round repeats points there."""
    budget_chars = max(room * 64, 1_000_000)  # bounded work: never encode far more text than the room shows
    at = start - 1  # round numbers are 1-based: rounds[at - 1] is the round before
    added: list[_Added] = []  # newest first
    too_big: list[_Piece] | None = None
    while at >= 1 and room > 40 and budget_chars > 0:
        rnd = rounds[at - 1]
        pieces = round_pieces(rnd, code, steering, cwd, output_most)  # each message closed by a blank line
        point_repeats(pieces, later if later is not None else {})
        budget_chars -= sum(len(m.text) + sum(len(r.content) for r in m.tool_results) for m in rnd.messages)
        cap = _largest_cap(pieces, room)
        if cap is False:
            too_big = pieces
            break
        one = _Added(rnd.number, pieces, cap)
        added.append(one)
        room -= one.cost()
        at -= 1
    for one in added:
        if room <= 40 or one.cap is None:
            continue
        before = one.cost()
        cap = _largest_cap(one.pieces, before + room)
        if cap is not False and (cap is None or cap > one.cap):
            one.cap = cap
            room -= one.cost() - before
    texts = [a.render() for a in reversed(added)]
    first = added[-1].number if added else start
    if too_big is not None and room > _PARTIAL_TAIL_ROOM and (ends or at == len(rounds)):
        end, _ = round_end(at, too_big, room, lang)
        if end:
            return [end, *texts], first, at
    return texts, first, 0


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
    lo, hi = 30, max((p.n for p in pieces), default=30)
    if cost(lo) > room:
        return False
    while lo < hi:  # cost grows with the cap: the largest cap that still fits
        mid = (lo + hi + 1) // 2
        if cost(mid) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo
