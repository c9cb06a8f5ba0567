"""How a tight budget is shared among the sections (issue 14): after the required facts and the completed
actions, every later section gets its most valuable facts up to its share before the by-priority pass,
a share's leftover shows a chosen change record fuller, and older requests are short at tight targets."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.engine import _choose, compact
from compaction.history.facts import TIGHT_TARGET, Fact
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, Transcript, group_rounds


def _requests(n: int) -> list[Fact]:
    """Older requests: by priority (2.5) they come before every later section."""
    return [Fact(Section.GOAL, f"Then asked: please look again at the thing number {i} and tell me about it",
                 [i + 2], score=10 + i * 0.01, priority=2.5) for i in range(n)]


def test_every_later_section_gets_its_best_fact_before_the_requests_fill_the_budget() -> None:
    facts = [Fact(Section.GOAL, "Fix the parser", [1], score=100, essential=True, task=True),
             *_requests(30),
             Fact(Section.CHANGES, "`parse.py` (2 edits): + strict mode", [3], score=50),
             Fact(Section.PROBLEMS, "ERR_PY_KeyError at `parse.py:12`: KeyError 'x'", [4], score=45),
             Fact(Section.FINDINGS, "The tokenizer drops the last line", [5], score=60),
             Fact(Section.DECISIONS, "Use a strict mode flag rather than a new parser", [6], score=40)]
    chosen = _choose(facts, 200)
    sections = {f.section for f in chosen}
    assert {Section.CHANGES, Section.PROBLEMS, Section.FINDINGS, Section.DECISIONS} <= sections
    assert any(f.section is Section.GOAL and not f.task for f in chosen)  # the requests still get their share


def test_a_created_then_edited_files_record_does_not_lose_to_a_smaller_one() -> None:
    big = Fact(Section.CHANGES, "`index.html` (created, then 3 edits): defines randomInRange, playTick, playLand, "
                                "spawnParticles, generate, tick; keys 'random-min', 'random-max'; 372 lines",
               [2, 5, 6, 7], score=54)
    small = Fact(Section.CHANGES, "`LICENSE` (created): “MIT License”; 21 lines", [10], score=47)
    facts = [Fact(Section.GOAL, "Make a page", [1], score=100, essential=True, task=True), *_requests(30), big, small]
    chosen = _choose(facts, 160)
    assert big in chosen


def test_a_shares_leftover_shows_the_chosen_change_record_fuller() -> None:
    lines = [f"  r{i} `f{i}`: + `value_{i}`, `other_{i}`" for i in range(40)]
    record = Fact(Section.CHANGES, "`app.py` (40 edits): defines f0…f39", [2], score=50,
                  full_text="`app.py` (40 edits): defines f0…f39\n" + "\n".join(lines))
    facts = [Fact(Section.GOAL, "Refactor app.py", [1], score=100, essential=True, task=True), *_requests(40), record]
    chosen = _choose(facts, 400)
    shown = next(f for f in chosen if f.section is Section.CHANGES)
    assert shown.text.startswith("`app.py` (40 edits)") and "r0 `f0`" in shown.text  # its leading lines
    assert "more lines)" in shown.text  # cut at a line, with a count of the rest


def test_completed_actions_keep_their_place_before_the_shares() -> None:
    done = [Fact(Section.COMPLETED, f"`git commit -m 'step {i}'` (r{i + 2})", [i + 2], score=60) for i in range(5)]
    facts = [Fact(Section.GOAL, "Ship it", [1], score=100, essential=True, task=True), *done, *_requests(30),
             Fact(Section.CHANGES, "`a.py` (1 edit): + flag", [3], score=50)]
    chosen = _choose(facts, 220)
    assert all(f in chosen for f in done)


def _session(target_requests: int) -> Transcript:
    msgs = [Message(0, Role.USER, "Build the parser in src/parse.py.")]
    for i in range(target_requests):
        text = (f"Now the step {i}: add the next rule. "
                "Some more words that explain the background of this step in a lot of detail. "
                "Never touch the public API of the module.")
        msgs.append(Message(len(msgs), Role.USER, text))
        calls = [ToolCall("Edit", {"file_path": "src/parse.py"}, f"e{i}", ToolKind.EDIT, path="src/parse.py")] \
            if i % 2 == 0 else []
        msgs.append(Message(len(msgs), Role.ASSISTANT, "ok", calls))
    return Transcript("s.json", "test", msgs, group_rounds(msgs))


def test_older_requests_are_short_at_a_tight_target_and_work_outranks_chat() -> None:
    t = _session(6)
    events = extract_events(t)

    def goal(target: int) -> list[Fact]:
        ctx = FactContext(transcript=t, events=events, records=[], preset=role_preset("developer"), cwd=None,
                          n_rounds=len(t.rounds), target_tokens=target)
        return [f for f in gather(ctx) if f.section is Section.GOAL and f.text.startswith("Then asked")]

    tight, roomy = goal(TIGHT_TARGET - 1), goal(TIGHT_TARGET * 2)
    assert all(len(f.text) <= len("Then asked: ") + 100 for f in tight)
    # its ask and its constraint stay, telegraphic (articles gone); the explanation goes first
    assert all("add next rule" in f.text and "Never touch public API" in f.text for f in tight)
    assert not any("background" in f.text for f in tight)
    assert all(f.full_text and f.full_text.endswith("module.") for f in tight)  # fill can give it back whole
    assert all(len(f.text) > len(t_.text) for f, t_ in zip(roomy, tight, strict=True))
    # step 0, 2, 4 set edits going: each outranks the chat-only requests around it
    edited = [f.score for f in tight if "step 0" in f.text or "step 2" in f.text or "step 4" in f.text]
    chat = [f.score for f in tight if "step 1" in f.text or "step 3" in f.text]
    assert min(edited) > max(chat)


def test_a_tight_target_with_no_tail_share_is_kept_and_filled() -> None:
    t = _session(30)
    result = compact(t, target_tokens=400)
    assert result.stats.tokens_after <= 400
    assert result.stats.tokens_after >= 0.9 * 400


def test_a_fact_copy_is_shallow_and_independent():
    """`copy.copy` of a fact (the engine copies its pool per selection) copies every field, and
    setting one on the copy leaves the original alone."""
    import copy
    import dataclasses

    from compaction.history.facts import Fact
    from compaction.history.sections import Section

    f = Fact(Section.GOAL, "the task", [1, 2], short="task", task=True, forms=("t",), error_id="E", pending=True)
    g = copy.copy(f)
    assert g == f and g is not f and g.rounds is f.rounds
    assert [getattr(g, x.name) for x in dataclasses.fields(Fact)] == [getattr(f, x.name) for x in dataclasses.fields(Fact)]
    g.text, g.short = g.short, None
    assert (f.text, f.short) == ("the task", "task")
    assert Section.EVIDENCE.priority == 3.9 and Section.PROBLEMS.summary_field == "errors"


def test_records_waiting_for_the_by_priority_pass_get_their_lines_before_any_is_shown_fuller() -> None:
    """antigravity-applysense wrote sixty files: the other sections' unused shares went to the first
    records' full forms, and 29 files were left as bare names. The facts not taken are served first."""
    def record(i: int) -> Fact:
        line = f"`src/module_{i}.py` (created): defines handler_{i}, parse_{i}, render_{i}; 40 lines"
        body = "\n".join(f"  + def helper_{i}_{j}(value): return transform_{j}(value)" for j in range(12))
        return Fact(Section.CHANGES, line, [2], score=50 - i * 0.1, full_text=f"{line}\n{body}")
    files = [record(i) for i in range(30)]
    found = [Fact(Section.FINDINGS, f"The parser number {i} drops the last token of every quoted string", [3 + i],
                  score=40) for i in range(10)]
    facts = [Fact(Section.GOAL, "Build the app", [1], score=100, essential=True, task=True), *files, *found]
    chosen = _choose(facts, 1100)  # the thirty lines fit, beside most findings; the shares alone take nine
    shown = [f for f in chosen if f.section is Section.CHANGES]
    assert len(shown) == 30  # every file in its line (eight, when the unused shares went to full records first)


def test_a_removed_files_record_gets_only_the_room_every_section_leaves() -> None:
    """A scratch script's digest (created, later removed) is cheap: served by the change records' share it went
    in before the older requests and the next step; ranked leftover, they come first."""
    from compaction.history.facts import LEFTOVER_PRIORITY

    scratch = Fact(Section.CHANGES, "`repro.py` (created, later removed): uses pickle.dumps; 8 lines", [2], score=25,
                   priority=LEFTOVER_PRIORITY)
    facts = [Fact(Section.GOAL, "Fix the pickling", [1], score=100, essential=True, task=True), *_requests(30),
             scratch, Fact(Section.NEXT, "Run the full suite before submitting", [9], score=30)]
    chosen = _choose(facts, 150)
    assert any(f.section is Section.NEXT for f in chosen) and scratch not in chosen
    assert scratch in _choose(facts, 5000)  # with room left every section leaves, it is shown
