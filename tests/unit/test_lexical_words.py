"""`lexical.holds_word`: word-bounded containment, the same answer as the pattern it replaces."""

import re

import pytest

from compaction.lexical import holds_word


@pytest.mark.parametrize(("text", "word", "joiners"), [
    ("return self._cache[key]", "self._cache", ""),
    ("my_self._cache", "self._cache", ""),
    ("pytest tests/test-utils.py", "test", "-"),
    ("run test-utils and test", "test", "-"),
    ("héllo wörld", "wörld", ""),
    ("x == (a + b)", "(a + b)", ""),
    ("(a + b)c", "(a + b)", ""),
    ("aaa", "aa", ""),
    ("", "word", ""),
])
def test_holds_word_answers_as_the_lookaround_pattern(text: str, word: str, joiners: str) -> None:
    extra = re.escape(joiners)
    pattern = rf"(?<![\w{extra}]){re.escape(word)}(?![\w{extra}])"
    assert holds_word(text, word, joiners) is (re.search(pattern, text) is not None)


def test_a_later_occurrence_counts_when_the_first_is_inside_a_word() -> None:
    assert holds_word("prefix_name then name.", "name")
    assert not holds_word("prefix_name then names", "name")
