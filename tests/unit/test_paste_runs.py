"""A paste of indented output broken by plain lines (nested frames, a stack dump): runs of twelve
log-shaped lines are no run of thirteen, so nothing is trimmed; a run of twenty is trimmed with a
note. The detector matches each line whole (an atomic group): this input once backtracked through
every split of the lines' leading blanks and never finished."""

from __future__ import annotations

import signal

import pytest

from compaction.history.sources.task import trim_pastes

SHORT_RUNS = ("\n".join(" " * 8 + f"frame {i}: value {i * 7}" for i in range(12)) + "\nplain words between runs\n") * 12


@pytest.fixture(autouse=True)
def _no_hang():
    """A guard, not a timing: a detector that backtracks again never returns; this makes it a failure."""
    def stop(*_):
        raise TimeoutError("the pasted-log detector did not finish")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


LONG_RUN = "\n".join(" " * 8 + f"frame {i}: value {i * 7}" for i in range(20)) + "\nplain words after\n"


def test_short_runs_of_indented_lines_are_kept_whole():
    text = "Here is the output, why does it fail?\n" + SHORT_RUNS
    assert trim_pastes(text) == text


def test_a_long_run_of_indented_lines_is_trimmed_with_a_note():
    out = trim_pastes("Why?\n" + LONG_RUN + SHORT_RUNS)
    long_part, rest = out.split("plain words after", 1)
    assert "[… 14 lines of pasted log trimmed …]" in long_part and "frame 19: value 133" in long_part
    assert "frame 10: value 70" not in long_part and rest.endswith(SHORT_RUNS)  # the short runs stay whole
