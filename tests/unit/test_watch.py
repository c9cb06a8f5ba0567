"""`compaction watch`: the automatic trigger with an injected clock and a transcript grown step by step."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from compaction.cli.integrations import claude_hooks, watcher
from compaction.cli.integrations.watcher import Watcher
from compaction.config import Settings
from compaction.discovery import TranscriptRef, claude_project_names

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "formats" / "claude_code_session.jsonl"


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def write_chat(path: Path, rounds: int, mtime: float) -> None:
    """An OpenAI-chat transcript of `rounds` rounds, about 60 tokens each (with a failing command)."""
    msgs = [{"role": "system", "content": "You are a coding agent working in /workspace/app."}]
    for i in range(1, rounds + 1):
        msgs.append({"role": "user", "content": f"Step {i}: please fix the parser bug number {i} in app/parse_{i}.py"})
        msgs.append({"role": "assistant", "content": f"I edited app/parse_{i}.py and ran the tests; round {i} done. "
                     "Traceback (most recent call last):\n  File \"app/parse.py\", line 3\nKeyError: 'name'"})
    path.write_text(json.dumps(msgs))
    os.utime(path, (mtime, mtime))


def discover_one(path: Path):
    def discover(_ws):
        st = path.stat()
        return [TranscriptRef(str(path), "test", st.st_mtime, st.st_size)] if path.exists() else []
    return discover


def make(tmp_path: Path, clock: Clock, window: int = 3000, **kw) -> tuple[Watcher, Path]:
    path = tmp_path / "chat.json"
    settings = Settings(context_window=window, min_rounds=10)
    return Watcher(tmp_path, settings, clock=clock, discover=discover_one(path), **kw), path


def test_compacts_exactly_once_when_crossing_the_trigger(tmp_path):
    clock = Clock()
    w, path = make(tmp_path, clock)
    kinds, utils = [], []
    for rounds in range(2, 41, 2):
        clock.t += 30
        write_chat(path, rounds, clock.t)
        ev = w.step()
        kinds.append(ev.kind)
        utils.append(ev.utilization)
        assert w.step().kind == "idle"  # nothing changed: no reload, no compaction
    assert kinds.count("compacted") == 1
    first_above = next(i for i, u in enumerate(utils) if u >= 0.70)
    assert kinds.index("compacted") == first_above
    assert all(k == "status" for k in kinds[:first_above])
    assert (tmp_path / ".compaction" / "restore.md").is_file()
    assert claude_hooks.read_state(tmp_path).trigger == "watch"


def test_short_conversations_are_not_compacted_even_above_the_trigger(tmp_path):
    clock = Clock()
    w, path = make(tmp_path, clock, window=400)
    write_chat(path, 6, clock.t)
    ev = w.step()
    assert ev.utilization >= 0.7 and ev.kind == "short"


def test_rearms_after_the_agent_compacts_and_never_more_than_four_per_hour(tmp_path, monkeypatch):
    done = []

    def fake(transcript, workspace, settings, **kw):
        done.append(clock.t)
        return claude_hooks.PreCompactReport(workspace=str(workspace), written=[], rounds=len(transcript.rounds),
                                             tokens_before=1, tokens_after=1, errors_ingested=0, elapsed_ms=0)

    monkeypatch.setattr(claude_hooks, "compact_to_workspace", fake)
    clock = Clock()
    w, path = make(tmp_path, clock)
    events = []
    for _cycle in range(8):  # 8 crossings in 40 minutes: the agent compacts, the chat grows again
        for rounds in (12, 40):
            clock.t += 150
            write_chat(path, rounds, clock.t)
            events.append(w.step())
    assert [e.kind for e in events[:2]] == ["status", "compacted"]
    assert len(done) == 4  # fewer than 5 in the hour
    assert sum(e.kind == "rate-limited" for e in events) == 4
    assert all(b - a < watcher.HOUR for a, b in zip(done, done[1:], strict=False))
    # an hour after the first one, the pending crossing is compacted on the next (idle) tick
    clock.t = done[0] + watcher.HOUR + 1
    ev = w.step()
    assert ev.kind == "compacted" and len(done) == 5
    window_counts = [sum(1 for t in done if s <= t < s + watcher.HOUR) for s in done]
    assert max(window_counts) <= 4


def test_a_new_newest_transcript_rearms(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(claude_hooks, "compact_to_workspace",
                        lambda t, ws, s, **kw: calls.append(t.path) or claude_hooks.PreCompactReport(
                            workspace=str(ws), written=[], rounds=0, tokens_before=0, tokens_after=0,
                            errors_ingested=0, elapsed_ms=0))
    clock = Clock()
    current = {"path": tmp_path / "a.json"}
    settings = Settings(context_window=3000)
    w = Watcher(tmp_path, settings, clock=clock, discover=lambda ws: discover_one(current["path"])(ws))
    write_chat(current["path"], 40, clock.t)
    assert w.step().kind == "compacted"
    current["path"] = tmp_path / "b.json"
    clock.t += 60
    write_chat(current["path"], 40, clock.t)
    assert w.step().kind == "compacted"
    assert [Path(p).name for p in calls] == ["a.json", "b.json"]


def test_follows_the_claude_code_transcript_found_by_discovery(tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    folder = home / ".claude" / "projects" / claude_project_names(ws)[0]
    folder.mkdir(parents=True)
    shutil.copy(FIXTURE, folder / "7c0f3a52.jsonl")
    w = Watcher(ws, Settings(context_window=1000, min_rounds=2), home=home, clock=Clock())
    ev = w.step()
    assert ev.agent == "claude-code" and ev.path.endswith("7c0f3a52.jsonl")
    assert ev.kind == "compacted" and (ws / ".compaction" / "restore.md").is_file()
    assert "claude-code 7c0f3a52.jsonl" in ev.line()


def test_no_transcript_yet(tmp_path):
    w = Watcher(tmp_path, Settings(), discover=lambda ws: [], clock=Clock())
    ev = w.step()
    assert ev.kind == "none" and "no transcript" in ev.line()


def test_run_loop_emits_changes_only(tmp_path):
    clock = Clock()
    w, path = make(tmp_path, clock)
    write_chat(path, 4, clock.t)
    seen, ticks = [], iter(range(3))
    w.run(0, seen.append, should_stop=lambda: next(ticks, None) is None, sleep=lambda s: None)
    assert [e.kind for e in seen] == ["status"]


def test_watch_cli_once_prints_one_status_line(tmp_path, monkeypatch, capsys):
    from compaction.cli import main

    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    folder = home / ".claude" / "projects" / claude_project_names(ws)[0]
    folder.mkdir(parents=True)
    shutil.copy(FIXTURE, folder / "s.jsonl")
    monkeypatch.setenv("COMPACTION_HOME", str(home))
    assert main(["watch", "--workspace", str(ws), "--once", "--json"]) == 0
    event = json.loads(capsys.readouterr().out)
    assert event["kind"] == "status" and event["agent"] == "claude-code" and 0 < event["utilization"] < 0.7
    assert event["window"] == 200_000


def test_utilization_counts_only_what_follows_the_agents_own_compaction(tmp_path):
    from compaction.transcripts import load_transcript

    path = tmp_path / "s.jsonl"
    lines = FIXTURE.read_text().splitlines()
    summary = {"type": "user", "isCompactSummary": True, "cwd": "/home/dev/projects/invoice-tool",
               "sessionId": "7c0f3a52-1b9e-4e2d-9a61-3f5d2c8b4e10", "uuid": "c0", "parentUuid": None,
               "timestamp": "2025-09-01T12:00:00Z",
               "message": {"role": "user", "content": "This session is being continued from a previous conversation."}}
    path.write_text("\n".join([*lines, json.dumps(summary)]) + "\n")
    t = load_transcript(str(path))
    live = watcher.live_messages(t)
    assert 0 < len(live) < len(t.messages) and live[0].meta.get("compact_summary")
    assert watcher.live_messages(load_transcript(str(FIXTURE))) == load_transcript(str(FIXTURE)).messages
