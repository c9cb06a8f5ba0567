"""Noticing an agent's own compaction in its transcript (compaction/agent_compaction.py) and the
server's follower that reacts to it (lsp_server/agent_watch.py), driven one poll at a time."""

from __future__ import annotations

import json
from pathlib import Path

from compaction.agent_compaction import CompactionTail, record_marker
from compaction.discovery import TranscriptRef
from lsp_server.agent_watch import AgentCompactionWatcher


def line(rec: dict) -> str:
    return json.dumps(rec) + "\n"


USER = {"type": "user", "message": {"role": "user", "content": "go on"}}
BOUNDARY = {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"}
SUMMARY = {"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": "Summary: …"}}


def test_markers_of_each_agent():
    assert record_marker(BOUNDARY) == record_marker(SUMMARY) == "claude-code"
    # A conversation's title for the resume picker, not a compaction (see the next test).
    assert record_marker({"type": "summary", "summary": "Fix the bug", "leafUuid": "u1"}) is None
    assert record_marker({"type": "compacted", "payload": {"message": "…"}}) == "codex"
    assert record_marker(USER) is None and record_marker([1]) is None


def test_jsonl_tail_reports_one_event_per_compaction_after_the_baseline(tmp_path: Path):
    p = tmp_path / "s.jsonl"
    p.write_text(line(USER) + line(SUMMARY))  # an old compaction: not news
    tail = CompactionTail(p)
    assert tail.poll() is None
    with p.open("a") as fh:
        fh.write(line(USER))
    assert tail.poll() is None
    with p.open("a") as fh:
        fh.write(line(BOUNDARY) + line(SUMMARY))
    event = tail.poll()
    assert event is not None and (event.agent, event.records, event.offset) == ("claude-code", 2, p.stat().st_size)
    assert tail.poll() is None  # nothing new


TITLE = {"type": "summary", "summary": "Fix the login bug", "leafUuid": "a7"}


def test_title_summary_records_appended_at_startup_are_not_a_compaction(tmp_path: Path):
    """Claude Code appends `summary` records (titles of earlier sessions' chains) to the session it
    is writing when it starts: following that file must not report an agent compaction, nor must a
    file that merely holds an old summary record or an old compacted summary."""
    p = tmp_path / "s.jsonl"
    p.write_text(line(TITLE) + line(BOUNDARY) + line(SUMMARY) + line(USER))  # old news
    tail = CompactionTail(p)
    assert tail.poll() is None
    with p.open("a") as fh:
        fh.write(line(TITLE) + line({**TITLE, "leafUuid": "b9"}) + line(USER))
    assert tail.poll() is None
    with p.open("a") as fh:
        fh.write(line(USER))
    assert tail.poll() is None


def test_boundary_and_its_summary_in_two_polls_are_one_compaction(tmp_path: Path):
    p = tmp_path / "s.jsonl"
    p.write_text(line(USER))
    tail = CompactionTail(p)
    tail.poll()
    boundary = {**BOUNDARY, "uuid": "cb1", "parentUuid": None}
    summary = {**SUMMARY, "uuid": "cs1", "parentUuid": "cb1"}
    with p.open("a") as fh:
        fh.write(line(boundary))
    event = tail.poll()
    assert event is not None and event.records == 1
    with p.open("a") as fh:
        fh.write(line(summary))
    assert tail.poll() is None  # the same compaction's second record
    # A boundary already in the file when following began: its summary arriving later is old news too.
    q = tmp_path / "t.jsonl"
    q.write_text(line(USER) + line(boundary))
    late = CompactionTail(q)
    late.poll()
    with q.open("a") as fh:
        fh.write(line(summary))
    assert late.poll() is None


def test_a_half_written_line_waits_for_its_end(tmp_path: Path):
    p = tmp_path / "rollout.jsonl"
    p.write_text(line(USER))
    tail = CompactionTail(p)
    tail.poll()
    text = line({"type": "compacted", "payload": {"message": "summary"}})
    with p.open("a") as fh:
        fh.write(text[:10])
    assert tail.poll() is None
    with p.open("a") as fh:
        fh.write(text[10:])
    event = tail.poll()
    assert event is not None and event.agent == "codex"


def test_a_replaced_file_is_read_from_its_start(tmp_path: Path):
    p = tmp_path / "s.jsonl"
    p.write_text(line(USER) * 5)
    tail = CompactionTail(p)
    tail.poll()
    p.write_text(line(SUMMARY))  # shorter than before: rewritten
    assert tail.poll() is not None


def test_cline_history_rewritten_whole_counts_condense_calls(tmp_path: Path):
    p = tmp_path / "api_conversation_history.json"
    msgs = [{"role": "user", "content": [{"type": "text", "text": "<task>fix</task>"}]}]
    p.write_text(json.dumps(msgs))
    tail = CompactionTail(p)
    assert tail.poll() is None
    msgs.append({"role": "assistant", "content": [{"type": "text", "text": "<condense>\n<context>…</context>\n</condense>"}]})
    p.write_text(json.dumps(msgs))
    event = tail.poll()
    assert event is not None and (event.agent, event.records) == ("cline", 1)
    assert tail.poll() is None


def test_other_whole_file_sessions_are_not_reread(tmp_path: Path):
    """A Copilot Chat session (.json, rewritten whole) may mention "condense": not a compaction."""
    p = tmp_path / "chatSessions" / "s.json"
    p.parent.mkdir()
    p.write_text('{"requests": []}')
    tail = CompactionTail(p)
    tail.poll()
    p.write_text('{"requests": [{"message": {"text": "<condense> please"}}]}')
    assert tail.poll() is None


def test_watcher_follows_the_newest_transcripts_and_reacts_once(tmp_path: Path):
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    for p in (old, new):
        p.write_text(line(USER))
    refs = [TranscriptRef(str(new), "claude-code", 2.0, 1), TranscriptRef(str(old), "claude-code", 1.0, 1)]
    seen = []
    watcher = AgentCompactionWatcher(lambda: refs, lambda event, ref: seen.append((event.path, ref.agent)), follow=1)
    watcher.refresh()
    assert list(watcher.tails) == [str(new)]
    with old.open("a") as fh:
        fh.write(line(SUMMARY))
    with new.open("a") as fh:
        fh.write(line(SUMMARY))
    watcher.tick()
    watcher.tick()
    assert seen == [(str(new), "claude-code")]


def test_a_failing_reaction_does_not_stop_the_watch(tmp_path: Path):
    p = tmp_path / "s.jsonl"
    p.write_text(line(USER))

    def boom(event, ref):
        raise RuntimeError("store locked")

    watcher = AgentCompactionWatcher(lambda: [TranscriptRef(str(p), "claude-code", 1.0, 1)], boom)
    watcher.refresh()
    with p.open("a") as fh:
        fh.write(line(SUMMARY))
    assert len(watcher.tick()) == 1


def test_the_request_test_delay_is_not_applied_to_the_servers_own_jobs(monkeypatch, tmp_path: Path):
    """COMPACTION_LSP_PHASE_DELAY_MS slows client requests (so a test can press Cancel); the
    reaction to an agent's compaction builds its own Job and must not wait in each phase."""
    from compaction.config import Settings
    from lsp_server.features.commands import Job, request_phase_delay_s

    monkeypatch.setenv("COMPACTION_LSP_PHASE_DELAY_MS", "600")
    assert request_phase_delay_s() == 0.6
    assert Job(workspace=tmp_path, settings=Settings()).phase_delay_s == 0.0
