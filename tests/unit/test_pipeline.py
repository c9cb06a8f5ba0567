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


def test_unchanged_conversations_carry_artifacts_too(example):
    """A session that fits its target comes back whole, with its artifacts and a filled summary (the
    hooks read task, files and todos from it)."""
    whole = compact(example, target_tokens=10**6)
    assert not whole.compacted and whole.events and whole.error_records is not None
    assert whole.summary.goal and whole.summary.modified_files


def test_min_rounds_does_not_bypass_an_explicit_budget(example):
    """`min_rounds` is a trigger condition of the automatic paths, not a licence to ignore a budget."""
    from compaction import tokens
    from compaction.config import Settings

    r = compact(example, Settings(min_rounds=10**6), target_tokens=1200)
    assert r.compacted and tokens.count(r.markdown) <= 1200


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


def test_one_section_enum_orders_the_document_and_names_its_headings(result):
    from compaction.history.sections import Section

    md = result.markdown
    headings = [s.heading("en") for s in Section if f"## {s.heading('en')}" in md]
    assert headings == sorted(headings, key=md.index)  # the document follows the enum's order
    assert Section.MARKED.priority < Section.GOAL.priority < Section.NEXT.priority
    assert Section.PROBLEMS.heading("zh") == "问题与解决方案" and Section.MODIFIED.summary_field == "modified_files"


def test_every_fact_kind_is_one_registered_source(example):
    from compaction.history.sections import Section
    from compaction.history.sources import FactContext, gather, sources
    from compaction.history.steering import role_preset

    registered = sources()
    assert {s for s, _ in registered} == set(Section)  # each section has its source
    assert [s for s, _ in registered] == sorted((s for s, _ in registered), key=list(Section).index)
    from compaction.errors import scan_transcript
    from compaction.events import extract_events

    ctx = FactContext(transcript=example, events=extract_events(example), records=scan_transcript(example),
                      preset=role_preset("developer"), cwd=example.cwd, n_rounds=len(example.rounds))
    facts = gather(ctx)
    assert {f.section for f in facts} >= {Section.GOAL, Section.MODIFIED, Section.PROBLEMS}
    task = [f for f in facts if f.task]
    assert len(task) == 1 and task[0].section is Section.GOAL
    assert all(f.path for f in facts if f.section is Section.MODIFIED and not f.scratch)
    assert all(f.error_id for f in facts if f.section is Section.PROBLEMS)


def test_a_new_fact_kind_is_one_registered_function(example, monkeypatch):
    """Registering a source is all the engine needs: its facts reach the document."""
    from compaction.history.facts import Fact
    from compaction.history.sections import Section
    from compaction.history.sources import registry

    monkeypatch.setattr(registry, "_SOURCES", {k: list(v) for k, v in registry._SOURCES.items()})

    @registry.fact_source(Section.DECISIONS)
    def _probe(ctx):
        yield Fact(Section.DECISIONS, "chose the probe source because it is registered", [1], score=10**6,
                   essential=True)

    out = compact(example, target_tokens=3000)
    assert "chose the probe source because it is registered" in out.markdown


def test_events_and_facts_carry_typed_fields_not_meta_dicts(result):
    import dataclasses

    from compaction.events import EventKind
    from compaction.history.facts import Fact

    for cls in (Event, Fact):
        assert "meta" not in {f.name for f in dataclasses.fields(cls)}
    commands = [e for e in result.events if e.kind is EventKind.COMMAND]
    assert commands and all(isinstance(e.failed, bool) and isinstance(e.test, bool) for e in commands)
    shell_files = [e for e in result.events if e.via_shell]
    assert shell_files and all(e.kind is EventKind.DELETE and e.command for e in shell_files)  # `rm reproduce_bug.py`


def test_one_shell_parser_serves_events_and_the_error_memory():
    """A heredoc's `<<` line keeps its redirection (the error memory's edited file) while its body
    is never read as commands (events); both sides read the same split."""
    from compaction import events, shell
    from compaction.errors import check, scan

    cmd = "cd /repo && cat <<'EOF' > fix.py\nimport os; os.remove('x.py')\nEOF"
    assert shell.split_commands(cmd) == ["cd /repo", "cat <<'EOF' > fix.py"]
    assert shell.edited_files(cmd) == ["fix.py"]
    assert [p for _, p in events.shell_writes(cmd)] == ["fix.py"]  # not x.py: the body is data
    assert check.norm_command is shell.norm_command and scan.norm_command is shell.norm_command
    assert shell.words('echo "a \\" b" \'c d\'') == ["echo", 'a " b', "c d"]


def test_error_families_are_one_table_read_by_check_scan_and_advice():
    from compaction.errors import advice, check, scan
    from compaction.errors.families import BY_EXTENSION, FAMILIES, family_of
    from compaction.errors.records import ErrorRecord

    assert BY_EXTENSION[".tsx"] == "TS" and family_of("ERR_JAVA_CannotFindSymbol") == "JAVA"
    assert advice.advise(ErrorRecord("ERR_GO_Unused")) == FAMILIES["GO"].advice
    assert scan._can_be_target("ERR_RS_E0599") and not scan._can_be_target("ERR_TS_TypeNotAssignable")
    assert check._compiled("ERR_C_ImplicitDeclaration") and not check._compiled("ERR_PY_KeyError")
