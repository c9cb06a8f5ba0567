"""The per-text memos can all be emptied: a benchmark times a compaction as a first run."""

from __future__ import annotations

import re
from pathlib import Path

from compaction import memo, tokens
from compaction.edits import sed_hunks
from compaction.shell import norm_command

ROOT = Path(__file__).resolve().parents[2]


def test_forget_all_empties_every_registered_memo_and_the_token_counts() -> None:
    norm_command("pytest -q tests/test_x.py")
    sed_hunks("sed -i 's/a/b/' f.py")
    tokens.count("a text counted once, then remembered")
    assert norm_command.cache_info().currsize >= 1 and tokens._RECENT_COUNTS
    memo.forget_all()
    assert all(m.cache_info().currsize == 0 for m in memo._MEMOS)
    assert not tokens._RECENT_COUNTS


def test_no_unregistered_lru_cache_on_library_code() -> None:
    """A memo `forget_all` cannot reach would make the speed bench time a warm run: library code
    memoizes through `memo.per_text` (the encoders' loaders, keyed by encoding name, are not per text)."""
    allowed = {ROOT / "compaction" / "tokens.py", ROOT / "compaction" / "memo.py"}
    cache = re.compile(r"\b(?:lru_cache|functools\.cache)\b|^\s*@cache\b", re.M)
    offenders = [str(p.relative_to(ROOT)) for folder in ("compaction", "restore") for p in (ROOT / folder).rglob("*.py")
                 if p not in allowed and cache.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
