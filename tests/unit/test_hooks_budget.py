"""The Claude Code hooks under issue 13 item 5 and issue 14 item 6: a short session still yields task,
files and todos; the current request is the first thing the restore block keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from compaction.cli.integrations import claude_hooks as ch

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "formats" / "claude_code_session.jsonl"


def _pre_compact(workspace: Path) -> ch.HookState:
    payload = ch.HookPayload.model_validate({
        "session_id": "s1", "transcript_path": str(FIXTURE), "cwd": str(workspace),
        "hook_event_name": "PreCompact", "trigger": "auto"})
    ch.pre_compact(payload, workspace)
    state = ch.read_state(workspace)
    assert state is not None
    return state


def test_pre_compact_of_a_short_session_produces_task_files_and_todos(tmp_path):
    state = _pre_compact(tmp_path)
    assert state.rounds <= 10  # a session the old engine returned unchanged, with an empty summary
    assert state.goal and state.modified_files and state.unfinished
    block = ch.build_restore_block(tmp_path, state)
    for heading in ("## Current task", "## Modified files", "## Unfinished tasks"):
        assert heading in block


def test_current_request_is_taken_from_the_goal_lines():
    assert ch.current_request(["fix it", "Current request: now test it"]) == ("now test it", ["fix it"])
    assert ch.current_request(["fix it"]) == ("fix it", [])
    assert ch.current_request([]) == (None, [])


@pytest.mark.parametrize("limit", [10_000, 3_000, 1_500, 800])
def test_current_request_survives_when_the_limit_bites(tmp_path, limit):
    state = _pre_compact(tmp_path)
    request = "Now migrate the invoices table to integer cents, keep compute_total() as it is. " * 3
    state.goal = [*state.goal, "Current request: " + request.strip()]
    state.modified_files = [f"src/module_{i}/file_{i}.py" for i in range(400)]
    block = ch.build_restore_block(tmp_path, state, limit=limit)
    assert len(block) <= limit
    assert "## Current request" in block
    assert block.index("## Current request") < block.index("## Error Memory")
    assert "Now migrate the invoices table to integer cents" in block


def test_an_oversized_request_keeps_its_head_and_points_to_the_summary(tmp_path):
    state = _pre_compact(tmp_path)
    state.goal = ["Current request: " + "please refactor the whole billing pipeline " * 400]
    block = ch.build_restore_block(tmp_path, state, limit=4_000)
    assert len(block) <= 4_000
    assert "please refactor the whole billing pipeline" in block and ".compaction/latest.md" in block
    assert "## Error Memory" in block  # the request's share is bounded: the error memory still has room


def test_the_block_carries_the_findings_in_the_room_left(tmp_path, shared_transcripts):
    """What the agent found (bastion: the README's "Bastion v2" on line 24 …) reaches the successor when
    the block has room; they come last, so a tight limit cuts them before the files or the todos."""
    payload = ch.HookPayload.model_validate({
        "session_id": "s1", "transcript_path": str(shared_transcripts / "more-agents" / "cc-bastion-compacted.jsonl"),
        "cwd": str(tmp_path), "hook_event_name": "PreCompact", "trigger": "auto"})
    ch.pre_compact(payload, tmp_path)
    state = ch.read_state(tmp_path)
    assert state is not None and state.findings
    block = ch.build_restore_block(tmp_path, state)
    assert "## Findings (what the agent found, round by round)" in block and len(block) <= ch.DEFAULT_LIMIT
    assert block.index("## Modified files") < block.index("## Findings")
    assert any(f"- {' '.join(f.split())}"[:120] in block for f in state.findings)
    tight = ch.build_restore_block(tmp_path, state, limit=3_000)
    assert len(tight) <= 3_000 and "## Current request" in tight


def test_a_state_written_before_findings_were_kept_still_reads(tmp_path):
    (tmp_path / ".compaction").mkdir()
    (tmp_path / ".compaction" / "hook-state.json").write_text(
        '{"transcript": "t.jsonl", "written_at": 1.0, "goal": ["fix it"]}', encoding="utf-8")
    state = ch.read_state(tmp_path)
    assert state is not None and state.findings == []
    assert "## Findings" not in ch.build_restore_block(tmp_path, state)


def test_no_findings_hold_no_room_from_the_error_memory(tmp_path, shared_transcripts):
    """(code review) An empty findings section reserved room for its cut note all the same: the error memory
    was cut at limits where it had fitted whole."""
    from compaction.errors import ErrorMemory, scan_transcript
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "mini-pytest-5787.traj.json"))
    with ErrorMemory(tmp_path) as memory:
        memory.ingest(t, scan_transcript(t))

    def whole_from(state):
        return next(limit for limit in range(2000, 12000, 20)
                    if "Error memory cut to fit" not in ch.build_restore_block(tmp_path, state, limit=limit))

    bare = ch.HookState(transcript="t", written_at=0, goal=["Fix the report serialization"], decisions=["Keep JSON"])
    with_findings = bare.model_copy(update={"findings": ["The chain was dropped by `_to_json` (r28)"]})
    assert whole_from(bare) < whole_from(with_findings)
