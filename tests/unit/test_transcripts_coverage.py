"""Loss accounting (issue 13 item 3): what the model saw reaches the parsed messages.

Coverage is measured by an independent scan of the source file (compaction/transcripts/coverage.py);
planted `@important` / `@decision` / `@warning` / `@todo` lines are found in the source by a plain regex
and must all be in the parsed messages.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from compaction.model import TranscriptError
from compaction.transcripts import load_transcript
from compaction.transcripts.coverage import EXCLUSIONS, INFERRED_SPEAKER, measure
from tests.conftest import REPO, TRANSCRIPTS

FORMATS = REPO / "tests" / "data" / "formats"
MORE = TRANSCRIPTS / "more-agents"
# Issue 13's set-aside sessions (bench/holdout/SET_ASIDE.md) were left out until their first run
# (bench/results/set_aside_first_run_coverage.txt); the test now holds all 30.
NOT_SESSIONS = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
REAL = sorted(p for d in (TRANSCRIPTS, MORE) if d.is_dir() for p in d.iterdir()
              if p.is_file() and p.name not in NOT_SESSIONS)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_every_real_session_reaches_99_percent(path):
    t = load_transcript(path, redact=False)
    assert t.messages and t.rounds
    cov = measure(path, t)
    assert cov.coverage >= 0.99, (cov.coverage, cov.missing)
    assert cov.seen_chars > 10_000


def test_the_real_set_is_the_one_we_expect():
    assert len(REAL) == 30  # 13 in ../shared/transcripts + 17 in more-agents


def test_coverage_is_not_vacuous_a_dropped_message_is_seen(tmp_path):
    path = MORE / "pi-trl-grpo-smoke.jsonl"
    t = load_transcript(path, redact=False)
    full = measure(path, t).coverage
    biggest = max(t.messages, key=lambda m: len(m.full_text()))
    t.messages.remove(biggest)
    cov = measure(path, t)
    assert cov.coverage < full and cov.missing  # the loss is measured, and named by kind


def test_every_exclusion_says_why_and_names_known_formats():
    from compaction.transcripts import format_names

    known = set(format_names()) | {"*", "generic", "generic-markdown"}
    for ex in EXCLUSIONS:
        assert len(ex.reason) >= 10, ex
        assert set(ex.formats) <= known, ex
        if ex.line or ex.pattern:
            re.compile(ex.key)
    assert any(ex.key == "toolUseResult" for ex in EXCLUSIONS)
    assert any(ex.key == INFERRED_SPEAKER for ex in EXCLUSIONS)


def test_claude_code_tool_use_result_is_excluded_not_missing():
    path = MORE / "cc-bastion-compacted.jsonl"
    cov = measure(path, load_transcript(path, redact=False))
    kinds = dict(cov.excluded)
    assert any(k.startswith("toolUseResult:") for k in kinds)
    assert cov.excluded_share > 0 and not any(k.startswith("toolUseResult") for k, _ in cov.missing)


def test_stats_coverage_reports_share_excluded_share_and_kinds():
    path = FORMATS / "roo_api_conversation_history.json"
    run = subprocess.run([sys.executable, "-m", "compaction.cli", "stats", "--coverage", str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^coverage: 100\.00% of \d+ characters the model saw reached the parsed messages$", run.stdout, re.M)
    assert re.search(r"^excluded: \d+\.\d\d% \(\d+ characters never shown to the model\)$", run.stdout, re.M)
    assert re.search(r"^  excluded: +\d+  role: speaker tag \(kept as the message.s role\)$", run.stdout, re.M)


# --- planted markers --------------------------------------------------------------------------------

_MARKER = re.compile(r"@(?:important|decision|warning|todo)\b[^\"\\\n<]*")
FIXTURES = sorted(p for p in FORMATS.iterdir() if p.is_file() and p.name != "README.md")


def _parsed_text(t) -> str:
    parts: list[str] = []
    for m in t.messages:
        parts.append(m.text)
        parts.extend(r.content for r in m.tool_results)
        for c in m.tool_calls:
            parts.extend(x for x in (c.command, c.path) if x)
            parts.append(repr(c.arguments))
            parts.extend(v for v in c.arguments.values() if isinstance(v, str))
    return "\n".join(parts)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_planted_markers_survive_wherever_the_model_saw_them(path):
    planted = {m.group(0).strip().rstrip("`*_").strip() for m in _MARKER.finditer(path.read_text(encoding="utf-8"))}
    text = _parsed_text(load_transcript(path))
    assert all(marker in text for marker in planted), [m for m in planted if m not in text]


def test_new_fixtures_plant_markers_in_all_four_places():
    """user text, assistant text (around code blocks), tool output, tool-call arguments."""
    for name in ("pi_session_v3.jsonl", "specstory_claude_code.md", "roo_api_conversation_history.json",
                 "generic_speaker_body.jsonl", "generic_cline_export.md"):
        t = load_transcript(FORMATS / name)
        where = set()
        for m in t.messages:
            if _MARKER.search(m.text):
                where.add(m.role.value)
            if any(_MARKER.search(r.content) for r in m.tool_results):
                where.add("tool output")
            if any(_MARKER.search(repr(c.arguments)) for c in m.tool_calls):
                where.add("tool arguments")
        assert {"user", "tool output"} <= where and ("assistant" in where or "tool arguments" in where), (name, where)


# --- hostile input for the new readers --------------------------------------------------------------


@pytest.mark.parametrize("name", ["pi_session_v3.jsonl", "generic_speaker_body.jsonl"])
def test_a_broken_jsonl_line_names_file_and_line(tmp_path, name):
    lines = (FORMATS / name).read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2][: len(lines[2]) // 2]
    p = tmp_path / name
    p.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(TranscriptError) as err:
        load_transcript(p)
    assert err.value.path == str(p) and err.value.line == 3


@pytest.mark.parametrize("name", ["specstory_claude_code.md", "cursor_export.md", "generic_headings.md",
                                  "generic_steps_nested.json"])
def test_invalid_utf8_names_file_and_line(tmp_path, name):
    data = (FORMATS / name).read_bytes()
    cut = data.index(b"\n", data.index(b"\n") + 1) + 1  # start of line 3
    p = tmp_path / name
    p.write_bytes(data[:cut] + b"\xff\xfe" + data[cut:])
    with pytest.raises(TranscriptError) as err:
        load_transcript(p)
    assert err.value.path == str(p) and err.value.line == 3
