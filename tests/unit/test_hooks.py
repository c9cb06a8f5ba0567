"""Claude Code hooks (library level): payloads, the pre-compact pipeline, the sized restore block."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compaction.cli.integrations import claude_hooks as ch
from compaction.errors import ErrorMemory

FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"
CLAUDE_FIXTURE = FORMATS / "claude_code_session.jsonl"


def pre_payload(transcript: Path, cwd: Path, trigger: str = "auto", instructions: str = "") -> dict:
    """Exactly what Claude Code writes on a PreCompact hook's stdin."""
    return {"session_id": "7c0f3a52-1b9e-4e2d-9a61-3f5d2c8b4e10", "transcript_path": str(transcript),
            "cwd": str(cwd), "permission_mode": "default", "hook_event_name": "PreCompact",
            "trigger": trigger, "custom_instructions": instructions}


def start_payload(transcript: Path, cwd: Path, source: str = "compact",
                  session: str = "7c0f3a52-1b9e-4e2d-9a61-3f5d2c8b4e10") -> dict:
    return {"session_id": session, "transcript_path": str(transcript), "cwd": str(cwd),
            "hook_event_name": "SessionStart", "source": source}


def test_parse_payload_reads_claude_codes_precompact_json_and_keeps_unknown_fields(tmp_path):
    raw = json.dumps(pre_payload(CLAUDE_FIXTURE, tmp_path, "manual", "keep the API decisions"))
    p = ch.parse_payload(raw.encode())
    assert (p.hook_event_name, p.trigger, p.custom_instructions) == ("PreCompact", "manual", "keep the API decisions")
    assert p.transcript_path == str(CLAUDE_FIXTURE) and p.cwd == str(tmp_path)
    assert p.model_extra == {"permission_mode": "default"}
    s = ch.parse_payload(json.dumps(start_payload(CLAUDE_FIXTURE, tmp_path, "resume")))
    assert (s.hook_event_name, s.source) == ("SessionStart", "resume")


@pytest.mark.parametrize("raw", [b"", b"   ", b"{not json", b"[1, 2]", b'{"trigger": 3}'])
def test_parse_payload_rejects_what_is_not_a_hook_object(raw):
    with pytest.raises(ch.HookInputError):
        ch.parse_payload(raw)


def test_workspace_is_project_dir_then_git_root_then_cwd_never_a_store_below_the_root(tmp_path):
    root, pkg, other = tmp_path / "root", tmp_path / "root" / "pkg", tmp_path / "other"
    pkg.mkdir(parents=True)
    other.mkdir()
    (root / ".git").mkdir()
    (pkg / ".compaction").mkdir()  # a stray store below the root must not win (defect 1 of issue 16)
    after_cd = ch.HookPayload(cwd=str(pkg))
    assert ch.workspace_for(after_cd, env={"CLAUDE_PROJECT_DIR": str(root)}) == root
    assert ch.workspace_for(after_cd, env={"GEMINI_PROJECT_DIR": str(root)}) == root
    assert ch.workspace_for(after_cd, env={}) == root  # nearest .git at or above cwd
    assert ch.workspace_for(ch.HookPayload(cwd=str(other)), env={}) == other  # no .git: cwd
    assert ch.workspace_for(ch.HookPayload(), env={"CLAUDE_PROJECT_DIR": str(other)}) == other
    assert ch.workspace_for(ch.HookPayload(cwd=str(tmp_path / "gone")), env={}, cwd=str(other)) == other


def test_pre_compact_on_claude_code_fixture_writes_the_restore_files(tmp_path):
    payload = ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path))
    report = ch.pre_compact(payload, tmp_path)
    state_dir = tmp_path / ".compaction"
    for name in ("latest.md", "restore.md", "error-memory.md", "hook-state.json"):
        assert (state_dir / name).is_file(), name
    assert "# Restore state" in (state_dir / "restore.md").read_text()
    state = ch.read_state(tmp_path)
    assert state is not None and state.session_id == payload.session_id and state.format == "claude-code"
    assert state.trigger == "auto" and state.rounds == report.rounds > 0
    # the fixture's failing Bash call (exit 1) ends up in the workspace error memory
    with ErrorMemory(tmp_path) as mem:
        ids = [r.id for r in mem.list()]
    assert ids and report.errors_ingested == len(ids)
    assert all(i in (state_dir / "error-memory.md").read_text() for i in ids)


def test_pre_compact_passes_custom_instructions_to_the_engine(tmp_path, monkeypatch):
    import compaction.history as history

    seen = {}
    real = history.compact

    def spy(transcript, settings=None, **kw):
        seen.update(kw)
        return real(transcript, settings, **kw)

    monkeypatch.setattr(history, "compact", spy)
    payload = ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path, "manual", "keep the rounding rule"))
    ch.pre_compact(payload, tmp_path)
    assert seen["instructions"] == "keep the rounding rule"


def test_ingesting_twice_does_not_double_counts(tmp_path):
    payload = ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path))
    ch.pre_compact(payload, tmp_path)
    with ErrorMemory(tmp_path) as mem:
        first = {r.id: r.count for r in mem.list()}
    ch.pre_compact(payload, tmp_path)
    with ErrorMemory(tmp_path) as mem:
        assert {r.id: r.count for r in mem.list()} == first


@pytest.mark.parametrize("name", ["oh-fastjson2-2775.json", "sweagent-pydicom-1458.traj",
                                  "aider-afi-core-ts.md", "mini-django-13297.traj.json"])
def test_hooks_work_on_real_transcripts_of_other_formats(tmp_path, shared_transcripts, name):
    src = shared_transcripts / name
    ch.pre_compact(ch.HookPayload.model_validate(pre_payload(src, tmp_path)), tmp_path)
    block = ch.session_start(ch.HookPayload.model_validate(start_payload(src, tmp_path)), tmp_path)
    assert block is not None and len(block) <= ch.DEFAULT_LIMIT
    lines = block.splitlines()
    assert lines[0] == "# Restored after compaction"
    sections = [ln for ln in lines if ln.startswith("## ")]
    # the user's last request first (issue 14 item 6), then the task, marked items and the error memory
    assert sections[0].startswith("## Current request") and "## Error Memory" in sections[:4]


def test_the_block_carries_the_current_request_first_then_marked_items_and_decisions(tmp_path):
    src = tmp_path / "chat.json"
    msgs = [{"role": "user", "content": "Build the importer. @decision: ports default to 8000"}]
    for i in range(14):
        msgs += [{"role": "assistant", "content": f"Step {i}: I'll use streaming instead of buffering because "
                                                  f"the files are large."},
                 {"role": "user", "content": f"ok {i}"}]
    msgs += [{"role": "user", "content": "Now add a --dry-run flag to the importer CLI."},
             {"role": "assistant", "content": "Adding it."}]
    src.write_text(json.dumps(msgs))
    ch.pre_compact(ch.HookPayload.model_validate(pre_payload(src, tmp_path)), tmp_path)
    state = ch.read_state(tmp_path)
    assert state.marked == ["Build the importer. @decision: ports default to 8000"]
    assert any("instead of buffering because" in d for d in state.decisions)
    block = ch.build_restore_block(tmp_path, state)
    sections = [ln for ln in block.splitlines() if ln.startswith("## ")]
    assert sections[0].startswith("## Current request") and "## Marked items" in sections[1:4]
    assert sections.index("## Marked items") < sections.index("## Error Memory")
    # where the session ended comes with the task, before the error memory
    assert sections.index("## Where the session ended") < sections.index("## Error Memory")
    assert state.current_work and state.current_work[0].split(" (r")[0] in block
    assert "## Key decisions and constraints" in sections
    request = block.split(sections[0] + "\n", 1)[1]
    assert request.startswith("Now add a --dry-run flag")
    assert "@decision: ports default to 8000" in block
    assert len(block) <= ch.DEFAULT_LIMIT


def test_a_request_longer_than_its_share_keeps_its_head(tmp_path):
    payload = ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path))
    ch.pre_compact(payload, tmp_path)
    state = ch.read_state(tmp_path)
    state.goal = ["Current request: " + "word " * 2000]
    block = ch.build_restore_block(tmp_path, state, limit=4_000)
    assert "word word" in block and ".compaction/latest.md" in block
    assert len(block) <= 4_000


def _records(workspace: Path, n: int, solution_len: int = 160) -> None:
    with ErrorMemory(workspace) as mem:
        mem.add("ERR_PY_KeyError", solution="use dict.get", round=3)
        mem.add("ERR_PY_KeyError", round=9)  # recurring, created first
        for i in range(n):
            mem.add(f"ERR_TOOL_Failure{i:03d}", solution=("x" * solution_len), round=10 + i)


def test_block_keeps_the_complete_error_memory_when_it_fits(tmp_path):
    _records(tmp_path, 3)
    block = ch.build_restore_block(tmp_path, None)
    with ErrorMemory(tmp_path) as mem:
        full = mem.export("en").rstrip("\n")
    assert full in block and "cut to fit" not in block


@pytest.mark.parametrize("limit", [10_000, 4_000, 2_000, 1_200])
def test_oversized_error_memory_keeps_recurring_and_recent_records_and_points_to_the_rest(tmp_path, limit):
    _records(tmp_path, 120)
    block = ch.build_restore_block(tmp_path, None, limit=limit)
    assert len(block) <= limit
    assert block.index("## Error Memory") < 200
    assert "#recurring ERR_PY_KeyError" in block  # recurring first
    if limit >= 2_000:
        assert "ERR_TOOL_Failure119" in block  # then the most recent
    assert "ERR_TOOL_Failure000" not in block  # the oldest one-off records are the ones cut
    assert "Error memory cut to fit" in block and ".compaction/error-memory.md" in block
    assert ".compaction/restore.md" in block


def test_every_cut_section_is_announced_and_the_limit_holds(tmp_path):
    payload = ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path))
    ch.pre_compact(payload, tmp_path)
    state = ch.read_state(tmp_path)
    state.modified_files = [f"src/module_{i}/file_{i}.py" for i in range(400)]
    full = ch.build_restore_block(tmp_path, state, limit=100_000)
    assert "more cut" not in full and "src/module_399/file_399.py" in full
    for limit in (9_000, 5_000, 2_500):
        block = ch.build_restore_block(tmp_path, state, limit=limit)
        assert len(block) <= limit
        assert "more cut to fit" in block or "Cut to fit the" in block
        assert "## Error Memory" in block


def test_session_start_injects_after_compact_and_on_resume_of_the_same_session_only(tmp_path):
    ch.pre_compact(ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path)), tmp_path)
    for source, expected in (("compact", True), ("resume", True), ("startup", False), ("clear", False)):
        block = ch.session_start(ch.HookPayload.model_validate(start_payload(CLAUDE_FIXTURE, tmp_path, source)),
                                 tmp_path)
        assert (block is not None) is expected, source
    other = ch.HookPayload.model_validate(start_payload(CLAUDE_FIXTURE, tmp_path, "resume", session="other"))
    assert ch.session_start(other, tmp_path) is None
    assert ch.session_start(other, tmp_path, any_source=True) is not None


def test_session_start_compacts_itself_when_pre_compact_did_not_run(tmp_path):
    transcript = tmp_path / "session.jsonl"
    shutil.copy(CLAUDE_FIXTURE, transcript)
    assert ch.read_state(tmp_path) is None
    block = ch.session_start(ch.HookPayload.model_validate(start_payload(transcript, tmp_path)), tmp_path)
    assert block and (tmp_path / ".compaction" / "restore.md").is_file()
    assert ch.read_state(tmp_path).transcript == str(transcript)


def test_session_start_without_any_state_says_nothing(tmp_path):
    payload = ch.HookPayload.model_validate(start_payload(tmp_path / "missing.jsonl", tmp_path))
    assert ch.session_start(payload, tmp_path) is None


def test_hook_output_is_the_session_start_json_claude_code_reads():
    out = json.loads(ch.hook_output("# Restored\n⚠️ x"))
    assert out == {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "# Restored\n⚠️ x"}}
    assert ch.hook_output("text", plain=True) == "text"


def test_log_appends_to_hooks_log(tmp_path):
    ch.log(tmp_path, "pre-compact", "ok")
    ch.log(tmp_path, "session-start", "skip")
    lines = (tmp_path / ".compaction" / "hooks.log").read_text().splitlines()
    assert [ln.split(" ", 2)[1:] for ln in lines] == [["pre-compact", "ok"], ["session-start", "skip"]]


def test_a_home_relative_transcript_path_is_expanded(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    p = ch.parse_payload(json.dumps({"transcript_path": "~/.claude/projects/x/s.jsonl", "hook_event_name": "PreCompact"}))
    assert p.transcript_path == str(tmp_path / ".claude" / "projects" / "x" / "s.jsonl")


def test_a_broken_config_file_falls_back_to_defaults_and_is_logged(tmp_path):
    (tmp_path / ".compaction").mkdir()
    (tmp_path / ".compaction" / "config.json").write_text('{"triggerRatio": "high"}')
    ch.pre_compact(ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path)), tmp_path)
    assert (tmp_path / ".compaction" / "restore.md").is_file()
    assert "using the default settings" in (tmp_path / ".compaction" / "hooks.log").read_text()


def test_session_start_fast_path_prints_the_block_pre_compact_prepared(tmp_path):
    """Issue 16, defect 6: session-start answers from `.compaction/restore-block.json` without the engine."""
    from compaction.cli.integrations import hook_fastpath as fast

    payload = ch.HookPayload.model_validate(pre_payload(CLAUDE_FIXTURE, tmp_path))
    ch.pre_compact(payload, tmp_path)
    state = ch.read_state(tmp_path)
    full = ch.build_restore_block(tmp_path, state, limit=ch.DEFAULT_LIMIT)

    def start(source: str, session: str = payload.session_id, limit: int = ch.DEFAULT_LIMIT, any_source=False):
        raw = json.dumps({"session_id": session, "cwd": str(tmp_path), "source": source,
                          "hook_event_name": "SessionStart"}).encode()
        return fast.cached_block(raw, tmp_path, limit, any_source)

    assert start("compact") == (full, "compact")
    assert start("resume") == (full, "resume")
    assert start("startup") == (None, "startup") and start("startup", any_source=True) == (full, "startup")
    assert start("compact", session="another-session") is None  # the full path compacts that session
    assert start("compact", limit=2_000) is None  # cut to another limit: the full path rebuilds
    (tmp_path / ".compaction" / "hook-state.json").write_text(state.model_copy(update={"written_at": 1.0})
                                                              .model_dump_json())
    assert start("compact") is None  # a state newer (here: other) than the block is never answered from it


def test_a_transcript_without_a_cwd_counts_the_projects_absolute_paths_as_modified(tmp_path):
    """Gemini CLI sessions record no cwd; a project under /tmp is still the project, not scratch."""
    ws = tmp_path / "proj"
    ws.mkdir()
    target = ws / "app.py"
    src = tmp_path / "chat.json"
    call = {"id": "c1", "type": "function",
            "function": {"name": "write_file", "arguments": json.dumps({"path": str(target), "content": "x = 1\n"})}}
    src.write_text(json.dumps([
        {"role": "user", "content": "Create app.py"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "Done."},
    ]))
    ch.pre_compact(ch.HookPayload.model_validate(pre_payload(src, ws)), ws)
    state = ch.read_state(ws)
    assert any(f.endswith("app.py") for f in state.modified_files), state.modified_files
    assert "## Modified files" in ch.build_restore_block(ws, state)
