"""The language server's pure parts: settings layering, path mapping, hover text, diagnostics,
and the watcher's debounce and ignore rules (no LSP connection)."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

import pytest
from lsprotocol import types

from compaction.config import Settings
from lsp_server.features.diagnostics import diagnostics_for
from lsp_server.features.hover import render_hover
from lsp_server.features.locations import ErrorIndex, map_path, word_at
from lsp_server.settings import DiagnosticsOptions, resolve_settings
from lsp_server.watcher import StoreWatcher, WorkspaceWatcher


def test_settings_layers_and_invalid_values(tmp_path: Path) -> None:
    (tmp_path / ".compaction").mkdir()
    (tmp_path / ".compaction" / "config.json").write_text(json.dumps({"keepRecent": 7, "triggerRatio": 0.6}))
    settings, options, problems = resolve_settings(
        tmp_path,
        {"compaction": {"role": "tester", "triggerRatio": "high"}},  # initializationOptions
        {"lang": "zh", "restore": {"coreFiles": -1}, "diagnostics": {"recurring": "error"}, "trace": {"server": "off"}},
    )
    assert settings.keep_recent == 7  # from the file
    assert settings.trigger_ratio == 0.6  # the editor's invalid value falls back to the file's
    assert settings.role == "tester" and settings.lang == "zh"
    assert settings.restore.core_files == 5  # invalid -> default
    assert options.diagnostics.recurring == "error"
    assert len(problems) == 2
    assert any("triggerRatio" in p for p in problems) and any("restore.coreFiles" in p for p in problems)
    assert not any("trace" in p for p in problems)


def test_invalid_config_file_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / ".compaction").mkdir()
    (tmp_path / ".compaction" / "config.json").write_text("{not json")
    settings, _, problems = resolve_settings(tmp_path, {"keepRecent": 2})
    assert settings.keep_recent == 2
    assert len(problems) == 1 and "invalid JSON" in problems[0]


def test_path_mapping_uses_the_restore_rule(tmp_path: Path) -> None:
    """The server maps with restore.paths (DESIGN.md §4) and keeps only existing files."""
    (tmp_path / "app").mkdir()
    target = tmp_path / "app" / "config.py"
    target.write_text("x = 1\n")
    assert map_path("/home/someone/proj/app/config.py", tmp_path) == target  # longest existing suffix
    assert map_path("/testbed/app/config.py", tmp_path, cwd="/testbed") == target  # by the recorded cwd
    assert map_path("app/config.py", tmp_path) == target
    assert map_path(r"C:\work\proj\app\config.py", tmp_path) == target
    assert map_path("/home/someone/proj/app/config.py:12", tmp_path) == target  # line suffix dropped
    assert map_path("/home/someone/proj/app/missing.py", tmp_path) is None
    assert map_path("/testbed/app/missing.py", tmp_path, cwd="/testbed") is None  # mapped, but no such file
    assert map_path("/home/someone/proj/app", tmp_path) is None  # a folder is not a hover target


def _index(tmp_path: Path) -> tuple[ErrorIndex, Path]:
    (tmp_path / "app").mkdir()
    f = tmp_path / "app" / "config.py"
    f.write_text("import os\n\ndef load():\n    return os.environ['URL']\n")
    records = [
        {"id": "ERR_PY_KeyError", "count": 3, "rounds": [12, 24, 35], "solution": "use .get",
         "avoidance": "check env vars", "locations": [{"path": "/x/proj/app/config.py", "line": 4}]},
        {"id": "ERR_PY_NameError", "occurrences": [{"round": 7, "location": {"path": "/x/proj/app/config.py",
                                                                            "symbol": "load"}}]},
        {"id": "ERR_TOOL_FileNotFound", "count": 1, "rounds": [2], "locations": [{"path": "/x/proj/nope.py", "line": 1}]},
    ]  # fmt: skip
    return ErrorIndex.build(records, tmp_path), f


def test_index_lookup_by_line_and_symbol(tmp_path: Path) -> None:
    index, f = _index(tmp_path)
    assert [r["id"] for r in index.at(f, 3, "    return os.environ['URL']", 8)] == ["ERR_PY_KeyError"]
    assert [r["id"] for r in index.at(f, 2, "def load():", 5)] == ["ERR_PY_NameError"]
    assert index.at(f, 0, "import os", 2) == []
    assert "ERR_TOOL_FileNotFound" in index.records and not index.spots_for(tmp_path / "nope.py")
    assert word_at("def load():", 5) == "load"


def test_hover_markdown_has_the_seed_shape_and_links(tmp_path: Path) -> None:
    index, f = _index(tmp_path)
    text = render_hover(index.at(f, 3, "", 0))
    assert "**#recurring ERR_PY_KeyError: occurrences 3 (rounds 12, 24, 35)**" in text
    assert "Solution: use .get" in text and "Avoidance: check env vars" in text
    link = text[text.index("command:compaction.errorMemory.resolve?") :].split(")")[0]
    assert json.loads(unquote(link.split("?", 1)[1])) == [{"id": "ERR_PY_KeyError", "workspaceFolder": str(tmp_path)}]
    single = render_hover(index.at(f, 2, "def load():", 5))
    assert "#recurring" not in single and "ERR_PY_NameError: occurrences 1 (rounds 7)" in single


def test_diagnostics_severity_and_ranges(tmp_path: Path) -> None:
    index, f = _index(tmp_path)
    diags = diagnostics_for(index, str(f), f.read_text(), DiagnosticsOptions())
    by_code = {d.code: d for d in diags}
    assert by_code["ERR_PY_KeyError"].severity == types.DiagnosticSeverity.Warning
    assert by_code["ERR_PY_KeyError"].range.start.line == 3
    assert by_code["ERR_PY_NameError"].severity == types.DiagnosticSeverity.Hint
    name = by_code["ERR_PY_NameError"].range  # no line recorded: the line naming the symbol, the symbol itself
    assert (name.start.line, name.start.character, name.end.character) == (2, 4, 8)
    off = diagnostics_for(index, str(f), f.read_text(), DiagnosticsOptions(single="off", recurring="error"))
    assert [(d.code, d.severity) for d in off] == [("ERR_PY_KeyError", types.DiagnosticSeverity.Error)]
    assert diagnostics_for(index, str(f), "", DiagnosticsOptions(enabled=False)) == []


def test_watcher_debounces_and_ignores(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    batches: list[set[Path]] = []
    done = threading.Event()

    def on_change(paths: set[Path]) -> None:
        batches.append(paths)
        done.set()

    watcher = WorkspaceWatcher([tmp_path], on_change, debounce_s=0.05)
    for i in range(50):
        watcher.feed(tmp_path / "src" / f"f{i}.py")
    watcher.feed(tmp_path / "node_modules" / "x.js")
    watcher.feed(tmp_path / ".git" / "index")
    watcher.feed(tmp_path / ".compaction" / "state.db")
    watcher._flusher.start()  # only the debounce thread: events are fed by hand
    try:
        assert done.wait(5)
        time.sleep(0.1)
    finally:
        watcher.stop()
    assert len(batches) == 1 and len(batches[0]) == 50
    assert [p for p, _ in watcher.recent(1)] == [str(tmp_path / "src" / "f49.py")]


def test_store_watcher_sees_another_writer(tmp_path: Path) -> None:
    import sqlite3

    (tmp_path / ".compaction").mkdir()
    seen = threading.Event()
    sw = StoreWatcher(tmp_path, seen.set, interval_s=0.02)
    sw.start()
    try:
        conn = sqlite3.connect(tmp_path / ".compaction" / "state.db")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        assert seen.wait(5)
    finally:
        sw.stop()


def test_hover_in_chinese_follows_the_seed(tmp_path: Path) -> None:
    index, f = _index(tmp_path)
    text = render_hover(index.at(f, 3, "", 0), lang="zh")
    assert "#recurring ERR_PY_KeyError: 发生3次 (12,24,35)" in text
    assert "解决: use .get" in text and "规避: check env vars" in text
    diags = diagnostics_for(index, str(f), f.read_text(), DiagnosticsOptions(), lang="zh")
    assert any(d.message.startswith("#recurring ERR_PY_KeyError: 发生3次") for d in diags)


def _live_markdown(text: str) -> str:
    """`text` with every backslash-escaped character blanked: what Markdown still parses as syntax."""
    return re.sub(r"\\.", "_", text, flags=re.S)


def test_hover_cannot_plant_command_links_from_transcript_text() -> None:
    hostile = {
        "id": "ERR_PY_KeyError",
        "count": 2,
        "rounds": [3, 4],
        "solution": "[x](command:compaction.compact)",
        "avoidance": 'see \\[y](command:compaction.compact) <a href="command:compaction.compact">z</a> `[w](command:q)`'
        "\n[ref]: command:compaction.compact ![i](command:x) <command:compaction.compact>",
    }
    text = render_hover([hostile])
    live = _live_markdown(text)
    links = re.findall(r"\[([^\]]*)\]\(([^)]*)\)", live)
    # only the server's own two links stay live, with the record id as their argument
    assert [(title, target.split("?")[0]) for title, target in links] == [
        ("Resolve", "command:compaction.errorMemory.resolve"), ("Forget", "command:compaction.errorMemory.forget")]
    assert "<" not in live and "`" not in live and "\n[ref]" not in text  # no HTML, autolink, code span, reference
    # the text itself survives, readable once the escapes are removed
    solution_line = next(line for line in text.splitlines() if line.startswith("Solution: "))
    assert re.sub(r"\\(.)", r"\1", solution_line).strip() == "Solution: [x](command:compaction.compact)"
    avoidance = next(line for line in text.splitlines() if line.startswith("Avoidance: "))
    assert "\\[ref\\]: command:compaction.compact" in avoidance  # folded onto the line, escaped


def _fake_server(root: Path, core_globs: dict[str, list[str]] | None = None) -> SimpleNamespace:
    settings = Settings.model_validate({"restore": {"coreGlobs": core_globs or {}}})
    return SimpleNamespace(root=root, settings=settings, index=None, index_key=None, index_builds=0)


def test_workspace_index_is_built_once_under_concurrency_and_rebuilt_for_new_core_globs(tmp_path: Path) -> None:
    from lsp_server.server import workspace_index

    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "boot.py").write_text("print('hi')\n")
    ls = _fake_server(tmp_path)
    start = threading.Barrier(8)
    got: list[object] = []

    def ask() -> None:
        start.wait()
        got.append(workspace_index(ls))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ls.index_builds == 1 and len({id(i) for i in got}) == 1  # warm_index and a command share one index
    first = got[0]
    assert workspace_index(ls) is first and ls.index_builds == 1  # same settings: kept
    ls.settings = Settings.model_validate({"restore": {"coreGlobs": {"entry": ["gen/boot.py"]}}})
    rebuilt = workspace_index(ls)
    assert rebuilt is not first and ls.index_builds == 2
    assert rebuilt.classifier("gen/boot.py") == "entry" and first.classifier("gen/boot.py") != "entry"


def test_background_job_failure_is_logged(caplog) -> None:
    import asyncio
    import logging

    from lsp_server.server import _in_background

    def broken(ls: object) -> None:
        raise RuntimeError("index exploded")

    async def run() -> None:
        _in_background(asyncio.get_running_loop(), broken, SimpleNamespace())
        for _ in range(200):  # let the executor job finish and its done-callback run
            await asyncio.sleep(0.01)
            if caplog.records:
                break

    with caplog.at_level(logging.ERROR, logger="lsp_server"):
        asyncio.run(run())
    (record,) = [r for r in caplog.records if r.name == "lsp_server"]
    assert "broken failed: index exploded" in record.getMessage() and record.exc_info[0] is RuntimeError


def test_missing_pygls_internals_stop_the_server_loudly(caplog) -> None:
    import logging

    from lsp_server.server import LanguageServerProtocol, check_pygls_internals

    check_pygls_internals()  # the installed pygls has what we override
    stripped = type("Stripped", (), {"_handle_request": lambda self: None})  # no _handle_cancel_notification
    with caplog.at_level(logging.CRITICAL, logger="lsp_server"), pytest.raises(RuntimeError, match="pin pygls"):
        check_pygls_internals(stripped)
    assert "_handle_cancel_notification" in caplog.text and "2.1.1" in caplog.text
    assert callable(LanguageServerProtocol._handle_cancel_notification)
