"""Mends of session 51: what the agent says it found right after a cry of discovery ("AHA!", "Found it.")
is a finding, in whatever words it says it."""

from __future__ import annotations

from compaction.history.sources.findings import EUREKA_WEIGHT, statements


def test_the_paragraph_after_a_lone_cry_is_the_finding() -> None:
    text = ("THOUGHT: So it returns `value` (the `SimpleLazyObject`)!\n\nAHA!\n\n`SimpleLazyObject` pretends to be "
            "`str` so `isinstance` returns True. So `to_python` returns the `SimpleLazyObject` as is.\n\n"
            "And `SlugField.get_prep_value` calls `value.strip()`.")
    assert statements(text) == [("`SimpleLazyObject` pretends to be `str` so `isinstance` returns True. So "
                                 "`to_python` returns the `SimpleLazyObject` as is.", EUREKA_WEIGHT)]


def test_the_cry_s_own_sentence_stops_at_a_plan_or_an_opening_colon() -> None:
    found = statements('Found it. Line 24 of README.md has "Bastion v2". Let me check what that line looks like.')
    assert found == [('Line 24 of README.md has "Bastion v2".', EUREKA_WEIGHT)]
    found = statements("Found it: `retries` is read before `load_config()` sets it. The fix is simple:\n\n- move it")
    assert found == [("`retries` is read before `load_config()` sets it.", EUREKA_WEIGHT)]


def test_a_statement_the_discovery_holds_is_replaced_in_place() -> None:
    text = ("The problem is that `cd frontend` changes the working directory. Then more.\n\n"
            "There it is: the issue is in lines 54-58 of `ci.yml`. The problem is exactly this:\n\n```yaml\nx\n```")
    got = statements(text)
    assert [s for s, _ in got] == ["The problem is that `cd frontend` changes the working directory.",
                                   "the issue is in lines 54-58 of `ci.yml`."]
    assert got[1][1] == EUREKA_WEIGHT


def test_found_it_inside_a_sentence_or_naming_nothing_is_no_discovery() -> None:
    assert statements("I previously found it around line 1066 of the module, near the top.") == []
    assert statements("Aha! That is what I was looking for all along, good.") == []
