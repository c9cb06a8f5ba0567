"""Shared pieces of the real-agent suite: the npm CLIs in a cache folder, a stub server on loopback,
and reading the stub's request log.

Why a cache under the repository (`.agents-cache/`, git-ignored) rather than a global install: the
suite must run on a fresh machine from `make test` without touching the user's npm setup, and a
second run must not download again. An agent whose package cannot be installed is skipped with the
npm error as the reason, and with `CI=true` that skip is a failure: CI must never pass by skipping.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CACHE = Path(os.environ.get("COMPACTION_AGENTS_CACHE") or REPO / ".agents-cache")
HERE = Path(__file__).resolve().parent

# The throw-away project every agent works in: a launcher that crashes with KeyError: 'port'.
APP = '''"""Tiny service launcher with a config bug."""
import json

DEFAULTS = {"host": "127.0.0.1"}


def load_config(path="config.json"):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def main():
    config = load_config()
    port = config["port"]
    print(f"serving on {config.get('host', DEFAULTS['host'])}:{port}")


if __name__ == "__main__":
    main()
'''


class AgentUnavailable(RuntimeError):
    """The agent's npm package could not be installed here (the message says why)."""


def npm_binary(folder: str, package: str, binary: str) -> Path:
    """`.agents-cache/<folder>/node_modules/.bin/<binary>`, installed with npm on first use."""
    prefix = CACHE / folder
    exe = prefix / "node_modules" / ".bin" / binary
    if exe.exists():
        return exe
    npm = shutil.which("npm")
    if npm is None:
        raise AgentUnavailable(f"{package}: npm is not on PATH")
    prefix.mkdir(parents=True, exist_ok=True)
    try:
        r = subprocess.run([npm, "install", "--prefix", str(prefix), "--silent", "--no-audit", "--no-fund", package],
                           capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        raise AgentUnavailable(f"{package}: npm install timed out after 900 s") from None
    if r.returncode != 0 or not exe.exists():
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise AgentUnavailable(f"{package}: npm install failed (exit {r.returncode}): {' | '.join(tail)}")
    return exe


def require_agent(folder: str, package: str, binary: str) -> Path:
    """The agent's binary; a skip naming the reason when it cannot be installed (a failure under CI=true)."""
    try:
        return npm_binary(folder, package, binary)
    except AgentUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true: {exc}")
        pytest.skip(str(exc))


def version_of(exe: Path) -> str:
    r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=120, env=quiet_env())
    return (r.stdout.strip() or r.stderr.strip()).splitlines()[-1] if (r.stdout or r.stderr) else "?"


def quiet_env(**extra: str) -> dict[str, str]:
    """The parent's environment without agent-session variables, with telemetry and updates off."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "OPENAI_", "CODEX_"))}
    env.update(DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1", DISABLE_AUTOUPDATER="1",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", NO_PROXY="127.0.0.1,localhost",
               no_proxy="127.0.0.1,localhost", NO_COLOR="1", CI=env.get("CI", ""))
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        env.pop(k, None)
    env.update(extra)
    return env


def make_project(proj: Path) -> Path:
    """The throw-away project: app.py (KeyError bug), config.json without a port, a git repository."""
    proj.mkdir(parents=True, exist_ok=True)
    (proj / "app.py").write_text(APP, encoding="utf-8")
    (proj / "config.json").write_text('{"host": "127.0.0.1"}\n', encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    return proj


def compaction(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Our CLI from this interpreter's virtualenv (so `install` writes this venv's absolute path)."""
    return subprocess.run([sys.executable, "-m", "compaction.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env)


@dataclass
class Stub:
    """A stub server process on 127.0.0.1 that logs every request as LOG_DIR/NNNN-<kind>.json."""

    process: subprocess.Popen
    port: int
    log_dir: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def records(self) -> list[dict]:
        out = []
        for p in sorted(self.log_dir.glob("[0-9]*.json")):
            try:
                out.append(json.loads(p.read_text(encoding="utf-8")))
            except ValueError:
                continue
        return out

    def count(self) -> int:
        return len(list(self.log_dir.glob("[0-9]*.json")))


def start_stub(script: Path, log_dir: Path, env: dict[str, str]) -> Iterator[Stub]:
    """Run `script` (it must print `… 127.0.0.1:PORT …` first), yield it, stop it."""
    log_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env={**os.environ, **env, "STUB_PORT": "0", "STUB_LOG_DIR": str(log_dir)})
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        m = re.search(r"127\.0\.0\.1:(\d+)", line)
        assert m, f"{script.name} did not start: {line!r}"
        yield Stub(proc, int(m.group(1)), log_dir)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def text_with(record: dict, needle: str) -> str | None:
    """The string inside a logged request body that contains `needle` (None when absent)."""
    found: list[str] = []

    def walk(x: object) -> None:
        if isinstance(x, str):
            if needle in x:
                found.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(record.get("body"))
    return max(found, key=len) if found else None


def hook_log_times(workspace: Path, event: str) -> list[float]:
    """The milliseconds our hooks logged for `event` in `.compaction/hooks.log`."""
    path = workspace / ".compaction" / "hooks.log"
    if not path.exists():
        return []
    return [float(m.group(1)) for line in path.read_text(encoding="utf-8").splitlines()
            if f" {event} ok" in line and (m := re.search(r"(\d+) ms$", line))]


@contextlib.contextmanager
def run_folder(name: str) -> Iterator[Path]:
    """A private folder for one agent's run (not pytest's tmp_path: its base folder is shared and pruned
    by every pytest of the same user). Kept under $COMPACTION_AGENTS_KEEP when set, for reading the logs."""
    keep = os.environ.get("COMPACTION_AGENTS_KEEP")
    if keep:
        path = Path(keep) / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
        path.mkdir(parents=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix=f"compaction-{name}-") as d:
        yield Path(d)
