"""Acceptance on the 13 real transcripts: recall of Python exception classes against an
independent scan, verbatim evidence, and counts no lower than GROUND_TRUTH's error signals.

How GROUND_TRUTH's `error_signals` map (they are raw string counts over the source file, which
repeats content: OpenHands copies every model response into `tool_call_metadata`, SWE-agent
stores each observation in both `trajectory` and `history`, assistants paraphrase errors):
- py_traceback -> signals of ERR_PY_* records (one per traceback read, plus E-lines/FAILED lines);
- test_failed  -> signals of ERR_LOGIC_TestFailed + ERR_JAVA_BuildFailure (maven's FAILURE lines);
- not_found    -> signals of ERR_TOOL_FileNotFound, ERR_PY_FileNotFoundError, ERR_JAVA_PackageDoesNotExist,
                  ERR_JAVA_FileNotFoundException;
- tool_error_flag -> signals of ERR_TOOL_* records.
"Where those apply" = what the loaded transcript still shows in tool output and user/harness text:
the expected figure is min(GT, the same phrase counted independently in that text); for not_found
INFO/DEBUG log lines (Spring's "class path resource … does not exist") are not errors.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from compaction.errors import scan_transcript
from compaction.model import Role
from compaction.transcripts import load_transcript
from tests.conftest import TRANSCRIPTS, real_transcripts

FILES = [p.name for p in real_transcripts()]

# independent of compaction.errors.classify: one regex per traceback block
_TB = re.compile(
    r"(?m)^(?P<p>[^\n]*?)Traceback \(most recent call last\):\n"
    r"(?:(?P=p)[ \t][^\n]*\n|(?P=p)\n|\n)*?"
    r"(?P=p)(?P<name>[A-Za-z_][\w.]*)(?::[^\n]*)?$")


@cache
def _load(name: str):
    t = load_transcript(TRANSCRIPTS / name)
    return t, scan_transcript(t)


def _scanned_texts(t) -> list[str]:
    """What the error memory reads: tool output and user/harness text (not system prompts, not the
    assistant's own prose, which quotes earlier output or drafts code)."""
    out = []
    for m in t.messages:
        if m.role in (Role.SYSTEM, Role.ASSISTANT):
            continue
        if m.text:
            out.append(m.text)
        out.extend(r.content for r in m.tool_results)
    return out


def _expected_py_classes(texts: list[str]) -> set[str]:
    names = set()
    for text in texts:
        for m in _TB.finditer(text):
            name = m.group("name").rsplit(".", 1)[-1]
            if re.fullmatch(r"_*[A-Z]\w*[a-z]\w*", name):
                names.add(name)
    return names


def _ground_truth() -> dict[str, dict]:
    rows = [json.loads(line) for line in (TRANSCRIPTS / "GROUND_TRUTH.jsonl").read_text().splitlines() if line]
    return {r["file"]: r["error_signals"] for r in rows}


@pytest.mark.parametrize("name", FILES)
def test_python_exception_recall(name):
    t, records = _load(name)
    expected = _expected_py_classes(_scanned_texts(t))
    found = {r.id.removeprefix("ERR_PY_") for r in records if r.family == "PY"}
    if not expected:
        return
    recall = len(expected & found) / len(expected)
    assert recall >= 0.99, f"missing {sorted(expected - found)}"


def test_recall_scan_is_not_vacuous():
    """The independent scan finds classes on the transcripts that have tracebacks."""
    total = set()
    for name in FILES:
        t, _ = _load(name)
        total |= _expected_py_classes(_scanned_texts(t))
    assert {"TypeError", "KeyError", "InterfaceError", "AttributeError", "IndentationError"} <= total


def _original_strings(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return [text]
    out: list[str] = []

    def walk(o) -> None:
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(json.loads(text))
    return out


@pytest.mark.parametrize("name", FILES)
def test_evidence_is_verbatim(name):
    t, records = _load(name)
    originals = _original_strings(TRANSCRIPTS / name)
    n = 0
    for rec in records:
        assert rec.occurrences, rec.id
        for occ in rec.occurrences:
            assert occ.evidence.strip(), (rec.id, occ.round)
            msg = t.messages[occ.message]
            source = msg.text if occ.source == "text" else msg.tool_results[int(occ.source.split(":")[1])].content
            assert source[occ.start:occ.end] == occ.evidence
            assert any(occ.evidence in s for s in originals), (rec.id, occ.evidence[:80])
            assert any(m.index == occ.message for m in t.rounds[occ.round - 1].messages)
            n += 1
    assert n == sum(r.count for r in records)


_FAMILY_OF_SIGNAL = {
    "py_traceback": lambda r: r.family == "PY",
    # A test failure merged into the exception that caused it is an alias of that record (one failure, one record).
    "test_failed": lambda r: any(i in ("ERR_LOGIC_TestFailed", "ERR_JAVA_BuildFailure") for i in [r.id, *r.merged]),
    "not_found": lambda r: r.id in ("ERR_TOOL_FileNotFound", "ERR_PY_FileNotFoundError",
                                    "ERR_JAVA_PackageDoesNotExist", "ERR_JAVA_FileNotFoundException"),
    "tool_error_flag": lambda r: r.family == "TOOL",
}


def _independent_count(kind: str, texts: list[str], t) -> int:
    blob = "\n".join(texts)
    if kind == "py_traceback":
        return blob.count("Traceback (most recent call last)")
    if kind == "test_failed":
        return len(re.findall(r"(?m)^FAILED |\b\d+ failed\b|BUILD FAILURE| FAILURE \[", blob))
    if kind == "not_found":
        lines = [ln for ln in blob.splitlines() if re.search(r"No such file or directory|does not exist", ln)]
        return sum(1 for ln in lines if not re.search(r"\b(INFO|DEBUG)\b", ln))
    return sum(1 for m in t.messages for r in m.tool_results if r.is_error)


@pytest.mark.parametrize("name", FILES)
def test_counts_not_below_ground_truth(name):
    t, records = _load(name)
    signals = _ground_truth()[name]
    texts = _scanned_texts(t)
    for kind, pick in _FAMILY_OF_SIGNAL.items():
        gt = signals.get(kind, 0)
        if not gt:
            continue
        expected = min(gt, _independent_count(kind, texts, t))
        mine = sum(r.signals for r in records if pick(r))
        assert mine >= expected, (kind, mine, expected, gt)


def test_ground_truth_mostly_applies():
    """The `applies` adjustment is small: across the set the expected figures keep most of GT."""
    gt_total = applied = 0
    for name in FILES:
        t, _ = _load(name)
        texts = _scanned_texts(t)
        for kind, gt in _ground_truth()[name].items():
            if kind in _FAMILY_OF_SIGNAL and gt:
                gt_total += gt
                applied += min(gt, _independent_count(kind, texts, t))
    assert applied >= 0.8 * gt_total


@pytest.mark.parametrize("name", FILES)
def test_records_are_well_formed(name):
    _, records = _load(name)
    for rec in records:
        assert re.fullmatch(r"ERR_[A-Z]+_[A-Za-z0-9_]+", rec.id)
        rounds = [o.round for o in rec.occurrences]
        assert len(rounds) == len(set(rounds)), "an id counts at most once per round"
        assert rec.count == len(rec.rounds) and rec.recurring == (rec.count >= 2)
        assert rec.solution and rec.avoidance
