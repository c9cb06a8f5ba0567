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


def _contract():
    import importlib.util

    spec = importlib.util.spec_from_file_location("import_contract", REPO / "scripts" / "import_contract.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_code_base_keeps_the_layering_and_has_no_import_cycle():
    assert _contract().violations(REPO) == []


def test_the_contract_catches_an_upward_import_and_a_cycle(tmp_path):
    """The old `llm` <-> `summarize` pair (summarize imported LLMClient under TYPE_CHECKING)."""
    for pkg in ("compaction", "restore", "lsp_server"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "compaction" / "llm.py").write_text("from compaction.summarize import extractive\n")
    (tmp_path / "compaction" / "summarize.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from compaction.llm import LLMClient\n")
    (tmp_path / "compaction" / "events.py").write_text("def f():\n    import lsp_server\n")
    found = _contract().violations(tmp_path)
    assert any("compaction.llm (layer 1) imports compaction.summarize" in v for v in found)
    assert "import cycle: compaction.llm -> compaction.summarize" in found
    assert any("compaction.events: imports the interface lsp_server" in v for v in found)


def test_the_llm_client_is_a_plain_text_transport():
    from compaction.llm import LLMClient, TextModel

    assert callable(LLMClient.complete) and not hasattr(LLMClient, "summarize")
    assert set(TextModel.__dict__) >= {"complete", "complete_json"}
