"""Result cache (seed 003 §5): hits, and invalidation by file change, task change and 24 h."""

from __future__ import annotations

import os
from pathlib import Path

from compaction.cache import TTL_SECONDS, ResultCache, content_hash


class Clock:
    def __init__(self) -> None:
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        return self.t


def make(tmp_path: Path) -> tuple[ResultCache, Clock]:
    clock = Clock()
    return ResultCache(tmp_path, clock=clock), clock


def test_hit_by_content_hash_and_params(tmp_path: Path):
    cache, _ = make(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return {"summary": "short", "tokens": 3}

    v1, hit1 = cache.get_or_compute("summary", "long text", compute, {"target": 100})
    v2, hit2 = cache.get_or_compute("summary", "long text", compute, {"target": 100})
    assert (hit1, hit2) == (False, True) and v1 == v2 and len(calls) == 1
    _, hit3 = cache.get_or_compute("summary", "long text", compute, {"target": 200})  # other params
    _, hit4 = cache.get_or_compute("summary", "other text", compute, {"target": 100})  # other content
    assert not hit3 and not hit4 and len(calls) == 3
    assert cache.stats["hits"] == 1
    assert content_hash("a", {"x": 1}) == content_hash("a", {"x": 1}) != content_hash("a", {"x": 2})


def test_persisted_across_instances(tmp_path: Path):
    cache, clock = make(tmp_path)
    cache.put("tokens", "abc", 42)
    assert ResultCache(tmp_path, clock=clock).get("tokens", "abc") == 42


def test_invalidated_by_file_change(tmp_path: Path):
    cache, _ = make(tmp_path)
    src = tmp_path / "main.py"
    src.write_text("print('a')\n")
    cache.put("file", src.read_text(), "summary of main", files=[src])
    assert cache.get("file", "print('a')\n") == "summary of main"
    src.write_text("print('b')\n")  # same size, different content
    os.utime(src, ns=(src.stat().st_atime_ns, src.stat().st_mtime_ns))
    assert cache.get("file", "print('a')\n") is None
    assert cache.stats["file_changed"] == 1
    cache.put("file", "x", "y", files=[src])
    src.unlink()  # deletion is a change too
    assert cache.get("file", "x") is None


def test_invalidate_path_from_a_watcher_event(tmp_path: Path):
    cache, _ = make(tmp_path)
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("a")
    b.write_text("b")
    cache.put("k", "1", 1, files=[a])
    cache.put("k", "2", 2, files=[b])
    assert cache.invalidate_path(str(a)) == 1
    assert cache.get("k", "1") is None and cache.get("k", "2") == 2


def test_invalidated_by_task_change(tmp_path: Path):
    cache, _ = make(tmp_path)
    cache.set_task("Fix the KeyError in parse_config")
    cache.put("compaction", "transcript", "doc", task="Fix the KeyError in parse_config")
    cache.put("tokens", "static", 7)  # not tied to a task
    assert cache.get("compaction", "transcript", task="Fix  the KeyError in parse_config") == "doc"  # whitespace
    assert cache.set_task("Add a CSV exporter") == 1
    assert cache.get("compaction", "transcript") is None
    assert cache.get("tokens", "static") == 7
    cache.put("compaction", "t2", "doc2", task="Add a CSV exporter")
    assert cache.get("compaction", "t2", task="Something else") is None  # asked under another task
    assert cache.set_task("Add a CSV exporter") == 0  # same task: nothing dropped


def test_expires_after_24_hours_with_injected_clock(tmp_path: Path):
    cache, clock = make(tmp_path)
    cache.put("restore", "ws", {"files": ["a.py"]})
    clock.t += TTL_SECONDS - 1
    assert cache.get("restore", "ws") == {"files": ["a.py"]}
    clock.t += 1
    assert cache.get("restore", "ws") is None
    assert cache.stats["expired"] == 1 and len(cache) == 0
    cache.put("restore", "ws", 1)
    clock.t += 2 * TTL_SECONDS
    assert cache.purge_expired() == 1
