"""Budget of the error-memory block (seed §2.1), with the merge/drop rules recomputed here."""

from __future__ import annotations

import pytest

from compaction import tokens
from compaction.errors import fit_budget, render_block, scan_transcript
from compaction.errors.budget import ceiling_for
from compaction.errors.records import ErrorRecord, Location, Occurrence, root_key
from compaction.errors.render import render_record
from compaction.transcripts import load_transcript
from tests.conftest import TRANSCRIPTS, real_transcripts


def rec(err_id: str, rounds: list[int], path: str | None = None, symbol: str | None = None,
        detail: str = "boom") -> ErrorRecord:
    occ = [Occurrence(round=r, transcript="t", evidence=detail, detail=detail, location=Location(path, 1, symbol))
           for r in rounds]
    return ErrorRecord(err_id, occ, "the fix " * 6, "the check " * 6)


def many() -> list[ErrorRecord]:
    out = [rec(f"ERR_PY_Err{i}", [i + 1], path=f"src/m{i}.py", detail=f"E{i}") for i in range(30)]
    out.append(rec("ERR_PY_TypeError", [95, 98], path="src/r.py", symbol="_from_json"))
    out.append(rec("ERR_PY_KeyError", [96], path="src/r.py", symbol="_from_json"))  # same root cause as TypeError
    out.append(rec("ERR_TOOL_FileNotFound", [97], path="a/b.py"))
    return out


def ids_in(block: str) -> set[str]:
    import re
    return set(re.findall(r"ERR_[A-Z]+_[A-Za-z0-9_]+", block))


def test_default_ceiling_is_ten_percent_of_the_window():
    assert ceiling_for() == int(0.10 * tokens.context_window())
    assert ceiling_for(context_window=128_000) == 12_800
    assert ceiling_for(ceiling=500) == 500


def test_below_high_water_nothing_changes():
    recs = many()
    res = fit_budget(recs, ceiling=100_000)
    assert [r.id for r in res.records] == [r.id for r in recs]
    assert not res.merged and not res.dropped and res.tokens <= 100_000


def test_merge_comes_first_then_stale_drop_and_rules_hold():
    recs = many()
    full = tokens.count(render_block(recs))
    ceiling = int(full * 0.6)
    res = fit_budget(recs, ceiling=ceiling, current_round=100)
    # merge: same family + same root cause (recomputed independently from the inputs)
    assert res.merged == {"ERR_PY_TypeError": ["ERR_PY_KeyError"]}
    assert root_key(recs[-3]) == root_key(recs[-2])
    merged = next(r for r in res.records if r.id == "ERR_PY_TypeError")
    assert merged.rounds == [95, 96, 98] and merged.count == 3
    # drop: every missing identifier was stale (> 10 rounds) and the block was above 80% before dropping
    kept = ids_in(res.markdown)
    for r in recs:
        if r.id not in kept:
            assert r.id in res.dropped
            assert 100 - r.last_round > 10
    assert res.dropped and res.dropped == sorted(res.dropped, key=lambda i: int(i.removeprefix("ERR_PY_Err")))
    last_dropped = next(r for r in recs if r.id == res.dropped[-1])
    assert tokens.count(render_block([*res.records, last_dropped])) > 0.8 * ceiling  # that drop was needed
    assert tokens.count(render_block(res.records)) <= 0.8 * ceiling  # and dropping stopped once under 80%
    assert res.tokens <= ceiling
    assert "merged similar errors" in res.markdown and "dropped errors not seen" in res.markdown


def test_recent_records_are_never_dropped_and_block_never_emptied():
    recs = [rec("ERR_PY_Old", [1]), rec("ERR_TOOL_Recent", [50], path="x.py")]
    res = fit_budget(recs, ceiling=10, current_round=55)
    assert [r.id for r in res.records] == ["ERR_TOOL_Recent"]
    solo = fit_budget([rec("ERR_PY_Old", [1])], ceiling=5, current_round=500)
    assert [r.id for r in solo.records] == ["ERR_PY_Old"] and solo.shortened
    assert fit_budget([rec("ERR_PY_Old", [1]), rec("ERR_PY_Older", [0 + 2])], ceiling=5, current_round=500,
                      allow_empty=True).records == []


@pytest.mark.parametrize("path", real_transcripts(), ids=lambda p: p.name)
def test_block_keeps_every_identifier_at_the_default_budget(path):
    records = scan_transcript(load_transcript(path))
    res = fit_budget(records)
    assert ids_in(res.markdown) >= {r.id for r in records}
    assert res.tokens <= ceiling_for()


def test_small_window_loss_only_by_the_rules():
    t = load_transcript(TRANSCRIPTS / "mini-pytest-5787.traj.json")
    records = scan_transcript(t)
    now = t.rounds[-1].number
    res = fit_budget(records, ceiling=400, current_round=now)
    present = ids_in(res.markdown)
    for r in records:
        if r.id not in present:
            assert r.id in res.dropped and now - r.last_round > 10


def test_a_dropped_record_still_says_what_failed():
    """A stale record the ceiling drops leaves its identifying error line, not only its id."""
    ro = ErrorRecord("ERR_TOOL_ReadOnlyFileSystem", [Occurrence(
        round=2, transcript="t", evidence="> Tokens: 9k sent\n> Error creating file /add: [Errno 30] Read-only file system")])
    recs = [ro, *[rec(f"ERR_PY_Err{i}", [40 + i], path=f"src/m{i}.py", detail=f"E{i}") for i in range(6)]]
    full = tokens.count(render_block(recs))
    res = fit_budget(recs, ceiling=int(full * 1.1), current_round=50)
    assert "ERR_TOOL_ReadOnlyFileSystem" in res.dropped
    assert "ERR_TOOL_ReadOnlyFileSystem (r2: Error creating file /add: [Errno 30] Read-only file system)" in res.markdown
    assert res.tokens <= int(full * 1.1)


def test_shortened_texts_keep_the_identifying_clause():
    from compaction.errors.budget import _shorten

    text = ("the target bug, reproduced on purpose; edited `pkg/handlers/numpy_handler.py` (r9) with `end: 296` "
            "(was 295); cause: It seems there was a mistake in the previous edit attempts")
    short = _shorten(text, 60)
    assert short is not None and len(short) <= 60
    assert "numpy_handler.py" in short and "296" in short  # the file name and the key value, not the generic words
    assert "It seems" not in short
    assert _shorten("short", 60) == "short"


def test_advice_gives_way_only_beside_an_error_line_the_record_has():
    """The avoidance text is cut shorter than the solution only for a record that shows an `Error:` line:
    a record without one keeps its advice at the solution's width."""
    text = " ".join(f"word{i}" for i in range(60))
    with_line = ErrorRecord("ERR_PY_TypeError", [Occurrence(1, "t", "x", "x", Location("a.py", 1, None))], text, text)
    without = ErrorRecord("ERR_PY_KeyError", [Occurrence(2, "t", "y", "y", Location("b.py", 1, None))], text, text)
    result = fit_budget([with_line, without], ceiling=200, current_round=2,
                        detail=lambda r: "TypeError: " + text if r is with_line else "")
    assert result.shortened
    shown = {r.id: r for r in result.records}
    assert len(shown["ERR_PY_TypeError"].avoidance) < len(shown["ERR_PY_TypeError"].solution)
    assert shown["ERR_PY_KeyError"].avoidance == shown["ERR_PY_KeyError"].solution


@pytest.mark.parametrize("ceiling", [100_000, 400, 150])
def test_the_block_holds_the_records_as_they_were_counted(ceiling):
    """Each record is rendered once, counted, and the same text shown: the block is what
    `render_block` makes of the records kept, whether the ceiling merged, dropped or cut them."""
    recs = many()
    res = fit_budget(recs, ceiling=ceiling, current_round=100, detail=lambda r: f"{r.id} failed in {r.rounds}")
    assert res.markdown == render_block(res.records, notes=res.notes, details=res.details)
    assert res.texts == [render_record(r, "en", res.details.get(r.id)) for r in res.records]


def test_a_block_whose_bytes_fit_is_under_the_ceiling_without_being_counted():
    """A token is at least one byte: the budget skips encoding a block whose UTF-8 bytes fit."""
    recs = many()[:3]
    block = render_block(recs)
    assert tokens.count(block) <= len(block.encode())
    res = fit_budget(recs, ceiling=int(len(block.encode()) / 0.8) + 10)
    assert [r.id for r in res.records] == [r.id for r in recs] and not res.shortened


def test_among_stale_records_those_whose_solution_teaches_are_dropped_last():
    """Both records are stale; the older one says what ended it (the edit, the command that then passed),
    the newer one only that the next call worked: the newer goes first, the teaching one stays."""
    teaching = rec("ERR_TOOL_EditNotFound", [21], path="cli/invoker.ts")
    teaching.solution = "edited `invoker.ts` (r22): `// Invokes X` → `import { Y } from './Y'`"
    bare = rec("ERR_TOOL_FileNotFound", [24], path="schemas/a.mjs")
    bare.solution = "then the next reply succeeded (r25)"
    recent = rec("ERR_PY_TypeError", [58], path="src/r.py")
    both = fit_budget([teaching, bare, recent], ceiling=10**6, current_round=60)
    res = fit_budget([teaching, bare, recent], ceiling=int((both.tokens - 20) / 0.8), current_round=60)
    assert res.dropped == ["ERR_TOOL_FileNotFound"]
    assert [r.id for r in res.records] == ["ERR_TOOL_EditNotFound", "ERR_PY_TypeError"]
