"""The compaction engine on the real transcripts: budget, task, modified files, markers, presets."""

from __future__ import annotations

import json
import re

import pytest

from bench.copies import prepare
from compaction import tokens
from compaction.history import compact
from compaction.template_noise import without_template_noise
from compaction.transcripts import load_transcript
from tests.conftest import TRANSCRIPTS, real_transcripts

GROUND = {json.loads(line)["file"]: json.loads(line) for line in (TRANSCRIPTS / "GROUND_TRUTH.jsonl").open()}
NAMES = [p.name for p in real_transcripts()]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"</?[a-z_]+>", " ", text)).strip()


def _modified_truth(name: str) -> list[str]:
    g = GROUND[name]
    if "modified_files_from_final_patch" in g:
        return g["modified_files_from_final_patch"]
    raw = g["files_edited(Applied edit to)"]
    return list(raw.keys()) if isinstance(raw, dict) else re.findall(r"'([^']+)':", raw)


@pytest.fixture(scope="module")
def cleaned(tmp_path_factory):
    """Copies with the harness's final patch removed and three markers planted in the first third
    (the evaluation harness's own preparation)."""
    out = tmp_path_factory.mktemp("copies")
    return {name: prepare(TRANSCRIPTS / name, out) for name in NAMES}


@pytest.fixture(scope="module")
def results(cleaned):
    res = {}
    for name, copy in cleaned.items():
        t = load_transcript(copy.path)
        total = tokens.count_messages(t.messages)
        res[name] = (t, total, compact(t, target_tokens=total // 10))
    return res


@pytest.mark.parametrize("name", NAMES)
def test_within_budget_and_task_present(results, name):
    t, total, r = results[name]
    assert r.compacted
    assert tokens.count(r.markdown) <= total // 10
    task = next(m.text for m in t.messages if m.role.value == "user")
    # an issue template's hidden comment is no part of the task (astropy's "<!-- This comments are hidden …")
    opening = " ".join(_norm(without_template_noise(task)).split()[:20])
    assert opening in _norm(r.markdown)


# Files in the final patch that the agent never touched: the SWE-bench environment pinned dependencies
# and test options before the run (setuptools==68.0.0, sphinxcontrib-*<=…, pytest -rA). No message of
# the agent mentions them, so no compactor can know they changed; the test below checks that claim.
ENVIRONMENT_ONLY = {
    "mini-astropy-13398.traj.json": {"pyproject.toml"},
    "mini-sphinx-9258.traj.json": {"setup.py", "tox.ini"},
}


def test_environment_only_files_have_no_evidence_in_the_transcript(results):
    for name, files in ENVIRONMENT_ONLY.items():
        t, _, _ = results[name]
        agent_text = "\n".join(m.full_text() for m in t.messages if m.role.value == "assistant")
        for f in files:
            assert f not in agent_text, f"{name}: {f} is mentioned by the agent; it must then be found"


@pytest.mark.parametrize("name", NAMES)
def test_modified_files_come_from_edit_events(results, name):
    _, _, r = results[name]
    section = [i.text for i in r.summary.modified_files]
    truth = [f for f in _modified_truth(name) if f not in ENVIRONMENT_ONLY.get(name, set())]
    missing = [f for f in truth if not any(f == s or s.endswith("/" + f) for s in section)]
    assert not missing, f"{name}: modified files missing from the summary: {missing}"
    # The harness's patch is gone from the copy: nothing in the summary came from it.
    assert "diff --git" not in r.markdown.split("## Recent rounds")[0]


@pytest.mark.parametrize("name", NAMES)
def test_planted_markers_survive_with_citations(cleaned, results, name):
    _, _, r = results[name]
    summary_part = r.markdown.split("## Recent rounds")[0]
    assert {m.where for m in cleaned[name].markers} == {"assistant", "user", "tool"}
    for marker in cleaned[name].markers:
        line = next((ln for ln in summary_part.splitlines() if marker.text in ln), None)
        assert line is not None, f"{name}: marker lost: {marker.text}"
        assert re.search(r"\(r\d+", line), f"{name}: marker without round citation: {line}"
    assert len(r.summary.marked) >= 3


def test_pm_role_has_no_error_memory_and_no_code(results):
    t, total, _ = results["mini-pytest-5787.traj.json"]
    r = compact(t, target_tokens=total // 10, role="pm")
    assert "## Error Memory" not in r.markdown
    assert "ERR_" not in r.markdown
    assert "```" not in r.markdown
    assert "`" not in r.markdown.split("## Recent rounds")[0]
    assert r.error_memory == []


def test_tester_role_keeps_tests_and_only_logic_errors(results):
    t, total, _ = results["mini-pytest-5787.traj.json"]
    r = compact(t, target_tokens=total // 10, role="tester")
    assert r.error_memory, "the pytest transcript has failing tests"
    # A test failure merged into the exception that caused it keeps its ERR_LOGIC_ id as an alias.
    assert all(any(i.startswith("ERR_LOGIC_") for i in [rec.id, *rec.merged]) for rec in r.error_memory)
    # Every record line of the block names an ERR_LOGIC_ id (as its id or as an alias of the exception).
    heads = [ln for ln in r.error_memory_markdown.splitlines() if ln.startswith("- ")]
    assert heads and all("ERR_LOGIC_" in ln for ln in heads)
    assert not re.search(r"ERR_(TOOL|TS)_", r.error_memory_markdown)
    assert re.search(r"\d+ passed", r.markdown), "test results must be kept for testers"


def test_instructions_ignore_removes_mentions(results):
    t, total, _ = results["mini-pytest-5787.traj.json"]
    base = compact(t, target_tokens=total // 10)
    assert "xdist" in base.markdown.lower()
    r = compact(t, target_tokens=total // 10, instructions="keep the serialization decisions, ignore xdist")
    assert "xdist" not in r.markdown.lower()


def test_chinese_headings(results):
    t, total, _ = results["sweagent-pydicom-1458.traj"]
    r = compact(t, target_tokens=total // 10, lang="zh")
    for heading in ("## 任务目标", "## 已修改文件", "## 下一步计划"):
        if heading == "## 下一步计划" and not r.summary.next_steps:
            continue
        assert heading in r.markdown
    assert "## Task goal" not in r.markdown


def test_short_conversation_is_returned_unchanged(tmp_path):
    msgs = [{"role": "user", "content": "fix the bug"}] + [
        m for i in range(3) for m in ({"role": "assistant", "content": f"step {i}"}, {"role": "user", "content": "ok"})
    ]
    p = tmp_path / "short.json"
    p.write_text(json.dumps(msgs))
    r = compact(load_transcript(p))
    assert not r.compacted and "returned unchanged" in (r.note or "")
    assert "step 2" in r.markdown


def test_only_the_last_todo_list_counts():
    from compaction.events import Event, EventKind
    from compaction.history.sources.next_steps import next_step_facts

    def todo(rnd, idx, text, status):
        return Event(EventKind.TODO, rnd, idx, text=text, tool="TodoWrite", status=status)

    events = [todo(2, 3, "write the parser", "pending"), todo(2, 3, "add tests", "pending"),
              todo(9, 20, "add tests", "in_progress"), todo(9, 20, "update the docs", "pending")]
    texts = [f.text for f in next_step_facts(events, last_round=10)]
    assert texts == ["[in_progress] add tests", "[pending] update the docs"]


def test_a_prose_checklist_before_a_todo_tools_last_list_is_its_draft():
    """cline-export-image-describer2: the r1 checklist (no tool) stayed "[pending]" though Cline's
    task_progress lists ticked its items and the last list (all ticked) was a new plan."""
    from compaction.events import Event, EventKind
    from compaction.history.sources.next_steps import next_step_facts

    events = [Event(EventKind.TODO, 1, 1, text="Analyze the describer", status="pending"),
              Event(EventKind.TODO, 9, 20, text="Create requirements.txt", tool="task_progress", status="completed"),
              Event(EventKind.TODO, 12, 30, text="Add a footer", status="pending")]  # a prose item after it
    assert [f.text for f in next_step_facts(events, last_round=12)] == ["[pending] Add a footer"]


def test_a_next_step_the_agent_proposed_is_overtaken_by_a_new_ask():
    """chefchopsky-ai-playbook kept "Next steps: Review the PR on GitHub; …" (r13) as what was next,
    though the user asked for other work at r14; a go-ahead ("yes please") overtakes nothing."""
    from compaction.events import Event, EventKind
    from compaction.history.sources.next_steps import next_step_facts

    proposed = Event(EventKind.TODO, 13, 40, text="Next steps: Review the PR on GitHub", status="next")
    go_ahead = Event(EventKind.REQUEST, 14, 42, text="yes please")
    new_ask = Event(EventKind.REQUEST, 14, 42, text="Now define the human roles for each phase of the playbook")
    assert [f.text for f in next_step_facts([proposed, go_ahead], last_round=16)] == ["Next steps: Review the PR on GitHub"]
    assert next_step_facts([proposed, new_ask], last_round=16) == []


def test_instruction_terms_match_by_content_words():
    from compaction.history.steering import parse_instructions

    s = parse_instructions("keep the serialization decisions, ignore xdist and the CSS tweaks; 忽略 样式")
    assert s.ignore[:2] == ["xdist", "the css tweaks"] and "样式" in s.ignore
    assert s.ignored("Ran it with XDIST workers") and s.ignored("CSS tweaks applied to the header")
    assert not s.ignored("tweaked the css")  # every content word of a multi-word term must be there
    assert s.kept("the serialization decisions made in r12") and not s.kept("serialization only")


def test_a_new_ask_that_opens_with_ok_still_overtakes_a_proposed_step():
    from compaction.events import Event, EventKind
    from compaction.history.sources.next_steps import next_step_facts

    proposed = Event(EventKind.TODO, 13, 40, text="Next steps: Review the PR on GitHub", status="next")
    ask = Event(EventKind.REQUEST, 14, 42, text="ok now verify the benchmark scripts and fix what is broken in them")
    assert next_step_facts([proposed, ask], last_round=16) == []
