"""A substitution that matched nothing is told by the definition it was aimed at and what it was to change,
and a later claim of the agent's that speaks of that change carries the miss beside it (scikit-learn's
r31 missed two lines of `FeatureUnion.set_output`, then r32 said "I have updated all `set_output` overrides
I found."); an account of changes that later requests edited again is followed by what the agent said of
those later edits (git-provenance's r34 summary listed "A single 10x7 matrix" r39 had replaced)."""

from __future__ import annotations

from compaction.history.sources.findings import finding_facts
from compaction.history.sources.missed_edits import missed_edit_facts
from compaction.history.sources.recaps import recap_facts
from compaction.model import Role
from tests.unit.test_review7_mends import _ctx, _Session

_VIEW = ("class Union:\n"
         "    def set_output(self, *, transform=None):\n"
         '        """Set the output."""\n'
         "        super().set_output(transform=transform)\n"
         "        for step in self.steps:\n"
         "            _safe_set_output(step, transform=transform)\n"
         "        return self\n")


def _missed() -> _Session:
    s = _Session("let set_output take dtypes")
    s.run("cat -n pipeline.py", "".join(f"{i:6}\t{ln}\n" for i, ln in enumerate(_VIEW.splitlines(), 1)))
    # lines 3 and 5 are off by one: a docstring and a `for`
    return s.run("sed -i '2s/transform=None):/transform=None, **kwargs):/' pipeline.py && "
                 "sed -i '3s/super().set_output(transform=transform)/super().set_output(transform=transform, **kwargs)/'"
                 " pipeline.py && sed -i '5s/_safe_set_output(step, transform=transform)/"
                 "_safe_set_output(step, transform=transform, **kwargs)/' pipeline.py")


def test_a_missed_substitution_is_told_by_its_definition_and_the_change_it_meant():
    (fact,) = missed_edit_facts(_ctx(_missed().msgs))
    assert fact.text.startswith("Not made: 2 of the 3 substitutions of `pipeline.py` (r2) in `set_output` "
                                "(opened at line 2)")
    assert "line 3 was to turn `super().set_output(transform=transform)` into `…transform=transform, **kwargs)` " \
           "but holds `\"\"\"Set the output.\"\"\"`" in fact.text
    assert "Made: line 2" in fact.text  # the method takes the new arguments; its calls do not pass them on


def test_a_later_claim_of_the_missed_change_carries_the_miss():
    s = _missed().say(Role.ASSISTANT, "I have updated all `set_output` overrides I found. The fix is complete.")
    (claim,) = [f.text for f in finding_facts(_ctx(s.msgs)) if "I have updated all" in f.text]
    assert "— but r2's 2 substitutions of `pipeline.py` in `set_output` (opened at line 2) matched nothing " \
           "(lines 3, 5) and were never made" in claim
    # a claim of something else is told as it was said
    other = _missed().say(Role.ASSISTANT, "I have updated the changelog for the release notes. The fix is complete.")
    assert not any("never made" in f.text for f in finding_facts(_ctx(other.msgs)))


def test_an_account_edited_again_later_is_followed_by_the_later_accounts():
    s = _Session("write a summary")
    s.run("cat > summary.md << 'EOF'\n# Summary\n| a | b |\nEOF")
    s.say(Role.ASSISTANT, "Created `summary.md` with:\n- A taxonomy of the approaches\n- A quick comparison table\n"
                          "- A single 10x7 matrix of every system")
    s.say(Role.USER, "the matrix is too wide, make 7 tables")
    s.run("sed -i 's/| a | b |/| a |/' summary.md")
    s.say(Role.ASSISTANT, "Updated `summary.md` to replace the single wide 10x7 matrix with 7 separate tables.")
    (fact,) = recap_facts(_ctx(s.msgs))
    assert "A single 10x7 matrix of every system; since then, in the agent's words: r4 “Updated `summary.md` to " \
           "replace the single wide 10x7 matrix with 7 separate tables.”" in fact.text


def test_a_claim_said_beside_the_miss_is_noted_and_a_plain_word_is_no_definitions_name() -> None:
    """Code review 24: a claim told in the miss's own round (an export that tells a reply's words and calls as one
    round) got no note; "the main README" got one for a miss in `def main` of `cli.py`."""
    from compaction.history.sources.findings import finding_facts
    from compaction.model import Message, Role, group_rounds
    from tests.unit.test_review7_mends import _ctx, _Session
    s = _missed()
    claim = Message(0, Role.ASSISTANT, "I have updated all `set_output` overrides I found. The fix is complete.")
    msgs = [*s.msgs[:-1], claim, *s.msgs[-1:]]
    for i, m in enumerate(msgs):
        m.index = i
    assert len(group_rounds(msgs)) == 2  # the claim and the substitution share round 2
    (said,) = [f.text for f in finding_facts(_ctx(msgs)) if "I have updated all" in f.text]
    assert "— but r2's 2 substitutions of `pipeline.py`" in said, said
    view = ("def main(argv=None):\n    \"\"\"Entry point.\"\"\"\n    parser = build_parser()\n"
            "    args = parser.parse_args(argv)\n    return run(args)\n")
    other = _Session("make the cli return its exit code")
    other.run("cat -n cli.py", "".join(f"{i:6}\t{ln}\n" for i, ln in enumerate(view.splitlines(), 1)))
    other.run("sed -i '4s/return run(args)/return sys.exit(run(args))/' cli.py")
    other.say(Role.ASSISTANT, "I have fixed the main README typo as well. The docs build is clean.")
    assert [f.text for f in finding_facts(_ctx(other.msgs)) if "README" in f.text] == [
        "I have fixed the main README typo as well."]
