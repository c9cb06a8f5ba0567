"""Fuzz the error classifier (never raises), the error-memory block parser/importer (only
ErrorMemoryError) and the config loader (only ConfigError), seeded with real transcripts' text,
blocks rendered from their error records, and valid configurations.

`FUZZ_EXAMPLES` sets examples per target (default 300); `bench/fuzz_all.py` runs 10,000+.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compaction.config import ConfigError, Settings, load_settings, read_config_file
from compaction.errors import ErrorMemory, classify, parse_block, render_block, scan_transcript
from compaction.errors.memory import ErrorMemoryError
from compaction.transcripts import load_transcript
from tests.conftest import real_transcripts
from tests.unit.test_fuzz_loaders import byte_mutation, json_mutation

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
COUNTS: Counter = Counter()
OnCrash = Callable[[BaseException, "bytes | str"], None] | None

SPECIALS = ["\x00", "\ud800", "\u202e", "\r\n", "\t", "�", "Traceback (most recent call last):\n",
            '  File "x.py", line 99999999999999999999, in <module>\n', "E   ", "FAILED ", "error TS2322: ",
            "occurrences 9999999999999999 (rounds 1)", "发生99999999次", "ERR_PY_", "#" * 50, "9" * 5000,
            "\n- ERR_TS_X: occurrences 2 (rounds 1, 2)\n", "  Solution: ", "  Avoidance: ", "(" * 500, "  " * 1000]


def _settings(n: int):
    return settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck),
                    derandomize=os.environ.get("FUZZ_RANDOM") is None)


@st.composite
def text_mutation(draw, seed: str) -> str:
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["truncate", "insert", "delete", "repeat", "lines", "digits", "random"]))
        n = len(seed)
        if op == "truncate":
            seed = seed[: draw(st.integers(0, n))]
        elif op == "insert":
            i = draw(st.integers(0, n))
            seed = seed[:i] + draw(st.sampled_from(SPECIALS) | st.text(max_size=40)) + seed[i:]
        elif op == "delete":
            i = draw(st.integers(0, n))
            seed = seed[:i] + seed[draw(st.integers(i, n)):]
        elif op == "repeat":
            i = draw(st.integers(0, n))
            j = draw(st.integers(i, min(n, i + 500)))
            seed = seed[:j] + seed[i:j] * draw(st.integers(1, 20)) + seed[j:]
        elif op == "lines":
            lines = seed.split("\n")
            draw(st.randoms()).shuffle(lines)
            seed = "\n".join(lines)
        elif op == "digits":
            seed = "".join(draw(st.sampled_from(["0", "99999999999", "-1", "٣"])) if c.isdigit() and
                           draw(st.integers(0, 9)) == 0 else c for c in seed[:4000]) + seed[4000:]
        else:
            seed = draw(st.text(max_size=300))
    return seed


# --- seeds ------------------------------------------------------------------------------------------
def _error_texts() -> list[str]:
    """Tool outputs of the real transcripts that carry errors, cut to 3,000 characters."""
    out = []
    for path in real_transcripts():
        t = load_transcript(path)
        for m in t.messages:
            for text in [m.text] + [r.content for r in m.tool_results]:
                if text and any(w in text for w in ("Error", "error", "Traceback", "FAILED", "not found")):
                    out.append(text[:3000])
    out.sort(key=len)
    return out[:: max(1, len(out) // 60)] + [
        "Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n    x[1]\nKeyError: 'k'\n",
        "src/app.ts(3,5): error TS2741: Property 'x' is missing in type '{}' but required in type 'T'.",
        "FAILED tests/test_a.py::test_b - AssertionError: assert 1 == 2",
        "bash: rg: command not found", "cat: nope.txt: No such file or directory",
    ]


def _blocks() -> list[str]:
    blocks = []
    for path in real_transcripts()[:6]:
        records = scan_transcript(load_transcript(path))
        if records:
            blocks += [render_block(records, "en"), render_block(records, "zh")]
    blocks.append("## Error Memory\n- #recurring ERR_TS_MissingExhaustive: occurrences 3 (rounds 12, 24, 35)\n"
                  "  Solution: added a `never` exhaustiveness check\n"
                  "  Avoidance: after each `switch`, add `default: exhaustiveCheck(x)`\n"
                  "- ERR_TOOL_FileNotFound: occurrences 1 (rounds 7)\n  Solution: the file is `src/app/main.py`\n")
    blocks.append("## 错误记忆\n- ERR_PY_KeyError: 发生3次 (12,24,35)\n  解决: 用 get\n  规避: 先检查键\n")
    return blocks


def _configs() -> list[bytes]:
    full = Settings().model_dump(by_alias=True, mode="json")
    return [json.dumps(full, indent=1).encode(), b'{"triggerRatio": 0.8, "keepRecent": 3, "lang": "zh"}',
            b'{"mcp": {"type": "compressed", "keyValue": {"maxFacts": 10}}}', b'{"llm": {"enabled": false}}', b"{}"]


# --- targets ----------------------------------------------------------------------------------------
def classify_target(workdir: Path, examples: int, on_crash: OnCrash = None):
    seeds = _error_texts()

    @_settings(examples)
    @given(data=st.data(), tool_output=st.booleans(), failed=st.booleans())
    def run(data, tool_output: bool, failed: bool) -> None:
        text = data.draw(text_mutation(data.draw(st.sampled_from(seeds))))
        COUNTS["classify"] += 1
        try:
            hits = classify(text, tool_output=tool_output, failed=failed)
            assert isinstance(hits, list)
            for h in hits:
                assert h.id.startswith("ERR_") and 0 <= h.start <= h.end <= len(text), h
        except Exception as exc:
            if on_crash is None:
                raise
            on_crash(exc, text)

    return run


def parse_block_target(workdir: Path, examples: int, on_crash: OnCrash = None):
    seeds = _blocks()
    memory = ErrorMemory(workdir)

    @_settings(examples)
    @given(data=st.data())
    def run(data) -> None:
        text = data.draw(text_mutation(data.draw(st.sampled_from(seeds))))
        COUNTS["errors.parse_block"] += 1
        try:
            records = parse_block(text)
            assert all(r.id.startswith("ERR_") for r in records)
            try:
                ids = memory.import_block(text)
                assert ids == [r.id for r in records]
            except ErrorMemoryError:
                pass
        except Exception as exc:
            if on_crash is None:
                raise
            on_crash(exc, text)

    return run


def config_target(workdir: Path, examples: int, on_crash: OnCrash = None):
    seeds = _configs()
    cfg = workdir / ".compaction" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)

    @_settings(examples)
    @given(data=st.data())
    def run(data) -> None:
        blob = data.draw(st.sampled_from(seeds))
        blob = data.draw(json_mutation(blob) if data.draw(st.booleans()) else byte_mutation(blob))
        cfg.write_bytes(blob)
        COUNTS["config"] += 1
        try:
            try:
                read_config_file(cfg)
                s = load_settings(workdir)
                assert isinstance(s, Settings)
            except ConfigError as exc:
                assert str(cfg) in str(exc) or "invalid configuration" in str(exc), exc
            try:  # the same object as an editor/flags layer
                layer = json.loads(blob.decode("utf-8", "replace"))
            except (ValueError, RecursionError):
                layer = None  # not JSON: not a layer (json's own errors are not the loader's)
            if isinstance(layer, dict):
                try:
                    load_settings(None, layer)
                except ConfigError:
                    pass
        except Exception as exc:
            if on_crash is None:
                raise
            on_crash(exc, blob)

    return run


TARGETS = {"classify": classify_target, "errors.parse_block": parse_block_target, "config": config_target}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_fuzz_target(name: str, tmp_path: Path) -> None:
    before = COUNTS[name]
    TARGETS[name](tmp_path, EXAMPLES)()
    assert COUNTS[name] - before >= min(EXAMPLES, 50)
