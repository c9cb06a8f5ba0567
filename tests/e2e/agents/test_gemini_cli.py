"""The real Gemini CLI (npm @google/gemini-cli) with the hooks `compaction install --agent gemini`
writes, against the scripted Gemini API stub on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`, a dummy key):
after Gemini CLI's automatic compression, the first prompt carries our restore block
(BeforeAgent's `additionalContext`), once.

Turns: fix app.py (KeyError), fix it again with one reply reporting 600,000 prompt tokens (over half
the 1,048,576-token window: Gemini CLI compresses before its next request), then a question.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from agent_harness import (
    HERE,
    Stub,
    compaction,
    make_project,
    quiet_env,
    require_agent,
    run_folder,
    start_stub,
    text_with,
    version_of,
)

BLOCK = "Restored after compaction"
OVER_HALF_THE_WINDOW = "600000"


@dataclass
class Session:
    version: str
    proj: Path
    stub: Stub
    marks: dict[str, int] = field(default_factory=dict)

    def requests(self, turn: str, kind: str = "main") -> list[dict]:
        turns = list(self.marks)
        end = self.marks[turns[turns.index(turn) + 1]] if turns.index(turn) + 1 < len(turns) else 10**9
        return [r for r in self.stub.records() if self.marks[turn] < r["n"] <= end and r["kind"] == kind]


def _gemini(exe: Path, s: Session, name: str, prompt: str, env: dict[str, str], *, resume: bool = True) -> None:
    s.marks[name] = s.stub.count()
    cmd = [str(exe), "-p", prompt, "-y", "-m", "gemini-2.5-flash", *(["--resume", "latest"] if resume else [])]
    r = subprocess.run(cmd, cwd=s.proj, env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, f"gemini turn {name!r} exited {r.returncode}: {(r.stdout + r.stderr)[-2000:]}"


@pytest.fixture(scope="module")
def session():
    exe = require_agent("gemini", "@google/gemini-cli", "gemini")
    with run_folder("gemini") as run:
        proj, home = make_project(run / "proj"), run / "home"
        (home / ".gemini").mkdir(parents=True)
        (home / ".gemini" / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}), encoding="utf-8")
        r = compaction("install", "--agent", "gemini", cwd=proj)
        assert r.returncode == 0, r.stderr
        for stub in start_stub(HERE / "gemini_stub.py", run / "logs", {"STUB_PROJ": str(proj)}):
            # Project hooks run only in a trusted folder: headless runs trust it for the session this way.
            env = quiet_env(HOME=str(home), GEMINI_API_KEY="dummy-key-for-stub", GOOGLE_GEMINI_BASE_URL=stub.url,
                            GEMINI_CLI_TRUST_WORKSPACE="true")
            s = Session(version_of(exe), proj, stub)
            _gemini(exe, s, "fix", "Please fix the crash when I run app.py", env, resume=False)
            (run / "fake_tokens").write_text(OVER_HALF_THE_WINDOW, encoding="utf-8")
            _gemini(exe, s, "again", "Check the fix: run app.py again", env)
            _gemini(exe, s, "question", "What errors did we hit earlier?", env)
            _gemini(exe, s, "later", "Thanks, anything else?", env)
            print(f"\nGemini CLI {s.version}: {stub.count()} requests; logs in {stub.log_dir}")
            yield s


def test_gemini_cli_compressed_in_the_second_turn(session: Session):
    assert len(session.requests("again", "compress")) >= 1, "Gemini CLI did not compress"
    assert not session.requests("fix", "compress")


def _block(session: Session) -> str:
    first = session.requests("question")[0]
    block = text_with(first, BLOCK)
    assert block, f"request {first['n']} (first prompt after the compression) has no restore block"
    return block


def test_first_prompt_after_compression_carries_the_restore_block(session: Session):
    first = session.requests("question")[0]
    user_turn = first["body"]["contents"][-1]
    texts = [p.get("text", "") for p in user_turn["parts"]]
    assert user_turn["role"] == "user" and texts[0] == "What errors did we hit earlier?"
    assert any(t.startswith("<hook_context># Restored after compaction") for t in texts)  # BeforeAgent's context
    assert "ERR_PY_KeyError" in _block(session)  # the error record from the first turn
    log = (session.proj / ".compaction" / "hooks.log").read_text(encoding="utf-8")
    assert "gemini-pre-compress ok trigger=auto" in log and "gemini-before-agent ok after compression" in log


def test_the_block_carries_the_task_and_the_modified_files(session: Session):
    block = _block(session)
    assert "Please fix the crash when I run app.py" in block and "## Modified files" in block


def test_the_block_is_injected_once_per_compression(session: Session):
    before = [r for t in ("fix", "again") for r in session.requests(t)]
    assert before and not any(text_with(r, BLOCK) for r in before)
    later = json.dumps(session.requests("later")[0]["body"])
    assert later.count("# Restored after compaction") == 1  # the earlier prompt's, in the history; not added again
    log = (session.proj / ".compaction" / "hooks.log").read_text(encoding="utf-8")
    assert log.count("gemini-before-agent ok") == 1


def test_gemini_cli_version_is_reported(session: Session):
    print(f"Gemini CLI version tested: {session.version}")
    assert session.version[:1].isdigit(), session.version
