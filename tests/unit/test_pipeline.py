"""The typed fact pipeline (issue 14 item 7): explicit artifacts, one section enum, registered
fact sources, typed fields, one shell parser, one error-family table, no import cycle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compaction.errors.records import ErrorRecord
from compaction.events import Event
from compaction.history import compact
from compaction.transcripts import load_transcript

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "sweagent-pydicom-1458.traj"


@pytest.fixture(scope="module")
def example():
    return load_transcript(EXAMPLE)


@pytest.fixture(scope="module")
def result(example):
    return compact(example, target_tokens=2000)


def test_compact_returns_its_artifacts_as_public_fields(result):
    assert result.events and all(isinstance(e, Event) for e in result.events)
    assert result.error_records and all(isinstance(r, ErrorRecord) for r in result.error_records)
    # Artifacts are for in-process consumers (restore, MCP, hooks), never part of the JSON.
    dumped = json.loads(result.model_dump_json())
    assert "events" not in dumped and "error_records" not in dumped


def test_unchanged_short_conversations_carry_artifacts_too(example):
    from compaction.config import Settings

    short = compact(example, Settings(min_rounds=10**6))
    assert not short.compacted and short.events and short.error_records is not None
