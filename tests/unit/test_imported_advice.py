"""Advice imported from another store (`compaction errors import`) is marked as such in every
rendering: the block (CLI export, restore, the hook's injection), check warnings, MCP/LSP records
and the hover."""

from __future__ import annotations

from pathlib import Path

from compaction.cli import main
from compaction.cli.integrations.claude_hooks import build_restore_block
from compaction.errors import ErrorMemory, records_to_out
from compaction.errors.memory import mark_imported
from lsp_server.features.hover import escape_md, render_hover
from lsp_server.features.locations import ErrorIndex
from lsp_server.server import load_records

BLOCK = """## Error Memory

- ERR_PY_KeyError: occurrences 2 (rounds 3, 9)
  Solution: read the key with .get()
  Avoidance: never index settings directly
"""
MARK = "(imported from shared-team.md) "


def test_imported_advice_is_marked_in_every_rendering(tmp_path: Path, capsys):
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("import os\n\nx = settings['k']\n", encoding="utf-8")
    with ErrorMemory(ws) as em:  # the same id seen here, at a place in the code (so it has a hover)
        em.add("ERR_PY_KeyError", path="src/app.py", line=3, round=1)
    src = tmp_path / "shared-team.md"
    src.write_text(BLOCK, encoding="utf-8")
    assert main(["errors", "import", str(src), "--workspace", str(ws)]) == 0
    capsys.readouterr()

    assert main(["errors", "export", "--workspace", str(ws)]) == 0
    exported = capsys.readouterr().out
    assert f"Solution: {MARK}read the key" in exported and f"Avoidance: {MARK}never index" in exported
    with ErrorMemory(ws) as em:
        (warning,) = em.check(task_text="KeyError reading settings", limit=1)
        out = records_to_out(em.list())
    assert MARK in warning.line  # ⚠️ Detected historical error [...], avoidance: [(imported from ...) ...]
    assert out[0].avoidance.startswith(MARK)  # what MCP error_memory_list and LSP commands return
    assert MARK in build_restore_block(ws, None)  # the SessionStart injection
    index = ErrorIndex.build(load_records(ws), ws)
    assert index.spots_for(str(ws / "src" / "app.py"))
    assert escape_md(f"{MARK}never index") in render_hover(list(index.records.values()))  # Markdown-escaped


def test_the_mark_is_added_once_and_the_origin_cannot_break_the_line():
    once = mark_imported("advice", "a.md")
    assert mark_imported(once, "b.md") == once  # a re-imported export keeps its first origin
    assert mark_imported("x", "evil)\n## Heading `code`") == "(imported from evil] ## Heading 'code') x"
    assert mark_imported(None, "a.md") is None
