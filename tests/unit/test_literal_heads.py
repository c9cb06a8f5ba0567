"""literal_heads: a pattern tried only where one of its literal openings occurs finds the same matches."""

import random
import re

from compaction.literal_heads import Scanner, heads, line_starts, matches_at, positions


def _all(pattern: re.Pattern[str], text: str, openings: tuple[str, ...]) -> list[tuple[int, int]]:
    scanner, out, pos = Scanner(pattern, openings, text), [], 0
    while (m := scanner.search(text, pos)) is not None:
        out.append(m.span())
        pos = m.end()
    return out


def test_openings_of_nested_branches_and_repeats():
    assert heads(re.compile(r"(?:next,? i(?:'ll| will)|next step|remaining|todo\b|下一步)")) == (
        "next", "remaining", "todo", "下一步")
    assert heads(re.compile(r"(?:must|do not)")) == ("do not", "must")
    assert heads(re.compile(r"(?:i(?:'ll| will) (?:use|keep))")) == ("i will keep", "i will use", "i'll keep", "i'll use")


def test_no_openings_when_a_match_may_start_anywhere_or_too_short():
    assert heads(re.compile(r"\w+ing")) is None  # a class opens it
    assert heads(re.compile(r"(?:to |must)")) is None  # "to " is too short to spare anything
    assert heads(re.compile(r"must", re.IGNORECASE)) is None  # literals of either case
    assert heads(re.compile(r"(?:must|(?i:never))")) is None  # an inline flag


def test_same_matches_as_finditer_on_random_texts():
    pattern = re.compile(r"(?:next,? i(?:'ll| will)|next step|next steps|still to do|todo\b)")
    openings = heads(pattern)
    assert openings is not None
    rng = random.Random(7)
    words = ["next", "step", "steps", "i'll", "i", "will", ",", "still", "to", "do", "todo", "todos", " ", "\n"]
    for _ in range(3000):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 25)))
        assert _all(pattern, text, openings) == [m.span() for m in pattern.finditer(text)]


def test_matches_at_the_openings_and_line_starts_as_finditer():
    """A `\\b`-, lookbehind- or `^`-led pattern tried only where its opening is finds what finditer finds."""
    cases = [
        (re.compile(r"\bcat\s+>{1,2}\s*(\S+)"), lambda t: positions(t, ("cat",))),
        (re.compile(r"(?<![0-9&<>=-])>{1,2}\s*(\S+)"), lambda t: positions(t, (">",))),
        (re.compile(r"^(ok|FAIL)\s+(\S+)$", re.MULTILINE), lambda t: line_starts(t, ("ok", "FAIL"))),
        (re.compile(r"^Ran (\d+)\s*\n+\s*(OK|FAILED)", re.MULTILINE), lambda t: line_starts(t, ("Ran ",))),
    ]
    rng = random.Random(11)
    words = ["cat", "xcat", ">", ">>", "2>", "=>", "f.py", "ok", "FAIL", "Ran", "3", "OK", "FAILED", " ", "\n", "\n\n"]
    for _ in range(3000):
        text = "".join(rng.choice(words) + rng.choice(["", " "]) for _ in range(rng.randint(0, 20)))
        for pattern, starts in cases:
            assert [m.span() for m in matches_at(pattern, starts(text), text)] == [
                m.span() for m in pattern.finditer(text)], (pattern.pattern, text)
