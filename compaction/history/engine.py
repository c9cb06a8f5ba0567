"""The compaction engine: the seed's rules (§1, §3, §6, §7) applied to a transcript under a token budget.

Facts are gathered for every round (so the summary lists every modified file, not only those in the
verbatim tail) from the registered sources (`sources/`, one per fact kind); the last rounds are kept
verbatim (none reserved at a tight target); then facts are chosen by the seed's priority
(`sections.Section`) — goal > completed actions > modified files > decisions and constraints (with
error memory) > next steps — except that, when the optional facts do not all fit, the sections after the completed
actions first get each a share (`SHARES`: what a successor asks about most, most) so none is left
empty. Markers and the error-memory block are never dropped. The engine knows no fact
kind: it selects, shortens and renders by section.
"""

from __future__ import annotations

import copy
import re
import time
from pathlib import Path

from compaction import tokens
from compaction.config import Settings
from compaction.errors.records import ErrorRecord
from compaction.events import Event, Pairings, extract_events
from compaction.history import errors_adapter, facts, fill, fit, overlap, project_root
from compaction.history.condense import ask_count, run_gist
from compaction.history.facts import GOAL_CAP, MIN_FACT_TOKENS, RULES_POINTER, TIGHT_TARGET, Fact, cite
from compaction.history.headings import h
from compaction.history.sections import LAST_ROOM, Section
from compaction.history.sources import FactContext, gather, modified, problems
from compaction.history.steering import RolePreset, Steering, parse_instructions, role_preset, strip_code
from compaction.history.tail import TOOL_OUTPUT_MOST, TailRenderer, outputs_level
from compaction.history.telegraph import telegraphic
from compaction.mdsafe import escape_path
from compaction.model import Role, Transcript
from compaction.summary import CompactionResult, Item, Stats, Summary
from compaction.transcripts._fences import FENCE_LINE

DOC_EM_SHARE = 0.10  # the document's error records also say what failed (once, not again under Problems)
TAIL_SHARE = 0.25  # the verbatim tail's share of a target that is not tight (0.35 until the hand-over exam showed
# the last quarter's questions answered 91%, the first three quarters' 86%: the room goes to the facts of all rounds)


def default_target(tokens_before: int, window: int) -> int:
    """Without an explicit target: about 15% of the conversation, at least 2,000 tokens, and never more
    than the error-memory-sized 10% of the context window would make unreasonable."""
    return max(1000, min(int(window * 0.10), max(2000, int(tokens_before * 0.15))))


def compact(
    transcript: Transcript,
    settings: Settings | None = None,
    *,
    target_tokens: int | None = None,
    keep_recent: int | None = None,
    role: str | None = None,
    instructions: str | None = None,
    lang: str | None = None,
) -> CompactionResult:
    """Compact a loaded transcript within its target, whatever the session (issue 13 item 5): the 70%
    trigger and `min_rounds` belong to the automatic paths. A session whose whole text fits the target
    comes back unchanged (its summary still filled); otherwise the required facts come first, the rest
    of the budget is spent by value (`fill`), and a budget too small for every must-keep item shrinks
    them to one line each (`fit`) rather than lose one."""
    started = time.perf_counter()
    settings = settings or Settings()
    lang = lang or settings.lang
    preset = role_preset(role or settings.role)
    steering = parse_instructions(instructions)
    keep = settings.keep_recent if keep_recent is None else keep_recent
    window = tokens.context_window(settings.model, settings.context_window)

    rounds = transcript.rounds
    keep = min(keep, len(rounds))
    head_rounds, tail_rounds = rounds[: len(rounds) - keep], rounds[len(rounds) - keep:]
    tail_start = tail_rounds[0].number if tail_rounds else len(rounds) + 1

    def tail_pieces() -> TailRenderer:  # the kept rounds' pieces, counted (they read the messages' counts)
        return TailRenderer(tail_rounds, preset.code, steering)

    if target_tokens is None:  # the default target is a share of the session: counted first
        tokens_before = tokens.count_messages(transcript.messages)
        counted = lambda: tokens_before  # noqa: E731
        tail_made = tail_pieces
    else:  # counted on a second core while the events and facts are read (nothing reads the counts
        # before), then the verbatim tail's pieces are counted there too
        counting = tokens.count_messages_meanwhile(transcript.messages, then=tail_pieces)
        counted, tail_made = counting, counting.then
    fact_room = (target_tokens or default_target(counted(), window)) // MIN_FACT_TOKENS
    pairings: Pairings = {}  # each round's calls paired with their results: once, for the events and the sources
    events = extract_events(transcript, max_requests=fact_room + 1, pairings=pairings)  # the current request and the room
    records, _ = errors_adapter.scan(transcript, events)
    # Paths print relative to the recorded cwd, else to the root the session's own commands show (display only)
    cwd = transcript.cwd or project_root.infer_root(events, lambda: (
        (m.full_text() for m in transcript.messages if m.role is Role.ASSISTANT),
        (m.full_text() for role in (Role.USER, Role.TOOL, Role.SYSTEM) for m in transcript.messages if m.role is role)))

    target = target_tokens or default_target(counted(), window)

    # --- facts: every registered source (compaction.history.sources), in section order ----------
    shown_records = errors_adapter.filter_for_role(records, preset)
    ctx = FactContext(transcript=transcript, events=events, records=shown_records, preset=preset, cwd=cwd,
                      n_rounds=len(rounds), target_tokens=target, lang=lang, pairings=pairings)
    all_facts = _said_once(_steer(gather(ctx), steering, preset))
    tokens_before = counted()

    if tokens_before < target:  # the whole session may fit: then it is returned as it is
        whole = TailRenderer(rounds, preset.code, steering, output_most=None)
        whole.relative_to(cwd)
        text = whole.render(10**12)[0]  # what the user asked to ignore stays out
        note = f"{len(rounds)} rounds, {tokens_before} tokens: within the {target}-token target, returned unchanged"
        markdown = f"# {h(lang, 'unchanged')}\n\n> {note}\n\n{text}\n"
        if tokens.count(markdown) <= target:
            return _result(transcript, markdown, _summary_model(all_facts), records, "", tokens_before, started,
                           target_tokens, kept=[r.number for r in rounds], compacted=False, note=note, lang=lang,
                           preset=preset, events=events, root=cwd)

    # --- fixed parts: header, error memory, dropped account ---------------------------------------
    tight = target < TIGHT_TARGET
    header = _header(transcript, lang, len(rounds), tail_start, cwd, tight)
    if not preset.code:
        header = header.replace("`", "")
    em_share = 0.15 if tight else 0.25
    em_ceiling = max(100, min(int(window * settings.error_memory_share), int(target * em_share)))
    em_block = em_doc = ""
    said_by_em: list[Fact] = []  # the Problems lines of the records the document's block shows
    in_block: set[str] = set()  # the ids those records go by (aliases included)
    if preset.error_memory:
        ignored = steering.ignored if steering.ignore else None
        em_block, _ = errors_adapter.render_block(shown_records, lang, em_ceiling, len(rounds), ignored=ignored)
        if shown_records:  # an error memory with no record is not shown: its protocol would guard nothing
            doc_ceiling = max(100, min(int(window * settings.error_memory_share), int(target * (em_share + DOC_EM_SHARE))))

            def em_document(told: dict[str, list[Fact]]) -> tuple[str, set[str]]:
                return errors_adapter.document_block(
                    shown_records, lang, doc_ceiling, len(rounds), ignored=ignored,
                    detail=lambda r, brief: problems.record_detail(r, cwd, transcript.messages, brief, told.get(r.id, [])),
                    clean=lambda r: (problems.record_solution(r, cwd), problems.paths(r.avoidance or "", cwd)))

            em_doc, in_block = em_document({})
            said_by_em = [f for f in all_facts if f.section is Section.PROBLEMS and f.error_id in in_block]
            all_facts = [f for f in all_facts if not (f.section is Section.PROBLEMS and f.error_id in in_block)]
    reads_total, _ = facts.reads_dropped(events, tail_start)
    outputs_dropped = sum(1 for r in head_rounds for m in r.messages for _ in m.tool_results)
    # Every line must answer something: the counts of what was summarized live in the stats.
    dropped = ""  # the error memory's own notes say what its budget merged or dropped
    fixed_tokens = tokens.count(header) + tokens.count(em_doc) + tokens.count(dropped) + 40

    # --- the verbatim tail gets a share of the budget, none when the budget is tight (the current work
    # section says the last words and calls; the filler still adds the last rounds when room is left:
    # measured on the hand-over exam, a tight tail only repeated what facts say); the summary gets
    # what the tail leaves. If the real count is still over, the tail shrinks and the summary is
    # chosen again for the room that frees, before optional facts are dropped one by one.
    share = 0.0 if tight else TAIL_SHARE
    tail_renderer = tail_made()
    tail_renderer.relative_to(cwd)
    for tail_share in dict.fromkeys((share, share * 0.6, share * 0.3, 0.0)):  # a tight target tries once
        tail_text, tail_cut = tail_renderer.render(int(target * tail_share))
        shown = tail_rounds[tail_cut:]  # the oldest kept rounds give way first when the tail is tight
        shown_start = shown[0].number if shown else len(rounds) + 1
        summary_budget = target - fixed_tokens - tokens.count(tail_text) - int(target * 0.02)
        pool = [copy.copy(f) for f in all_facts]
        chosen = _choose(pool, summary_budget, shown_start, held_problems=tokens.count(em_doc),
                         records_part=max(0, tokens.count(em_doc) - tokens.count(em_block)), shown=em_doc,
                         tail=tail_text)
        markdown = _render(lang, header, chosen, em_doc, dropped, tail_text, shown_start, len(rounds))
        used = tokens.count(markdown)
        if used <= target:
            break
    # Still over (facts cost a little more once rendered): drop the least important optional facts
    # worth the excess at once, then shorten essentials; one real count per pass.
    over = used - target
    guard = 0
    while over > 0 and guard < 50:
        guard += 1
        optional = sorted((f for f in chosen if not f.essential and f.section is not Section.MARKED and not f.task),
                          key=lambda f: (f.rank(), -f.score), reverse=True)
        if optional:
            freed = 0
            for f in optional:
                chosen.remove(f)
                freed += tokens.count(f.text) + 6
                if freed >= over:
                    break
        elif not _shorten_essentials(chosen) and not _shrink_task(chosen):
            break
        markdown = _render(lang, header, chosen, em_doc, dropped, tail_text, shown_start, len(rounds))
        used = tokens.count(markdown)
        over = used - target

    if over > 0:  # the budget wins: must-keep items one line each, nothing dropped
        markdown = fit.squeeze(lambda hd, facts_, em, dr: _render(lang, hd, facts_, em, dr, "", 0, len(rounds)),
                               chosen, shown_records if preset.error_memory else [], lang=lang,
                               source=Path(transcript.path).name, target=target, block=em_doc)
        shown = []
    else:  # the required facts fit: spend the rest by value
        def render_draft(d: fill.Draft) -> str:
            tail = "\n\n".join([*d.extra, d.tail_text] if d.tail_text else d.extra)
            hdr = header
            first_shown = d.partial or d.shown_start  # a round shown by its end is the first shown, in part
            if d.extra:  # older rounds joined the verbatim ones: the header says from where
                hdr = _header(transcript, lang, len(rounds), first_shown, cwd, tight)
                hdr = hdr if preset.code else hdr.replace("`", "")
            return _render(lang, hdr, d.chosen, em_doc, dropped, tail, d.shown_start, len(rounds), first_shown)

        start = fill.Draft(chosen, tail_text, shown_start)
        origin = dict(zip(map(id, pool), all_facts, strict=True))
        markdown, draft = fill.fill(render_draft, start, target=target, origin=origin, all_facts=all_facts,
                                    tail=tail_renderer, rounds=rounds, code=preset.code, steering=steering,
                                    held=em_doc, lang=lang, rendered=(markdown, used))
        chosen = draft.chosen
        shown = rounds[draft.shown_start - 1:]
        # A refused edit a chosen Problems line tells (its cause, what ended it) is not retold in its
        # record's `Error:` line: one place. Kept only when it shows the same records and is no longer.
        told: dict[str, list[Fact]] = {}
        kept_told: set[str] = set()  # the Problems lines that now tell a record's refused edit in its stead
        for f in chosen:
            if f.section is Section.PROBLEMS and f.tells and f.tells in in_block:
                told.setdefault(f.tells, []).append(f)
        if told:
            em_told, in_told = em_document(told)
            if in_told == in_block:
                em_doc, before, em_before = em_told, markdown, em_doc
                markdown = render_draft(draft)
                if tokens.count(markdown) > tokens.count(before):
                    markdown, em_doc = before, em_before
                else:
                    kept_told = {f.text for fs in told.values() for f in fs}
        if preset.code and tokens.count(markdown) < fill.FULL * target:
            # room is left with every round that fits shown: the tool outputs kept short for older rounds' sake
            # grow by what is left (their level solved from their sizes), else they are shown as they were
            def refill(most: int | None) -> tuple[str, fill.Draft]:
                renderer = TailRenderer(tail_rounds, preset.code, steering, output_most=most)
                renderer.relative_to(cwd)
                return fill.fill(render_draft, start, target=target, origin=origin, all_facts=all_facts,
                                 tail=renderer, rounds=rounds, code=preset.code, steering=steering, held=em_doc,
                                 lang=lang)

            first = draft.partial or draft.shown_start
            have = tokens.count(markdown)
            level = outputs_level(rounds[first - 1:], TOOL_OUTPUT_MOST, int(fill.ROOMY * target) - have)
            for most in (level, None) if level is not None else ():
                md, d = refill(most)
                n = tokens.count(md)
                if have < n <= target and (most is None or (d.partial or d.shown_start) <= first) \
                        and kept_told <= {f.text for f in d.chosen}:  # what the records no longer say, still said
                    markdown, draft = md, d
                    chosen, shown = draft.chosen, rounds[draft.shown_start - 1:]
                    break
    markdown, note = _polish(markdown, settings, target)
    summary = _summary_model([*chosen, *said_by_em])  # the records' lines: in the block, still the summary's errors
    return _result(transcript, markdown, summary, records, em_block, tokens_before, started, target,
                   kept=[r.number for r in shown], compacted=True, note=note, lang=lang, preset=preset,
                   dropped=(outputs_dropped, reads_total, len(head_rounds)), events=events, root=cwd)


def _said_once(all_facts: list[Fact]) -> list[Fact]:
    """Without the optional findings and problem lines whose words a must-keep Problems line of the
    same round already holds (a failed command's finding beside its error record): one fact, one
    place, so a tight budget buys something else with that room (`overlap.adds`)."""
    said: dict[int, list[str]] = {}
    for f in all_facts:
        if f.essential and f.section is Section.PROBLEMS:
            for r in f.rounds:
                said.setdefault(r, []).append(f.text)
    if not said:
        return all_facts
    out = []
    for f in all_facts:
        if (not f.essential and not f.task and f.section in (Section.FINDINGS, Section.EVIDENCE, Section.PROBLEMS)
                and f.rounds and all(r in said for r in f.rounds)):
            held = " ".join(t for r in f.rounds for t in said[r]).lower()
            if not overlap.adds(f.text, held):
                continue
        out.append(f)
    return out


def _polish(markdown: str, settings: Settings, target: int) -> tuple[str, str | None]:
    """With `llm.enabled` and `llm.polish`, let the model improve the prose. Its output is validated
    (facts it dropped are put back, see compaction.llm) and kept only within the same budget; any
    failure keeps the deterministic document, with a notice."""
    if not (settings.llm.enabled and settings.llm.polish):
        return markdown, None
    from compaction.llm import LLMClient
    from compaction.summarize import llm_polish

    client = LLMClient.from_settings(settings.llm)
    polished, notice = llm_polish(client, markdown)
    if polished != markdown and tokens.count(polished) > target:
        return markdown, "LLM polish discarded: it exceeded the token budget"
    return polished, notice


def _steer(all_facts: list[Fact], steering: Steering, preset: RolePreset) -> list[Fact]:
    out = []
    for f in all_facts:
        if steering.ignore and (steering.ignored(f.text) or (f.full_text and steering.ignored(f.full_text))):
            if f.section is Section.GOAL and f.task:
                f.text = ". ".join(s for s in f.text.split(". ") if not steering.ignored(s))
                if not f.text.strip():
                    continue
            else:
                continue
        if f.prose:  # the agent's narration: its fillers go, its identifiers stay (history.telegraph)
            f.text = telegraphic(f.text)
            f.short = telegraphic(f.short) if f.short else None
        if steering.keep and steering.kept(f.text):
            f.essential = True
            f.score += 100
        if not preset.code:
            f.text = strip_code(f.text)
            f.short = strip_code(f.short) if f.short else None
            if f.section is Section.COMPLETED and not f.text.startswith("Commit"):
                continue
        if preset.tests_first and f.section is Section.COMPLETED and not f.test:
            f.essential = False
            f.score -= 20
        out.append(f)
    return out


# What a successor asks about, by the sections after the completed actions (the hand-over questions:
# what changed and what failed most, then the findings, the decisions and the requests; the rules and
# the next step least): each one's share of the room the facts before them leave, when the optional
# facts do not all fit. A share a section does not use flows on; what is left then goes by priority.
SHARES: tuple[tuple[Section, float], ...] = (
    (Section.CHANGES, 0.26), (Section.PROBLEMS, 0.18), (Section.FINDINGS, 0.18), (Section.DECISIONS, 0.14),
    (Section.GOAL, 0.14), (Section.RULES, 0.05), (Section.NEXT, 0.05),
)
# What the agent learned from its reads answers the same questions as its findings: one share for both,
# their facts served by value (their scores say which line says more).
_SHARE_OF = {Section.EVIDENCE: Section.FINDINGS}


# The task's share of the summary's budget is facts.GOAL_CAP: a longer request is shown condensed (its
# pastes trimmed, then its best sentences: sources/task.py) and the filler gives its full text back
# last, when the other sections had their room.
PASTE_TRIM_SHARE = 0.5  # of the task's share: a task longer than this shows its pastes trimmed first
GOAL_FLOOR = 160  # tokens: the task's opening, its closing sentence and the harness's first step still fit


END_STATE_CHARS = 120


def _told_beside_tail(f: Fact) -> bool:
    """A line the verbatim tail does not stand for: the task, a completed action (the tail may elide a command
    in a long output), and a short line of where the work stopped ("Last calls: finish", "The user then left
    the session"): fastjson2's tail held every round, and its "Current work" said only an r12 test run; that
    the agent had finished ("All done!", r20) was in the tail alone, below 80 KB of outputs."""
    return f.section in (Section.GOAL, Section.COMPLETED) or (
        f.section is Section.CURRENT and len(f.text) <= END_STATE_CHARS)


def _choose(all_facts: list[Fact], budget: int, tail_start: int | None = None, held_problems: int = 0,
            records_part: int = 0, shown: str = "", tail: str = "") -> list[Fact]:
    """Essentials first (full text, else their short form); then by priority the optional facts up to
    the completed actions (the seed's order); then, when the rest do not all fit, every later section
    its most valuable facts up to its share (`SHARES`), so no kind of question is left without an
    answer; then the rest by priority and score. An optional fact from the rounds the verbatim tail
    shows (from `tail_start`) would say it twice, except a completed action (the tail may elide a
    command in the middle of a long output), or a quote of the agent's the tail elides (`tail`: its text,
    `facts.tail_says`). `held_problems`: what the error-memory block holds (it
    counts against the problems' share); `shown`: the document's other text (the error-memory block),
    whose words a line need not repeat."""
    texts = [f.text for f in all_facts]
    costs = dict(zip(map(id, all_facts), (n + 6 for n in tokens.count_many(texts)), strict=False))
    # the task's cap is of what the summary says, the error records' failures (now in their block,
    # `records_part`) included, as when they were Problems lines
    goal_cap = max(GOAL_FLOOR, int((budget + records_part) * GOAL_CAP))
    chosen: list[Fact] = []
    used = 0
    ordered = sorted(all_facts, key=lambda f: (not f.essential, f.rank(), -f.score))
    optional: list[Fact] = []
    for f in ordered:
        if not f.essential and not f.task and f.section is not Section.MARKED:
            if not (tail_start is not None and not _told_beside_tail(f) and not f.pending
                    and f.rounds and min(f.rounds) >= tail_start and facts.tail_says(f, tail)):
                optional.append(f)  # else the verbatim tail says it (a state-changing command stays listed)
            continue
        cost = costs[id(f)]
        if f.section is Section.GOAL and f.task and cost > goal_cap * PASTE_TRIM_SHARE and f.long_paste \
                and cost <= goal_cap and (gentle := tokens.count(f.forms[0]) + 6) < cost:
            # Past half its share: its pastes trimmed gently first (a system report's forty lines of versions),
            # the whole given back by the filler when all else fits (`fill`: a longer form).
            f.full_text, f.text, cost = f.text, f.forms[0], gentle
        elif f.section is Section.GOAL and f.task and cost > goal_cap:
            # Over its share: its pastes trimmed first (the prose stays whole), then head and tail.
            f.full_text = f.text
            fitting = next((t for t in f.forms if tokens.count(t) + 6 <= goal_cap), None)  # the longest: no more counted
            f.text = fitting if fitting is not None else _truncate_tokens(f.forms[-1] if f.forms else f.text, goal_cap)
            cost = min(goal_cap, tokens.count(f.text) + 6)
        if used + cost <= budget or f.section is Section.MARKED or f.task:
            chosen.append(f)
            used += cost
        elif f.essential and f.short:
            short_cost = tokens.count(f.short) + 6
            if used + short_cost <= budget:
                f.text, f.short = f.short, None
                chosen.append(f)
                used += short_cost
            elif f.section in (Section.MODIFIED, Section.GOAL):
                f.text, f.short = f.short, None  # never lose a modified file or the task: others give way
                chosen.append(f)
                used += short_cost
    # A change record takes its file's line in the list when both are shown (modified.with_changes):
    # it costs what it adds to that line.
    listed = {f.path: costs[id(f)] for f in chosen if f.section is Section.MODIFIED and f.path}
    for f in optional:
        if f.section is Section.CHANGES and f.path in listed:
            costs[id(f)] = max(6, costs[id(f)] - listed[f.path] + 4)
    # The seed's order up to the completed actions (markers, where the work stands, what was done)
    # stays by priority; the sections after them share what is left.
    early = [f for f in optional if f.rank() <= Section.COMPLETED.priority]
    optional = [f for f in optional if f.rank() > Section.COMPLETED.priority]
    for f in early:
        if used + costs[id(f)] <= budget:
            chosen.append(f)
            used += costs[id(f)]
    room = budget - used
    said = overlap.Held([shown, *(f.text for f in chosen)])  # a line whose words the document holds only costs room
    if sum(costs[id(f)] for f in optional) > room > 0:
        # what the must-keep facts (and the error records, for the problems) already give each section
        # counts against its share
        held: dict[Section, int] = {Section.PROBLEMS: held_problems} if held_problems else {}
        for f in chosen:  # the task and the current request are the seed's goal, outside the shares
            if f.section is not Section.GOAL:
                key = _SHARE_OF.get(f.section, f.section)
                held[key] = held.get(key, 0) + costs[id(f)]
        taken = _shares(optional, costs, room, held, said)  # may show some fuller: their costs updated
        chosen.extend(taken)
        used += sum(costs[id(f)] for f in taken)
        picked = set(map(id, taken))
        optional = [f for f in optional if id(f) not in picked]
    for f in optional:
        if f.section in LAST_ROOM:
            continue  # the filler's, once the verbatim tail holds where the work stopped (fill._plan)
        if used + costs[id(f)] > budget:
            _shorter(f, costs)
        cost = costs[id(f)]
        if used + cost <= budget and (f.section not in fill.SAID_ONCE or said.adds(f.text)):
            chosen.append(f)
            said.add(f.text)
            used += cost
    return _without_rules_again(chosen)


def _without_rules_again(chosen: list[Fact]) -> list[Fact]:
    """Without a constraint the project's rules shown say word for word (the harness's "DO NOT MODIFY: Tests,
    …", chosen ahead among the decisions so no harness's sessions lose it): its room goes to the filler."""
    rules = " ".join(" ".join(f.text.split()) for f in chosen if f.section is Section.RULES)
    if not rules:
        return chosen
    return [f for f in chosen if f.section is not Section.DECISIONS or " ".join(f.text.split()) not in rules]


def _shares(optional: list[Fact], costs: dict[int, int], room: int, held: dict[Section, int] | None = None,
            said: overlap.Held | None = None) -> list[Fact]:
    """Each section's most valuable optional facts, the section furthest below its share of `room`
    served next (ties: the larger share first), so every section gets its best fact before any gets a
    second; a section stops at its share (its first fact excepted) and what it leaves flows on to the
    by-priority pass. A fact with no round is a note about the document, not an answer: left to it.
    A share is of the section's whole content: what its must-keep facts already hold (`held`) counts
    against it, else a section made must-keep (the error records) would leave its whole share unused and
    that share would flow to another section's fuller texts before the requests got theirs. A fact
    whose words the facts taken before it hold (`said`) is passed over: it would only cost room. A fact ranked
    LEFTOVER_PRIORITY is no section's: the by-priority pass takes it with what is left."""
    queues: dict[Section, list[Fact]] = {}
    for f in optional:
        if f.rounds and f.rank() < facts.LEFTOVER_PRIORITY:
            queues.setdefault(_SHARE_OF.get(f.section, f.section), []).append(f)
    for q in queues.values():
        q.sort(key=facts.value)  # most valuable last: popped first
    held = held or {}
    shared = {section for section, _ in SHARES}
    spent = {section: held.get(section, 0) for section in shared}
    taken: list[Fact] = []
    total = room + sum(spent.values())
    got: set[Section] = set()  # sections with an optional fact taken: the first one is taken over the share
    while True:
        best: tuple[float, int, Section] | None = None
        for i, (section, share) in enumerate(SHARES):
            q = queues.get(section)
            while q and costs[id(q[-1])] > room:
                _shorter(q[-1], costs)
                if costs[id(q[-1])] > room:
                    q.pop()  # does not fit what is left, not even in its short form: a smaller one may
            if q and section in got and spent[section] + costs[id(q[-1])] > share * total:
                _shorter(q[-1], costs)  # over the share whole: its short form may be within it
                if spent[section] + costs[id(q[-1])] > share * total:
                    continue
            if not q:
                continue
            key = (spent[section] / share, i, section)
            if best is None or key[:2] < best[:2]:
                best = key
        if best is None:
            break
        f = queues[best[2]].pop()
        if said is not None:
            if f.section in fill.SAID_ONCE and not said.adds(f.text):
                continue
            said.add(f.text)
        got.add(best[2])
        taken.append(f)
        spent[best[2]] += costs[id(f)]
        room -= costs[id(f)]
    # What a section's share still holds shows its chosen facts fuller (a change record's per-edit
    # lines), most valuable first; the shares of sections with nothing to show fuller, and what a
    # section leaves, flow on in share order, less what the facts not taken cost in their lines: those
    # come first, in the by-priority pass (a session that wrote sixty files keeps each file's line; given
    # to the fuller records, that room left 29 files as bare names). A request's full text is not among
    # them: the by-priority pass shows more requests short first, and the filler gives full texts back last.
    fuller = {_SHARE_OF.get(f.section, f.section) for f in taken if f.full_text and f.section is not Section.GOAL}
    picked = set(map(id, taken))  # waiting: what the facts not taken that fit the room left cost
    waiting = sum(c for f in optional if id(f) not in picked and f.rounds and (c := costs[id(f)]) <= room)
    unused = sum(max(0, int(share * total) - spent.get(section, 0)) for section, share in SHARES if section not in fuller)
    carry = max(0, min(unused, room - waiting))
    for section, share in SHARES:
        if section not in fuller:
            continue
        allowance = min(room, int(share * total) - spent.get(section, 0) + carry)
        for f in sorted((f for f in taken if _SHARE_OF.get(f.section, f.section) is section and f.full_text),
                        key=lambda f: -f.score):
            if allowance <= 0:
                break
            full_cost = tokens.count(f.full_text) + 6
            grown = (f.full_text, full_cost) if full_cost - costs[id(f)] <= allowance else \
                fill.leading_lines(f.full_text, costs[id(f)] + allowance, f.text)
            if grown is not None and grown[1] > costs[id(f)]:
                allowance -= grown[1] - costs[id(f)]
                room -= grown[1] - costs[id(f)]
                f.text, costs[id(f)] = grown
        carry = max(0, allowance)
    return taken


def _shorter(f: Fact, costs: dict[int, int]) -> None:
    """Show an optional fact in its short form (`Fact.short`: one clause, the path's base name) when
    the whole does not fit: a concrete line said shorter answers more than a dropped one. The filler
    gives the whole back when room is left (only optional facts come here). Its cost in `costs` says
    whether it changed (a fact without a shorter form keeps its own)."""
    if not f.short:
        return
    n = tokens.count(f.short) + 6
    if n >= costs[id(f)]:
        return
    f.text, f.short = f.short, None
    costs[id(f)] = n


def _truncate_tokens(text: str, limit: int) -> str:
    """Head 60% and tail 35% of the tokens; the tail starts at a sentence or line boundary so a
    request's closing sentence survives whole."""
    enc = tokens.encoding()
    if tokens.counted_exactly(text):  # its count is remembered (the forms were costed): encode the ends only
        if tokens.count_many([text])[0] <= limit:
            return text
        head_ids, tail_ids = tokens.head_ids(text, int(limit * 0.6)), tokens.tail_ids(text, max(1, int(limit * 0.35)))
    else:
        ids = enc.encode_ordinary(text)
        if len(ids) <= limit:
            return text
        head_ids, tail_ids = ids[: int(limit * 0.6)], ids[-max(1, int(limit * 0.35)):]
    head = enc.decode(head_ids)
    end = max(head.rfind("\n"), head.rfind(" "))
    if end > len(head) * 0.8:  # the head ends at a word's end, not inside a name (`return _wra […]`)
        head = head[:end]
    start = len(text) - len(enc.decode(tail_ids))
    # Start the kept tail where its sentence starts (a few tokens more), so the closing sentence
    # of a request is whole.
    boundary = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start))
    if boundary >= len(head) and start - boundary <= 300:
        start = boundary + 1
    return f"{head} […] {text[start:].lstrip()}"


def _shrink_task(chosen: list[Fact]) -> bool:
    """Last resort for tiny budgets: the task's next shorter form (`Fact.forms`: pastes trimmed, then
    condensed), else a shorter head and tail (never below 40 tokens)."""
    for f in chosen:
        if f.task:
            shorter = [t for t in f.forms if len(t) < len(f.text)]
            if shorter:
                f.full_text = f.full_text or f.text
                f.text = shorter[0]
                return True
            n = tokens.count(f.text)
            if n <= 40:
                return False
            f.text = _truncate_tokens(f.text, max(40, int(n * 0.7)))
            return True
    return False


def _shorten_essentials(chosen: list[Fact]) -> bool:
    """Replace the lowest-priority essential that has a short form by it; False when none is left."""
    for f in sorted(chosen, key=lambda f: -f.section.priority):
        if f.short:
            f.text, f.short = f.short, None
            return True
    return False


def _header(t: Transcript, lang: str, n_rounds: int, tail_start: int, cwd: str | None, tight: bool = False) -> str:
    """The title and where the facts come from; what one round is, unless the budget is tight (the few
    tokens it costs are a fact's: a 2,000-token document lost a request's "100%" to it)."""
    lines = [f"# {h(lang, 'title')}", ""]
    lines.append(f"> Source: `{escape_path(Path(t.path).name)}` ({t.format}), {n_rounds} rounds"
                 f"{'' if tight else _round_is(t)}: facts "
                 f"from every round below{_TAIL_CLAUSE.format(span=_span(tail_start, n_rounds))}.")
    if cwd and cwd != t.cwd:  # inferred (`project_root`): the reader resolves the relative paths with it
        lines.append(f"> {h(lang, 'root')}: `{escape_path(cwd)}` ({h(lang, 'root_inferred')})")
    elif cwd and not t.meta.get("cwd_assumed"):  # a caller's stand-in (the hook's workspace) is no record
        lines.append(f"> {h(lang, 'cwd')}: `{escape_path(cwd)}` (recorded in the transcript)")
    return "\n".join(lines)


def _round_is(t: Transcript) -> str:
    """What one round (the document's `rN`) is in this session: a reader cannot tell a user's turn from one step
    of the agent, and the formats differ (a Copilot export's round is the user's message and all the work on it;
    a mini-swe-agent's, one reply with its command's output). By what opens the rounds, not by the format's name."""
    if len(t.rounds) < 2:
        return ""
    by_user = sum(1 for r in t.rounds  # a harness note (a client's caveat) may come first in a user's round
                  if next((m.role is Role.USER for m in r.messages if m.role is not Role.SYSTEM and not m.harness), False))
    if by_user == len(t.rounds):
        return " (a round: a user message and the work on it)"
    if by_user * 2 <= len(t.rounds):
        return " (a round: one agent step and its output)"
    return " (a round: a user message or an agent step)"


_TAIL_CLAUSE = "; the most recent rounds ({span}) verbatim at the end"
_TAIL_CLAUSE_RE = re.compile(re.escape(_TAIL_CLAUSE).replace(r"\{span\}", r"r\d+(?:-r\d+)?"))


def _span(first: int, last: int) -> str:
    return f"r{first}" if first >= last else f"r{first}-r{last}"


def _render(lang: str, header: str, chosen: list[Fact], em_block: str, dropped: str, tail: str,
            tail_start: int, n_rounds: int, span_start: int | None = None) -> str:
    if not tail:  # no round is shown verbatim: the header promises none
        header = _TAIL_CLAUSE_RE.sub("", header, count=1)
    else:  # the rounds the tail shows, as its heading names them (the filler may have moved its start)
        shown = _TAIL_CLAUSE.format(span=_span(span_start or tail_start, n_rounds))
        header = _TAIL_CLAUSE_RE.sub(lambda _: shown, header, count=1)
    by_section: dict[Section, list[Fact]] = {s: [] for s in Section}
    for f in chosen:
        by_section[f.section].append(f)
    by_section[Section.MODIFIED], by_section[Section.CHANGES] = modified.with_changes(
        by_section[Section.MODIFIED], by_section[Section.CHANGES])  # one line per file, with its change
    parts = [header]
    rules_shown = bool(by_section[Section.RULES])  # the task's pointer to them points nowhere without them
    for section in Section:
        items = by_section[section]
        if section is Section.CURRENT:  # what the verbatim tail shows is not said twice
            items = [f for f in items if f.pending or not f.rounds or min(f.rounds) < tail_start or not tail
                     or _told_beside_tail(f)]
        elif section is Section.EXCERPTS and tail:  # what the tail shows (older rounds joined it since); a
            # file's text as the session left it is no round's (`fill._plan`)
            items = [f for f in items if f.rounds and min(f.rounds) < (span_start or tail_start)]
        if items:
            # by round; the current request last among its round's messages (pi's "stop doing shit!" then
            # "just write a little poem": one round, the latest is the request)
            items.sort(key=lambda f: (min(f.rounds) if f.rounds else 0,
                                      section is Section.GOAL and f.essential and not f.task))
            lines = [f"## {section.heading(lang)}"]
            for f in items:
                c = cite(f.rounds)
                # a text that ends with a fence's closing line takes its round on a line of its own: "``` (r1)"
                # closes nothing, and the rest of the document would read as code
                closes = FENCE_LINE.match(f.text.rsplit("\n", 1)[-1]) is not None and "\n" in f.text
                text = f.text if (not c or c in f.text) else f"{f.text}\n{c}" if closes else f"{f.text} {c}"
                if tail and section is Section.GOAL and not f.task and f.rounds and min(f.rounds) >= tail_start:
                    text = _pointer(f.text, c)  # the verbatim rounds below quote it whole
                if section is Section.GOAL and not rules_shown:
                    text = text.replace(RULES_POINTER, "…]")
                if section in (Section.GOAL, Section.RULES, Section.CURRENT) and "\n" in text:
                    text = text.replace("\n", "\n  ")
                lines.append(f"- {text}")
            parts.append("\n".join(lines))
        if section is Section.PROBLEMS and em_block:
            parts.append(f"{em_block}\n\n{dropped}" if dropped else em_block)
    if tail:
        # facts from `tail_start` on are the tail's; the tail may show an older end
        parts.append(f"## {h(lang, 'recent')} ({_span(span_start or tail_start, n_rounds)})\n\n{tail}")
    return "\n\n".join(parts) + "\n"


def _pointer(text: str, c: str) -> str:
    """A request the verbatim tail quotes: its opening words and where the rest is."""
    flat = " ".join(text.split())
    if len(flat) <= 140:
        return f"{flat} {c}".rstrip()
    answered = ANSWERED_RE.search(flat)  # whether the agent answered it is no part of the quote: kept
    label, _, said = text.partition(": ")
    # a pasted test run: its counts and what failed, not its first passing tests' lines
    gist = run_gist(said, 120) if said and ask_count(said) == 0 else None
    opening = f"{label}: {gist}" if gist else flat[:120].rstrip() + "…"
    return f"{opening}{answered.group() if answered else ''} {c} [whole in the recent rounds below]"


ANSWERED_RE = re.compile(r" \(answered(?: r\d+)?\)$")  # task.py's note on a current request the session's last reply answered


def _summary_model(chosen: list[Fact]) -> Summary:
    buckets: dict[str, list[Item]] = {s.summary_field: [] for s in Section}
    for f in sorted(chosen, key=lambda f: min(f.rounds) if f.rounds else 0):
        if f.section is Section.MODIFIED and f.scratch or f.section in LAST_ROOM:
            continue  # not in the work tree any more (the Markdown says so), or texts shown whole
        text = (f.path or f.text) if f.section is Section.MODIFIED else f.text
        buckets[f.section.summary_field].append(Item(text=text, rounds=sorted(set(f.rounds))))
    return Summary(**buckets)


def _result(t: Transcript, markdown: str, summary: Summary, records: list[ErrorRecord], em_block: str,
            tokens_before: int, started: float, target: int | None, *, kept: list[int], compacted: bool,
            note: str | None, lang: str, preset: RolePreset, events: list[Event],
            dropped: tuple[int, int, int] = (0, 0, 0), root: str | None = None) -> CompactionResult:
    tokens_after = tokens.count(markdown)
    shown = errors_adapter.filter_for_role(records, preset) if preset.error_memory else []
    stats = Stats(tokens_before=tokens_before, tokens_after=tokens_after,
                  ratio=round(tokens_after / tokens_before, 4) if tokens_before else 1.0,
                  elapsed_ms=round((time.perf_counter() - started) * 1000, 2), target_tokens=target,
                  dropped_command_outputs=dropped[0], dropped_file_reads=dropped[1], dropped_rounds=dropped[2],
                  redactions=sum((t.meta.get("redactions") or {}).values()))
    return CompactionResult(format=t.format, transcript=t.path, rounds=len(t.rounds), kept_rounds=kept,
                            compacted=compacted, note=note, cwd=t.cwd, root=root or t.cwd, markdown=markdown, summary=summary,
                            error_memory=errors_adapter.to_out(shown), error_memory_markdown=em_block, stats=stats,
                            events=events, error_records=records)
