"""The real Claude Code CLI (npm @anthropic-ai/claude-code) with our installed hooks, against the
scripted Messages API stub on 127.0.0.1: after manual `/compact` and after an automatic compaction
mid-turn (the stub reports a nearly full window), the first model request carries our restore block;
after the agent's `cd pkg` the project keeps one store.

One session drives every test (Claude Code is slow to start): fix a KeyError, refactor into
settings.py (a ModuleNotFoundError, a ValueError, `@decision: ports default to 8000`, a TODO),
`/compact keep the error messages`, a question, then `cd pkg` with an automatic compaction.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from agent_harness import (
    APP,
    HERE,
    Stub,
    compaction,
    quiet_env,
    require_agent,
    run_folder,
    start_stub,
    text_with,
    version_of,
)

BLOCK = "Restored after compaction"
# Claude Code auto-compacts between its auto-compact threshold and its blocking limit: with the window
# pinned at 200,000 tokens, one reply reporting 170,000 input tokens makes it compact mid-turn.
WINDOW = "200000"
FAKE_FULL_WINDOW = "170000"



@dataclass
class Session:
    version: str
    proj: Path
    home: Path
    stub: Stub
    turns: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)
    marks: dict[str, int] = field(default_factory=dict)  # stub request count before each turn

    def first_main_after_compaction(self, turn: str) -> dict:
        """The first main-agent request after the summarisation request of `turn` or later."""
        records = [r for r in self.stub.records() if r["n"] > self.marks[turn]]
        compact = next((r["n"] for r in records if r["kind"] == "compact"), None)
        assert compact is not None, f"no compaction request from Claude Code after turn {turn!r}"
        return next(r for r in records if r["n"] > compact and r["kind"] == "main")


def _claude(exe: Path, session: Session, name: str, prompt: str, env: dict[str, str], *, cont: bool = True) -> None:
    session.marks[name] = session.stub.count()
    cmd = [str(exe), "-p", prompt, "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits",
           "--allowedTools", "Bash", "Read", "Edit", "Write"]
    r = subprocess.run([*cmd, *(["--continue"] if cont else [])], cwd=session.proj, env=env, capture_output=True,
                       text=True, timeout=180)
    session.turns[name] = r
    assert r.returncode == 0, f"claude turn {name!r} exited {r.returncode}: {r.stderr[-2000:]}"


# What npm resolves under Node 20 (2.1.197 here), and the newest release (a native binary, 2.1.332 here).
RELEASES = [pytest.param(("claude", "@anthropic-ai/claude-code"), id="node20-resolved"),
            pytest.param(("claude-latest", "@anthropic-ai/claude-code@latest"), id="newest")]


@pytest.fixture(scope="module", params=RELEASES)
def session(request: pytest.FixtureRequest):
    folder, package = request.param
    exe = require_agent(folder, package, "claude")
    with run_folder(folder) as run:
        yield from _drive(exe, run)


def _drive(exe: Path, run: Path):
    proj, home = run / "proj", run / "home"
    proj.mkdir()
    home.mkdir()
    (proj / "app.py").write_text(APP, encoding="utf-8")
    (proj / "config.json").write_text('{"host": "127.0.0.1"}\n', encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    r = compaction("install", "--agent", "claude-code", cwd=proj)
    assert r.returncode == 0, r.stderr
    stub_env = {"STUB_PROJ": str(proj), "STUB_MAX_LIFETIME_S": "900", "STUB_MAX_REQUESTS": "400"}
    for stub in start_stub(HERE / "claude_stub.py", run / "logs", stub_env):
        env = quiet_env(HOME=str(home), ANTHROPIC_BASE_URL=stub.url, ANTHROPIC_API_KEY="sk-ant-dummy-key-for-stub",
                        CLAUDE_CODE_AUTO_COMPACT_WINDOW=WINDOW)
        s = Session(version_of(exe), proj, home, stub)
        _claude(exe, s, "fix", "Please fix the crash when I run app.py", env, cont=False)
        _claude(exe, s, "refactor", "Now refactor the config handling into settings.py", env)
        _claude(exe, s, "compact", "/compact keep the error messages", env)
        _claude(exe, s, "question", "What errors did we hit earlier?", env)
        (run / "fake_tokens").write_text(FAKE_FULL_WINDOW, encoding="utf-8")  # the next main reply: a full window
        _claude(exe, s, "subdir", "Set up the subdir pkg for the new module", env)
        print(f"\nClaude Code {s.version}: {stub.count()} requests; logs in {stub.log_dir}")
        yield s


def _block_after(session: Session, turn: str) -> str:
    request = session.first_main_after_compaction(turn)
    block = text_with(request, BLOCK)
    assert block, f"request {request['n']} (first after compaction in turn {turn!r}) has no restore block"
    return block


def _assert_carries_the_working_state(block: str) -> None:
    assert "Please fix the crash when I run app.py" in block  # the task, in the user's words
    assert "refactor the config handling into settings.py" in block  # the current request
    modified = block.split("## Modified files", 1)[1].split("\n## ", 1)[0]
    assert "`app.py`" in modified and "`settings.py`" in modified
    for record in ("ERR_PY_KeyError", "ERR_PY_ValueError", "ERR_PY_ModuleNotFoundError"):
        assert record in block
    assert "TODO: wire settings.port into app.main" in block  # the todo, as an unfinished task


def test_manual_compact_first_request_carries_the_restore_block(session: Session):
    block = _block_after(session, "compact")
    _assert_carries_the_working_state(block)
    assert "SessionStart hook additional context" in block  # delivered by our SessionStart(compact) hook
    log = (session.proj / ".compaction" / "hooks.log").read_text(encoding="utf-8")
    assert "pre-compact ok trigger=manual" in log and "session-start ok source=compact" in log


def test_automatic_compaction_mid_turn_carries_the_restore_block(session: Session):
    block = _block_after(session, "subdir")
    _assert_carries_the_working_state(block)
    assert "pre-compact ok trigger=auto" in (session.proj / ".compaction" / "hooks.log").read_text(encoding="utf-8")


def test_after_cd_pkg_the_project_keeps_one_store(session: Session):
    """Claude Code sends the hooks `cwd=<root>/pkg` after the agent's `cd pkg` (issue 16, defect 1)."""
    cwds = {json.loads(line).get("cwd") for p in session.home.glob(".claude/projects/*/*.jsonl")
            for line in p.read_text(encoding="utf-8").splitlines() if line.startswith("{")}
    assert str(session.proj / "pkg") in cwds, "Claude Code never worked in pkg/ (the agent's `cd pkg`)"
    stores = sorted(str(p.parent.relative_to(session.proj)) for p in session.proj.rglob(".compaction"))
    assert stores == ["."]
    state = json.loads((session.proj / ".compaction" / "hook-state.json").read_text(encoding="utf-8"))
    assert state["trigger"] == "auto"  # the compaction after the cd wrote into the root's store


def test_restore_block_carries_the_decisions(session: Session):
    assert "ports default to 8000" in _block_after(session, "compact")


def test_claude_code_version_is_reported(session: Session):
    assert "Claude Code" in session.version, session.version
    print(f"Claude Code version tested: {session.version}")


def test_a_tight_limit_keeps_the_current_request(session: Session):
    from compaction.cli.integrations import claude_hooks as ch

    state = ch.read_state(session.proj)  # the state our hook wrote from this real session
    block = ch.build_restore_block(session.proj, state, limit=1_500)
    request = block.split("## Current request", 1)[1]  # the block opens with it (issue 14 item 6)
    assert len(block) <= 1_500 and request.split("\n", 2)[1].startswith("Set up the subdir pkg")
