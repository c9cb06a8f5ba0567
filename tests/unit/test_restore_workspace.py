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
    for mode in (None, True):  # our walk + git's modified list; git's own file list
        idx = WorkspaceIndex(tmp_path, use_git=mode).ensure_scanned()
        assert idx.git_used is bool(mode)
        assert set(idx.entries) == {".gitignore", "app.py", "models.py", "views.py"}
        assert idx.get("models.py").dirty and not idx.get("app.py").dirty and not idx.get("views.py").dirty
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
    for mode in (None, True):
        idx = WorkspaceIndex(root, use_git=mode)
        build_restore_state(root, index=idx)
        paths = _changes(root)
        idx.invalidate(paths)
        warm = build_restore_state(root, index=idx)
        cold = build_restore_state(root, index=WorkspaceIndex(root, use_git=mode))
        assert warm.comparable() == cold.comparable()
        assert next(c for c in warm.core_files if c.path == "polls/views.py").reasons[0] == "git: modified"
        _git(root, "checkout", "-q", "--", ".")
        _git(root, "clean", "-qfd")


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


TRICKY_IGNORE = """
# dependencies and output
/node_modules
*.py[cod]
**/generated/**
!keep/generated/**
logs/
docs/*.html
\\#hash.txt
/root_only.txt
nested/**/deep.txt
*.tmp
!important.tmp
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
@pytest.mark.parametrize("skeleton", ["next-app", "express-app", "django-proj"])
def test_own_matcher_agrees_with_git(tmp_path: Path, skeleton: str) -> None:
    """Our walk + .gitignore matcher lists exactly what `git ls-files -co --exclude-standard` lists."""
    root = copy_skeleton(skeleton, tmp_path)
    (root / ".gitignore").write_text((root / ".gitignore").read_text() + TRICKY_IGNORE
                                     if (root / ".gitignore").exists() else TRICKY_IGNORE)
    make_tree(root, {
        "src/generated/a.ts": "x\n", "keep/generated/b.ts": "x\n", "logs/x.txt": "x\n", "app/logs/y.txt": "x\n",
        "docs/a.html": "x\n", "docs/sub/b.html": "x\n", "#hash.txt": "x\n", "root_only.txt": "x\n",
        "sub/root_only.txt": "x\n", "nested/a/b/deep.txt": "x\n", "nested/deep.txt": "x\n", "a.tmp": "x\n",
        "important.tmp": "x\n", "m.pyc": "x", "pkg/.gitignore": "*.local\n!keep.local\n", "pkg/x.local": "x\n",
        "pkg/keep.local": "x\n", "pkg/core.py": "x\n", ".env.local": "SECRET=1\n", "coverage/lcov.info": "x\n",
    })
    _git(root, "init", "-q")
    ours = set(WorkspaceIndex(root, use_git=False).ensure_scanned().entries)
    theirs = set(WorkspaceIndex(root, use_git=True).ensure_scanned().entries)
    assert ours == theirs
    assert "keep/generated/b.ts" in ours and "src/generated/a.ts" not in ours  # re-included / excluded
    assert "pkg/keep.local" in ours and "pkg/x.local" not in ours


def test_random_changes_warm_equals_cold(tmp_path: Path) -> None:
    """A seeded series of creates, edits, deletes (files and folders, ignored ones included), each
    reported to invalidate() as a watcher would: the warm index and state equal a fresh scan."""
    import random

    rng = random.Random(1234)
    root = copy_skeleton("next-app", tmp_path)
    idx = WorkspaceIndex(root, use_git=False)
    build_restore_state(root, index=idx)
    names = ["src/app/api/{n}/route.ts", "src/lib/{n}.ts", "models/{n}.ts", "node_modules/{n}/index.js",
             "next-env.d.ts", "src/app/{n}/page.tsx", "docs/adr/{n}.md", "build/{n}.js", "vitest.config.ts"]
    t = 1_800_000_000.0
    for step in range(60):
        op = rng.random()
        existing = sorted(idx.entries)
        if op < 0.5 or not existing:
            rel = rng.choice(names).format(n=f"x{rng.randrange(8)}")
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(f"export const v = {step};\n")
            t += 10
            os.utime(p, (t, t))
            idx.invalidate([p])
        elif op < 0.8:
            rel = rng.choice(existing)
            p = root / rel
            p.write_text(p.read_text() + f"// {step}\n")
            t += 10
            os.utime(p, (t, t))
            idx.invalidate([p])
        else:
            rel = rng.choice(existing)
            folder = (root / rel).parent
            if rng.random() < 0.3 and folder != root:
                shutil.rmtree(folder)
                idx.invalidate([folder])
            else:
                (root / rel).unlink()
                idx.invalidate([root / rel])
    fresh = WorkspaceIndex(root, use_git=False).ensure_scanned()
    snap = lambda ix: {k: (e.cls, e.mtime, e.size) for k, e in ix.entries.items()}  # noqa: E731
    assert snap(idx) == snap(fresh)
    warm = build_restore_state(root, index=idx)
    cold = build_restore_state(root, index=fresh)
    assert warm.comparable() == cold.comparable()
    assert "next-env.d.ts" not in idx.entries and not any(k.startswith(("node_modules", "build/")) for k in idx.entries)
