"""Line patterns read untrusted text (a written Markdown file, a tool's output, a loader's line): a
long run of spaces inside one line must cost time in proportion to its length. A lazy group before
`\\s*$` tried every split of the run (seconds at 20,000 characters, an hour at 1,000,000, past the test
run's timeout); these run on lines of 1,000,000 characters and must still read them right."""

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

RUN = " " * 1_000_000


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


# The worst inputs an audit of every pattern found for the patterns it rewrote (prefix, a piece pumped to
# 100,000 characters, a suffix that makes the match fail): each took more than five seconds at 2,000
# characters before (nested or adjacent quantifiers over the same characters), and now reads them in one pass.
_WORST = [
    ("compaction.data_leaves", "_YAML_KEY_RE", "match", "-", " ", "\x00"),
    ("compaction.edits", "_METHOD_RE", "match", "final", " ", "\x00"),
    ("compaction.errors.classify", "_BEFORE_COLON", "search", "", "/a", ""),
    ("compaction.events", "_UNITTEST_RE", "search", "Ran 77 tests in 7.s", "\n", ""),
    ("compaction.history.sources.blocks", "_ASSIGN_RE", "match", "7:", " ", "\x00"),
    ("compaction.history.sources.blocks", "_MESSAGE_RE", "search", '"', "ab ", "\x00"),
    ("compaction.history.sources.plans", "_TARGET_RE", "search", "", "a.", "\x00"),
    ("compaction.memory", "_CMD_BLOCK", "search", "~~~shell", "\n", "\x00"),
    ("compaction.shell", "_LEADING_CD_RE", "match", "cd ", "\\", "\x00"),
    ("compaction.transcripts.generic", "_HEAD_MARK", "match", "#\tquestion", " ", "\x00"),
    ("compaction.transcripts.markdown", "_HEADING", "search", "#### ai", " ", "\x00"),
    # the audit's next tier (1–5 s at 16,000 characters)
    ('compaction.data_leaves', '_ASSIGNMENT_RE', 'search', '.7', '_', '\x00'),
    ('compaction.edits', '_SEARCH_REPLACE_RE', 'search', '<<<<<< SEARCH ', '\n', '\x00'),
    ('compaction.edits', '_LITERAL_RE', 'match', 'None ', '\t ', '\x00'),
    ('compaction.edits', '_SED_SUBST_RE', 'match', '/7/\t s  ', ' ', 'y'),
    ('compaction.edits', '_URL_RE', 'search', '_', '_', '\x00'),
    ('compaction.errors.budget', '_PATH_RE', 'search', '', '_/', '\x00'),
    ('compaction.errors.classify', '_PY_EXC_NAME', 'match', 'A', 'a', '!'),
    ('compaction.errors.classify', '_PYTEST_SUMMARY', 'match', '==== 77 failed', '=', '\x00'),
    ('compaction.errors.classify', '_CMD_NAME', 'search', 'is not recognized:', ';', 'y'),
    ('compaction.errors.classify', '_QUOTED_PATH', 'search', '"][', '...', 'y'),
    ('compaction.errors.classify', '_PS_RECORD', 'search', '\n + CategoryInfo\t : aa77:', '7', '\x00'),
    ('compaction.events', '_MARKER_LINE_RE', 'search', 'warning', '@', '!'),
    ('compaction.events', '_JEST_RE', 'search', 'Tests:\n   777', '7', '\x00'),
    ('compaction.history.condense', '_LITERAL_RE', 'match', 'True', '7', '\x00'),
    ('compaction.history.facts', '_BOILERPLATE_RE', 'search', 'Task Instructions', '\n', '\n'),
    ('compaction.history.sources.blocks', '_CLOSER_RE', 'match', '', ')', '\x00'),
    ('compaction.history.sources.blocks', '_TRAILING_COMMENT_RE', 'search', '\t', '\t ', '!'),
    ('compaction.history.sources.blocks', '_KWARG_RE', 'search', '', '(', ''),
    ('compaction.history.sources.current', '_NAMES_PATH_RE', 'search', '.', '_', '\x00'),
    ('compaction.history.sources.decisions', '_NAMES_RE', 'search', '`[>"', '-a', ''),
    ('compaction.history.sources.decisions', '_MARKUP_RE', 'search', '<aAA', '---', '\x00'),
    ('compaction.history.sources.decisions', '_CHOSEN_PATH_RE', 'search', 'AAA/', '1.', ''),
    ('compaction.history.sources.evidence', '_MARKED_RE', 'search', '_A', '_', 'y'),
    ('compaction.history.sources.next_steps', '_NAMES_WORK_RE', 'search', '77', '_', ''),
    ('compaction.history.sources.next_steps', '_CHECK_HEADING_RE', 'match', '##', ' ', ''),
    ('compaction.history.sources.next_steps', '_ITEM_RE', 'match', '777.\t', ' ', ''),
    ('compaction.history.sources.plans', '_WHERE_RE', 'search', '..', '1.', '\x00'),
    ('compaction.redact', '_K8S_ENTRY_YAML', 'search', ' -:', '\t', '\n'),
    ('compaction.summarize', 'ERROR_LINE_RE', 'search', 'Traceback:', '\n', 'y'),
    ('compaction.transcripts.markdown', '_EXIT', 'search', 'exit', ' ', '\x00'),
    ('compaction.transcripts.mini_swe_agent', '_ACTION', 'search', '```bash\t\n \n', '\n', '\n'),
    ('compaction.transcripts.pasted_log', '_FOOTER_RE', 'match', '▣ \t *!·<:·', ' ', '\x00'),
    ('compaction.transcripts.tool_shapes', '_SEARCH_REPLACE_RE', 'search', '<<<<<<<< SEARCH\t\n', '\n', '\n'),
]


@pytest.mark.parametrize("module, name, method, head, pump, tail", _WORST)
def test_the_audits_worst_inputs_are_read_in_one_pass(module: str, name: str, method: str, head: str, pump: str,
                                                      tail: str) -> None:
    import importlib
    pattern = getattr(importlib.import_module(module), name)
    assert getattr(pattern, method)(head + pump * (100_000 // len(pump)) + tail) is None  # nothing to find, found fast


def test_the_rewritten_patterns_still_read_ordinary_lines() -> None:
    from compaction.data_leaves import _YAML_KEY_RE
    from compaction.edits import _METHOD_RE
    from compaction.errors.classify import _BEFORE_COLON
    from compaction.events import _UNITTEST_RE
    from compaction.history.sources.blocks import _ASSIGN_RE, _MESSAGE_RE
    from compaction.history.sources.plans import _TARGET_RE
    from compaction.memory import _CMD_BLOCK
    from compaction.shell import _LEADING_CD_RE
    from compaction.transcripts.generic import _HEAD_MARK
    from compaction.transcripts.markdown import _HEADING
    assert _YAML_KEY_RE.match("- name: build").groups() == ("- ", "", "name", "build")
    assert _METHOD_RE.match("    public static List<String> parseAll(String text) {").group(1) == "parseAll"
    assert _BEFORE_COLON.search("cat: src/app.py: No such file or directory").group(1) == "src/app.py"
    assert _UNITTEST_RE.search("Ran 12 tests in 0.31s\n\nOK").groups() == ("12", "OK")
    assert _ASSIGN_RE.match("const retries: number = 3")
    assert _MESSAGE_RE.search("raise ValueError('the port is not a number')")
    assert _TARGET_RE.search("edit `src/app.py` around line 42").groups() == ("src/app.py", "42")
    assert _CMD_BLOCK.search("```bash\nmake test\n```").group(2) == "make test\n"
    assert _LEADING_CD_RE.match('cd "my dir" && make').group(1) == '"my dir"'
    assert _HEAD_MARK.match("## 🤖 Assistant:").group(1) == "Assistant"
    assert _HEADING.search("### Tool result: bash (exit 1)").group(2) == "Tool result"
