"""The Markdown block: the seed's record shape in English and Chinese, the §2.5 protocol above
it, and import(export(x)) == x."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.errors import parse_block, records_to_out, render_block, scan_transcript
from compaction.errors.records import ErrorRecord, Occurrence
from compaction.transcripts import load_transcript
from tests.conftest import TRANSCRIPTS


def rec(err_id: str, rounds: list[int], solution: str = "s", avoidance: str = "a", target: bool = False) -> ErrorRecord:
    r = ErrorRecord(err_id, [Occurrence(round=n, transcript="t", target=target) for n in rounds], solution, avoidance)
    return r


def test_english_shape_matches_design():
    block = render_block([
        rec("ERR_TS_MissingExhaustive", [12, 24, 35], "added a `never` exhaustiveness check",
            "after each `switch`, add `default: exhaustiveCheck(x)`"),
        rec("ERR_TOOL_FileNotFound", [7], "the file is `src/app/main.py`, not `app/main.py`",
            "list the directory before opening guessed paths"),
    ])
    lines = block.splitlines()
    assert lines[0] == "## Error Memory"
    assert "- #recurring ERR_TS_MissingExhaustive: occurrences 3 (rounds 12, 24, 35)" in lines
    assert "  Solution: added a `never` exhaustiveness check" in lines
    assert "  Avoidance: after each `switch`, add `default: exhaustiveCheck(x)`" in lines
    assert "- ERR_TOOL_FileNotFound: occurrences 1 (rounds 7)" in lines


def test_protocol_precedes_records_in_two_or_three_lines():
    for lang, warn in (("en", "⚠️ Detected historical error [ID], avoidance: [advice]"),
                       ("zh", "⚠️ 检测到历史错误 [标识]，规避建议：[规避建议]")):
        block = render_block([rec("ERR_PY_KeyError", [1])], lang)
        proto = [ln for ln in block.splitlines() if ln.startswith(">")]
        assert 2 <= len(proto) <= 3
        assert warn in block and "@decision: ignore_ERR_xxx" in block
        assert block.index(proto[0]) < block.index("- ERR_PY_KeyError")


def test_chinese_shape_matches_seed():
    block = render_block([rec("ERR_TS_MissingExhaustive", [12, 24, 35], "添加 `never` 类型检查",
                              "在 `switch` 后增加 `default: exhaustiveCheck()`")], "zh")
    assert "- #recurring ERR_TS_MissingExhaustive: 发生3次 (12,24,35)" in block
    assert "  解决: 添加 `never` 类型检查" in block
    assert "  规避: 在 `switch` 后增加 `default: exhaustiveCheck()`" in block


def test_parses_the_seed_example_verbatim():
    seed = (
        "## Error Memory\n"
        "- ERR_TS_MissingExhaustive: 发生3次 (12,24,35)\n"
        "  解决: 添加 `never` 类型检查\n"
        "  规避: 在 `switch` 后增加 `default: exhaustiveCheck()`\n"
        "- ERR_PY_AsyncWithoutAwait: 发生2次 (18,40)\n"
        "  解决: 添加 `await` 或改为同步函数\n"
        "  规避: 使用 `ruff` 规则 `ASYNC101`\n"
    )
    a, b = parse_block(seed)
    assert (a.id, a.rounds, a.count, a.solution) == ("ERR_TS_MissingExhaustive", [12, 24, 35], 3, "添加 `never` 类型检查")
    assert (b.id, b.rounds, b.avoidance) == ("ERR_PY_AsyncWithoutAwait", [18, 40], "使用 `ruff` 规则 `ASYNC101`")


def test_parses_a_block_pasted_into_claude_md():
    md = ("# Project notes\nUse tabs.\n\n## Error Memory\n"
          "- #recurring ERR_PY_TypeError: occurrences 3 (rounds 41,55,60)\n  Solution: x\n  Avoidance: y\n\n"
          "## Other section\n- ERR_NOT_A_RECORD line\n")
    (r,) = parse_block(md)
    assert r.rounds == [41, 55, 60] and r.solution == "x" and r.avoidance == "y"


def _view(records):
    return [o.model_dump(exclude={"locations"}) for o in records_to_out(records)]


def test_round_trip_on_real_transcripts_both_languages():
    for name in ("mini-pytest-5787.traj.json", "oh-mapstruct-3492.json", "mini-django-13297.traj.json"):
        records = scan_transcript(load_transcript(TRANSCRIPTS / name))
        assert records
        for lang in ("en", "zh"):
            back = parse_block(render_block(records, lang))
            assert _view(back) == _view(records)
            assert render_block(back, lang) == render_block(records, lang)


def test_count_above_listed_rounds_survives_import():
    r = rec("ERR_PY_KeyError", [3, 9])
    r.occurrences.append(Occurrence(round=9, transcript="other-session"))
    assert r.count == 3 and r.rounds == [3, 9]
    (back,) = parse_block(render_block([r]))
    assert back.count == 3 and back.rounds == [3, 9]


def test_merged_ids_survive_round_trip():
    r = rec("ERR_PY_TypeError", [1, 2])
    r.merged = ["ERR_PY_KeyError", "ERR_PY_OSError"]
    block = render_block([r])
    assert "ERR_PY_TypeError (+ERR_PY_KeyError, ERR_PY_OSError): occurrences 2" in block
    (back,) = parse_block(block)
    assert back.merged == r.merged


_text = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=60).map(
    lambda s: " ".join(s.split())).filter(bool)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(
    st.sampled_from(["PY", "TS", "TOOL", "LOGIC", "JAVA"]), st.from_regex(r"[A-Z][a-z]{1,8}", fullmatch=True),
    st.lists(st.integers(1, 500), min_size=1, max_size=6, unique=True), _text, _text, st.booleans()),
    min_size=0, max_size=6, unique_by=lambda x: (x[0], x[1])), st.sampled_from(["en", "zh"]))
def test_round_trip_property(specs, lang):
    records = [rec(f"ERR_{fam}_{name}", sorted(rounds), sol, avo, target)
               for fam, name, rounds, sol, avo, target in specs]
    back = parse_block(render_block(records, lang))
    assert _view(back) == _view(records)


def test_every_line_is_single_line_even_with_newlines_in_solution():
    r = rec("ERR_PY_KeyError", [1], "line one\nline two", "a\tb")
    block = render_block([r], protocol=False)
    assert re.search(r"^  Solution: line one line two$", block, re.M)
