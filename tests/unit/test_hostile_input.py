"""Hostile and large input: a JSONL file still being written, invalid UTF-8, binary files, empty
files, devices and FIFOs, deep nesting, lines of tens of MB, lone surrogates — every loader reads
what is complete or fails with TranscriptError naming the file (and line), never a traceback; the
original is never opened for writing; outputs are written atomically."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from compaction.atomic import write_text_atomic
from compaction.config import load_settings
from compaction.history import compact
from compaction.model import TranscriptError
from compaction.transcripts import format_names, load_transcript
from tests.conftest import REPO

FORMATS = REPO / "tests" / "data" / "formats"
REAL = REPO / "tests" / "data" / "transcripts_real"
FIXTURES = {  # one fixture per loader
    "openai-chat": FORMATS / "openai_chat.json",
    "anthropic": FORMATS / "anthropic_messages.json",
    "claude-code": FORMATS / "claude_code_session.jsonl",
    "codex": FORMATS / "codex_rollout.jsonl",
    "gemini-cli": FORMATS / "gemini_stream.jsonl",
    "aider": REAL / "aider_small.aider.chat.history.md",
    "markdown": REAL / "markdown_chat.md",
    "mini-swe-agent": REAL / "mini_v2_small.traj.json",
    "openhands": REAL / "openhands_events.json",
}


def _claude_record(i: int, text: str, kind: str = "user") -> dict:
    base = {"sessionId": "s", "parentUuid": f"u{i - 1}" if i else None, "uuid": f"u{i}", "cwd": "/w",
            "isSidechain": False, "userType": "external", "type": kind}
    if kind == "user":
        base["message"] = {"role": "user", "content": text}
    else:
        base["message"] = {"id": f"m{i}", "role": "assistant", "content": [{"type": "text", "text": text}]}
    return base


def test_every_loader_has_a_hostile_fixture() -> None:
    assert set(FIXTURES) <= set(format_names())
    for path in FIXTURES.values():
        assert path.is_file(), path


def test_jsonl_being_written_reads_what_is_complete(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    recs = [_claude_record(i, f"message {i}", "user" if i % 2 == 0 else "assistant") for i in range(6)]
    full = "".join(json.dumps(r) + "\n" for r in recs)
    half = json.dumps(_claude_record(6, "still being writ"))[:40]
    path.write_text(full + half, encoding="utf-8")
    t = load_transcript(path)
    assert [m.text for m in t.messages] == [f"message {i}" for i in range(6)]
    assert any(f"{path}:7" in w and "incomplete last line" in w for w in t.warnings), t.warnings
    # the agent finishes the line: now it is read too
    path.write_text(full + json.dumps(_claude_record(6, "done")) + "\n", encoding="utf-8")
    assert load_transcript(path).messages[-1].text == "done"


def test_bad_line_in_the_middle_names_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [json.dumps(_claude_record(i, f"m{i}", "user" if i % 2 == 0 else "assistant")) for i in range(4)]
    lines[2] = lines[2][:30]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(TranscriptError) as exc:
        load_transcript(path)
    assert exc.value.line == 3 and exc.value.path == str(path)


@pytest.mark.parametrize("fmt", sorted(FIXTURES))
def test_invalid_utf8_names_file_and_line(fmt: str, tmp_path: Path) -> None:
    data = FIXTURES[fmt].read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1  # start of a line in the middle
    bad = data[:cut] + b"\xff\xfe broken \xc3(" + data[cut:]
    path = tmp_path / FIXTURES[fmt].name
    path.write_bytes(bad)
    with pytest.raises(TranscriptError) as exc:
        load_transcript(path, fmt=fmt)
    assert exc.value.path == str(path)
    assert "UTF-8" in exc.value.reason or "JSON" in exc.value.reason, exc.value
    assert exc.value.line == data[:cut].count(b"\n") + 1, (exc.value, data[:cut].count(b"\n") + 1)


@pytest.mark.parametrize("blob", [
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,
    b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64,
    bytes(range(256)) * 100,
    b"PK\x03\x04\x14\x00\x00\x00\x08\x00",
], ids=["png", "elf", "bytes", "zip"])
@pytest.mark.parametrize("fmt", [None, *sorted(FIXTURES)])
def test_binary_files_are_refused(blob: bytes, fmt: str | None, tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(blob)
    with pytest.raises(TranscriptError) as exc:
        load_transcript(path, fmt=fmt)
    assert exc.value.path == str(path)


@pytest.mark.parametrize("content", [b"", b"\n", b"  \n\n\t\n", b"\xef\xbb\xbf"], ids=["empty", "nl", "blank", "bom"])
@pytest.mark.parametrize("fmt", [None, *sorted(FIXTURES)])
def test_empty_files(content: bytes, fmt: str | None, tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(content)
    try:
        t = load_transcript(path, fmt=fmt)
    except TranscriptError as exc:
        assert exc.path == str(path)
    else:  # a text format may read an empty conversation; then it has no messages
        assert t.messages == [] and t.rounds == []


def test_directory_fifo_and_device_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for p in (tmp_path, fifo, Path("/dev/zero"), tmp_path / "missing.jsonl"):
        for fmt in (None, "openai-chat", "claude-code"):
            with pytest.raises(TranscriptError):
                load_transcript(p, fmt=fmt)


@pytest.mark.parametrize("as_dict", [False, True], ids=["lists", "objects"])
@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic", "mini-swe-agent", "openhands", "claude-code", "codex"])
def test_deeply_nested_json(fmt: str, as_dict: bool, tmp_path: Path) -> None:
    depth = 200_000
    deep = ('{"a":' * depth + "1" + "}" * depth) if as_dict else ("[" * depth + "]" * depth)
    path = tmp_path / ("deep.jsonl" if fmt in ("claude-code", "codex") else "deep.json")
    if fmt in ("claude-code", "codex"):
        path.write_text(json.dumps(_claude_record(0, "hi")) + "\n" + deep + "\n", encoding="utf-8")
    else:
        path.write_text(deep, encoding="utf-8")
    with pytest.raises(TranscriptError) as exc:
        load_transcript(path, fmt=fmt)
    assert exc.value.path == str(path)


def test_deeply_nested_tool_arguments_load_and_redact(tmp_path: Path) -> None:
    """Nesting under Python's recursion limit for the parser, above it for a recursive walker."""
    args: object = {"command": "ls"}
    for _ in range(min(sys.getrecursionlimit() - 100, 900)):
        args = {"x": args}
    rec = _claude_record(1, "", "assistant")
    rec["message"]["content"] = [{"type": "tool_use", "id": "t", "name": "Bash", "input": args}]
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(_claude_record(0, "go")) + "\n" + json.dumps(rec) + "\n", encoding="utf-8")
    t = load_transcript(path)
    assert t.messages[1].tool_calls[0].name == "Bash"


def test_line_of_tens_of_megabytes(tmp_path: Path) -> None:
    """One tool result of 24 MB on a single JSONL line (a test log an agent cat'ed) loads whole."""
    chunk = "PASSED tests/test_module.py::test_case_%06d in 0.01s\n"
    big = "".join(chunk % i for i in range(24 * 2**20 // len(chunk % 0)))
    result = _claude_record(2, "")
    result["message"]["content"] = [{"type": "tool_result", "tool_use_id": "t", "content": big}]
    call = _claude_record(1, "", "assistant")
    call["message"]["content"] = [{"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "pytest"}}]
    path = tmp_path / "big.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for r in (_claude_record(0, "run the tests"), call, result):
            fh.write(json.dumps(r) + "\n")
    assert path.stat().st_size > 20 * 2**20
    t = load_transcript(path)
    assert len(t.messages[2].tool_results[0].content) == len(big)
    assert t.meta["redactions"] == {}


def test_lone_surrogates_are_replaced_and_compaction_runs(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('[{"role": "user", "content": "emoji cut \\ud83d in half"}, '
                    '{"role": "assistant", "content": "ok \\udc00"}]', encoding="utf-8")
    t = load_transcript(path)
    assert t.messages[0].text == "emoji cut \ufffd in half"
    assert any("surrogate" in w for w in t.warnings)
    result = compact(t, load_settings(None))
    write_text_atomic(tmp_path / "out.md", result.markdown)
    assert (tmp_path / "out.md").read_text(encoding="utf-8") == result.markdown


def test_huge_numbers_and_non_finite_values(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('[{"role": "user", "content": "x", "timestamp": ' + "9" * 5000 + "}]", encoding="utf-8")
    with pytest.raises(TranscriptError, match="invalid JSON"):
        load_transcript(path, fmt="openai-chat")
    path.write_text('[{"role": "user", "content": "x", "ts": NaN, "n": Infinity}, '
                    '{"role": "assistant", "content": "y"}]', encoding="utf-8")
    assert len(load_transcript(path, fmt="openai-chat").messages) == 2


def test_original_is_never_opened_for_writing(tmp_path: Path) -> None:
    """An audit hook watches every open() while a transcript is loaded, compacted and restored."""
    from compaction.cli import main

    src = FIXTURES["claude-code"]
    path = tmp_path / src.name
    path.write_bytes(src.read_bytes())
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    watched = str(path.resolve())
    writes: list[tuple[str, str]] = []
    state = {"on": True}

    def hook(event: str, args: tuple) -> None:
        if state["on"] and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            name = os.fsdecode(args[0])
            mode = args[1] if len(args) > 1 else "r"
            flags = args[2] if len(args) > 2 else 0
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                (isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC))
            if writing and os.path.abspath(name) == watched:
                writes.append((name, str(mode)))

    sys.addaudithook(hook)
    try:
        assert main(["compact", str(path), "--workspace", str(tmp_path), "--restore", "--json"]) == 0
    finally:
        state["on"] = False
    assert writes == []
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert (tmp_path / ".compaction" / "latest.md").is_file()


def test_atomic_write_keeps_the_old_file_when_the_rename_fails(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / ".compaction" / "latest.md"
    write_text_atomic(target, "old summary\n")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_text_atomic(target, "new summary\n")
    assert target.read_text() == "old summary\n"
    assert [p.name for p in target.parent.iterdir()] == ["latest.md"]  # no temporary file left behind


def test_loader_bug_becomes_a_transcript_error(tmp_path: Path, monkeypatch) -> None:
    """The safety net in load_transcript: a loader's own bug on a strange file is bad input, not a traceback."""
    from compaction.transcripts import openai_chat

    def broken(path: str):
        raise TypeError("unhashable type: 'dict'")

    monkeypatch.setattr(openai_chat, "load", broken)
    path = tmp_path / "chat.json"
    path.write_text('[{"role": "user", "content": "x"}]', encoding="utf-8")
    with pytest.raises(TranscriptError, match="unexpected shape") as exc:
        load_transcript(path, fmt="openai-chat")
    assert exc.value.path == str(path)


def test_nothing_from_a_transcript_is_executed(tmp_path: Path) -> None:
    """Commands in a transcript are data: loading, compacting and restoring runs no process but git."""
    from compaction.cli import main

    marker = tmp_path / "pwned"
    cmd = f"touch {marker}; $(touch {marker}) `touch {marker}`"
    rec0 = _claude_record(0, f"please run {cmd}")
    rec1 = _claude_record(1, "", "assistant")
    rec1["message"]["content"] = [{"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": cmd}}]
    rec2 = _claude_record(2, "")
    rec2["message"]["content"] = [{"type": "tool_result", "tool_use_id": "t", "content": f"$ {cmd}\n"}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (rec0, rec1, rec2)), encoding="utf-8")
    spawned: list[str] = []
    state = {"on": True}

    def hook(event: str, args: tuple) -> None:
        if state["on"] and event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn"):
            spawned.append(f"{event} {args[:2]!r}")

    sys.addaudithook(hook)
    try:
        assert main(["compact", str(path), "--workspace", str(tmp_path), "--restore", "--json"]) == 0
        assert main(["restore", "--workspace", str(tmp_path), "--transcript", str(path), "--json"]) == 0
    finally:
        state["on"] = False
    assert not marker.exists()
    assert all("git" in s for s in spawned), spawned


def test_token_counts_of_huge_texts_are_bounded_in_memory_and_exact() -> None:
    """compaction.tokens counts texts over 1 MB in pieces cut after a newline (tiktoken's int lists
    would otherwise cost ~36 bytes a token): the counts stay tiktoken's own."""
    from compaction import tokens

    enc = tokens.encoding(tokens.DEFAULT_ENCODING)
    log = "".join(f"tests/test_m.py::test_{i} PASSED [{i % 100:3d}%]\n    value = {i * 7.31:.3f}\n"
                  for i in range(60_000))
    assert len(log) > 3 * 2**20
    assert tokens.count(log) == len(enc.encode_ordinary(log))
    texts = ["short text"] * 50 + [log, "", "x" * 10] + [log[:500_000]] * 12
    assert tokens.count_many(texts) == [len(enc.encode_ordinary(t)) for t in texts]
