"""Line patterns read untrusted text (a written Markdown file, a tool's output, a loader's line): a
long run of spaces inside one line must cost time in proportion to its length. A lazy group before
`\\s*$` tried every split of the run (seconds at 20,000 characters, minutes at 100,000); these run on
lines of 100,000 characters and must still read them right."""

from __future__ import annotations

import pytest

from compaction.edits import _HEADING_RE as EDITS_HEADING
from compaction.errors.classify import _AFTER_COLON
from compaction.events import _AIDER_APPLIED_RE
from compaction.history.condense import _HEADING_RE as CONDENSE_HEADING
from compaction.history.sources.carried import _HEADING_RE as CARRIED_HEADING
from compaction.history.sources.exploration import _HEADING_RE as EXPLORATION_HEADING
from compaction.history.sources.rules import _HEADING_RE as RULES_HEADING
from compaction.history.sources.rules import _SECTION_RE as RULES_SECTION
from compaction.transcripts._agent_tools import _CHECKBOX, _PATCH_FILE
from compaction.transcripts.aider import _APPLIED, _RUNNING
from compaction.transcripts.anthropic import _ROO_TODO
from compaction.transcripts.specstory import _TODO_LINE

RUN = " " * 100_000


@pytest.mark.parametrize("pattern, head, group", [
    (CONDENSE_HEADING, "# Plan", 1),
    (EXPLORATION_HEADING, "# Plan", 1),
    (RULES_HEADING, "# Plan", 1),
    (RULES_SECTION, "## Plan", 1),
    (_AIDER_APPLIED_RE, "> Applied edit to a", 1),
    (_APPLIED, "> Applied edit to a", 1),
    (_RUNNING, "> Running a", 1),
    (_PATCH_FILE, "*** Update File: a", 2),
    (_CHECKBOX, "- [ ] a", 2),
    (_ROO_TODO, "- [ ] a", 2),
    (_TODO_LINE, "- [ ] a", 2),
    (_AFTER_COLON, "zsh: no such file or directory: a", 1),
])
def test_a_long_run_of_spaces_inside_a_line_is_read_whole(pattern, head: str, group: int) -> None:
    line = f"{head}{RUN}z   "
    m = pattern.search(line)
    assert m is not None
    assert m.group(group).endswith(f"{RUN}z")  # the line's text, trailing spaces dropped
    trailing = pattern.search(f"{head}{RUN}")  # the run at the line's end: trailing spaces, dropped
    assert trailing is not None and trailing.group(group) == head.split()[-1]


@pytest.mark.parametrize("pattern", [EDITS_HEADING, CARRIED_HEADING])
def test_a_short_heading_followed_by_spaces_and_closing_marks_is_read(pattern) -> None:
    """Their titles are bounded (a long one is no heading): the closing `#`s and spaces are still
    stripped, and a long run of spaces after a title is no quadratic search."""
    m = pattern.match("## Plan" + RUN + "##" + RUN)
    assert m is not None and m.group(1) == "Plan"
    assert pattern.match("## Plan" + RUN + "x") is None
