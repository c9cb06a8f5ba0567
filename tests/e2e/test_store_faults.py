"""The store under faults, with real processes: `kill -9` mid-compaction/mid-ingest, two writers at
once, a store held locked by another process, and a full disk. Each ends in an intact store and,
where the caller can do something about it, a clear StoreError — never a corrupt database."""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from compaction import store
from compaction.atomic import write_text_atomic
from compaction.errors import ErrorMemory
from compaction.store import StoreError, db_path, open_store
from compaction.transcripts import load_transcript
from tests.conftest import REPO

PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _integrity(ws: Path) -> str:
    conn = sqlite3.connect(db_path(ws))
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def _ids(ws: Path) -> set[str]:
    with ErrorMemory(ws) as mem:
        return {r.id for r in mem.list()}


WORKER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from compaction.atomic import write_text_atomic
    from compaction.config import load_settings
    from compaction.errors import ErrorMemory
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    ws, src = Path(sys.argv[1]), sys.argv[2]
    t = load_transcript(src)
    settings = load_settings(ws)
    mem = ErrorMemory(ws)
    i = 0
    while True:
        t.path = f"{src}#{i}"  # a new identity each time: ingest adds rows instead of replacing them
        mem.ingest(t)
        mem.add(f"ERR_LOGIC_Kill{i}", solution="committed before the line below is printed")
        result = compact(t, settings)  # a kill may land in the middle of a compaction
        write_text_atomic(ws / ".compaction" / "latest.md", result.markdown)
        print(i, flush=True)
        i += 1
""")


def test_kill_9_mid_compaction_and_ingest_leaves_an_intact_store(tmp_path: Path, shared_transcripts: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    src = shared_transcripts / "mini-requests-5414.traj.json"
    rng = random.Random(9)
    committed = -1
    for attempt in range(3):
        proc = subprocess.Popen([PY, "-c", WORKER, str(ws), str(src)], stdout=subprocess.PIPE, text=True, env=ENV)
        try:
            target = committed + 1 + rng.randint(1, 2)
            while True:
                line = proc.stdout.readline()
                assert line, f"worker died early (attempt {attempt})"
                committed = max(committed, int(line))
                if committed >= target:
                    break
            time.sleep(rng.uniform(0.0, 0.4))  # land somewhere in ingest / compact / write
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=60)
            proc.stdout.close()
        assert proc.returncode == -signal.SIGKILL
        assert _integrity(ws) == "ok"
        ids = _ids(ws)
        # every iteration the worker reported is in the store (the last one may be too)
        assert {f"ERR_LOGIC_Kill{i}" for i in range(committed + 1)} <= ids
        latest = (ws / ".compaction" / "latest.md").read_text(encoding="utf-8")
        assert latest.startswith("#") and "## " in latest  # a whole summary, not a torn write
    # the store stays writable after the kills
    with ErrorMemory(ws) as mem:
        report = mem.ingest(load_transcript(src))
        assert report.records >= 1
    assert _integrity(ws) == "ok"


def test_latest_md_is_always_a_whole_document_after_a_kill(tmp_path: Path, shared_transcripts: Path) -> None:
    """Atomic writes: every kill leaves the previous or the new summary, never a truncated one."""
    ws = tmp_path / "ws"
    ws.mkdir()
    src = shared_transcripts / "mini-django-13297.traj.json"
    from compaction.config import load_settings
    from compaction.history import compact

    proc = subprocess.Popen([PY, "-c", WORKER, str(ws), str(src)], stdout=subprocess.PIPE, text=True, env=ENV)
    try:
        assert proc.stdout.readline().strip() == "0"
        time.sleep(0.15)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
        proc.stdout.close()
    latest = (ws / ".compaction" / "latest.md").read_text(encoding="utf-8")
    # The document names the iteration that wrote it; it must be that iteration's whole summary.
    m = re.search(r"traj\.json#(\d+)", latest)
    assert m, latest[:200]
    expected = compact(_with_path(load_transcript(src), f"{src}#{m.group(1)}"), load_settings(ws)).markdown
    assert latest == expected


def _with_path(t, path):
    t.path = path
    return t


WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from compaction.errors import ErrorMemory
    from compaction.transcripts import load_transcript

    ws, tag, go, src = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4]
    t = load_transcript(src)
    mem = ErrorMemory(ws)
    while not go.exists():
        time.sleep(0.005)
    for i in range(60):
        mem.add(f"ERR_LOGIC_{tag}{i}", solution=f"from writer {tag}")
        if i % 10 == 0:
            t.path = f"{src}#{tag}{i}"
            mem.ingest(t)
    print("done", flush=True)
""")


def test_two_processes_writing_at_once(tmp_path: Path, shared_transcripts: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    go = tmp_path / "go"
    src = shared_transcripts / "mini-pytest-5787.traj.json"
    procs = [subprocess.Popen([PY, "-c", WRITER, str(ws), tag, str(go), str(src)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=ENV) for tag in ("A", "B")]
    time.sleep(1.0)
    go.touch()  # both start writing at the same moment
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert out.strip() == "done"
    ids = _ids(ws)
    for tag in ("A", "B"):
        assert {f"ERR_LOGIC_{tag}{i}" for i in range(60)} <= ids
    assert _integrity(ws) == "ok"
    conn = sqlite3.connect(db_path(ws))
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


LOCKER = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    sys.stdin.readline()
    conn.execute("COMMIT")
    print("released", flush=True)
""")


OPENER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from compaction.errors import ErrorMemory

    ws, go = Path(sys.argv[1]), Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.001)
    with ErrorMemory(ws) as mem:
        mem.add("ERR_LOGIC_Opened" + sys.argv[3], solution="opened")
    print("done", flush=True)
""")


def test_many_processes_creating_the_store_at_once(tmp_path: Path) -> None:
    """Switching a new database to WAL makes SQLite answer BUSY without waiting when two processes
    do it together; opening must retry instead of failing (this failed in CI before the retry)."""
    for trial in range(4):
        ws = tmp_path / f"ws{trial}"
        ws.mkdir()
        go = tmp_path / f"go{trial}"
        procs = [subprocess.Popen([PY, "-c", OPENER, str(ws), str(go), str(n)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=ENV) for n in range(5)]
        time.sleep(0.8)
        go.touch()
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            assert out.strip() == "done"
        assert {f"ERR_LOGIC_Opened{n}" for n in range(5)} <= _ids(ws)
        assert _integrity(ws) == "ok"


def test_store_locked_by_another_process_is_a_clear_recoverable_error(tmp_path: Path, monkeypatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with ErrorMemory(ws) as mem:
        mem.add("ERR_PY_KeyError", solution="use .get")
    monkeypatch.setattr("compaction.errors.memory.open_store", lambda w: open_store(w, timeout=0.2))
    locker = subprocess.Popen([PY, "-c", LOCKER, str(db_path(ws))], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=ENV)
    try:
        assert locker.stdout.readline().strip() == "locked"
        with pytest.raises(StoreError) as exc:  # opening: creating the tables needs a write
            ErrorMemory(ws)
        assert "another process holds the store" in str(exc.value) and "state.db" in str(exc.value)
        # reads still work under WAL while a writer holds the lock
        conn = open_store(ws, timeout=0.2)
        assert conn.execute("SELECT count(*) FROM errors_records").fetchone()[0] == 1
        with pytest.raises(StoreError, match="another process holds the store"):
            with store.transaction(conn):
                conn.execute("INSERT INTO errors_decisions VALUES ('ERR_X_Y', 'd', 0)")
        conn.close()
    finally:
        locker.stdin.write("\n")
        locker.stdin.flush()
        assert locker.stdout.readline().strip() == "released"
        locker.wait(timeout=30)
    # recoverable: once the other process is done, the same call succeeds
    with ErrorMemory(ws) as mem:
        mem.add("ERR_PY_TypeError")
        assert {r.id for r in mem.list()} == {"ERR_PY_KeyError", "ERR_PY_TypeError"}


def test_store_full_is_a_clear_store_error_and_nothing_is_half_written(tmp_path: Path) -> None:
    """SQLITE_FULL without root: cap the database's page count, then write more than fits."""
    ws = tmp_path / "ws"
    ws.mkdir()
    mem = ErrorMemory(ws)
    mem.add("ERR_PY_KeyError", solution="kept")
    pages = mem.conn.execute("PRAGMA page_count").fetchone()[0]
    mem.conn.execute(f"PRAGMA max_page_count = {pages + 1}")
    with pytest.raises(StoreError, match="disk is full") as exc:
        mem.add("ERR_PY_Big", solution="x" * 200_000)
    assert "free some space" in str(exc.value)
    mem.conn.execute("PRAGMA max_page_count = 1073741823")
    assert {r.id for r in mem.list()} == {"ERR_PY_KeyError"}  # rolled back whole
    mem.add("ERR_PY_Big", solution="x" * 200_000)  # recoverable once there is room
    assert {r.id for r in mem.list()} == {"ERR_PY_KeyError", "ERR_PY_Big"}
    mem.close()
    assert _integrity(ws) == "ok"


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A 256 KiB tmpfs (needs root; skipped where mounting is not allowed)."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root or no CAP_SYS_ADMIN)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_real_disk_full_on_a_tiny_tmpfs(tiny_disk: Path, shared_transcripts: Path) -> None:
    ws = tiny_disk / "ws"
    ws.mkdir()
    t = load_transcript(shared_transcripts / "mini-sympy-13091.traj.json")
    mem = ErrorMemory(ws)
    mem.add("ERR_PY_KeyError", solution="kept")
    write_text_atomic(ws / ".compaction" / "latest.md", "old summary\n")
    filler = tiny_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the disk to the last block
        while os.write(fd, b"\0" * 1024):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    with pytest.raises(StoreError, match="disk is full"):
        for i in range(50):
            mem.add(f"ERR_LOGIC_Fill{i}", solution="y" * 20_000)
            t.path = f"x#{i}"
            mem.ingest(t)
    with pytest.raises(OSError):  # the atomic write fails before touching the old summary
        write_text_atomic(ws / ".compaction" / "latest.md", "new summary " * 100_000)
    assert (ws / ".compaction" / "latest.md").read_text() == "old summary\n"
    filler.unlink()
    mem.add("ERR_PY_After", solution="room again")  # recoverable
    assert "ERR_PY_KeyError" in {r.id for r in mem.list()} and "ERR_PY_After" in {r.id for r in mem.list()}
    mem.close()
    assert _integrity(ws) == "ok"
