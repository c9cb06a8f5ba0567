"""What a reader asked of sympy's hand-over and could not answer (exams 47-50): which comparison code the
agent inspected and left alone, and why. The agent said both, in words no pattern knew: what a class
turned out to inherit from, against what was assumed, and a choice of scope whose reason follows "as"
with no comma before it."""

from __future__ import annotations

from compaction.history.sources import decisions
from compaction.history.sources.findings import statements


def test_what_a_class_turned_out_to_inherit_from_is_a_finding():
    said = statements("THOUGHT: `NDimArray` inherits from `object`, not `Basic`. Wait, really?")
    assert said and said[0][0] == "`NDimArray` inherits from `object`, not `Basic`."
    assert statements("The proxy doesn't inherit from `str` at the C level, so `PyUnicode_Check` fails.")
    assert statements("The proxy doesn't inherit from str, so the check fails.")
    assert not statements("`Interval` inherits from `Set` and `EvalfMixin`.")  # what it is, not a correction


def test_a_choice_of_scope_with_its_reason_after_as_is_a_decision():
    def choices(text: str) -> list[str]:
        return decisions._choices(text, text.lower(), None, set())

    assert choices("I should probably stick to `Basic` and `Expr` as they are the core. But if I see obvious "
                   "violations elsewhere, I might fix them.") == [
        "I should probably stick to `Basic` and `Expr` as they are the core."]
    assert choices("I'll use `_parse_annotation` as it already handles `BitOr`.")
    # "as it is" keeps a thing unchanged: no reason given
    assert not choices("I will keep the helper as it is for now, and rerun the tests.")
    assert not choices("I will leave the parser as it is.")
    assert not choices("I'll run the tests as they are written in the docs.")
    # how, not why
    assert not choices("I'll write the new test as it's done in `test_parser.py`.")
    assert not choices("I'll format the output as they are formatted in `report.py`.")


def test_a_sentence_that_only_says_something_was_seen_is_no_finding():
    assert not statements("Wait, I see what happened.\nIn the previous turn, I ran the tests.")
    assert not statements("Looking at the system prompt, I see the issue.")
    assert statements("I see `__ne__` is gone from `sympy/core/numbers.py`.")
    assert statements("I found that the tests fail when the timeout is zero.")  # what was seen, said


def test_a_choice_drawn_with_so_from_the_sentence_before_carries_it():
    """npm-publish's agent: the copy's target was inside its source, "so I'll" copy to a sibling: the choice
    alone does not say what was wrong with the first copy."""
    text = ("I'm figuring out how to copy the build output to a client folder without causing recursive copy errors "
            "since the target is inside the source. Copying to a sibling directory like `dist-client` seems cleaner, "
            "so I'll update the build script and package exports to point to `dist-client`.")
    found = decisions._choices(text, text.lower(), None, set())
    assert len(found) == 1 and found[0].startswith("I'm figuring out how to copy the build output") \
        and "recursive copy errors" in found[0] and found[0].endswith("to point to `dist-client`.")
