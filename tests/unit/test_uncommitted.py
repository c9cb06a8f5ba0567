"""Edits left uncommitted (sources/uncommitted.py): in a session that commits, the files changed after
its last commit are a must-keep line of where the work stands; a session whose edits are all committed,
or that never commits, has none."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.uncommitted import uncommitted_facts
from compaction.history.steering import role_preset
from compaction.model import ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript


def _edit(path: str, cid: str) -> tuple:
    return make_call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, cid), ToolResult("ok", cid)


COMMIT = (make_call("Bash", {"command": "git commit -am 'feat: playbook'"}, "c"),
          ToolResult("[main 5dcb696] feat: playbook\n 2 files changed, 10 insertions(+)", "c"))


def _lines(*steps: tuple, cwd: str | None = None) -> list:
    t = steps_transcript("write the playbook and commit it", *steps)
    return uncommitted_facts(FactContext(t, extract_events(t), [], role_preset("developer"), cwd, len(t.rounds)))


def test_files_changed_after_the_last_commit_are_said_uncommitted():
    (fact,) = _lines(_edit("docs/a.md", "e1"), COMMIT, _edit("rules/101-intent.mdc", "e2"), _edit("docs/b.md", "e3"))
    assert fact.essential and fact.text.startswith(
        "Uncommitted: 2 files changed after the last commit (5dcb696, r2): `101-intent.mdc`, `b.md`")


def test_all_committed_or_never_committing_says_nothing():
    assert _lines(_edit("docs/a.md", "e1"), COMMIT) == []
    assert _lines(_edit("docs/a.md", "e1")) == []


def test_a_reverted_or_stashed_edit_is_not_uncommitted():
    revert = (make_call("Bash", {"command": "git checkout -- docs/b.md"}, "r"), ToolResult("", "r"))
    (fact,) = _lines(COMMIT, _edit("docs/a.md", "e1"), _edit("docs/b.md", "e2"), revert)
    assert "`a.md`" in fact.text and "b.md" not in fact.text
    stash = (make_call("Bash", {"command": "git stash"}, "s"), ToolResult("Saved working directory", "s"))
    assert _lines(COMMIT, _edit("docs/a.md", "e1"), stash) == []


def test_a_popped_stash_is_uncommitted_again():
    stash = (make_call("Bash", {"command": "git stash"}, "s"), ToolResult("Saved working directory", "s"))
    pop = (make_call("Bash", {"command": "cd /r && git stash pop"}, "p"), ToolResult("On branch main", "p"))
    (fact,) = _lines(COMMIT, _edit("docs/a.md", "e1"), stash, pop)
    assert "`a.md`" in fact.text


def _status(output: str, cid: str = "st") -> tuple:
    return make_call("Bash", {"command": "cd /r && git status"}, cid), ToolResult(output, cid)


def test_what_git_status_then_printed_outranks_the_sessions_own_edits():
    """pi's session edited four files after its last commit; the user committed them outside the session,
    and `git status` then listed one other file: "4 files changed after the last commit" was wrong."""
    told = ("On branch main\nChanges not staged for commit:\n  (use \"git add <file>...\" to update)\n"
            "\tmodified:   src/core/session.ts\n\nUntracked files:\n\tscratch.txt\n\n")
    (fact,) = _lines(COMMIT, _edit("docs/a.md", "e1"), _status(told), _edit("docs/b.md", "e2"))
    # (session 43) a file git lists that the session never changed is someone else's work in progress
    assert fact.text.startswith("Uncommitted: 2 files (`git status`, r3, and edits after it): `session.ts` "
                                "(not changed by this session), `b.md`")
    assert "a.md`" not in fact.text and "scratch" not in fact.text  # an untracked file the session never wrote
    (fact,) = _lines(COMMIT, _edit("docs/a.md", "e1"), _status("On branch main\nnothing to commit, working tree clean\n"))
    assert fact.text == "Nothing left to commit: `git status` printed a clean work tree (r3)"


def test_a_status_of_a_part_or_of_another_repository_says_nothing_of_this_one_and_a_stash_after_it_counts():
    told = "On branch main\nChanges not staged for commit:\n\tmodified:   src/a.py\n\tmodified:   src/b.py\n\n"
    stash = (make_call("Bash", {"command": "git stash"}, "s"), ToolResult("Saved working directory", "s"))
    assert _lines(COMMIT, _edit("src/a.py", "e1"), _edit("src/b.py", "e2"), _status(told), stash) == []
    for command in ("git status | head -4", "git -C ../lib status", "cd /tmp/upstream && git status", "git status src/"):
        other = (make_call("Bash", {"command": command}, "o"), ToolResult("nothing to commit, working tree clean", "o"))
        (fact,) = _lines(COMMIT, _edit("docs/a.md", "e1"), other, cwd="/repo")
        assert fact.text.startswith("Uncommitted: 1 file changed after the last commit"), (command, fact.text)


def test_a_new_folder_git_lists_whole_holds_the_sessions_new_files():
    told = "?? src/feat/\n M src/x.py\n"
    short = (make_call("Bash", {"command": "git status --short"}, "st"), ToolResult(told, "st"))
    (fact,) = _lines(COMMIT, _edit("src/feat/a.py", "e1"), _edit("src/x.py", "e2"), short)
    assert "`a.py`" in fact.text and "`x.py`" in fact.text, fact.text


def test_a_status_with_its_output_joined_is_a_status():
    told = "On branch main\nChanges not staged for commit:\n\tmodified:   src/x.py\n\n"
    status = (make_call("Bash", {"command": "git status 2>&1"}, "st"), ToolResult(told, "st"))
    (fact,) = _lines(COMMIT, _edit("src/x.py", "e1"), _edit("src/y.py", "e2"), status)
    assert "`x.py`" in fact.text and "y.py" not in fact.text, fact.text
