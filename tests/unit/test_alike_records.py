"""Files that got the same edit in one round: the later record says the shared parts once."""

from __future__ import annotations

from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.sources.alike import say_alike_once

_SHARED = "sections + '👥 Human Roles in This Phase', + '🚀 Role-Specific AI Facilitation Prompts', + 'Product Manager Context'"


def _record(path: str, body: str, rnd: int) -> Fact:
    text = f"`{path}` (1 edit): {body} (r{rnd})"
    return Fact(Section.CHANGES, text, [rnd], score=55, path=path, full_text=text + "\n  + line one")


def test_the_later_record_names_the_first_and_keeps_its_own_parts():
    first = _record("rules/101-intent.mdc", _SHARED + ", + 'Domain Expert Context'", 16)
    later = _record("rules/102-roadmap.mdc", _SHARED + ", + 'Software Architect Context'", 16)
    records = {first.path: first, later.path: later}
    say_alike_once(records)
    assert first.text == f"`rules/101-intent.mdc` (1 edit): {_SHARED}, + 'Domain Expert Context' (r16)"
    assert later.text == ("`rules/102-roadmap.mdc` (1 edit): as `101-intent.mdc`'s first 3 (sections + '👥 Human Roles "
                          "in This Phase' …), then + 'Software Architect Context' (r16)")
    assert later.full_text == later.text + "\n  + line one"  # the fuller form opens with the line it upgrades
    assert len(later.text) < len(first.text)


def test_records_of_other_rounds_or_with_one_shared_part_stay_whole():
    first = _record("a.mdc", _SHARED + ", + 'X Context'", 3)
    other_round = _record("b.mdc", _SHARED + ", + 'Y Context'", 9)
    one_part = _record("c.mdc", "sections + '👥 Human Roles in This Phase', + 'Something Else Entirely Here'", 3)
    before = (other_round.text, one_part.text)
    say_alike_once({f.path: f for f in (first, other_round, one_part)})
    assert (other_round.text, one_part.text) == before


def test_code_is_never_cut_inside_a_line():
    """`, ` inside a swapped line of code is no boundary: two signatures alike up to `**kwargs` are not
    said to share a part they only half share."""
    swap = "def set_output(self, *, transform=None): → def set_output(self, *, transform=None, **kwargs)"
    first = _record("pipeline.py", swap + "; touched `Pipeline`", 5)
    later = _record("union.py", swap.replace("**kwargs", "**kw") + "; touched `FeatureUnion`", 5)
    before = later.text
    say_alike_once({first.path: first, later.path: later})
    assert later.text == before
