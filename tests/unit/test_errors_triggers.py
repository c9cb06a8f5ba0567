"""The trigger lines classify tries its patterns on: the same lines a search of each word through the
whole text finds, whether a word is looked for in its root's excerpt or in the text."""

import random

import pytest

from compaction.errors.triggers import MIN_EXCERPT_TEXT, Triggers, lines_with, needles


def test_words_are_grouped_by_their_first_shared_root():
    family = needles("FAILED ", "FAIL: ", "error TS", "npm ")
    assert dict(family.by_root) == {"FAIL": ("FAILED ", "FAIL: "), "rror": ("error TS",), "": ("npm ",)}
    with pytest.raises(ValueError):
        needles("two\nlines")


def test_lines_are_those_a_whole_text_search_finds():
    rnd = random.Random(7)
    pieces = ["FAILED t.py::x", "FAIL: test_a (m.T)", "error TS2304: x", "an Error here", "npm ERR! code E1",
              "plain output", "more plain output " * 5, "İstanbul ß Σ", "--- FAIL: TestX", "error: bad"]
    families = [needles("FAILED ", "ERROR "), needles("FAIL: ", "ERROR: "), needles("error TS", "error\x1b["),
                needles("npm "), needles("--- FAIL"), needles("Error", "Exception"), needles("error: ")]
    for size in (3, 40, 400):  # short texts are searched whole; longer ones through excerpts
        for _ in range(50):
            text = "\n".join(rnd.choice(pieces) for _ in range(size))
            trig = Triggers(text)
            for family in families:
                assert trig.lines_with(family) == lines_with(text, family.words)
    assert len(text) >= MIN_EXCERPT_TEXT


def test_a_root_on_most_lines_falls_back_to_the_whole_text():
    text = "\n".join(["error everywhere"] * 200 + ["error TS1005: ';' expected"])
    trig = Triggers(text)
    assert trig.lines_with(needles("error TS")) == [(len(text) - 26, len(text))]
    assert trig._excerpts["rror"] is text  # the root's lines were most of the text: the text itself is searched
