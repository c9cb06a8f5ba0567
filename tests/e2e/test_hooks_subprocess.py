"""The real `compaction hook …` processes, fed the exact stdin JSON Claude Code sends."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "data" / "formats" / "claude_code_session.jsonl"
SESSION = "7c0f3a52-1b9e-4e2d-9a61-3f5d2c8b4e10"
LIMIT = 10_000


def compaction_exe() -> str:
    exe = Path(sys.executable).parent / "compaction"
    return str(exe) if exe.exists() else shutil.which("compaction") or "compaction"


def run_hook(event: str, payload: dict | bytes, cwd: Path, *extra: str, env: dict | None = None):
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    full_env = {**os.environ, **(env or {})}
    full_env.pop("CLAUDE_PROJECT_DIR", None) if env is None else None
    return subprocess.run([compaction_exe(), "hook", event, *extra], input=data, cwd=cwd, capture_output=True,
                          timeout=120, env=full_env)


def pre(transcript: Path, cwd: Path, trigger: str = "auto", instructions: str = "") -> dict:
    return {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(cwd), "permission_mode": "default",
            "hook_event_name": "PreCompact", "trigger": trigger, "custom_instructions": instructions}


def start(transcript: Path, cwd: Path, source: str = "compact") -> dict:
    return {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(cwd),
            "hook_event_name": "SessionStart", "source": source}


def _context(stdout: bytes) -> str:
    out = json.loads(stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("name", ["claude", "oh-fastjson2-2775.json", "sweagent-pydicom-1458.traj"])
def test_pre_compact_then_session_start_end_to_end(tmp_path, shared_transcripts, name):
    transcript = FIXTURE if name == "claude" else shared_transcripts / name
    ws = tmp_path / "project"
    ws.mkdir()
    r = run_hook("pre-compact", pre(transcript, ws, "manual", "keep the error messages"), ws)
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b""  # silent on success
    state = ws / ".compaction"
    assert "# Restore state" in (state / "restore.md").read_text()
    assert (state / "latest.md").stat().st_size > 0
    assert "ok trigger=manual" in (state / "hooks.log").read_text()
    errors_md = (state / "error-memory.md").read_text()

    r = run_hook("session-start", start(transcript, ws), ws)
    assert r.returncode == 0 and r.stderr == b""
    block = _context(r.stdout)
    assert 0 < len(block) <= LIMIT
    headings = [ln for ln in block.splitlines() if ln.startswith("## ")]
    # The user's last request first (issue 14 item 6), then the task, where the session ended and the
    # marked items, then the error memory.
    assert headings[0].startswith("## Current request")
    em = headings.index("## Error Memory")
    assert em <= 4 and set(headings[1:em]) <= {"## Current task", "## Where the session ended", "## Marked items"}
    if "cut to fit" not in block:
        assert errors_md.split("\n\n", 2)[2].strip() in block  # the complete error-memory records


def test_session_start_on_startup_prints_nothing(tmp_path):
    run_hook("pre-compact", pre(FIXTURE, tmp_path), tmp_path)
    r = run_hook("session-start", start(FIXTURE, tmp_path, "startup"), tmp_path)
    assert r.returncode == 0 and r.stdout == b""


def test_plain_output_and_a_smaller_limit(tmp_path):
    run_hook("pre-compact", pre(FIXTURE, tmp_path), tmp_path)
    r = run_hook("session-start", start(FIXTURE, tmp_path), tmp_path, "--plain", "--limit", "1500")
    text = r.stdout.decode()
    assert r.returncode == 0 and text.startswith("# Restored after compaction") and len(text) <= 1501


@pytest.mark.parametrize("stdin", [b"", b"{oops", b'{"hook_event_name": "PreCompact"}',
                                   b'{"transcript_path": "/nonexistent/x.jsonl", "hook_event_name": "PreCompact"}'])
def test_bad_input_never_fails_the_agent_and_is_logged(tmp_path, stdin):
    for event in ("pre-compact", "session-start"):
        r = run_hook(event, stdin, tmp_path)
        assert r.returncode == 0 and r.stdout == b"" and r.stderr == b""
    log = (tmp_path / ".compaction" / "hooks.log").read_text()
    assert "pre-compact error:" in log


def test_workspace_from_claude_project_dir_when_the_payload_has_no_cwd(tmp_path):
    ws, elsewhere = tmp_path / "ws", tmp_path / "elsewhere"
    ws.mkdir()
    elsewhere.mkdir()
    payload = pre(FIXTURE, ws)
    del payload["cwd"]
    r = run_hook("pre-compact", payload, elsewhere, env={"CLAUDE_PROJECT_DIR": str(ws)})
    assert r.returncode == 0
    assert (ws / ".compaction" / "restore.md").is_file() and not (elsewhere / ".compaction").exists()


def test_after_cd_into_a_subfolder_both_hooks_keep_the_git_roots_one_store(tmp_path):
    """Claude Code reports `cwd=<root>/pkg` after the agent's `cd pkg` (issue 16, defect 1)."""
    root = tmp_path / "proj"
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (root / ".git").mkdir()
    r = run_hook("pre-compact", pre(FIXTURE, pkg), pkg, "--detach")
    assert r.returncode == 0
    r = run_hook("session-start", start(FIXTURE, pkg), pkg)
    assert "Restored after compaction" in _context(r.stdout)
    assert (root / ".compaction" / "restore.md").is_file()
    assert not (pkg / ".compaction").exists()


def test_hook_path_imports_no_server_or_llm_modules(tmp_path):
    run_hook("pre-compact", pre(FIXTURE, tmp_path), tmp_path)
    code = ("import sys, io, json\n"
            "from compaction.cli import main\n"
            f"sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({start(FIXTURE, tmp_path)!r}).encode()))\n"
            "main(['hook', 'session-start'])\n"
            f"sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({pre(FIXTURE, tmp_path)!r}).encode()))\n"
            "main(['hook', 'pre-compact'])\n"
            "bad = sorted(m for m in ('pygls', 'openai', 'mcp', 'lsprotocol') if m in sys.modules)\n"
            "print('BAD', bad, file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    assert "BAD []" in r.stderr.decode()
    assert _context(r.stdout.splitlines()[0])


def test_detached_pre_compact_returns_at_once_and_session_start_waits_for_it(tmp_path, shared_transcripts):
    """`install` writes `hook pre-compact --detach`: the agent waits only for a process start; the
    work happens in a background process, and session-start waits for it before printing."""
    transcript = shared_transcripts / "oh-fastjson2-2775.json"
    ws = tmp_path / "project"
    ws.mkdir()
    r = run_hook("pre-compact", pre(transcript, ws), ws, "--detach")
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b""
    r = run_hook("session-start", start(transcript, ws), ws)
    assert r.returncode == 0 and r.stderr == b""
    block = _context(r.stdout)
    assert block.splitlines()[0] == "# Restored after compaction"
    state = ws / ".compaction"
    assert (state / "restore.md").exists() and (state / "latest.md").exists()
    assert not (state / "pre-compact.pending").exists()
    log = (state / "hooks.log").read_text()
    assert "pre-compact ok" in log and "session-start ok" in log
    # the session-start block was built from the detached worker's state, not a second compaction
    assert log.count("pre-compact ok") == 1


def test_session_start_after_pre_compact_answers_from_the_prepared_block(tmp_path):
    """Issue 16, defect 6: the block is built by pre-compact; session-start only prints it (same text)."""
    assert run_hook("pre-compact", pre(FIXTURE, tmp_path), tmp_path).returncode == 0
    assert (tmp_path / ".compaction" / "restore-block.json").is_file()
    fast = _context(run_hook("session-start", start(FIXTURE, tmp_path), tmp_path).stdout)
    (tmp_path / ".compaction" / "restore-block.json").unlink()
    full = _context(run_hook("session-start", start(FIXTURE, tmp_path), tmp_path).stdout)
    assert fast == full and fast.startswith("# Restored after compaction")
    log = (tmp_path / ".compaction" / "hooks.log").read_text()
    assert log.count("(prepared by pre-compact)") == 1


def test_hook_path_output_is_the_same_for_any_hash_seed_and_workspace_path(tmp_path, shared_transcripts):
    """The real pre-compact + session-start processes, twice, with different PYTHONHASHSEED and
    workspace paths of different spellings, give the same block and the same restore files: no
    order from set/dict hashing, and a session that records no cwd (aider's history) is not
    budgeted with the workspace path's tokens (it once decided which "Then asked" line was kept)."""
    transcript = shared_transcripts / "aider-afi-core-ts.md"
    outputs = []
    for seed, name in (("1", "p"), ("3", "a-much-longer_workspace.name-q9z")):
        ws = tmp_path / name
        ws.mkdir()
        env = {"PYTHONHASHSEED": seed}
        r = run_hook("pre-compact", pre(transcript, ws, "manual"), ws, env=env)
        assert r.returncode == 0, r.stderr
        r = run_hook("session-start", start(transcript, ws), ws, env=env)
        assert r.returncode == 0, r.stderr
        files = {f: (ws / ".compaction" / f).read_text().replace(str(ws), "<WS>")
                 for f in ("latest.md", "restore.md", "error-memory.md")}
        outputs.append((_context(r.stdout).replace(str(ws), "<WS>"), files))
    assert outputs[0][0] == outputs[1][0]
    assert outputs[0][1] == outputs[1][1]
