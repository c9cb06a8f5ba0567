"""The request condenser's word tests: a sentence's cue kinds and identifiers, and its word memo, which
`memo.forget_all` empties like every other memo (a benchmark's run starts cold)."""

from __future__ import annotations

from compaction import memo
from compaction.history.condense import _cue_classes, _identifiers, _mixed_case, _word_kinds


def test_mixed_case_is_camel_case_by_its_letters_ascii_or_not() -> None:
    for word in ["parseArgs", "HTTPServer", "XMLHttp", "abc", "ABC", "Abc", "aBC", "a1B", "élanVital", "ÉLAN", "Élan",
                 "straßeX", "ǅemal", "x", ""]:
        letters = any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)
        assert _mixed_case(word) == letters, word


def test_identifiers_counts_code_spans_calls_and_code_shaped_words() -> None:
    assert _identifiers("Call `parse` then run_all() on pkg/mod.py with parseArgs and plain words.") == 4


def test_cue_kinds_of_words_prefixes_suffixes_and_phrases() -> None:
    assert _word_kinds("expected") == {"wrong"}  # a prefix (`expect*`)
    assert _word_kinds("agent-first") == {"rule"}  # a suffix (`*-first`)
    assert "wrong" in _cue_classes("It does not parse the file.")  # a phrase
    assert "rule" in _cue_classes("Please make sure the tests still pass.")
    assert _cue_classes("The weather is nice.") == set()


def test_forget_all_empties_the_word_memo() -> None:
    _word_kinds("suspected")
    assert _word_kinds.cache_info().currsize
    memo.forget_all()
    assert not _word_kinds.cache_info().currsize
