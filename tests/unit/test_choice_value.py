"""What a tight budget keeps when a section cannot show all its facts (issue 14): a concrete line before
a vague one of its kind, a line the document already says passed over, a fact said in its short form
rather than dropped, and a fuller multi-line form that keeps the line its one-line form quoted."""

from __future__ import annotations

from compaction.history import fill, overlap
from compaction.history.engine import _choose
from compaction.history.facts import Fact, specifics, value
from compaction.history.sections import Section


def _task() -> Fact:
    return Fact(Section.GOAL, "Fix the option parser", [1], score=100, essential=True, task=True)


def _requests(n: int) -> list[Fact]:
    return [Fact(Section.GOAL, f"Then asked: please look again at the thing number {i} and tell me about it",
                 [i + 2], score=10 + i * 0.01, priority=2.5) for i in range(n)]


def test_a_line_naming_files_and_values_outranks_a_vague_one_of_its_kind() -> None:
    vague = Fact(Section.FINDINGS, "The issue is related to the handling of the default options somewhere.", [3], score=62)
    concrete = Fact(Section.FINDINGS, "`schemas/a_schema.ts` and `schemas/b_schema.ts` are empty placeholders; "
                                      "only `SignalSchema` is complete", [4], score=60)
    assert specifics(concrete.text) >= 3 and specifics(vague.text) == 0
    assert value(concrete) > value(vague)
    chosen = _choose([_task(), *_requests(30), vague, concrete], 160)
    assert concrete in chosen


def test_a_request_is_not_valued_by_the_code_it_pastes() -> None:
    paste = Fact(Section.GOAL, "Then asked: import { z } from 'zod'; z.object({ a_b: z.string() })", [2], score=12)
    assert value(paste) == paste.score


def test_a_finding_the_next_steps_already_say_is_passed_over() -> None:
    step = Fact(Section.NEXT, "[pending] **Coverage**: Only a subset of schemas are exported; full coverage not confirmed.",
                [9], score=70, essential=True)
    repeat = Fact(Section.FINDINGS, "[ ] **Coverage**: Only a subset of schemas are exported; full coverage not confirmed.",
                  [9], score=75)
    other = Fact(Section.FINDINGS, "The parser drops the last token of a quoted option value", [5], score=60)
    chosen = _choose([_task(), step, *_requests(30), repeat, other], 170)
    assert repeat not in chosen and other in chosen


def test_held_words_say_whether_a_line_adds() -> None:
    held = overlap.Held(["Only a subset of schemas are exported"])
    assert not held.adds("only a subset of the schemas are exported")
    assert held.adds("`pipeline_config_schema.js` is exported")  # one new identifier is enough
    assert held.adds("Tabs break the old text")  # most of its words are new


def test_a_fact_that_does_not_fit_whole_is_shown_short_rather_than_dropped() -> None:
    long = "ERR_TOOL_InvalidRange at `cli.pony`: " + "the view range [100, 150] is past the end of the file; " * 6
    fact = Fact(Section.PROBLEMS, long, [4], score=45, short="ERR_TOOL_InvalidRange at `cli.pony`: [100, 150] past its 122 lines")
    chosen = _choose([_task(), *_requests(30), fact], 80)
    shown = [f for f in chosen if f.section is Section.PROBLEMS]
    assert shown and shown[0].text.endswith("past its 122 lines")


def test_a_fuller_form_keeps_the_line_its_one_line_form_quoted() -> None:
    full = "`util.py` (r10, r15):\n  - `a = 1`\n  - `b = 2`\n  - `c = 3`\n  - `__class__ = property(proxy)`"
    cut = fill.leading_lines(full, 40, "`util.py` (r10, r15): `__class__ = property(proxy)`")
    assert cut is not None and "__class__ = property(proxy)" in cut[0] and "more lines" in cut[0]


def test_a_decision_is_valued_by_its_reason_not_by_the_terms_it_names() -> None:
    """A user's constraint names no file; a line of choices names many: within the decisions' share
    neither outranks the other by its count of terms (graded run 9: the constraint gave way)."""
    constraint = Fact(Section.DECISIONS, "User: Avoid unnecessary implementation logic; focus on scaffolding.", [37],
                      score=50)
    named = Fact(Section.DECISIONS, "Chose `src/a.ts` over `src/b.ts` and `lib/c.ts` for `parse()`", [12], score=50)
    assert specifics(named.text) >= 3
    assert value(constraint) == constraint.score and value(named) == named.score
