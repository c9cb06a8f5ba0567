"""The per-text memos can all be emptied: a benchmark times a compaction as a first run."""

from __future__ import annotations

import re
from pathlib import Path

from compaction import memo
from compaction.edits import sed_hunks
from compaction.shell import norm_command

ROOT = Path(__file__).resolve().parents[2]


def test_forget_all_empties_every_registered_memo() -> None:
    norm_command("pytest -q tests/test_x.py")
    sed_hunks("sed -i 's/a/b/' f.py")
    assert norm_command.cache_info().currsize >= 1
    assert any(m.cache_info().currsize for m in memo._MEMOS)
    memo.forget_all()
    assert all(m.cache_info().currsize == 0 for m in memo._MEMOS)


def test_no_unregistered_lru_cache_on_library_code() -> None:
    """A memo `forget_all` cannot reach would make the speed bench time a warm run: library code
    memoizes through `memo.per_text` (the encoders' loaders, keyed by encoding name, are not per text)."""
    allowed = {ROOT / "compaction" / "tokens.py"}
    offenders = [str(p.relative_to(ROOT)) for folder in ("compaction", "restore") for p in (ROOT / folder).rglob("*.py")
                 if p not in allowed and re.search(r"^@(?:functools\.)?(?:lru_cache|cache)\b", p.read_text(), re.M)]
    assert offenders == []
