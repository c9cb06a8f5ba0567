"""literal_heads: a pattern tried only where one of its literal openings occurs finds the same matches."""

import random
import re

from compaction.literal_heads import LinePattern, Scanner, heads, matches_at, positions


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



def test_matches_at_the_openings_as_finditer():
    """A `\\b`- or lookbehind-led pattern tried only where its opening is finds what finditer finds."""
    cases = [(re.compile(r"\bcat\s+>{1,2}\s*(\S+)"), ("cat",)), (re.compile(r"(?<![0-9&<>=-])>{1,2}\s*(\S+)"), (">",))]
    rng = random.Random(11)
    words = ["cat", "xcat", ">", ">>", "2>", "=>", "f.py", " ", "\n"]
    for _ in range(3000):
        text = "".join(rng.choice(words) + rng.choice(["", " "]) for _ in range(rng.randint(0, 20)))
        for pattern, openings in cases:
            assert [m.span() for m in matches_at(pattern, positions(text, openings), text)] == [
                m.span() for m in pattern.finditer(text)], (pattern.pattern, text)


def test_line_patterns_find_what_the_anchored_patterns_find():
    """Searched by their line breaks, `^` patterns give the same groups, in order, as finditer/findall/search."""
    patterns = [re.compile(r"^(ok|FAIL)\s+(\S+)$", re.MULTILINE),
                re.compile(r"^Ran (\d+)\s*\n+\s*(OK|FAILED)", re.MULTILINE),
                re.compile(r"^\s*(?:[-*]|\d+\.)\s*\[( |x|X)\]\s+(.+)$", re.MULTILINE),
                re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL),
                re.compile(r"^[A-Z][a-z]*:[ \t]*\n+```(?:json)?[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)]
    rng = random.Random(13)
    words = ["ok", "FAIL", "Ran", "3", "OK", "FAILED", "-", "1.", "[ ]", "[x]", "a", "```", "```json", "~~~", "Result:", " ", "\n", "\n\n"]
    for _ in range(3000):
        text = "".join(rng.choice(words) + rng.choice(["", " "]) for _ in range(rng.randint(0, 24)))
        for pattern in patterns:
            lines = LinePattern(pattern)
            assert [m.groups() for m in lines.finditer(text)] == [m.groups() for m in pattern.finditer(text)], text
            assert lines.findall(text) == pattern.findall(text)
            found, expected = lines.search(text), pattern.search(text)
            assert (found and found.groups()) == (expected and expected.groups())
            assert lines.removed(text) == pattern.sub("", text)


def test_a_pattern_anchored_only_in_part_is_refused():
    try:
        LinePattern(re.compile(r"^a|b", re.MULTILINE))
    except AssertionError:
        return
    raise AssertionError("a top-level branch leaves `b` unanchored")
