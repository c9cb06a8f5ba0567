"""The real Codex CLI (npm @openai/codex, a native binary) with what `compaction install --agent codex`
writes, against the scripted Responses API stub on 127.0.0.1.

Two provider paths, one Codex session each (fix app.py; fix it again with one reply reporting 200,000
tokens, over `model_auto_compact_token_limit`, so Codex compacts mid-turn; a question):
- a custom `[model_providers.stub]` (`base_url`, `env_key`, `wire_api = "responses"`): Codex compacts
  locally, with the prompt from our `experimental_compact_prompt_file`;
- OpenAI's own provider (`openai_base_url` at the stub): Codex compacts remotely (a `compaction_trigger`
  item, answered with an opaque `compaction` item) and our prompt never leaves the machine.
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

OUR_PROMPT = "You are compacting a coding-assistant conversation"
POINTER = ".compaction/restore.md"
OVER_THE_LIMIT = "200000"
LIMIT = 100_000


@dataclass
class Session:
    version: str
    proj: Path
    codex_home: Path
    stub: Stub
    marks: dict[str, int] = field(default_factory=dict)

    def kinds(self) -> list[str]:
        return [r["kind"] for r in self.stub.records() if r["kind"] != "get"]

    def first_main_after(self, kind: str) -> dict:
        records = [r for r in self.stub.records() if r["kind"] != "get"]
        at = next(i for i, r in enumerate(records) if r["kind"] == kind)
        return next(r for r in records[at + 1:] if r["kind"] == "main")


def _codex(exe: Path, s: Session, name: str, prompt: str, env: dict[str, str], *, resume: bool = True) -> None:
    s.marks[name] = s.stub.count()
    cmd = [str(exe), "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
           *(["resume", "--last"] if resume else []), prompt]
    r = subprocess.run(cmd, cwd=s.proj, env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, f"codex turn {name!r} exited {r.returncode}: {(r.stdout + r.stderr)[-2000:]}"


def _provider_config(path: str, stub_url: str) -> str:
    if path == "custom":
        return (f'model = "gpt-5-codex"\nmodel_provider = "stub"\nmodel_auto_compact_token_limit = {LIMIT}\n\n'
                f'[model_providers.stub]\nname = "stub"\nbase_url = "{stub_url}/v1"\nenv_key = "STUB_API_KEY"\n'
                'wire_api = "responses"\n')
    return f'model = "gpt-5-codex"\nmodel_auto_compact_token_limit = {LIMIT}\nopenai_base_url = "{stub_url}/v1"\n'


def _drive(path: str):
    exe = require_agent("codex", "@openai/codex", "codex")
    with run_folder(f"codex-{path}") as run:
        proj, home = make_project(run / "proj"), run / "home"
        r = compaction("install", "--agent", "codex", "--scope", "user", "--home", str(home), cwd=proj)
        assert r.returncode == 0, r.stderr
        for stub in start_stub(HERE / "codex_stub.py", run / "logs", {}):
            config = home / ".codex" / "config.toml"
            config.write_text(config.read_text(encoding="utf-8") + _provider_config(path, stub.url),
                              encoding="utf-8")
            env = quiet_env(HOME=str(home), CODEX_HOME=str(home / ".codex"), STUB_API_KEY="dummy-key-for-stub",
                            OPENAI_API_KEY="sk-dummy-key-for-stub")
            s = Session(version_of(exe), proj, home / ".codex", stub)
            _codex(exe, s, "fix", "Please fix the crash when I run app.py", env, resume=False)
            (run / "fake_tokens").write_text(OVER_THE_LIMIT, encoding="utf-8")
            _codex(exe, s, "again", "Please fix the crash when I run app.py once more", env)
            _codex(exe, s, "question", "What errors did we hit earlier?", env)
            print(f"\nCodex CLI {s.version} ({path} provider): {stub.count()} requests; logs in {stub.log_dir}")
            yield path, s


@pytest.fixture(scope="module")
def custom():
    yield from _drive("custom")


@pytest.fixture(scope="module")
def openai():
    yield from _drive("openai")


@pytest.fixture(params=["custom", "openai"])
def session(request: pytest.FixtureRequest):
    return request.getfixturevalue(request.param)


def test_local_compaction_uses_our_prompt_file(custom):
    _, s = custom
    assert "compact-ours" in s.kinds() and "compact-codex" not in s.kinds()
    compact = next(r for r in s.stub.records() if r["kind"] == "compact-ours")
    sent = compact["body"]["input"][-1]["content"][0]["text"]
    ours = (s.codex_home / "compaction-compact-prompt.md").read_text(encoding="utf-8")
    assert sent.strip() == ours.strip()  # the file `install` wrote, verbatim, as the compaction prompt


def test_the_next_turn_sees_the_summary_and_the_restore_pointer(session):
    path, s = session
    kind = "compact-ours" if path == "custom" else "compact-remote"
    after = s.first_main_after(kind)
    assert text_with(after, POINTER), "the restore pointer (AGENTS.md) is missing after compaction"
    if path == "custom":
        summary = text_with(after, "STUB-SUMMARY")
        assert summary and summary.startswith("Another language model started to solve this problem")
    else:
        assert any(i.get("type") == "compaction" for i in after["body"]["input"])  # the opaque item, replayed


def test_openai_provider_compacts_remotely_without_our_prompt(openai):
    _, s = openai
    assert "compact-remote" in s.kinds() and "compact-ours" not in s.kinds()
    assert not any(OUR_PROMPT in json.dumps(r["body"]) for r in s.stub.records())  # our prompt never sent


def test_codex_version_is_reported(session):
    path, s = session
    print(f"Codex CLI version tested ({path}): {s.version}")
    assert "codex" in s.version.lower(), s.version


def test_project_config_is_read_only_once_the_project_is_trusted():
    """`install` at project scope writes `.codex/config.toml`: Codex ignores it (its own compaction prompt)
    until the project is trusted, then compacts with ours."""
    exe = require_agent("codex", "@openai/codex", "codex")
    with run_folder("codex-project") as run:
        proj, home = make_project(run / "proj"), run / "home"
        r = compaction("install", "--agent", "codex", "--home", str(home), cwd=proj)
        assert r.returncode == 0 and (proj / ".codex" / "config.toml").is_file(), r.stderr
        for stub in start_stub(HERE / "codex_stub.py", run / "logs", {}):
            config = home / ".codex" / "config.toml"
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text(_provider_config("custom", stub.url), encoding="utf-8")
            env = quiet_env(HOME=str(home), CODEX_HOME=str(home / ".codex"), STUB_API_KEY="dummy-key-for-stub")
            s = Session(version_of(exe), proj, home / ".codex", stub)
            _codex(exe, s, "fix", "Please fix the crash when I run app.py", env, resume=False)
            (run / "fake_tokens").write_text(OVER_THE_LIMIT, encoding="utf-8")
            _codex(exe, s, "untrusted", "Please fix the crash when I run app.py once more", env)
            assert s.kinds().count("compact-codex") == 1 and "compact-ours" not in s.kinds()
            config.write_text(config.read_text(encoding="utf-8") + f'\n[projects."{proj}"]\ntrust_level = "trusted"\n',
                              encoding="utf-8")
            (run / "fake_tokens").write_text(OVER_THE_LIMIT, encoding="utf-8")
            _codex(exe, s, "trusted", "Please fix the crash when I run app.py a third time", env)
            assert s.kinds().count("compact-ours") == 1
