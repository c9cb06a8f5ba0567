"""ErrorMemory in the workspace store: persistence, idempotent ingestion of the same or a grown
transcript, add/resolve/forget, import/export, and proactive `check` with user overrides."""

from __future__ import annotations

import copy
import json
import sqlite3

import pytest

from compaction.errors import ErrorMemory, records_to_out, scan_transcript
from compaction.errors.memory import ErrorMemoryError
from compaction.model import Transcript, group_rounds
from compaction.store import db_path
from compaction.transcripts import load_transcript
from tests.conftest import TRANSCRIPTS

PYTEST = TRANSCRIPTS / "mini-pytest-5787.traj.json"


def _counts(mem: ErrorMemory) -> dict[str, int]:
    return {r.id: r.count for r in mem.list()}


def test_ingest_persists_across_sessions(tmp_path):
    t = load_transcript(PYTEST)
    with ErrorMemory(tmp_path) as mem:
        report = mem.ingest(t)
        assert report.new_occurrences == sum(r.count for r in scan_transcript(t))
    assert db_path(tmp_path).exists()
    with ErrorMemory(tmp_path) as mem:  # a new session sees the same records
        assert _counts(mem) == {r.id: r.count for r in scan_transcript(t)}
        rec = mem.get("ERR_PY_TypeError")
        assert rec.rounds == [41, 55, 60] and rec.recurring
        assert all(o.evidence for o in rec.occurrences)
    tables = {r[0] for r in sqlite3.connect(db_path(tmp_path)).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {t for t in tables if t.startswith("errors_")} == tables & {
        "errors_records", "errors_occurrences", "errors_decisions", "errors_transcripts"}
    assert sqlite3.connect(db_path(tmp_path)).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reingest_same_and_grown_transcript_is_idempotent(tmp_path):
    full = load_transcript(PYTEST)
    half = copy.copy(full)
    half.messages = [m for m in full.messages if m.index < len(full.messages) // 2]
    half.rounds = group_rounds(half.messages)
    assert len(half.rounds) < len(full.rounds)
    with ErrorMemory(tmp_path) as mem:
        mem.ingest(half)
        first = _counts(mem)
        assert mem.ingest(half).new_occurrences == 0
        assert _counts(mem) == first
        mem.ingest(full)  # grown: same identity, more rounds
        grown = _counts(mem)
        assert mem.ingest(full).new_occurrences == 0
        assert _counts(mem) == grown == {r.id: r.count for r in scan_transcript(full)}


def test_two_transcripts_add_up(tmp_path):
    a = load_transcript(TRANSCRIPTS / "mini-sphinx-9258.traj.json")
    b = load_transcript(TRANSCRIPTS / "mini-sympy-13091.traj.json")
    with ErrorMemory(tmp_path) as mem:
        mem.ingest(a)
        mem.ingest(b)
        ca = {r.id: r.count for r in scan_transcript(a)}
        cb = {r.id: r.count for r in scan_transcript(b)}
        both = _counts(mem)
        assert both["ERR_PY_SyntaxError"] == ca["ERR_PY_SyntaxError"] + cb["ERR_PY_SyntaxError"]


def test_add_resolve_forget_and_user_text_survives_reingest(tmp_path):
    t = load_transcript(PYTEST)
    with ErrorMemory(tmp_path) as mem:
        mem.ingest(t)
        mem.resolve("ERR_PY_KeyError", solution="keep old dict keys")
        mem.ingest(t)
        assert mem.get("ERR_PY_KeyError").solution == "keep old dict keys"
        assert mem.get("ERR_PY_KeyError").resolved
        added = mem.add("ERR_LOGIC_OffByOne", solution="use < not <=", path="src/range.py", line=4)
        assert added.count == 1 and added.locations()[0].path == "src/range.py"
        assert mem.add("ERR_LOGIC_OffByOne").count == 2
        assert mem.forget("ERR_LOGIC_OffByOne") == ["ERR_LOGIC_OffByOne"]
        assert mem.get("ERR_LOGIC_OffByOne") is None
        with pytest.raises(ErrorMemoryError):
            mem.forget()  # never empties the memory unless asked explicitly
        with pytest.raises(ErrorMemoryError):
            mem.add("KeyError")
        assert mem.list()
        mem.forget(everything=True)
        assert mem.list() == []


def test_export_import_round_trip_between_workspaces(tmp_path):
    with ErrorMemory(tmp_path / "a") as a:
        a.ingest(load_transcript(PYTEST))
        a.ingest(load_transcript(TRANSCRIPTS / "oh-ponyc-4593.json"))
        for lang in ("en", "zh"):
            block = a.export(lang, path=tmp_path / f"errors.{lang}.md")
            assert (tmp_path / f"errors.{lang}.md").read_text(encoding="utf-8") == block
            with ErrorMemory(tmp_path / f"b-{lang}") as b:
                b.import_block(block, origin=f"errors.{lang}.md")
                b.import_block(block, origin=f"errors.{lang}.md")  # importing twice changes nothing
                mark = f"(imported from errors.{lang}.md) "
                assert b.export(lang).replace(mark, "") == block  # the same block, every advice line marked
                assert all(mark in line for line in b.export(lang).splitlines()
                           if line.lstrip().startswith(("Solution:", "Avoidance:", "解决:", "规避:"))
                           and not line.rstrip().endswith(":"))
                view = [json.loads(o.model_dump_json(exclude={"locations"}).replace(mark, ""))
                        for o in records_to_out(b.list())]
                assert view == [o.model_dump(exclude={"locations"}) for o in records_to_out(a.list())]


def _build(texts: list[tuple[str, str, str, int]]) -> Transcript:
    from tests.unit.test_errors_scan import build

    return build([("user", "task")] + [("shell", c, o, e) for _, c, o, e in texts])


def test_check_warns_ranked_with_reason_and_respects_override(tmp_path):
    t = _build([
        ("", "python src/app.py", 'Traceback (most recent call last):\n  File "src/app.py", line 3, in load\n'
                                  "    cfg['port']\nKeyError: 'port'\n", 1),
        ("", "cat src/cfg/settings.toml", "cat: src/cfg/settings.toml: No such file or directory", 1),
        ("", "python src/app.py", 'Traceback (most recent call last):\n  File "src/app.py", line 4, in load\n'
                                  "    cfg['port']\nKeyError: 'port'\n", 1),
    ])
    with ErrorMemory(tmp_path) as mem:
        mem.ingest(t)
        warns = mem.check("edit load() to read the port", files=["src/app.py"], commands=["python src/app.py"])
        assert warns and warns[0].id == "ERR_PY_KeyError"
        assert "same file app.py" in warns[0].reason and "same command" in warns[0].reason
        assert warns[0].line.startswith("⚠️ Detected historical error [ERR_PY_KeyError], avoidance: [")
        zh = mem.check("", files=["src/app.py"], lang="zh")
        assert zh[0].line.startswith("⚠️ 检测到历史错误 [ERR_PY_KeyError]，规避建议：[")
        assert len(mem.check("KeyError settings.toml", files=["src/app.py", "src/cfg/settings.toml"],
                             commands=["python src/app.py"], limit=1)) == 1
        assert mem.check("write the README", files=["README.md"]) == []
        decision = mem.ignore("ERR_PY_KeyError")
        assert decision == "@decision: ignore_ERR_PY_KeyError"
        assert all(w.id != "ERR_PY_KeyError" for w in mem.check("", files=["src/app.py"], commands=["python src/app.py"]))
    with ErrorMemory(tmp_path) as mem:  # the override persists
        assert mem.decisions() == {"ERR_PY_KeyError": "@decision: ignore_ERR_PY_KeyError"}
        assert all(w.id != "ERR_PY_KeyError" for w in mem.check("", files=["src/app.py"]))


def test_decision_in_transcript_is_recorded(tmp_path):
    from tests.unit.test_errors_scan import build

    t = build([("user", "go"), ("shell", "ls x", "ls: cannot access 'x': No such file or directory", 2),
               ("user", "Ignore that. @decision: ignore_ERR_TOOL_FileNotFound")])
    with ErrorMemory(tmp_path) as mem:
        assert mem.ingest(t).decisions == ["ERR_TOOL_FileNotFound"]
        assert mem.check("", files=["x"], commands=["ls x"]) == []


def test_target_bugs_do_not_warn(tmp_path):
    with ErrorMemory(tmp_path) as mem:
        mem.ingest(load_transcript(TRANSCRIPTS / "sweagent-pydicom-1458.traj"))
        rec = mem.get("ERR_PY_AttributeError")
        assert rec.target_bug
        assert mem.check("AttributeError", files=["reproduce_bug.py"], commands=["python reproduce_bug.py"]) == []


def test_oversized_output_is_warned_before_the_next_unbounded_command(tmp_path):
    from compaction.errors.check import unbounded_output

    assert unbounded_output("cat src/_pytest/_code/code.py")
    assert unbounded_output("cd /testbed && pytest tests/test_domain_py.py")
    assert not unbounded_output("cat src/app.py | head -50")
    assert not unbounded_output("sed -n '10,40p' src/app.py")
    assert not unbounded_output("pytest -q tests/test_app.py")
    with ErrorMemory(tmp_path) as mem:
        mem.add("ERR_TOOL_OutputTooLong", evidence="The output of your last command was too long.",
                command="cat big_module.py")
        warned = [w.id for w in mem.check(commands=["cat another_module.py"])]
        quiet = [w.id for w in mem.check(commands=["sed -n '1,40p' another_module.py"])]
    assert "ERR_TOOL_OutputTooLong" in warned
    assert "ERR_TOOL_OutputTooLong" not in quiet


def test_one_transcript_under_many_names_counts_its_errors_once(tmp_path):
    """Issue 15, attack 7: `t.jsonl`, `../t.jsonl`, `/abs/t.jsonl`, a hard link and a copy are one
    conversation; its identity is its content, and the store records the resolved path."""
    import os
    import shutil

    ws = tmp_path / "ws"
    sub = ws / "sub"
    sub.mkdir(parents=True)
    original = ws / "t.traj.json"
    shutil.copy(PYTEST, original)
    os.link(original, ws / "hard.traj.json")
    shutil.copy(original, tmp_path / "copy.traj.json")
    expected = {r.id: r.count for r in scan_transcript(load_transcript(original))}
    cwd = os.getcwd()
    os.chdir(sub)
    try:
        names = ["../t.traj.json", str(original), os.path.relpath(original, sub), "../hard.traj.json",
                 str(tmp_path / "copy.traj.json")]
        with ErrorMemory(ws) as mem:
            for name in names:
                mem.ingest(load_transcript(name))
            assert _counts(mem) == expected
            assert mem.get("ERR_PY_TypeError").rounds == [41, 55, 60]
            paths = {r[0] for r in mem.conn.execute("SELECT path FROM errors_transcripts")}
    finally:
        os.chdir(cwd)
    assert all(os.path.isabs(p) for p in paths)


def test_occurrences_stored_under_the_old_path_identity_are_rekeyed_not_doubled(tmp_path):
    from compaction.errors.scan import legacy_transcript_id

    t = load_transcript(PYTEST)
    old = legacy_transcript_id(t)
    with ErrorMemory(tmp_path) as mem:
        mem.ingest(t, scan_transcript(t, tid=old))  # what an earlier version stored
        before = _counts(mem)
        mem.ingest(t)
        assert _counts(mem) == before == {r.id: r.count for r in scan_transcript(t)}
