"""RestoreState from a workspace + compaction + error memory; Markdown (en/zh) and JSON; the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from compaction.cli import main as cli_main
from compaction.config import RestoreSettings, Settings
from compaction.summary import CompactionResult, ErrorRecordOut, Item, Stats, Summary
from restore.render import render_error_memory, render_json, render_markdown, write_restore
from restore.state import RestoreState, build_restore_state
from restore.workspace import WorkspaceIndex
from tests.unit.restore_testkit import copy_skeleton, make_tree, set_times

RECORDS = [
    ErrorRecordOut(id="ERR_PY_KeyError", count=3, rounds=[12, 24, 35], recurring=True,
                   locations=[{"path": "/testbed/polls/views.py", "line": 7}]),
    ErrorRecordOut(id="ERR_TOOL_FileNotFound", count=1, rounds=[7], solution="the file is `polls/models.py`",
                   avoidance="list the directory before opening guessed paths",
                   locations=[{"path": "/testbed/app/models.py"}]),
    ErrorRecordOut(id="ERR_LOGIC_TestFailed", count=1, rounds=[3], target_bug=True,
                   locations=[{"path": "/testbed/polls/tests.py"}]),
]


def _result() -> CompactionResult:
    summary = Summary(
        next_steps=[Item(text="[pending] add the results view", rounds=[40])],
        marked=[Item(text="@todo: paginate the index", rounds=[33])],
        errors=[Item(text="KeyError 'choice' in vote(): fixed by get()", rounds=[12, 24])],
        modified_files=[Item(text="`polls/admin.py`: edited (r30)", rounds=[30])],
        current_work=[Item(text="Last said: the view is next", rounds=[40]),
                      Item(text="No test run after the last edit (r30)", rounds=[30])],
    )
    return CompactionResult(format="test", transcript="t.jsonl", rounds=41, kept_rounds=[37, 38, 39, 40, 41],
                            compacted=True, cwd="/testbed", markdown="# summary\n", summary=summary,
                            error_memory=RECORDS, stats=Stats(tokens_before=1, tokens_after=1, ratio=1, elapsed_ms=1))


def _ws(tmp_path: Path) -> Path:
    root = copy_skeleton("django-proj", tmp_path)
    make_tree(root, {"ARCHITECTURE.md": "# arch\n", "docs/adr/0001-sqlite.md": "# ADR\n", "conftest.py": "\n"})
    set_times(root, ["polls/models.py", "polls/views.py", "mysite/urls.py", "manage.py", "conftest.py"])
    return root


def test_state_contents(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    state = build_restore_state(
        root, compaction=_result(), transcript_reads=[("/testbed/polls/models.py", 20), ("/testbed/manage.py", 38)],
        diagnostics=[{"path": str(root / "mysite/urls.py"), "line": 3, "message": "unused import", "code": "F401"}],
    )
    assert state.cwd == str(root.resolve())  # /testbed is the workspace root here
    assert state.recorded_cwd == "/testbed"
    assert "(recorded in the transcript as `/testbed`)" in render_markdown(state)
    assert state.open_files == ["manage.py", "polls/models.py"] and state.open_files_source == "transcript"
    paths = [c.path for c in state.core_files]
    # admin.py, edited in the transcript (from the summary's modified files), enters the five
    assert "polls/admin.py" in paths and len(paths) == 5
    assert paths[0] == "manage.py"
    admin = next(c for c in state.core_files if c.path == "polls/admin.py")
    assert "edited in round 30" in admin.reasons
    pf = {(p.path, p.source): p for p in state.problem_files}
    assert pf[("polls/views.py", "error-memory")].ids == ["ERR_PY_KeyError"]
    assert pf[("polls/views.py", "error-memory")].line == 7
    assert pf[("mysite/urls.py", "diagnostic")].ids == ["F401"]
    assert ("polls/tests.py", "error-memory") not in pf  # target bug: provoked on purpose
    assert state.architecture_docs[:2] == ["ARCHITECTURE.md", "docs/adr/0001-sqlite.md"]
    assert state.test_config == ["conftest.py"]
    # where the session ended counts when it leaves something undone (a check not run), not its last words
    assert [t.text for t in state.unfinished_tasks] == ["[pending] add the results view",
                                                       "No test run after the last edit (r30)",
                                                       "@todo: paginate the index"]
    # the compaction's problems-and-solutions section; without a compaction, the solved records
    assert [p.text for p in state.problems] == ["KeyError 'choice' in vote(): fixed by get()"]
    alone = build_restore_state(root, error_records=RECORDS, excerpts=False)
    assert [p.text for p in alone.problems] == ["ERR_TOOL_FileNotFound: the file is `polls/models.py`"]
    assert state.error_memory == RECORDS  # complete, not budgeted
    assert sum(c.excerpt.tokens for c in state.core_files if c.excerpt) == state.stats.excerpt_tokens


def test_open_files_from_editor_win(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    state = build_restore_state(root, open_files=[str(root / "polls/views.py"), "mysite/urls.py"],
                                transcript_reads=[("/testbed/manage.py", 3)])
    assert state.open_files == ["polls/views.py", "mysite/urls.py"] and state.open_files_source == "editor"


def test_excerpt_budget_is_respected(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    body = "".join(f"def f{i}():\n" + "".join(f"    a{j} = {j}\n" for j in range(20)) + "    return a0\n\n"
                   for i in range(60))
    (root / "polls/views.py").write_text(body)
    set_times(root, ["polls/models.py", "mysite/urls.py", "manage.py", "conftest.py", "polls/views.py"])
    settings = Settings(restore=RestoreSettings(tokens_per_file=400, total_tokens=700))
    state = build_restore_state(root, settings=settings)
    tok = [c.excerpt.tokens for c in state.core_files if c.excerpt]
    assert all(t <= 400 for t in tok) and sum(tok) <= 700
    views = next(c for c in state.core_files if c.path == "polls/views.py")
    assert views.excerpt.truncated and views.excerpt.omitted


def test_markdown_en_zh_and_json(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    idx = WorkspaceIndex(root, use_git=False)
    state = build_restore_state(root, compaction=_result(), index=idx)
    md = render_markdown(state)
    for heading in ("# Restore state", "**Working directory:**", "## Open files", "## Core files",
                    "## Files with unresolved problems", "## Architecture documents", "## Test configuration",
                    "## Unfinished tasks", "## Problems found and their solutions", "## Error Memory",
                    "## File excerpts"):
        assert heading in md
    assert f"`{state.cwd}`" in md
    assert "- #recurring ERR_PY_KeyError: occurrences 3 (rounds 12, 24, 35)" in md
    assert "  Avoidance: list the directory before opening guessed paths" in md
    assert "@decision: ignore_ERR_xxx" in md
    zh = render_markdown(build_restore_state(root, compaction=_result(), index=idx, lang="zh"))
    for heading in ("# 压缩后状态恢复", "**当前工作目录:**", "## 已打开的文件", "## 未完成的任务", "## 已发现的问题和解决方案"):
        assert heading in zh
    assert "- #recurring ERR_PY_KeyError: 发生3次 (12,24,35)" in zh and "  解决: the file is" in zh
    back = RestoreState.model_validate_json(render_json(state))
    assert back == state


def test_error_memory_markdown_passed_through_with_protocol() -> None:
    block = "## Error Memory\n- ERR_PY_X: occurrences 1 (rounds 2)\n"
    state = RestoreState(workspace="/w", cwd="/w", error_memory_markdown=block,
                         stats={"files_indexed": 0, "core_candidates": 0, "excerpt_tokens": 0, "elapsed_ms": 0,
                                "cold": True})
    md = render_markdown(state)
    assert "- ERR_PY_X: occurrences 1 (rounds 2)" in md and "@decision: ignore_ERR_xxx" in md
    assert md.count("## Error Memory") == 1
    assert "(no errors recorded)" in render_error_memory([], "en")  # the error memory's own renderer


def test_write_restore_atomic(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    state = build_restore_state(root)
    path = write_restore(state)
    assert path == root / ".compaction" / "restore.md"
    assert path.read_text().startswith("# Restore state")
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    # .compaction itself is never indexed
    assert not any(c.path.startswith(".compaction") for c in build_restore_state(root).core_files)


def test_cli_restore(tmp_path: Path, capsys, monkeypatch) -> None:
    root = _ws(tmp_path)
    monkeypatch.chdir(root)
    assert cli_main(["restore", "--workspace", str(root), "--open", "polls/views.py", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["open_files"] == ["polls/views.py"] and len(data["core_files"]) == 5
    assert (root / ".compaction" / "restore.md").is_file()
    out_file = tmp_path / "r.md"
    assert cli_main(["restore", "--workspace", str(root), "--lang", "zh", "-o", str(out_file), "--no-write"]) == 0
    assert out_file.read_text().startswith("# 压缩后状态恢复")
    assert cli_main(["restore", "--workspace", str(tmp_path / "missing")]) == 2


def test_cli_restore_from_real_transcript(tmp_path: Path, capsys, shared_transcripts: Path) -> None:
    """A SWE-agent run recorded under /testbed, restored onto a workspace holding the same files."""
    root = make_tree(tmp_path / "ws", {
        "django/db/models/sql/query.py": "class Query:\n    pass\n",
        "django/db/backends/sqlite3/base.py": "def execute():\n    pass\n",
        "django/db/models/lookups.py": "\n", "django/utils/functional.py": "\n",
        "django/db/models/fields/__init__.py": "\n", "django/urls/conf.py": "\n", "manage.py": "\n",
    })
    set_times(root, ["django/db/models/sql/query.py", "django/db/backends/sqlite3/base.py", "manage.py",
                     "django/urls/conf.py"])
    transcript = shared_transcripts / "mini-django-13297.traj.json"
    assert cli_main(["restore", "--workspace", str(root), "--transcript", str(transcript), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["open_files_source"] == "transcript"
    assert "django/db/models/sql/query.py" in data["open_files"]  # /testbed/... mapped by the recorded cwd
    core = {c["path"]: c for c in data["core_files"]}
    # edited in the transcript: ahead of files with later file times
    assert "edited in round 89" in core["django/db/models/sql/query.py"]["reasons"]
    assert any(r["id"] == "ERR_PY_InterfaceError" for r in data["error_memory"])
    assert (root / ".compaction" / "latest.md").is_file() and (root / ".compaction" / "restore.md").is_file()
