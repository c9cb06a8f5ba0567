"""Shared fixtures: where the real transcripts live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    env = os.environ.get("COMPACTION_SHARED")
    return Path(env) if env else (REPO.parent / "shared")


SHARED = shared_dir()
TRANSCRIPTS = SHARED / "transcripts"


def real_transcripts() -> list[Path]:
    """The real transcript files (not the README, manifest or ground truth)."""
    skip = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
    return sorted(p for p in TRANSCRIPTS.iterdir() if p.is_file() and p.name not in skip)


@pytest.fixture(scope="session")
def shared_transcripts() -> Path:
    assert TRANSCRIPTS.is_dir(), f"real transcripts not found at {TRANSCRIPTS} (set COMPACTION_SHARED)"
    return TRANSCRIPTS


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path_factory, monkeypatch) -> Path:
    """No test reads the developer's own ~/.config/compaction/config.json: XDG_CONFIG_HOME is an
    empty folder of its own (tests that need a user config write into it)."""
    xdg = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    return xdg
