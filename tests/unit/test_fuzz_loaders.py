"""Fuzz every transcript loader: the only failure allowed is TranscriptError naming the file.

Seeds are the real transcripts (../shared/transcripts) and the fixtures (tests/data/formats,
tests/data/transcripts_real), shrunk to a few records each so that an example costs milliseconds.
Mutations: truncate, flip bytes, insert invalid UTF-8 / NUL / BOM, splice and repeat regions,
shuffle lines, change the type of a JSON field, drop or swap keys, nest deeply, huge numbers,
lone surrogates. `FUZZ_EXAMPLES` sets examples per loader (default 300; `bench/fuzz_all.py`
runs 10,000+ and prints the counts).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compaction import transcripts
from compaction.model import TranscriptError
from compaction.transcripts import detect, format_names, load_transcript
from tests.conftest import REPO, TRANSCRIPTS

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
COUNTS: Counter = Counter()  # examples run per loader (read by bench/fuzz_all.py)
SEED_DIRS = [TRANSCRIPTS, REPO / "tests" / "data" / "formats", REPO / "tests" / "data" / "transcripts_real"]
SKIP = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
KEEP_ITEMS = 8
KEEP_CHARS = 1500


# --- seeds ------------------------------------------------------------------------------------------
def _trim(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return value[:KEEP_CHARS]
    if isinstance(value, list):
        return [_trim(v, depth + 1) for v in value[:KEEP_ITEMS]]
    if isinstance(value, dict):
        return {k: _trim(v, depth + 1) for k, v in value.items()}
    return value


def shrink(data: bytes) -> bytes:
    """A small file of the same shape: lists cut to a few items, strings to 1,500 characters."""
    text = data.decode("utf-8", "replace")
    try:
        return json.dumps(_trim(json.loads(text)), indent=1, ensure_ascii=False).encode()
    except ValueError:
        pass
    lines = [ln for ln in text.splitlines() if ln.strip()]
    try:
        recs = [json.loads(ln) for ln in lines[:12]]
        return "".join(json.dumps(_trim(r), ensure_ascii=False) + "\n" for r in recs).encode()
    except ValueError:
        pass
    cut = data[:8000]
    return cut[: cut.rfind(b"\n") + 1] or cut


def _build_seeds() -> dict[str, list[tuple[str, bytes]]]:
    seeds: dict[str, list[tuple[str, bytes]]] = {}
    for d in SEED_DIRS:
        if not d.is_dir():
            continue
        for p in sorted(d.iterdir()):
            if not p.is_file() or p.name in SKIP:
                continue
            try:
                fmt = detect(p).NAME
            except TranscriptError:
                continue
            seeds.setdefault(fmt, []).append((p.name, shrink(p.read_bytes())))
    return seeds


SEEDS = _build_seeds()


# --- mutations --------------------------------------------------------------------------------------
INVALID_UTF8 = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80", b"\x00",
                b"\xef\xbb\xbf", b"\r", b"\n\n\n", b"\\u0000", b"\\ud800", b'\\"', b"\x1b[31m"]
JSON_LEAF = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True)
             | st.text(max_size=30) | st.sampled_from(["", "\ud800x", "\x00", "a" * 5000, "../../etc/passwd"]))
JSON_VALUE = st.recursive(JSON_LEAF, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=10), c,
                                                                                          max_size=3), max_leaves=6)


def _nodes(value: Any, path: tuple = (), out: list | None = None, limit: int = 400) -> list[tuple]:
    """Paths of the nodes of a JSON value (breadth-limited)."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    out.append(path)
    if isinstance(value, dict):
        for k, v in value.items():
            _nodes(v, path + (k,), out, limit)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _nodes(v, path + (i,), out, limit)
    return out


def _get(value: Any, path: tuple) -> Any:
    for k in path:
        value = value[k]
    return value


def _set(root: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    _get(root, path[:-1])[path[-1]] = new
    return root


def _nest(v: Any, depth: int, as_dict: bool) -> Any:
    for _ in range(depth):
        v = {"content": v} if as_dict else [v]
    return v


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (RecursionError, ValueError):
        return "[]"


def _deep_text(depth: int, as_dict: bool) -> str:
    """A nested JSON text of any depth without building (and recursing into) the object."""
    return ('{"content":' * depth + "1" + "}" * depth) if as_dict else ("[" * depth + "1" + "]" * depth)


@st.composite
def json_mutation(draw, blob: bytes) -> bytes:
    """Parse the seed (JSON, or JSONL one record at a time), change one node, serialize again."""
    text = blob.decode("utf-8", "replace")
    jsonl = False
    try:
        docs = [json.loads(text)]
    except (ValueError, RecursionError):
        try:
            docs = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
            jsonl = True
        except (ValueError, RecursionError):
            return blob
    if not docs:
        return blob
    which = draw(st.integers(0, len(docs) - 1))
    doc = docs[which]
    nodes = _nodes(doc)
    path = nodes[draw(st.integers(0, len(nodes) - 1))]
    op = draw(st.sampled_from(["type", "drop", "swap", "nest", "bigint", "deep_text", "dup_key"]))
    raw_override = None
    if op == "type":
        doc = _set(doc, path, draw(JSON_VALUE))
    elif op == "drop" and path:
        parent = _get(doc, path[:-1])
        del parent[path[-1]]
    elif op == "swap":
        target = _get(doc, path)
        if isinstance(target, dict) and len(target) >= 2:
            keys = list(target)
            a, b = draw(st.integers(0, len(keys) - 1)), draw(st.integers(0, len(keys) - 1))
            target[keys[a]], target[keys[b]] = target[keys[b]], target[keys[a]]
        elif isinstance(target, dict) and target:
            k = next(iter(target))
            target[draw(st.text(max_size=8))] = target.pop(k)
        elif isinstance(target, list) and len(target) >= 2:
            draw(st.randoms()).shuffle(target)
    elif op == "nest":
        doc = _set(doc, path, _nest(_get(doc, path), draw(st.integers(2, 400)), draw(st.booleans())))
    elif op == "bigint":
        marker = "__FUZZ_BIGINT__"
        doc = _set(doc, path, marker)
        raw_override = _dumps(doc).replace(f'"{marker}"', draw(st.sampled_from(
            ["9" * 5000, "1e999", "-1e999", "NaN", "Infinity", "-0", "1" * 30])))
    elif op == "deep_text":
        marker = "__FUZZ_DEEP__"
        doc = _set(doc, path, marker)
        raw_override = _dumps(doc).replace(f'"{marker}"', _deep_text(draw(st.integers(500, 100_000)),
                                                                     draw(st.booleans())))
    elif op == "dup_key" and isinstance(_get(doc, path), dict):
        raw_override = _dumps(doc).replace("{", '{"role": "assistant", ', 1)
    docs[which] = doc
    if raw_override is not None:
        parts = [_dumps(d) for d in docs]
        parts[which] = raw_override
    else:
        parts = [_dumps(d) for d in docs]
    if jsonl:
        return ("\n".join(parts) + "\n").encode("utf-8", "surrogatepass")
    return parts[0].encode("utf-8", "surrogatepass")


@st.composite
def byte_mutation(draw, blob: bytes) -> bytes:
    op = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "repeat", "lines", "empty", "random"]))
    n = len(blob)
    if op == "truncate":
        return blob[: draw(st.integers(0, n))]
    if op == "flip":
        b = bytearray(blob)
        for _ in range(draw(st.integers(1, 8))):
            if b:
                i = draw(st.integers(0, len(b) - 1))
                b[i] ^= draw(st.integers(1, 255))
        return bytes(b)
    if op == "insert":
        i = draw(st.integers(0, n))
        return blob[:i] + draw(st.sampled_from(INVALID_UTF8) | st.binary(max_size=16)) + blob[i:]
    if op == "delete":
        i = draw(st.integers(0, n))
        return blob[:i] + blob[draw(st.integers(i, n)):]
    if op == "repeat":
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 2000)))
        return blob[:j] + blob[i:j] * draw(st.integers(1, 5)) + blob[j:]
    if op == "lines":
        lines = blob.split(b"\n")
        draw(st.randoms()).shuffle(lines)
        return b"\n".join(lines[: draw(st.integers(0, len(lines)))])
    if op == "empty":
        return draw(st.sampled_from([b"", b"\n", b"   \n\n", b"{}", b"[]", b"null", b'""', b"\xef\xbb\xbf"]))
    return draw(st.binary(max_size=512))


@st.composite
def mutated(draw, seeds: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    name, blob = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 2))):
        blob = draw(json_mutation(blob) if draw(st.booleans()) else byte_mutation(blob))
    return name, blob


# --- the property -----------------------------------------------------------------------------------
def check_loader(fmt: str | None, path: Path) -> None:
    """Load; on failure, only TranscriptError naming the file is allowed; on success, shape invariants.

    Strict mode: load_transcript's safety net (other exceptions -> TranscriptError) is off, so a
    loader bug shows as what it is."""
    transcripts.STRICT = True
    try:
        t = load_transcript(path, fmt=fmt)
    except TranscriptError as exc:
        assert exc.path == str(path), exc
        assert str(exc).startswith(str(path)), exc
        assert exc.line is None or (isinstance(exc.line, int) and exc.line >= 1), exc
        return
    finally:
        transcripts.STRICT = False
    assert sum(len(r.messages) for r in t.rounds) == len(t.messages)
    assert [r.number for r in t.rounds] == list(range(1, len(t.rounds) + 1))
    for m in t.messages:
        assert isinstance(m.text, str)
        for r in m.tool_results:
            assert isinstance(r.content, str)
            assert r.call_id is None or isinstance(r.call_id, str)
        for c in m.tool_calls:
            assert isinstance(c.name, str) and isinstance(c.arguments, dict)
            assert c.id is None or isinstance(c.id, str)
            assert all(v is None or isinstance(v, str) for v in (c.command, c.path)), (c.command, c.path)
        m.full_text().encode("utf-8")  # downstream hashes, tokenizes and writes it: it must encode


def fuzz_loader(fmt: str, workdir: Path, examples: int, on_example=None):
    """The hypothesis test for one loader (fmt given half the time, detected the other half)."""
    seeds = SEEDS[fmt]

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              derandomize=os.environ.get("FUZZ_RANDOM") is None)
    @given(case=mutated(seeds), forced=st.booleans())
    def run(case: tuple[str, bytes], forced: bool) -> None:
        name, blob = case
        path = workdir / name
        path.write_bytes(blob)
        COUNTS[fmt] += 1
        if on_example is None:
            check_loader(fmt if forced else None, path)
        else:
            on_example(fmt if forced else None, path, blob)

    return run


@pytest.mark.parametrize("fmt", sorted(SEEDS))
def test_fuzz_loader(fmt: str, tmp_path: Path) -> None:
    before = COUNTS[fmt]
    fuzz_loader(fmt, tmp_path, EXAMPLES)()
    assert COUNTS[fmt] - before >= min(EXAMPLES, 50)


def test_every_registered_loader_has_seeds() -> None:
    assert set(format_names()) <= set(SEEDS), set(format_names()) - set(SEEDS)
    assert all(len(blob) < 200_000 for seeds in SEEDS.values() for _, blob in seeds)
