"""The project root of a session that recorded no cwd: inferred from its own commands and paths, for display."""

from __future__ import annotations

from compaction.events import Event, EventKind
from compaction.history.project_root import infer_root, leading_cd, without_root_cd

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
