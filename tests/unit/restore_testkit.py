"""Helpers for the restore tests: project skeletons with deterministic file times."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "restore"
BASE_TIME = 1_700_000_000.0


def copy_skeleton(name: str, dst: Path) -> Path:
    """Copy a committed, tool-generated skeleton (see tests/data/restore/README.md) to `dst`."""
    target = dst / name
    shutil.copytree(DATA / name, target, symlinks=True)
    return target


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def set_times(root: Path, recent: list[str], base: float = BASE_TIME) -> None:
    """Every file gets `base`; then the files in `recent` get increasing times in that order
    (the last one is the most recently modified)."""
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            if not os.path.islink(p):
                os.utime(p, (base, base))
    for i, rel in enumerate(recent, 1):
        os.utime(root / rel, (base + 100 * i, base + 100 * i))


def bump(root: Path, rel: str, seconds_after_base: float) -> None:
    t = BASE_TIME + seconds_after_base
    os.utime(root / rel, (t, t))
