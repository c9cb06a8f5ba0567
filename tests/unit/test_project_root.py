"""The project root of a session that recorded no cwd: inferred from its own commands and paths, for display."""

from __future__ import annotations

from compaction.events import Event, EventKind
from compaction.history.project_root import infer_root, without_root_cd
from compaction.shell import leading_cd

ROOT = "/Users/dev/Library/CloudStorage/My Drive/github/shop"


def _cmd(command: str) -> Event:
    return Event(EventKind.COMMAND, 1, 0, command=command)


def _file(kind: EventKind, path: str) -> Event:
    return Event(kind, 1, 0, path=path)


def test_leading_cd_reads_escaped_quoted_and_windows_directories() -> None:
    assert leading_cd(r"cd /Users/dev/My\ Drive/shop && git status") == ("/Users/dev/My Drive/shop", "git status")
    assert leading_cd('cd "/srv/a b"; make') == ("/srv/a b", "make")
    assert leading_cd(r"cd /d C:\repos\Battle && npm test") == (r"C:\repos\Battle", "npm test")
    assert leading_cd("git status") is None
    assert leading_cd("cd src") is None  # nothing runs after it on this line


def test_root_is_the_cd_target_that_holds_the_touched_files() -> None:
    events = [_cmd(f"cd {ROOT.replace(' ', chr(92) + ' ')} && git checkout -b docs"),
              _file(EventKind.EDIT, f"{ROOT}/docs/playbook/guide.md"),
              _file(EventKind.EDIT, f"{ROOT}/.cursor/rules/README.md")]
    assert infer_root(events) == ROOT


def test_a_cd_elsewhere_is_not_the_root() -> None:
    events = [_cmd("cd /tmp && ls"), _file(EventKind.EDIT, f"{ROOT}/a/x.md"), _file(EventKind.EDIT, f"{ROOT}/b/y.md")]
    assert infer_root(events) is None  # and the common prefix alone is no evidence


def test_root_from_an_absolute_path_the_session_also_names_relative() -> None:
    events = [_file(EventKind.EDIT, f"{ROOT}/docs/guide.md"), _file(EventKind.EDIT, f"{ROOT}/src/app.ts"),
              _file(EventKind.WRITE, "docs/guide.md"), _file(EventKind.WRITE, "src/app.ts")]
    assert infer_root(events) == ROOT


def test_edits_all_under_one_folder_do_not_make_it_the_root() -> None:
    events = [_file(EventKind.EDIT, f"{ROOT}/docs/a.md"), _file(EventKind.EDIT, f"{ROOT}/docs/b.md")]
    assert infer_root(events) is None


def test_without_root_cd_drops_only_the_roots_cd() -> None:
    assert without_root_cd(f"cd '{ROOT}' && git push", ROOT) == "git push"
    assert without_root_cd("cd /tmp && git push", ROOT) == "cd /tmp && git push"
    assert without_root_cd("git push", ROOT) == "git push"
    assert without_root_cd(r"cd C:\Repos\X && dir", "c:/repos/x") == "dir"


def test_the_filesystem_root_is_no_project_root() -> None:
    assert infer_root([_cmd("cd / && ls"), _file(EventKind.EDIT, "/home/u/repo/a.py")]) is None


def test_a_relative_windows_path_is_not_absolute_and_votes() -> None:
    events = [_file(EventKind.EDIT, r"C:\Repo\src\main.py"), _file(EventKind.EDIT, r"C:\Repo\lib\util.py"),
              _file(EventKind.READ, r"src\main.py"), _file(EventKind.READ, r"lib\util.py")]
    assert infer_root(events) == r"C:\Repo"
    assert infer_root([_file(EventKind.EDIT, r"src\app\main.py"), _file(EventKind.READ, "app/main.py")]) is None


def test_the_longest_relative_spelling_decides_whatever_the_hash_seed() -> None:
    events = [_file(EventKind.EDIT, "/x/proj/src/a/b.py"), _file(EventKind.READ, "src/a/b.py"),
              _file(EventKind.READ, "a/b.py")]
    assert infer_root(events) == "/x/proj"


def test_root_from_the_relative_paths_the_agent_names_in_its_words() -> None:
    """Antigravity writes by absolute path and says "Create backend/jobs/views.py." in its words."""
    win = r"C:\Users\B. Dev\.gemini\antigravity\scratch\shop"
    events = [_file(EventKind.WRITE, win + r"\backend\jobs\views.py"), _file(EventKind.WRITE, win + r"\frontend\src\App.tsx"),
              _file(EventKind.WRITE, r"C:\Users\B. Dev\.gemini\antigravity\brain\42\task.md")]
    words = ["Create backend/jobs/views.py.", "I will now write `frontend/src/App.tsx` with the layout."]
    assert infer_root(events) is None  # the events alone show no root
    assert infer_root(events, lambda: (words, [])) == win
    assert infer_root(events, lambda: (["Create views.py."], [])) is None  # a bare file name is no evidence
    # a folder the words name as a path's parent inside a longer path is not read as relative
    assert infer_root(events, lambda: (["see /opt/backend/jobs/views.py and /opt/frontend/src/App.tsx"], [])) is None


def test_the_agents_words_are_not_read_when_the_events_show_the_root() -> None:
    events = [_file(EventKind.EDIT, f"{ROOT}/docs/guide.md"), _file(EventKind.EDIT, f"{ROOT}/src/app.ts"),
              _file(EventKind.WRITE, "docs/guide.md"), _file(EventKind.WRITE, "src/app.ts")]

    def unread() -> tuple[list[str], list[str]]:
        raise AssertionError("read")
    assert infer_root(events, unread) == ROOT


def test_the_cd_target_holding_more_of_the_touched_files_is_the_root() -> None:
    """The agent works in `repo/frontend` (most cds) and also edits `repo/.github/ci.yml`: the root is `repo`."""
    front = f"{ROOT}/frontend"
    events = [_cmd(f"cd '{front}' && npm run build"), _cmd(f"cd '{front}' && npm test"), _cmd(f"cd '{ROOT}' && git status"),
              _file(EventKind.EDIT, f"{front}/lib/db.ts"), _file(EventKind.EDIT, f"{front}/lib/api.ts"),
              _file(EventKind.EDIT, f"{ROOT}/.github/workflows/ci.yml")]
    assert infer_root(events) == ROOT


def test_a_broad_cd_does_not_beat_the_project() -> None:
    """`cd ~ && ls` once and a read of `~/.zshrc`: the project the agent works in stays the root."""
    app = "/Users/ann/dev/github/app"
    events = [*(_cmd(f"cd {app} && make") for _ in range(5)), _cmd("cd /Users/ann && ls"),
              _file(EventKind.EDIT, f"{app}/a.py"), _file(EventKind.EDIT, f"{app}/b.py"),
              _file(EventKind.READ, "/Users/ann/.zshrc")]
    assert infer_root(events) == app
