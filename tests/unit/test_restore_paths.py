"""Transcript paths mapped onto the workspace (DESIGN.md §4): by the recorded cwd, else by the
longest existing suffix; prefixes learned once are reused."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from restore.paths import PathMapper, map_path
from tests.unit.restore_testkit import make_tree

FILES = {"app/config.py": "", "app/models.py": "", "src/main.py": "", "README.md": "", "pkg/app/config.py": ""}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "proj", FILES)


@pytest.mark.parametrize(("raw", "cwd", "expected"), [
    ("/testbed/app/config.py", "/testbed", "app/config.py"),
    ("/testbed/app/new_file.py", "/testbed", "app/new_file.py"),  # by cwd even when it does not exist here
    ("app/config.py", "/testbed", "app/config.py"),  # relative to the cwd
    ("/workspace/proj/app/config.py", None, "app/config.py"),  # longest existing suffix
    ("/home/someone/proj/app/config.py", None, "app/config.py"),
    ("/home/someone/proj/pkg/app/config.py", None, "pkg/app/config.py"),  # longest, not the first, suffix
    ("c:\\proj\\app\\config.py", "C:\\proj", "app/config.py"),  # Windows, drive case-insensitive
    ("C:\\Users\\me\\proj\\src\\main.py", None, "src/main.py"),
    ("file:///workspace/proj/src/main.py", None, "src/main.py"),
    ("/testbed/app/config.py:12", "/testbed", "app/config.py"),  # line suffix
    ("/testbed/./app/../app/models.py", "/testbed", "app/models.py"),
    ("/usr/lib/python3.11/json/decoder.py", "/testbed", None),  # outside the project
])
def test_map_path_cases(ws: Path, raw: str, cwd: str | None, expected: str | None) -> None:
    assert map_path(raw, ws, cwd=cwd) == expected


def test_absolute_path_inside_this_workspace(ws: Path) -> None:
    assert map_path(str(ws / "src" / "main.py"), ws) == "src/main.py"


def test_learned_prefix_reused_for_files_that_no_longer_exist(ws: Path) -> None:
    m = PathMapper(ws)
    assert m.map("/home/u/proj/app/models.py") == "app/models.py"
    assert m.map("/home/u/proj/tmp/deleted_later.py") == "tmp/deleted_later.py"
    assert m.map("/opt/other/thing.py") is None


def test_bare_name_suffix_does_not_teach_a_prefix(ws: Path) -> None:
    m = PathMapper(ws)
    assert m.map("/etc/README.md") == "README.md"  # longest existing suffix is the bare name
    assert m.map("/etc/passwd") is None


def test_exists_callable_and_container(ws: Path) -> None:
    assert map_path("/x/y/app/config.py", ws, exists={"app/config.py"}) == "app/config.py"
    assert map_path("/x/y/app/config.py", ws, exists=lambda rel: False) is None


def test_cwd_in_a_subfolder_of_the_workspace(ws: Path) -> None:
    m = PathMapper(ws, cwd=str(ws / "app"))
    assert m.map("config.py") == "app/config.py"
    assert m.map(str(ws / "app" / "models.py")) == "app/models.py"


_seg = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(prefix=st.lists(_seg, min_size=0, max_size=5), rel=st.sampled_from(sorted(FILES)), windows=st.booleans())
def test_any_foreign_prefix_maps_to_an_existing_suffix(tmp_path_factory, prefix, rel, windows) -> None:
    ws = tmp_path_factory.mktemp("ws")
    make_tree(ws, FILES)
    parts = [*prefix, *rel.split("/")]
    raw = ("c:\\" + "\\".join(parts)) if windows else "/" + "/".join(parts)
    got = PathMapper(ws, set(FILES)).map(raw)
    # the longest existing suffix: the file itself, or a longer existing one that ends with it
    assert got is not None and got in FILES and raw.replace("\\", "/").endswith(got)
    assert len(got) >= len(rel) or not rel.endswith(got)
