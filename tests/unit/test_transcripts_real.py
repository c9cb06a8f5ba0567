"""Loaders for the formats we have real transcripts of (mini-swe-agent, SWE-agent, OpenHands,
Aider) plus plain Markdown, checked against the real files and GROUND_TRUTH.jsonl."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from compaction.model import Role, ToolKind
from compaction.transcripts import load_transcript
from compaction.transcripts.terminal import clean_text

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("COMPACTION_SHARED") or REPO.parent / "shared") / "transcripts"
DATA = REPO / "tests" / "data" / "transcripts_real"
_NOT_TRANSCRIPTS = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
REAL = sorted(p.name for p in SHARED.iterdir() if p.is_file() and p.name not in _NOT_TRANSCRIPTS) if SHARED.is_dir() else []
EXPECTED_FORMAT = {"mini-": "mini-swe-agent", "sweagent-": "swe-agent", "oh-": "openhands", "aider-": "aider"}


def _format_of(name: str) -> str:
    return next(fmt for prefix, fmt in EXPECTED_FORMAT.items() if name.startswith(prefix))


def _truth() -> dict[str, dict]:
    rows = [json.loads(line) for line in (SHARED / "GROUND_TRUTH.jsonl").read_text().splitlines() if line.strip()]
    return {r["file"]: r for r in rows}


def _norm(text: str) -> str:
    """Tags dropped and whitespace collapsed, as the ground truth's task excerpts are."""
    return " ".join(re.sub(r"<[^>]{1,40}>", " ", text).split())


def _task(t) -> str:
    return next(m.text for m in t.messages if m.role is Role.USER)


def test_real_transcripts_present(shared_transcripts):
    assert len(REAL) == 13, REAL


@pytest.mark.parametrize("name", REAL)
def test_real_file_detected_and_loaded(name, tmp_path, shared_transcripts):
    path = shared_transcripts / name
    t = load_transcript(path)
    assert t.format == _format_of(name)
    assert t.messages and t.rounds
    assert [m.index for m in t.messages] == list(range(len(t.messages)))
    assert sum(len(r.messages) for r in t.rounds) == len(t.messages)
    assert [r.number for r in t.rounds] == list(range(1, len(t.rounds) + 1))
    for rnd in t.rounds:  # tool results never open a round; one model response per round at most
        assert rnd.messages[0].role is not Role.TOOL or rnd.number == 1 or rnd.messages[0].harness
        assert sum(1 for m in rnd.messages if m.role is Role.ASSISTANT) <= 1
    # Content, not the name, decides: copies under neutral names load the same way.
    for neutral in ("x.json", "x.txt"):
        copy = tmp_path / neutral
        shutil.copyfile(path, copy)
        t2 = load_transcript(copy)
        assert t2.format == t.format
        assert len(t2.messages) == len(t.messages) and len(t2.rounds) == len(t.rounds)


@pytest.mark.parametrize("name", [n for n in REAL if n.startswith(("mini-", "oh-", "aider-"))])
def test_task_is_the_opening_request(name, shared_transcripts):
    t = load_transcript(shared_transcripts / name)
    excerpt = _norm(_truth()[name]["task_excerpt"])
    assert excerpt and excerpt in _norm(_task(t))


def test_sweagent_task_is_the_issue_not_the_demonstration(shared_transcripts):
    """The ground truth's excerpt for this file comes from the demonstration (marshmallow), which
    is not this run's task; the loader skips the demonstration and keeps the pydicom issue."""
    t = load_transcript(shared_transcripts / "sweagent-pydicom-1458.traj")
    raw = json.loads((shared_transcripts / "sweagent-pydicom-1458.traj").read_text())
    issue = next(h["content"] for h in raw["history"] if h["role"] == "user" and not h.get("is_demo"))
    assert _task(t) == clean_text(issue)  # as a terminal shows it: `\r\n` line ends read as `\n`
    assert "Pixel Representation attribute should be optional" in _task(t)
    assert "--- DEMONSTRATION ---" not in "".join(m.full_text() for m in t.messages)
    assert t.skipped_kinds == {"demonstration": 1}


@pytest.mark.parametrize("name", [n for n in REAL if n.startswith("mini-")])
def test_mini_swe_agent(name, shared_transcripts):
    path = shared_transcripts / name
    raw = json.loads(path.read_text())
    truth = _truth()[name]
    t = load_transcript(path)
    assert len(t.messages) == truth["n_messages"] == len(raw["messages"])
    n_assistant = sum(1 for m in raw["messages"] if m["role"] == "assistant")
    assert len(t.rounds) == n_assistant
    first = t.rounds[0].messages
    assert [m.role for m in first[:3]] == [Role.SYSTEM, Role.USER, Role.ASSISTANT]
    assert t.cwd == "/testbed"
    assert t.meta["final_patch"] == raw["info"]["submission"]
    # Observations are tool results with their exit codes; nothing after the task is a user turn.
    codes = [int(m.group(1)) for r in raw["messages"] if r["role"] == "user"
             for m in [re.match(r"<returncode>(-?\d+)</returncode>", r["content"])] if m]
    results = [r for m in t.messages for r in m.tool_results]
    assert [r.exit_code for r in results] == codes
    assert all(r.is_error == (r.exit_code != 0) for r in results)
    assert sum(1 for m in t.messages if m.role is Role.USER) == 1
    # One ```bash block = one shell call; the format complaints are harness echoes.
    for m, r in zip(t.messages, raw["messages"], strict=True):
        if m.role is Role.ASSISTANT:
            blocks = re.findall(r"```bash\s*\n(.*?)\n```", r["content"], re.S)
            if len(blocks) == 1:
                assert [(c.kind, c.command) for c in m.tool_calls] == [(ToolKind.SHELL, blocks[0])]
            else:
                assert not m.tool_calls
                assert t.messages[m.index + 1].meta.get("format_error") and t.messages[m.index + 1].harness
    # The last observation is the harness's diff echo: kept, marked, and the only place the patch shows up.
    last = t.messages[-1]
    assert last.meta.get("final_patch_echo") and last.role is Role.TOOL
    assert sum(1 for m in t.messages if m.meta.get("final_patch_echo")) == 1
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in (t.messages[-2].tool_calls[0].command or "")


def test_swe_agent(shared_transcripts):
    path = shared_transcripts / "sweagent-pydicom-1458.traj"
    raw = json.loads(path.read_text())
    t = load_transcript(path)
    steps = raw["trajectory"]
    assert len(t.rounds) == len(steps) == 12
    assert len(t.messages) == 2 + 2 * len(steps)
    assert t.cwd == "/pydicom__pydicom"
    assert t.meta["final_patch"] == raw["info"]["submission"]
    calls = [c for m in t.messages for c in m.tool_calls]
    assert len(calls) == len(steps)
    assert [(c.name, c.kind) for c in calls[:3]] == [("create", ToolKind.WRITE), ("edit", ToolKind.EDIT),
                                                   ("bash", ToolKind.SHELL)]
    assert calls[2].command == "python reproduce_bug.py"
    # `edit A:B` edits the file opened (or created) last.
    assert calls[1].path == "reproduce_bug.py"
    opened = next(c for c in calls if c.name == "open")
    assert opened.kind == ToolKind.READ and opened.path == "pydicom/pixel_data_handlers/numpy_handler.py"
    later_edits = [c for c in calls[calls.index(opened):] if c.name == "edit"]
    assert later_edits and all(c.path == opened.path for c in later_edits)
    assert calls[-1].name == "submit"
    assert t.messages[-1].meta.get("final_patch_echo")
    observations = [m.tool_results[0].content for m in t.messages if m.role is Role.TOOL]
    assert all(o.startswith(s["observation"].rstrip()) for o, s in zip(observations, steps, strict=True))
    # what the history showed after each observation (the open file, the directory) is what the model saw
    assert "(Open file: /pydicom__pydicom/reproduce_bug.py)" in observations[0]


@pytest.mark.parametrize("name", [n for n in REAL if n.startswith("oh-")])
def test_openhands(name, shared_transcripts):
    path = shared_transcripts / name
    raw = json.loads(path.read_text())
    truth = _truth()[name]
    t = load_transcript(path)
    events = raw["history"]
    assert len(t.messages) == truth["n_events"] == len(events)
    agent_steps = [e for e in events if e.get("source") == "agent" and e.get("action") not in (None, "system")]
    assert len(t.rounds) == len(agent_steps)
    assert t.meta["final_patch"] == raw["test_result"]["git_patch"]
    assert not any(raw["test_result"]["git_patch"] in m.full_text() for m in t.messages)
    assert t.cwd == re.search(r"<uploaded_files>\s*(\S+)\s*</uploaded_files>", raw["instruction"]).group(1)
    kinds = Counter(c.kind for m in t.messages for c in m.tool_calls)
    counts = truth["action_counts"]
    inputs = sum(1 for e in events if e.get("action") == "run" and e["args"].get("is_input"))  # keystrokes
    # keystrokes read on a command still running take its line (`transcripts.continuations`): not new runs
    read_on = sum(1 for m in t.messages for c in m.tool_calls if c.continues)
    assert kinds[ToolKind.SHELL] - read_on + inputs == counts.get("run", 0)
    assert kinds[ToolKind.READ] == counts.get("read", 0)
    assert kinds[ToolKind.EDIT] + kinds[ToolKind.WRITE] == counts.get("edit", 0)
    assert kinds[ToolKind.TODO] == counts.get("task_tracking", 0)
    # Observations are matched to their action by `cause`; exit codes come from extras.metadata.
    call_ids = {c.id for m in t.messages for c in m.tool_calls}
    expected_codes = {str(e["cause"]): e["extras"]["metadata"]["exit_code"] for e in events
                      if e.get("observation") == "run" and "exit_code" in e.get("extras", {}).get("metadata", {})}
    got_codes = {r.call_id: r.exit_code for m in t.messages for r in m.tool_results if r.call_id in expected_codes}
    assert got_codes == expected_codes and expected_codes
    for m in t.messages:
        for r in m.tool_results:
            assert r.call_id is None or r.call_id in call_ids
            if r.exit_code not in (None, 0):
                assert r.is_error


def test_openhands_huge_observation(shared_transcripts):
    t = load_transcript(shared_transcripts / "oh-fastjson2-2775.json")
    biggest = max((r for m in t.messages for r in m.tool_results), key=lambda r: len(r.content))
    assert len(biggest.content) > 900_000


def test_openhands_event_list_and_jsonl(tmp_path, shared_transcripts):
    records = [json.loads((shared_transcripts / n).read_text()) for n in ("oh-ponyc-4593.json", "oh-mapstruct-3492.json")]
    single = load_transcript(shared_transcripts / "oh-ponyc-4593.json")
    # A bare event list [event, ...]
    events = tmp_path / "events.json"
    events.write_text(json.dumps(records[0]["history"], indent=1))
    t = load_transcript(events)
    assert t.format == "openhands" and len(t.messages) == len(single.messages)
    assert [m.role for m in t.messages] == [m.role for m in single.messages]
    # Old shape: [[action, observation], ...]
    pairs = tmp_path / "pairs.json"
    hist = records[0]["history"]
    pairs.write_text(json.dumps([hist[i:i + 2] for i in range(0, len(hist), 2)]))
    assert len(load_transcript(pairs).messages) == len(single.messages)
    # A real multi-line output.jsonl: first record loaded, the rest reported.
    for name in ("output.jsonl", "x.txt"):
        jsonl = tmp_path / name
        jsonl.write_text("".join(json.dumps(r) + "\n" for r in records))
        t = load_transcript(jsonl)
        assert t.format == "openhands" and t.meta["instance_id"] == "ponylang__ponyc-4593"
        assert len(t.messages) == len(single.messages)
        assert any("2 records" in w for w in t.warnings)


def test_openhands_fixture_skips_unknown_events():
    t = load_transcript(DATA / "openhands_events.json")
    assert t.format == "openhands"
    assert t.skipped_kinds == {"observation:agent_state_changed": 1, "action:some_future_action": 1}
    assert t.skipped_records == 2
    assert [m.role for m in t.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL,
                                            Role.ASSISTANT]
    run, edit = t.messages[1].tool_calls[0], t.messages[3].tool_calls[0]
    assert (run.kind, run.command) == (ToolKind.SHELL, "make")
    assert (edit.kind, edit.path, edit.arguments["old_str"]) == (ToolKind.EDIT, "/workspace/proj/src/a.c", "x = 1")
    res = t.messages[2].tool_results[0]
    assert (res.exit_code, res.is_error, res.call_id) == (2, True, run.id)
    assert t.messages[-1].text == "Build fixed."
    assert t.cwd == "/workspace/proj"
    assert len(t.rounds) == 3


def test_aider_real(shared_transcripts):
    path = shared_transcripts / "aider-afi-core-ts.md"
    text = path.read_text()
    truth = _truth()["aider-afi-core-ts.md"]
    t = load_transcript(path)
    assert _task(t) == truth["task_excerpt"]
    assert len(t.meta["sessions"]) == text.count("\n# aider chat started at ")
    assert t.cwd is None
    # Harness lines are kept verbatim: every Applied edit / Commit line is in a harness tool message.
    harness = "\n".join(m.text for m in t.messages if m.harness)
    applied = Counter(re.findall(r"^> Applied edit to (.+?)\s*$", harness, re.M))
    assert applied == Counter(truth["files_edited(Applied edit to)"])
    for commit in truth["aider_commits"]:
        assert f"> Commit {commit}" in harness
    # Prompt answers logged as #### lines are harness echoes, not requests.
    assert not any(m.role is Role.USER and "(Y)es/(N)o" in m.text for m in t.messages)
    assert any(m.meta.get("prompt_answer") and m.harness for m in t.messages)
    # SEARCH/REPLACE blocks become edit calls with paths; applied ones are linked to their result.
    edits = [c for m in t.messages for c in m.tool_calls if c.name == "search_replace"]
    assert all(c.kind == ToolKind.EDIT and c.path and "search" in c.arguments for c in edits)
    assert set(applied) <= {c.path for c in edits}
    linked = [r for m in t.messages for r in m.tool_results if r.content.startswith("Applied edit to")]
    by_id = {c.id: c for c in edits}
    assert linked and all(r.call_id in by_id and r.content.endswith(by_id[r.call_id].path) for r in linked)
    shells = [c.command for m in t.messages for c in m.tool_calls if c.kind == ToolKind.SHELL]
    assert "chmod +x sync-afi.sh aider-afi.sh" in shells
    # Rounds: never across sessions; one per model reply.
    starts = {s["message_index"] for s in t.meta["sessions"]}
    for rnd in t.rounds:
        inner = [m.index for m in rnd.messages[1:]]
        assert not starts.intersection(inner)
    n_assistant = sum(1 for m in t.messages if m.role is Role.ASSISTANT)
    assert n_assistant <= len(t.rounds) <= n_assistant + len(t.meta["sessions"]) + 5


def test_aider_fixture():
    t = load_transcript(DATA / "aider_small.aider.chat.history.md")
    assert t.format == "aider"
    users = [m for m in t.messages if m.role is Role.USER]
    assert users[0].text == "rename greet() to hello() in app/main.py\nand keep the old name as an alias"
    assert users[0].line == 7
    reply = next(m for m in t.messages if m.role is Role.ASSISTANT)
    assert [(c.path, c.arguments["search"], c.arguments["replace"]) for c in reply.tool_calls] == [
        ("app/main.py", "def greet(name):\n", "def hello(name):\n"),
        ("app/main.py", "# end\n", "greet = hello\n# end\n"),
    ]
    run = users[1].tool_calls[0]
    assert (run.kind, run.command) == (ToolKind.SHELL, "pytest -q")
    running = next(r for m in t.messages for r in m.tool_results if r.content == "Running pytest -q")
    assert running.call_id == run.id
    assert [len(r.messages) for r in t.rounds] == [5, 5, 2]
    assert t.rounds[1].messages[2].meta.get("prompt_answer")


def test_markdown_fixture():
    t = load_transcript(DATA / "markdown_chat.md")
    assert t.format == "markdown"
    assert [m.role for m in t.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.USER]
    call = t.messages[1].tool_calls[0]
    assert (call.name, call.kind, call.command) == ("bash", ToolKind.SHELL, "pytest -q tests/test_parse.py")
    res = t.messages[2].tool_results[0]
    assert (res.exit_code, res.is_error, res.call_id) == (1, True, call.id)
    assert res.content == "FAILED tests/test_parse.py::test_last - AssertionError"
    assert "## User\nnot a heading" in t.messages[3].text  # headings inside fences are content
    assert [[m.index for m in r.messages] for r in t.rounds] == [[0, 1, 2], [3], [4]]


def test_mini_swe_agent_v2_shapes():
    """v2 trajectories: `mswea_bash_command` fences, `extra.actions`/`extra.returncode`, tool calls, exit."""
    t = load_transcript(DATA / "mini_v2_small.traj.json")
    assert t.format == "mini-swe-agent" and t.cwd == "/repo" and len(t.rounds) == 3
    calls = [c for m in t.messages for c in m.tool_calls]
    assert [c.command for c in calls] == ["ls", "false", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"]
    results = [r for m in t.messages for r in m.tool_results]
    assert [(r.call_id, r.exit_code, r.is_error) for r in results] == [(calls[0].id, 0, False), ("c1", 1, True)]
    assert results[0].content == "a b\n"
    assert [m.index for m in t.messages if m.meta.get("final_patch_echo")] == [7]
    assert t.messages[-1].role is Role.TOOL and t.messages[-1].harness
