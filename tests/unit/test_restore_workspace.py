"""WorkspaceIndex: what it skips, symlinks, .gitignore (own matcher and git's), and invalidation
(the warm result after a change equals a fresh cold computation)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from restore.globs import IgnoreMatcher, glob_regex
from restore.state import build_restore_state
from restore.workspace import WorkspaceIndex
from tests.unit.restore_testkit import bump, copy_skeleton, make_tree, set_times


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


def test_skips_dependencies_venvs_build_binaries_huge(tmp_path: Path) -> None:
    make_tree(tmp_path, {
        "app.py": "x\n",
        "node_modules/left-pad/index.js": "x\n",
        "myenv/pyvenv.cfg": "home = /usr\n", "myenv/lib/site.py": "x\n",  # a venv under any name
        ".venv/lib/x.py": "x\n", "dist/bundle.js": "x\n", "build/lib/m.py": "x\n", "target/debug/x.rs": "x\n",
        "pkg/__pycache__/m.cpython-311.pyc": "x", "pkg.egg-info/PKG-INFO": "x\n",
        "logo.png": "\x89PNG", "big.py": "x = 1\n" * 50_000,
    })
    idx = WorkspaceIndex(tmp_path, use_git=False, max_file_bytes=100_000).ensure_scanned()
    assert set(idx.entries) == {"app.py"}


def test_gitignore_own_matcher(tmp_path: Path) -> None:
    make_tree(tmp_path, {
        ".gitignore": "# comment\n*.log\n/secret.py\ngenerated/\n!keep.log\ndocs/**/draft*.md\n",
        "a.log": "x\n", "keep.log": "x\n", "secret.py": "x\n", "sub/secret.py": "x\n",
        "generated/x.py": "x\n", "docs/a/b/draft1.md": "x\n", "docs/a/final.md": "x\n",
        "pkg/.gitignore": "local_*.py\n", "pkg/local_conf.py": "x\n", "pkg/core.py": "x\n",
    })
    idx = WorkspaceIndex(tmp_path, use_git=False).ensure_scanned()
    assert set(idx.entries) == {".gitignore", "keep.log", "sub/secret.py", "docs/a/final.md", "pkg/.gitignore",
                                "pkg/core.py"}


def test_ignore_matcher_semantics() -> None:
    m = IgnoreMatcher()
    m.add("", "build/\n*.tmp\n!important.tmp\n/only_root.txt\na/**/b\n")
    assert m.ignored("x/build", True) and not m.ignored("x/build", False)  # dir-only
    assert m.ignored("q.tmp", False) and not m.ignored("important.tmp", False)
    assert m.ignored("only_root.txt", False) and not m.ignored("d/only_root.txt", False)
    assert m.ignored("a/b", False) and m.ignored("a/x/y/b", False)
    assert m.ignored_path("x/build/out.js")  # inside an ignored folder
    assert glob_regex("src/**/*.py").match("src/a/b/c.py") and glob_regex("src/**/*.py").match("src/c.py")
    assert glob_regex("*.service.ts").match("a/b/x.service.ts")


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_mode_respects_gitignore_and_marks_dirty(tmp_path: Path) -> None:
    make_tree(tmp_path, {".gitignore": "*.secret\n", "app.py": "x\n", "models.py": "x\n", "k.secret": "x\n"})
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "init")
    (tmp_path / "models.py").write_text("y\n")
    make_tree(tmp_path, {"views.py": "new, untracked\n", "x.secret": "x\n"})
    idx = WorkspaceIndex(tmp_path).ensure_scanned()
    assert idx.git_used
    assert set(idx.entries) == {".gitignore", "app.py", "models.py", "views.py"}
    assert idx.get("models.py").dirty and not idx.get("app.py").dirty
    # git status counts: the dirty file enters the five ahead of a newer clean one
    set_times(tmp_path, ["models.py", "app.py"])
    state = build_restore_state(tmp_path, index=WorkspaceIndex(tmp_path), excerpts=False)
    assert state.core_files[0].path == "app.py" and "git: modified" in state.core_files[-1].reasons


def test_symlinks_out_of_root_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make_tree(outside, {"secret.py": "TOKEN = 1\n", "lib/x.py": "x\n"})
    root = make_tree(tmp_path / "ws", {"app.py": "x\n", "inner.py": "y\n"})
    os.symlink(outside / "secret.py", root / "linked_secret.py")
    os.symlink(outside / "lib", root / "linked_lib")
    os.symlink(root / "inner.py", root / "alias.py")  # inside the root: allowed
    idx = WorkspaceIndex(root, use_git=False).ensure_scanned()
    assert "linked_secret.py" not in idx.entries
    assert not any(k.startswith("linked_lib") for k in idx.entries)
    assert "alias.py" in idx.entries
    assert idx.rel(root / "linked_secret.py") is None
    assert idx.rel(root / "linked_lib" / "x.py") is None
    assert idx.rel("/etc/passwd") is None
    assert idx.read_text("linked_secret.py") is None and idx.read_text("../outside/secret.py") is None
    assert idx.invalidate([root / "linked_secret.py"]) == []
    assert "linked_secret.py" not in idx.entries


def _changes(root: Path) -> list[Path]:
    """Modify, create, delete; return the paths a watcher would report."""
    (root / "polls/views.py").write_text("def index(request):\n    return 1\n")
    bump(root, "polls/views.py", 5_000)
    make_tree(root, {"polls/services/voting.py": "def vote():\n    return 2\n"})
    bump(root, "polls/services/voting.py", 6_000)
    (root / "polls/admin.py").unlink()
    return [root / "polls/views.py", root / "polls/services", root / "polls/admin.py"]


def test_warm_after_invalidate_equals_cold(tmp_path: Path) -> None:
    root = copy_skeleton("django-proj", tmp_path)
    set_times(root, ["polls/models.py", "mysite/urls.py", "manage.py"])
    idx = WorkspaceIndex(root, use_git=False)
    first = build_restore_state(root, index=idx)
    assert first.stats.cold
    changed = idx.invalidate(_changes(root))
    assert set(changed) == {"polls/views.py", "polls/services/voting.py", "polls/admin.py"}
    warm = build_restore_state(root, index=idx)
    assert not warm.stats.cold
    cold = build_restore_state(root, index=WorkspaceIndex(root, use_git=False))
    assert warm.comparable() == cold.comparable()
    assert warm.comparable() != first.comparable()
    assert [c.path for c in warm.core_files][:3] == ["manage.py", "mysite/urls.py", "polls/services/voting.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_warm_equals_cold_in_git_repo(tmp_path: Path) -> None:
    root = copy_skeleton("django-proj", tmp_path)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    set_times(root, ["polls/models.py"])
    idx = WorkspaceIndex(root)
    build_restore_state(root, index=idx)
    idx.invalidate(_changes(root))
    warm = build_restore_state(root, index=idx)
    cold = build_restore_state(root, index=WorkspaceIndex(root))
    assert warm.comparable() == cold.comparable()


def test_gitignore_change_rescans_and_touch(tmp_path: Path) -> None:
    root = copy_skeleton("django-proj", tmp_path)
    set_times(root, ["polls/models.py", "polls/views.py", "mysite/urls.py", "manage.py", "mysite/settings.py"])
    idx = WorkspaceIndex(root, use_git=False).ensure_scanned()
    (root / ".gitignore").write_text("polls/\n")
    idx.invalidate([root / ".gitignore"])
    assert not any(k.startswith("polls/") for k in idx.entries)
    (root / ".gitignore").unlink()
    idx.invalidate([root / ".gitignore"])
    assert "polls/apps.py" in idx.entries
    # touch() (a watcher event or a transcript edit) brings an old file into the five
    before = [c.path for c in build_restore_state(root, index=idx, excerpts=False).core_files]
    assert "polls/apps.py" not in before
    assert idx.touch(root / "polls/apps.py", 2_000_000_000.0)
    after = build_restore_state(root, index=idx, excerpts=False).core_files
    assert "polls/apps.py" in [c.path for c in after]
    assert "polls/models.py" not in [c.path for c in after]  # the oldest of the five left
    assert not idx.touch("/elsewhere/x.py")


def test_invalidate_package_json_reclassifies(tmp_path: Path) -> None:
    root = copy_skeleton("express-app", tmp_path)
    idx = WorkspaceIndex(root, use_git=False).ensure_scanned()
    assert idx.get("bin/www").cls.value == "entry"
    (root / "package.json").write_text('{"scripts": {"start": "node server/start.js"}}')
    make_tree(root, {"server/start.js": "x\n"})
    idx.invalidate([root / "package.json", root / "server/start.js"])
    assert idx.get("bin/www").cls is None
    assert idx.get("server/start.js").cls.value == "entry"
