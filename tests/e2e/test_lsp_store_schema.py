"""The language server on a store of the wrong schema: an error reply that says why (issue 15)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from lsp_fixtures import make_workspace
from lsp_harness import command, lsp_session
from pygls.exceptions import JsonRpcException

from compaction.errors import ErrorMemory
from compaction.store import SCHEMA_VERSION, db_path


async def test_a_newer_store_is_an_error_reply_with_the_reason(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    with ErrorMemory(ws):
        pass
    raw = sqlite3.connect(db_path(ws))
    raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    raw.close()
    async with lsp_session(ws, home=tmp_path / "home") as lc:
        with pytest.raises(JsonRpcException) as err:
            await command(lc, "compaction.errorMemory.list", {})
    assert err.value.code != -32603  # not an internal error with a traceback
    assert "newer than this compaction" in str(err.value) and "Traceback" not in str(err.value)
