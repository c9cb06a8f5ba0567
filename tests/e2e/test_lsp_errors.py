"""Inline error memory: hover and diagnostics at the places records point at, refreshed when the
store changes — also when another process (the CLI) changes it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest
from lsp_fixtures import FOREIGN_CWD, KEYERROR_LINE, make_workspace
from lsp_harness import CLI, REPO, command, lsp_session, open_doc, server_env, wait_for, within
from lsprotocol import types

from compaction.errors import ErrorMemory


def _add(ws: Path, err_id: str, line: int, rounds: list[int], **kw) -> None:
    with ErrorMemory(ws) as memory:
        for rnd in rounds:
            memory.add(err_id, path=f"{FOREIGN_CWD}/app/config.py", line=line, round=rnd, **kw)


def _hover(lc, uri: str, line: int, character: int = 4):
    return within(lc.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri),
                          position=types.Position(line=line, character=character))  # fmt: skip
    ), "hover")


async def test_hover_shows_the_record_at_a_foreign_path(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    _add(ws, "ERR_PY_KeyError", KEYERROR_LINE, [12, 24, 35], solution="use os.environ.get with a default",
         avoidance="never index os.environ for optional settings")  # fmt: skip
    async with lsp_session(ws) as lc:
        uri = open_doc(lc, ws / "app" / "config.py")
        hover = await _hover(lc, uri, KEYERROR_LINE - 1)
        elsewhere = await _hover(lc, uri, 0)
    assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert "#recurring ERR_PY_KeyError: occurrences 3 (rounds 12, 24, 35)" in text
    assert "Solution: use os.environ.get with a default" in text
    assert "Avoidance: never index os.environ for optional settings" in text
    assert "command:compaction.errorMemory.resolve?" in text and "command:compaction.errorMemory.forget?" in text
    assert '"id": "ERR_PY_KeyError"' in unquote(text)
    assert elsewhere is None  # line 1 has no record


async def test_diagnostics_hint_single_warning_recurring(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    _add(ws, "ERR_PY_KeyError", KEYERROR_LINE, [3, 9])
    _add(ws, "ERR_PY_TypeError", 7, [4])
    async with lsp_session(ws) as lc:
        uri = open_doc(lc, ws / "app" / "config.py")
        diags = await wait_for(lambda: lc.diagnostics.get(uri), what="diagnostics")
    by_code = {d.code: d for d in diags}
    assert by_code["ERR_PY_KeyError"].severity == types.DiagnosticSeverity.Warning
    assert by_code["ERR_PY_KeyError"].range.start.line == KEYERROR_LINE - 1
    assert by_code["ERR_PY_TypeError"].severity == types.DiagnosticSeverity.Hint
    assert by_code["ERR_PY_TypeError"].range.start.line == 6
    assert all(d.source == "compaction" for d in diags)


async def test_diagnostic_severity_is_configurable(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    _add(ws, "ERR_PY_KeyError", KEYERROR_LINE, [3, 9])
    _add(ws, "ERR_PY_TypeError", 7, [4])
    config = {"diagnostics": {"recurring": "error", "single": "off"}}
    async with lsp_session(ws, configuration=config) as lc:
        uri = open_doc(lc, ws / "app" / "config.py")
        diags = await wait_for(lambda: lc.diagnostics.get(uri), what="diagnostics")
    assert [(d.code, d.severity) for d in diags] == [("ERR_PY_KeyError", types.DiagnosticSeverity.Error)]


async def test_record_added_by_the_cli_shows_up_as_a_diagnostic(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    async with lsp_session(ws) as lc:
        uri = open_doc(lc, ws / "app" / "config.py")
        await asyncio_sleep(0.5)
        assert not lc.diagnostics.get(uri)
        subprocess.run(
            [*CLI, "errors", "add", "ERR_PY_KeyError", "--workspace", str(ws),
             "--solution", "use os.environ.get", "--avoidance", "check optional env vars",
             "--path", f"{FOREIGN_CWD}/app/config.py", "--line", str(KEYERROR_LINE)],
            cwd=REPO, env=server_env(tmp_path / "home"), check=True, capture_output=True, text=True,
        )  # fmt: skip
        diags = await wait_for(lambda: lc.diagnostics.get(uri), what="diagnostic from the CLI's record")
        assert [d.code for d in diags] == ["ERR_PY_KeyError"]
        assert diags[0].range.start.line == KEYERROR_LINE - 1
        hover = await _hover(lc, uri, KEYERROR_LINE - 1)
        assert "Avoidance: check optional env vars" in hover.contents.value
        # resolving through the server clears it
        await command(lc, "compaction.errorMemory.resolve", {"id": "ERR_PY_KeyError"})
        await wait_for(lambda: not lc.diagnostics.get(uri), what=f"diagnostics cleared: {lc.diagnostics}")


async def asyncio_sleep(s: float) -> None:
    import asyncio

    await asyncio.sleep(s)


async def test_configuration_change_republishes_diagnostics(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    _add(ws, "ERR_PY_KeyError", KEYERROR_LINE, [3, 9])
    async with lsp_session(ws) as lc:
        uri = open_doc(lc, ws / "app" / "config.py")
        first = await wait_for(lambda: lc.diagnostics.get(uri), what="diagnostics")
        assert first[0].severity == types.DiagnosticSeverity.Warning
        lc.set_configuration({"diagnostics": {"recurring": "error"}, "lang": "zh"}, section="compaction")
        lc.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
        after = await wait_for(
            lambda: [d for d in lc.diagnostics.get(uri, []) if d.severity == types.DiagnosticSeverity.Error],
            what="republished diagnostics",
        )
    assert after[0].message.startswith("#recurring ERR_PY_KeyError: 发生2次 (3,9)")


async def test_every_workspace_folder_has_its_error_memory(tmp_path: Path) -> None:
    """Multi-root: hovers and diagnostics come from each folder's own store (the same id in two
    folders stays two records), also for a folder added while the server runs."""
    first, second, third = (make_workspace(tmp_path / name) for name in ("first", "second", "third"))
    _add(first, "ERR_PY_KeyError", KEYERROR_LINE, [3], solution="first folder's fix")
    _add(second, "ERR_PY_KeyError", KEYERROR_LINE, [5, 8], solution="second folder's fix")
    _add(third, "ERR_PY_TypeError", 7, [2], solution="third folder's fix")
    async with lsp_session(first, extra_folders=(second,)) as lc:
        uri_first = open_doc(lc, first / "app" / "config.py")
        uri_second = open_doc(lc, second / "app" / "config.py")
        hover_first = await _hover(lc, uri_first, KEYERROR_LINE - 1)
        hover_second = await _hover(lc, uri_second, KEYERROR_LINE - 1)
        diags = await wait_for(lambda: lc.diagnostics.get(uri_second), what="diagnostics in the second folder")
        uri_third = open_doc(lc, third / "app" / "config.py")
        assert await _hover(lc, uri_third, 6) is None  # not a workspace folder yet
        lc.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=third.as_uri(), name="third")], removed=[])))  # fmt: skip
        await wait_for(lambda: lc.diagnostics.get(uri_third), 20, what="diagnostics in the added folder")
        hover_third = await _hover(lc, uri_third, 6)
    assert "first folder's fix" in hover_first.contents.value
    assert "second folder's fix" not in hover_first.contents.value
    assert "second folder's fix" in hover_second.contents.value
    assert "occurrences 2 (rounds 5, 8)" in hover_second.contents.value
    assert [d.code for d in diags] == ["ERR_PY_KeyError"]
    assert diags[0].severity == types.DiagnosticSeverity.Warning  # recurring in the second folder
    assert "third folder's fix" in hover_third.contents.value


async def test_commands_act_on_the_workspace_folder_they_name(tmp_path: Path) -> None:
    first, second = make_workspace(tmp_path / "first"), make_workspace(tmp_path / "second")
    _add(first, "ERR_PY_KeyError", KEYERROR_LINE, [3])
    _add(second, "ERR_PY_KeyError", KEYERROR_LINE, [5])
    async with lsp_session(first, extra_folders=(second,)) as lc:
        uri_second = open_doc(lc, second / "app" / "config.py")
        hover = await _hover(lc, uri_second, KEYERROR_LINE - 1)
        link = hover.contents.value.split("command:compaction.errorMemory.resolve?", 1)[1].split(")")[0]
        arg = json.loads(unquote(link))[0]
        assert arg == {"id": "ERR_PY_KeyError", "workspaceFolder": str(second)}
        await command(lc, "compaction.errorMemory.resolve", arg)  # what clicking the hover's link sends
        await wait_for(lambda: not lc.diagnostics.get(uri_second), 20, what="the second folder's diagnostic cleared")
        listed_first = await command(lc, "compaction.errorMemory.list", {})
        listed_second = await command(lc, "compaction.errorMemory.list",
                                      {"workspaceFolder": second.as_uri(), "includeResolved": True})
        with pytest.raises(Exception, match="not one of this window's workspace folders"):
            await command(lc, "compaction.errorMemory.list", {"workspaceFolder": str(tmp_path)})
    first_rec = next(r for r in listed_first["records"] if r["id"] == "ERR_PY_KeyError")
    second_rec = next(r for r in listed_second["records"] if r["id"] == "ERR_PY_KeyError")
    assert not first_rec["resolved"] and first_rec["rounds"] == [3]  # the first folder's record is untouched
    assert second_rec["resolved"] and second_rec["rounds"] == [5]
