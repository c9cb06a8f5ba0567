"""Smoke test from a real editor: headless Neovim (Debian's 0.7.x) drives compaction-lsp.

Skipped only when `nvim` is missing outside CI; in CI (`CI` set) a missing nvim fails, because
`.ci/run` installs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_fixtures import KEYERROR_LINE, make_transcript, make_workspace
from lsp_harness import REPO, server_env

from compaction.errors import ErrorMemory

HERE = Path(__file__).resolve().parent


def _nvim() -> str:
    nvim = shutil.which("nvim")
    if nvim is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is not installed (CI installs it: apt-get install -y neovim)")
        pytest.skip("nvim is not installed")
    return nvim


def test_neovim_hover_and_compact(tmp_path: Path) -> None:
    nvim = _nvim()
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "session.jsonl")
    with ErrorMemory(ws) as memory:
        memory.add("ERR_PY_KeyError", solution="read DATABASE_URL with os.environ.get and a default",
                   avoidance="never index os.environ for optional settings",
                   path="/home/someone/proj/app/config.py", line=KEYERROR_LINE)  # fmt: skip
    out = tmp_path / "nvim-result.json"
    env = server_env(tmp_path / "home", NVIM_SMOKE_PYTHON=sys.executable, NVIM_SMOKE_WS=str(ws),
                     NVIM_SMOKE_FILE=str(ws / "app" / "config.py"), NVIM_SMOKE_LINE=str(KEYERROR_LINE - 1),
                     NVIM_SMOKE_TRANSCRIPT=str(transcript), NVIM_SMOKE_OUT=str(out),
                     XDG_CONFIG_HOME=str(tmp_path / "xdg"), XDG_DATA_HOME=str(tmp_path / "xdg-data"),
                     XDG_STATE_HOME=str(tmp_path / "xdg-state"))  # fmt: skip
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-c", f"luafile {HERE / 'nvim_smoke.lua'}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.exists(), f"nvim wrote no result (rc={proc.returncode}): {proc.stderr[-2000:]}"
    report = json.loads(out.read_text())
    assert "error" not in report, report
    assert report["steps"] == ["started", "initialized", "hover", "compact", "stopped"]
    assert "compaction.compact" in report["commands"]
    assert "ERR_PY_KeyError" in report["hover"]
    assert "Avoidance: never index os.environ" in report["hover"]
    assert "compact_error" not in report, report
    assert report["compact"]["compacted"] is True
    assert "ERR_PY_KeyError" in report["compact"]["error_ids"]
    latest = Path(report["compact"]["paths"]["latest"])
    assert latest == ws / ".compaction" / "latest.md" and latest.read_text().strip()
    assert Path(report["compact"]["paths"]["restore"]).is_file()
