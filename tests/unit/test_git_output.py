"""Files a git command's output reports changed (compaction.git_output), and how the events and the
modified-files list use them: only after the session wrote files without naming them, labelled, with
unchanged moves and reported deletions folded into one line each."""

from __future__ import annotations

from compaction.events import EventKind, extract_events
from compaction.git_output import GitFileChange, git_file_changes
from compaction.history.sources import FactContext
from compaction.history.sources.modified import modified_file_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolResult, Transcript, group_rounds

COMMIT_OUT = """[feature/playbook 5dcb696] feat: add the playbook
 7 files changed, 327 insertions(+), 50 deletions(-)
 create mode 100644 .cursor/rules/001-core.mdc
 rename .cursor/rules/{terminal.mdc => 002-terminal.mdc} (53%)
 delete mode 100644 .cursor/rules/solo.mdc
 rename {documentation => docs}/product/brand.md (100%)
 rename old name.md => new name.md (100%)
 create mode 100644 "docs/caf\\303\\251.md"
 mode change 100644 => 100755 scripts/run.sh
"""

STATUS_OUT = """On branch main
Changes to be committed:
  (use "git restore --staged <file>..." to unstage)
\tnew file:   src/new.py
\trenamed:    a.py -> b.py

Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
\tmodified:   src/app.py
\tdeleted:    docs/old guide.md

Untracked files:
  (use "git add <file>..." to include in what will be committed)
\tnotes/todo.md
\tbuild/

no changes added to commit (use "git add" and/or "git commit -a")
"""


def test_commit_summary_gives_created_changed_renames_deleted_and_unchanged_moves():
    changes = git_file_changes('git add . && git commit -m "feat: add the playbook"', COMMIT_OUT)
    assert changes == [
        GitFileChange("created", ".cursor/rules/001-core.mdc"),
        GitFileChange("deleted", ".cursor/rules/terminal.mdc"),
        GitFileChange("modified", ".cursor/rules/002-terminal.mdc", ".cursor/rules/terminal.mdc"),
        GitFileChange("deleted", ".cursor/rules/solo.mdc"),
        GitFileChange("moved", "docs/product/brand.md", "documentation/product/brand.md"),
        GitFileChange("moved", "new name.md", "old name.md"),
        GitFileChange("created", "docs/café.md"),
    ]


def test_long_status_gives_each_section_and_skips_untracked_folders():
    changes = git_file_changes("cd /repo/My\\ Drive/x && git status", STATUS_OUT)
    assert changes == [
        GitFileChange("created", "src/new.py"),
        GitFileChange("moved", "b.py", "a.py"),
        GitFileChange("modified", "src/app.py"),
        GitFileChange("deleted", "docs/old guide.md"),
        GitFileChange("created", "notes/todo.md"),
    ]


def test_short_status_name_status_and_diff_stat():
    short = "M  src/a.py\n M src/b.py\nA  src/c.py\n D gone.py\nRM x.py -> y.py\n?? \"with space.md\"\n!! ignored.log\n"
    assert git_file_changes("git status -s", short) == [
        GitFileChange("modified", "src/a.py"), GitFileChange("modified", "src/b.py"),
        GitFileChange("created", "src/c.py"), GitFileChange("deleted", "gone.py"),
        GitFileChange("moved", "y.py", "x.py"), GitFileChange("modified", "y.py"),
        GitFileChange("created", "with space.md")]
    assert git_file_changes("git status", "## main\n M src/b.py\n?? new.md\n") == [  # status.short in the config
        GitFileChange("modified", "src/b.py"), GitFileChange("created", "new.md")]
    name_status = "M\tsrc/a.py\nA\tsrc/new.py\nD\told.py\nR100\tp/q.py\tp/r.py\nR087\tu.py\tv.py\n"
    assert git_file_changes("git diff --name-status HEAD", name_status) == [
        GitFileChange("modified", "src/a.py"), GitFileChange("created", "src/new.py"),
        GitFileChange("deleted", "old.py"), GitFileChange("moved", "p/r.py", "p/q.py"),
        GitFileChange("deleted", "u.py"), GitFileChange("modified", "v.py", "u.py")]
    stat = (" src/a.py            | 12 +++++++---\n lib/{old => new}/m.py |  0\n img.png | Bin 0 -> 1234 bytes\n"
            " 3 files changed, 7 insertions(+), 3 deletions(-)\n")
    assert [c.path for c in git_file_changes("git diff --stat", stat)] == ["src/a.py", "lib/new/m.py", "img.png"]


def test_only_commit_status_and_diff_are_read():
    assert git_file_changes("git pull", COMMIT_OUT) == []  # someone else's changes
    assert git_file_changes("git show --stat HEAD~3", " a.py | 2 +-\n") == []
    assert git_file_changes("cat notes.txt", COMMIT_OUT) == []
    assert git_file_changes("git status", "") == []


# --- events and the modified-files list --------------------------------------------------------------

def _transcript(*calls: tuple[ToolCall, str | None]) -> Transcript:
    msgs = [Message(0, Role.USER, "write the playbook and commit it")]
    for call, out in calls:
        msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[call]))
        if out is not None:
            msgs.append(Message(len(msgs), Role.TOOL, "", tool_results=[ToolResult(out, call.id)]))
    t = Transcript("t.md", "test", msgs)
    t.rounds = group_rounds(msgs)
    return t


def _bare_write(n: int) -> tuple[ToolCall, str]:
    return ToolCall("write", {}, f"w{n}", kind="write"), ""


def _shell(cmd: str, out: str, n: int) -> tuple[ToolCall, str]:
    return ToolCall("run_terminal_cmd", {"command": cmd}, f"s{n}", kind="shell", command=cmd), out


def _modified(t: Transcript) -> list[str]:
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    return [f.text for f in modified_file_facts(ctx)]


def test_git_output_names_the_files_of_path_less_writes_with_moves_folded():
    moves = "".join(f" rename {{documentation => docs}}/p{i}.md (100%)\n" for i in range(30))
    t = _transcript(_bare_write(1), _bare_write(2), _shell("git status", STATUS_OUT, 3),
                    _shell('git commit -m "feat"', COMMIT_OUT + " create mode 100644 notes/todo.md\n" + moves, 4))
    events = extract_events(t)
    reported = [(e.kind, e.path) for e in events if e.git_output]
    assert (EventKind.WRITE, ".cursor/rules/001-core.mdc") in reported
    assert (EventKind.MOVE, "docs/product/brand.md") in reported
    lines = _modified(t)
    assert "`.cursor/rules/001-core.mdc`: created (from git output) (r4)" in lines
    assert ("`.cursor/rules/002-terminal.mdc`: renamed and changed from `.cursor/rules/terminal.mdc` (from git output)"
            " (r4)") in lines  # renamed at 53%
    assert not any("Deleted" in line and "terminal.mdc`" in line for line in lines)  # the rename's old name
    # untracked in `git status`, later in the commit's summary: one file the session created, not "then edited"
    assert "`notes/todo.md`: created (from git output) (r3, r4)" in lines
    assert "`src/app.py`: edited (from git output) (r3)" in lines
    assert not any("brand.md" in line and "(from git output) (" in line and "Moved" not in line for line in lines)
    (moved,) = [line for line in lines if line.startswith("Moved unchanged")]
    # 30 + brand.md + new name.md + b.py: the folder moved whole told once, with its files, the two renames beside it
    assert moved.startswith("Moved unchanged (from git output): 33 files: `documentation/` → `docs/` (31), "), moved
    (deleted,) = [line for line in lines if line.startswith("Deleted (from git output)")]
    assert "`.cursor/rules/solo.mdc`" in deleted and "`docs/old guide.md`" in deleted


def test_git_output_is_ignored_when_every_write_named_its_file():
    write = ToolCall("Write", {"file_path": "src/app.py", "content": "x = 1\n"}, "w1", kind="write",
                     path="src/app.py")
    t = _transcript((write, "ok"), _shell("git status", STATUS_OUT, 2))
    assert not [e for e in extract_events(t) if e.git_output]
    assert _modified(t) == ["`src/app.py`: created (r1)"]


def test_a_file_the_session_named_keeps_its_own_line_not_a_git_one():
    edit = ToolCall("Edit", {"file_path": "/home/u/proj/src/app.py", "old_string": "a", "new_string": "b"}, "e1",
                    kind="edit", path="/home/u/proj/src/app.py")
    t = _transcript((edit, "ok"), _bare_write(2), _shell("git status", STATUS_OUT, 3))
    lines = _modified(t)
    assert "`/home/u/proj/src/app.py`: edited (r1)" in lines
    assert not any(line.startswith("`src/app.py`") for line in lines)
    assert "`src/new.py`: created (from git output) (r3)" in lines
    # A bare name is any folder's: `docs/README.md` edited by the session is not the root's README.md.
    readme = ToolCall("Edit", {"file_path": "/home/u/proj/docs/README.md", "old_string": "a", "new_string": "b"},
                      "e2", kind="edit", path="/home/u/proj/docs/README.md")
    t = _transcript((readme, "ok"), _bare_write(2), _shell("git status -s", " M README.md\n M docs/README.md\n", 3))
    assert _modified(t) == ["`/home/u/proj/docs/README.md`: edited (r1)", "`README.md`: edited (from git output) (r3)"]


def test_git_checkout_b_creates_a_branch_not_a_reverted_file():
    t = _transcript(_shell("git checkout -b feature/ai-playbook", "Switched to a new branch", 1))
    assert not [e for e in extract_events(t) if e.kind is EventKind.REVERT]
