"""The budget table (seed 003 §4) and its dynamic rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction.budget import BASE, allocate, allocate_tokens


def test_base_table_between_50_and_80_percent():
    s = allocate(0.65)
    assert s.percent() == {"system": 10, "history": 50, "error_memory": 10, "tool_results": 20, "output": 10}
    assert s.rules == ()
    assert BASE == s.percent()


def test_high_utilization_cuts_tool_results_keeps_error_memory():
    s = allocate(0.81, recent_errors=False)
    assert s.tool_results == 10 and s.error_memory == 10
    assert s.history == 60  # what tool results gave up
    assert "tool results 10%" in s.rules[0]


def test_low_utilization_raises_output_and_lets_error_memory_drop_without_recent_errors():
    with_errors = allocate(0.3, recent_errors=True)
    assert with_errors.output == 15 and with_errors.error_memory == 10 and with_errors.history == 45
    without = allocate(0.3, recent_errors=False)
    assert without.output == 15 and without.error_memory == 5 and without.history == 50


@pytest.mark.parametrize("util", [0.5, 0.8])
def test_boundaries_are_exclusive(util):
    assert allocate(util, recent_errors=False).percent() == BASE


def test_tokens_sum_to_window_and_remainders_go_to_history():
    t = allocate_tokens(200_001, 0.9)
    assert sum(t.values()) == 200_001
    assert t["tool_results"] == 20_000 and t["history"] == 200_001 - 4 * 20_000


@given(st.floats(0, 2, allow_nan=False), st.booleans(), st.integers(0, 2_000_000))
def test_shares_always_sum_to_100(util, recent, window):
    s = allocate(util, recent)
    assert sum(s.percent().values()) == 100
    assert all(v >= 0 for v in s.percent().values())
    assert s.error_memory >= 5 and s.system == 10
    assert sum(s.tokens(window).values()) == window
