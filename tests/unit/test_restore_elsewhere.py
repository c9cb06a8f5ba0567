"""The restore names the files the session edited that the workspace does not hold (a restore in
another folder, a session run in a container): a successor told "(none)" would not know they exist."""

from __future__ import annotations

from pathlib import Path

from compaction.events import Event, EventKind
from compaction.history import compact
from compaction.transcripts import load_transcript
from restore.pipeline import transcript_activity, write_after_compaction
from restore.render import render_markdown
from restore.state import build_restore_state
from restore.workspace import WorkspaceIndex


def _ws(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("def f():\n    return 1\n")
    return tmp_path


def test_unmapped_edits_are_named_as_the_project_names_them(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    edits = [("/testbed/pkg/core.py", 3), ("/testbed/requests/models.py", 5), ("lib/util.py", 9),
             ("requests/models.py", 7)]  # one file spelled absolutely and relatively: one
    state = build_restore_state(root, index=WorkspaceIndex(root, use_git=False), transcript_edits=edits,
                                cwd="/testbed", excerpts=False)
    assert [c.path for c in state.core_files] == ["pkg/core.py"]
    assert state.edited_elsewhere == ["lib/util.py", "requests/models.py"]  # latest edit first
    md = render_markdown(state)
    assert "- Edited in the session, not in this workspace: `lib/util.py`, `requests/models.py`" in md
    zh = render_markdown(build_restore_state(root, index=WorkspaceIndex(root, use_git=False), transcript_edits=edits,
                                             cwd="/testbed", excerpts=False, lang="zh"))
    assert "会话中修改过、本工作区中没有的文件: `lib/util.py`" in zh


def test_none_only_when_nothing_was_edited_anywhere(tmp_path: Path) -> None:
    root = tmp_path
    state = build_restore_state(root, index=WorkspaceIndex(root, use_git=False), transcript_edits=[("a/b.py", 2)],
                                excerpts=False)
    core = render_markdown(state).split("## Core files", 1)[1].split("##", 1)[0]
    assert "(none)" not in core and "`a/b.py`" in core
    empty = build_restore_state(root, index=WorkspaceIndex(root, use_git=False), excerpts=False)
    assert empty.edited_elsewhere == []
    assert "(none)" in render_markdown(empty).split("## Core files", 1)[1].split("##", 1)[0]


def test_files_the_session_deleted_last_are_not_edits() -> None:
    events = [Event(EventKind.WRITE, 2, 0, path="repro.py"), Event(EventKind.EDIT, 3, 0, path="src/x.py"),
              Event(EventKind.DELETE, 6, 0, path="repro.py"),
              Event(EventKind.DELETE, 7, 0, path="gen.py"), Event(EventKind.WRITE, 8, 0, path="gen.py"),
              Event(EventKind.READ, 4, 0, path="src/y.py")]
    edits, reads = transcript_activity(None, events)  # type: ignore[arg-type]
    assert edits == [("src/x.py", 3), ("gen.py", 8)]  # written again after its deletion: a file
    assert reads == [("src/y.py", 4)]


def test_a_real_session_restored_in_an_empty_folder(shared_transcripts: Path, tmp_path: Path) -> None:
    transcript = load_transcript(str(shared_transcripts / "mini-requests-5414.traj.json"))
    result = compact(transcript, target_tokens=3000)
    write_after_compaction(tmp_path, transcript, result)
    restore = (tmp_path / ".compaction" / "restore.md").read_text(encoding="utf-8")
    core = restore.split("## Core files", 1)[1].split("\n## ", 1)[0]
    # the fix's file, not the reproduction script it wrote and removed
    assert "Edited in the session, not in this workspace: `requests/models.py`" in core
    assert "reproduce_issue.py" not in core


def test_work_left_uncommitted_is_an_unfinished_task(shared_transcripts: Path, tmp_path: Path) -> None:
    """A session that commits and then changes more files leaves those to commit: the restore's
    unfinished tasks say so, as the compaction's current work does."""
    transcript = load_transcript(str(shared_transcripts / "more-agents" / "specstory-cursor-chefchopsky-ai-playbook.md"))
    result = compact(transcript, target_tokens=4000)
    assert any(i.text.startswith("Uncommitted: ") for i in result.summary.current_work)
    write_after_compaction(tmp_path, transcript, result)
    restore = (tmp_path / ".compaction" / "restore.md").read_text(encoding="utf-8")
    tasks = restore.split("## Unfinished tasks", 1)[1].split("\n## ", 1)[0]
    assert "- Uncommitted: 8 files changed after the last commit (5dcb696, r13)" in tasks


def test_commands_the_session_ended_on_without_a_result_are_unfinished(shared_transcripts: Path,
                                                                      tmp_path: Path) -> None:
    """Codex ended while its export script and four reads were running: what they did is unknown."""
    transcript = load_transcript(str(shared_transcripts / "more-agents" / "codex-battle-cities-windows.jsonl"))
    result = compact(transcript)
    write_after_compaction(tmp_path, transcript, result)
    restore = (tmp_path / ".compaction" / "restore.md").read_text(encoding="utf-8")
    tasks = restore.split("## Unfinished tasks", 1)[1].split("\n## ", 1)[0]
    assert "- Last calls: `bash " in tasks and "export-session.sh" in tasks and "(no result seen" in tasks


def test_a_bare_final_action_is_no_unfinished_call() -> None:
    from restore.state import _unanswered_calls

    assert not _unanswered_calls("Last calls: finish (no result seen)")
    assert not _unanswered_calls("Last calls: `git push` (done)")
    assert _unanswered_calls("Last calls: `npm test` (no result seen)")


def test_an_odd_path_is_escaped_once_where_it_is_printed(tmp_path: Path) -> None:
    state = build_restore_state(tmp_path, index=WorkspaceIndex(tmp_path, use_git=False),
                                transcript_edits=[("/testbed/a\nb`.py", 2)], cwd="/testbed", excerpts=False)
    assert state.edited_elsewhere == ["a\nb`.py"]  # the state holds the name itself
    core = render_markdown(state).split("## Core files", 1)[1].split("\n## ", 1)[0]
    assert "- Edited in the session, not in this workspace: `a\\nb\\u0060.py`" in core  # one visible escape


def test_a_long_list_says_how_many_more(tmp_path: Path) -> None:
    edits = [(f"src/m{i}.py", i) for i in range(1, 15)]
    state = build_restore_state(tmp_path, index=WorkspaceIndex(tmp_path, use_git=False), transcript_edits=edits,
                                excerpts=False)
    assert len(state.edited_elsewhere) == 14 and state.edited_elsewhere[0] == "src/m14.py"
    line = next(ln for ln in render_markdown(state).splitlines() if ln.startswith("- Edited in the session"))
    assert line.endswith("`src/m5.py` (+4)") and "`src/m4.py`" not in line


def test_a_deletion_spelled_otherwise_still_ends_the_file() -> None:
    """An editor tool writes `/workspace/repo__x/repro.py`; the shell removes `./repro.py`."""
    events = [Event(EventKind.WRITE, 2, 0, path="/workspace/repo__x/repro.py"),
              Event(EventKind.DELETE, 5, 0, path="./repro.py"),
              Event(EventKind.EDIT, 3, 0, path="/workspace/repo__x/src/a.py")]
    edits, _ = transcript_activity(None, events)  # type: ignore[arg-type]
    assert edits == [("/workspace/repo__x/src/a.py", 3)]


# --- the code review's cases ------------------------------------------------------------------------------

def test_files_on_disk_that_the_index_leaves_out_are_not_elsewhere(tmp_path: Path) -> None:
    """`dist/`, `vendor/` (and gitignored or binary files) are on disk though the index lists none of them."""
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.js").write_text("export {}\n")
    (tmp_path / "vendor" / "lib").mkdir(parents=True)
    (tmp_path / "vendor" / "lib" / "lib.go").write_text("package lib\n")
    edits = [("/repo/dist/index.js", 3), ("/repo/vendor/lib/lib.go", 4), ("/repo/src/gone.py", 5)]
    state = build_restore_state(tmp_path, index=WorkspaceIndex(tmp_path, use_git=False), transcript_edits=edits,
                                cwd="/repo", excerpts=False)
    assert state.edited_elsewhere == ["src/gone.py"]


def test_a_finished_command_beside_a_bare_final_action_is_no_unfinished_call() -> None:
    from restore.state import _unanswered_calls

    assert not _unanswered_calls("Last calls: `pytest -q` (exit 0); finish (no result seen)")
    assert _unanswered_calls("Last calls: `bash x.sh .` (no result seen; with `sandbox_permissions: require_escalated`)")


def test_someone_elses_uncommitted_file_is_no_task_of_the_successor() -> None:
    from restore.state import _ours_uncommitted

    assert not _ours_uncommitted("Uncommitted: 1 file (`git status`, r214): `agent-session.ts` (not changed by this "
                                 "session) (r214)")
    assert _ours_uncommitted("Uncommitted: 2 files (`git status`, r9): `a.py`, `b.ts` (not changed by this session)")
    assert _ours_uncommitted("Uncommitted: 8 files changed after the last commit (5dcb696, r13): `101-intent.mdc`")


def test_deleting_a_folder_or_a_glob_ends_the_files_under_it() -> None:
    events = [Event(EventKind.WRITE, 1, 0, path="tmp_check/run.py"), Event(EventKind.WRITE, 2, 0, path="/repo/reproduce_bug.py"),
              Event(EventKind.EDIT, 3, 0, path="/repo/src/core.py"),
              Event(EventKind.DELETE, 4, 0, path="tmp_check"), Event(EventKind.DELETE, 5, 0, path="reproduce*.py")]
    edits, _ = transcript_activity(None, events, root="/repo")  # type: ignore[arg-type]
    assert edits == [("/repo/src/core.py", 3)]


def test_a_session_whose_only_change_is_a_deletion_edited_nothing(tmp_path: Path) -> None:
    """No edits found (the only change deleted a file): the summary's file list, which names the deleted
    file, is not taken for edits."""
    from compaction.summary import CompactionResult, Item, Stats, Summary

    result = CompactionResult(format="t", transcript="t", rounds=3, kept_rounds=[3], compacted=True, markdown="#\n",
                              summary=Summary(modified_files=[Item(text="old_helper.py", rounds=[2])]),
                              stats=Stats(tokens_before=1, tokens_after=1, ratio=1, elapsed_ms=1))
    state = build_restore_state(tmp_path, index=WorkspaceIndex(tmp_path, use_git=False), compaction=result,
                                transcript_edits=[], excerpts=False)
    assert state.edited_elsewhere == []


def test_one_file_spelled_absolutely_and_relatively_is_one_under_the_inferred_root() -> None:
    from restore.state import _edited_elsewhere

    shown = _edited_elsewhere({"/Users/me/proj/docs/a.md": 3, "docs/a.md": 2, "/tmp/vllm.log": 4,
                               "/tmp/smoke.py": 5}, "/Users/me/proj")
    assert shown == ["docs/a.md"]  # the logs and scratch outside the project are no edits of it
