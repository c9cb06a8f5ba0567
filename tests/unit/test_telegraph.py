"""Telegraphic rendering of the agent's prose (compaction.history.telegraph)."""

from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.telegraph import telegraphic


def test_filler_openings_go_identifiers_stay() -> None:
    assert telegraphic("Perfect! Now let me check `src/x.py` for 42 errors.") == "Check `src/x.py` for 42 errors."
    assert telegraphic("I'll modify `django/db/base.py` to print params.") == "Modify `django/db/base.py` to print params."
    assert telegraphic("THOUGHT: I'll add the import.") == "Add the import."
    assert telegraphic("Now I need to update the config: max=30") == "Update the config: max=30"


def test_hedges_and_emoji_go() -> None:
    assert telegraphic("I can see that the test fails with Errno 30 Read-only file system.") == \
        "The test fails with Errno 30 Read-only file system."
    assert telegraphic("Great, the fix works 🎉. Let me run the tests.") == "The fix works. Run the tests."


def test_code_spans_are_never_rewritten() -> None:
    assert telegraphic("Let me run `Let me check ✅`.") == "Run `Let me check ✅`."


def test_content_is_kept_when_nothing_but_filler_is_there() -> None:
    assert telegraphic("Perfect!") == "Perfect!"
    assert telegraphic("The issue is related to `CommandParser`.") == "The issue is related to `CommandParser`."
    assert telegraphic("Since I cannot extract it, I'll duplicate it.") == "Since I cannot extract it, I'll duplicate it."


def test_bullets_and_lines_keep_their_shape() -> None:
    assert telegraphic("- Let me fix a.py\n  2. I'll rerun 3 tests") == "- Fix a.py\n  2. Rerun 3 tests"


def test_only_prose_facts_are_rewritten_by_the_engine() -> None:
    from compaction.history.engine import _steer
    from compaction.history.steering import Steering, role_preset

    user = Fact(Section.DECISIONS, "Let me keep the hardcoded values out of it, agent-first.")
    agent = Fact(Section.DECISIONS, "I'll use a temporary file for the 3 fixtures.", prose=True,
                 short="Perfect! I'll use a temp file.")
    out = _steer([user, agent], Steering(), role_preset(None))
    assert out[0].text == "Let me keep the hardcoded values out of it, agent-first."
    assert out[1].text == "Use a temporary file for the 3 fixtures."
    assert out[1].short == "Use a temp file."
