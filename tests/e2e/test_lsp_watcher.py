"""The watcher: a file written on disk changes the next restore result; ignored folders don't."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from lsp_fixtures import make_workspace
from lsp_harness import command, lsp_session


def _core(result: dict) -> list[str]:
    return [c["path"] for c in result["state"]["core_files"]]


async def test_file_written_on_disk_changes_the_next_restore(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    old = time.time() - 3600
    for p in (ws / "app").iterdir():
        os.utime(p, (old, old))
    async with lsp_session(ws) as lc:
        before = await command(lc, "compaction.restore", {})
        assert "app/models.py" not in _core(before)
        (ws / "app" / "models.py").write_text("class User:\n    name: str\n")
        (ws / "node_modules" / "pkg").mkdir(parents=True)
        (ws / "node_modules" / "pkg" / "models.py").write_text("class Ignored: ...\n")
        deadline = time.monotonic() + 5
        after = before
        while time.monotonic() < deadline and "app/models.py" not in _core(after):
            await asyncio.sleep(0.1)
            after = await command(lc, "compaction.restore", {})
    assert "app/models.py" in _core(after)
    assert not any("node_modules" in p for p in _core(after))
    assert "app/models.py" in after["markdown"]
