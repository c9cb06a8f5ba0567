"""TypeScript for real: the output of the real `tsc` (npm typescript 5.6.3) on the deliberately
broken project in tests/data/errors/ts-broken, wrapped in an OpenAI-chat transcript, gives an
ERR_TS_ record naming each of its codes (plain and `--pretty` output alike)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from compaction.errors import render_block, scan_transcript
from compaction.errors.tsc_codes import ts_id
from compaction.transcripts import load_transcript

DATA = Path(__file__).resolve().parents[1] / "data" / "errors"
PROJECT = DATA / "ts-broken"
ANSI = re.compile(r"\x1b\[[\d;]*m")


def codes_in(text: str) -> set[str]:
    return set(re.findall(r"error (TS\d+):", ANSI.sub("", text)))


def test_fixture_holds_at_least_20_distinct_real_tsc_codes():
    plain = (PROJECT / "tsc-output.txt").read_text(encoding="utf-8")
    pretty = (PROJECT / "tsc-output-pretty.txt").read_text(encoding="utf-8")
    assert len(codes_in(plain)) >= 20
    assert codes_in(pretty) == codes_in(plain)


def test_each_code_gets_a_record_naming_it():
    t = load_transcript(DATA / "ts-broken-transcript.json")
    records = scan_transcript(t)
    expected = codes_in((PROJECT / "tsc-output.txt").read_text(encoding="utf-8"))
    named = {c: r.id for r in records if r.family == "TS" for c in r.ts_codes}
    assert expected <= set(named)
    for code in expected:
        assert named[code] == ts_id(code)
    by_id = {r.id: r for r in records}
    assert by_id["ERR_TS_MissingProperty"].ts_codes == ["TS2741"]
    assert by_id["ERR_TS_PropertyDoesNotExist"].locations()[0].path == "src/models.ts"
    # both rounds (plain and pretty run) count: each id twice, once per round
    assert all(r.count == 2 and r.recurring for r in records if r.family == "TS")
    block = render_block(records)
    assert all(ts_id(c) in block for c in expected)


def test_pretty_output_evidence_is_verbatim():
    t = load_transcript(DATA / "ts-broken-transcript.json")
    for r in scan_transcript(t):
        for o in r.occurrences:
            msg = t.messages[o.message]
            src = msg.tool_results[int(o.source.split(":")[1])].content
            assert src[o.start:o.end] == o.evidence


@pytest.mark.skipif(not (PROJECT / "node_modules" / "typescript").is_dir() or not shutil.which("node"),
                    reason="run `npm install` in tests/data/errors/ts-broken to re-check against the real tsc")
def test_saved_output_is_what_the_real_tsc_says_now():
    proc = subprocess.run(["node", "node_modules/typescript/bin/tsc", "-p", ".", "--noEmit", "--pretty", "false"],
                          cwd=PROJECT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert codes_in(proc.stdout) == codes_in((PROJECT / "tsc-output.txt").read_text(encoding="utf-8"))
