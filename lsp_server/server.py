"""The compaction language server (pygls 2.x): thin handlers over `compaction/` and `restore/`.

Reading order: the server class and its state, then lifecycle (initialize, initialized,
configuration, shutdown), documents, hover, diagnostics, watching, and the commands.

Threads: pygls runs handlers on an asyncio loop. Commands run the library in the thread pool
(`run_job`) so the loop keeps serving hovers and cancellations; anything a worker or a watcher
thread sends to the client goes through `ls.send` (call_soon_threadsafe), because the
transports are not thread-safe.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import os
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from compaction import __version__
from compaction.config import Settings, config_path
from compaction.discovery import EditorStorage, discover_transcripts
from compaction.shipped import memory_withheld
from lsp_server.agent_watch import AgentCompactionWatcher
from lsp_server.features import commands
from lsp_server.features.diagnostics import diagnostics_for
from lsp_server.features.hover import render_hover
from lsp_server.features.locations import ErrorIndex
from lsp_server.settings import EditorOptions, resolve_settings
from lsp_server.watcher import ConfigWatcher, StoreWatcher, WorkspaceWatcher

log = logging.getLogger("lsp_server")


# The client-initiated work-done token of the executeCommand request being handled (pygls passes
# command handlers the arguments only); set per request, seen by the handler's task.
WORK_DONE_TOKEN: contextvars.ContextVar[Any] = contextvars.ContextVar("work_done_token", default=None)


# Written against pygls 2.1.1: these private methods of pygls.protocol.JsonRpcProtocol are
# overridden below. If a pygls upgrade renames them, our overrides would silently never run (no
# cooperative cancellation, progress on the wrong token), so `check_pygls_internals` refuses to start.
PYGLS_TESTED = "2.1.1"
PYGLS_INTERNALS = ("_handle_request", "_handle_cancel_notification")


def check_pygls_internals(protocol_cls: type = LanguageServerProtocol) -> None:
    """Raise RuntimeError (after a clear log line) when the pygls internals we override are gone."""
    missing = [name for name in PYGLS_INTERNALS if not callable(getattr(protocol_cls, name, None))]
    if missing:
        from importlib.metadata import version

        message = (f"pygls {version('pygls')} lacks {', '.join(missing)} (compaction-lsp was written against "
                   f"pygls {PYGLS_TESTED}): request cancellation would silently stop working; pin pygls=={PYGLS_TESTED}")
        log.critical("%s", message)
        raise RuntimeError(message)


class CompactionProtocol(LanguageServerProtocol):
    """Adds cooperative cancellation: `$/cancelRequest` also sets the running job's flag
    (pygls alone can only cancel a request that has not started); and keeps the request's
    `workDoneToken` so progress goes where the client listens. Overrides pygls-private methods:
    see PYGLS_TESTED and check_pygls_internals."""

    def _handle_request(self, msg_id, method_name, params):
        if method_name == types.WORKSPACE_EXECUTE_COMMAND:
            WORK_DONE_TOKEN.set(getattr(params, "work_done_token", None))
        super()._handle_request(msg_id, method_name, params)

    def _handle_cancel_notification(self, msg_id):
        event = self._server.cancel_events.get(msg_id)  # type: ignore[attr-defined]
        if event is not None:
            event.set()
        super()._handle_cancel_notification(msg_id)


class CompactionLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("compaction-lsp", __version__, protocol_cls=CompactionProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)  # fmt: skip
        self.loop: asyncio.AbstractEventLoop | None = None
        self.init_options: dict[str, Any] = {}
        self.client_config: dict[str, Any] = {}
        self.settings = Settings()
        self.options = EditorOptions()
        self.open_files: OrderedDict[str, float] = OrderedDict()  # path -> last opened/changed (most recent last)
        self.cancel_events: dict[Any, threading.Event] = {}
        self.error_index = ErrorIndex()
        self.watcher: WorkspaceWatcher | None = None
        self.index: Any = None  # restore.workspace.WorkspaceIndex, created on first use
        self.index_key: tuple[str, str] | None = None  # (root, core globs) the index was built for
        self.index_builds = 0
        self.cache: Any = None  # compaction.cache.ResultCache, opened once the store exists
        self.store_watchers: list[StoreWatcher] = []  # one per workspace folder
        self.config_watcher: ConfigWatcher | None = None
        self.last_compaction: Any = None  # (Transcript, CompactionResult) of the last compaction.compact
        self.editor_storage = EditorStorage()
        self.agent_watcher: AgentCompactionWatcher | None = None
        self.index_refreshes = 0
        self.watch_batches = 0
        self.allow_read: list[str] = []  # --allow-read / $COMPACTION_ALLOW_READ (the user's, never the workspace's)

    # ---- helpers ---------------------------------------------------------------------------
    @property
    def root(self) -> Path:
        """The workspace: the first workspace folder, else the root URI, else the process cwd."""
        try:
            folders = list(self.workspace.folders.values())
            if folders:
                return Path(to_fs_path(folders[0].uri) or ".").absolute()
            if self.workspace.root_path:
                return Path(self.workspace.root_path).absolute()
        except RuntimeError:
            pass
        return Path.cwd()

    def folders(self) -> list[Path]:
        try:
            paths = [Path(to_fs_path(f.uri) or ".") for f in self.workspace.folders.values()]
        except RuntimeError:
            paths = []
        return paths or [self.root]

    def send(self, fn, *args) -> None:
        """Run a client-bound call on the event loop (safe from any thread)."""
        if self.loop is None:
            fn(*args)
        elif threading.current_thread() is threading.main_thread() and _loop_running_here(self.loop):
            fn(*args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

    def show(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        if kind <= types.MessageType.Warning:
            log.warning("%s", message)
        else:
            log.info("%s", message)
        self.send(self.window_show_message, types.ShowMessageParams(type=kind, message=message))

    def apply_settings(self) -> None:
        settings, options, problems = resolve_settings(self.root, self.init_options, self.client_config,
                                                       report=lambda m: self.show(f"Compaction: {m}"))
        self.settings, self.options = settings, options
        for problem in problems:
            self.show(f"Compaction: invalid setting {problem}")
        log.info("settings: %s", settings.model_dump_json(by_alias=True, exclude_defaults=True))


def _loop_running_here(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


server = CompactionLanguageServer()


class ClientLogHandler(logging.Handler):
    """Forward our log records to the client's log (window/logMessage)."""

    LEVELS = {
        logging.ERROR: types.MessageType.Error,
        logging.WARNING: types.MessageType.Warning,
        logging.INFO: types.MessageType.Info,
    }

    def __init__(self, ls: CompactionLanguageServer) -> None:
        super().__init__(logging.INFO)
        self.ls = ls

    def emit(self, record: logging.LogRecord) -> None:
        if self.ls.loop is None:
            return
        kind = self.LEVELS.get(record.levelno, types.MessageType.Log)
        try:
            self.ls.send(self.ls.window_log_message, types.LogMessageParams(type=kind, message=self.format(record)))
        except RuntimeError:  # loop closed during shutdown
            pass


# ---- lifecycle ---------------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def on_initialize(ls: CompactionLanguageServer, params: types.InitializeParams) -> None:
    ls.init_options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
    # Not a setting: the folders only the editor knows (its chatSessions/, its globalStorage).
    ls.editor_storage = EditorStorage.from_options(ls.init_options.pop("editorStorage", None))


@server.feature(types.INITIALIZED)
async def on_initialized(ls: CompactionLanguageServer, params: types.InitializedParams) -> None:
    ls.loop = asyncio.get_running_loop()
    await pull_configuration(ls)
    start_watching(ls)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, refresh_error_index, ls)
    _in_background(loop, warm_index, ls)
    log.info("compaction-lsp %s ready for %s", __version__, ls.root)


def _supports_configuration(ls: CompactionLanguageServer) -> bool:
    ws = ls.client_capabilities.workspace if ls.client_capabilities else None
    return bool(ws and ws.configuration)


async def pull_configuration(ls: CompactionLanguageServer) -> None:
    if _supports_configuration(ls):
        try:
            result = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="compaction")])
            )
            ls.client_config = result[0] if result and isinstance(result[0], dict) else {}
        except Exception as exc:  # a client that fails the request still gets a working server
            log.warning("workspace/configuration failed: %s", exc)
    ls.apply_settings()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def on_configuration(ls: CompactionLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings

    async def update() -> None:
        if _supports_configuration(ls):
            await pull_configuration(ls)
        else:
            ls.client_config = settings.get("compaction", settings) if isinstance(settings, dict) else {}
            ls.apply_settings()

    await reapply_settings(ls, update)


async def reload_config_file(ls: CompactionLanguageServer) -> None:
    """`.compaction/config.json` changed on disk: the same layering again, without asking the client."""
    log.info("%s changed: settings reloaded", config_path(ls.root))

    async def update() -> None:
        ls.apply_settings()

    await reapply_settings(ls, update)


async def reapply_settings(ls: CompactionLanguageServer, update: Callable[[], Awaitable[None]]) -> None:
    """Run `update` (which applies new settings), then redo what depends on them: the watchers, the
    restore index (core globs) and the error index (diagnostic severities)."""
    watch_before = ls.options.watch
    globs_before = _index_key(ls)[1]
    await update()
    if ls.options.watch != watch_before:
        start_watching(ls)
    if _index_key(ls)[1] != globs_before:  # core classes changed: rebuild the restore index now
        _in_background(asyncio.get_running_loop(), warm_index, ls)
    await asyncio.get_running_loop().run_in_executor(None, refresh_error_index, ls)


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def on_folders_changed(ls: CompactionLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    """pygls has updated the folders already: watch the new set and index its error memories."""
    start_watching(ls)
    await asyncio.get_running_loop().run_in_executor(None, refresh_error_index, ls)


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: CompactionLanguageServer, params: None) -> None:
    stop_watching(ls)


# ---- documents -----------------------------------------------------------------------------------


def _touch(ls: CompactionLanguageServer, uri: str) -> str | None:
    path = to_fs_path(uri)
    if path:
        ls.open_files[path] = time.time()
        ls.open_files.move_to_end(path)
        if ls.index is not None:
            ls.index.touch(path)  # what the user edits now ranks as recent, saved or not
    return path


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: CompactionLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    _touch(ls, params.text_document.uri)
    publish_diagnostics(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: CompactionLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    _touch(ls, params.text_document.uri)
    publish_diagnostics(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: CompactionLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    _touch(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: CompactionLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    path = to_fs_path(params.text_document.uri)
    ls.open_files.pop(path or "", None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


# ---- hover ---------------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: CompactionLanguageServer, params: types.HoverParams) -> types.Hover | None:
    if not ls.options.hover:
        return None
    return hover_at(ls, params.text_document.uri, params.position)


def hover_at(ls: CompactionLanguageServer, uri: str, pos: types.Position) -> types.Hover | None:
    path = to_fs_path(uri)
    if not path or not ls.error_index.spots_for(path):
        return None
    doc = ls.workspace.get_text_document(uri)
    lines = doc.lines
    text = lines[pos.line] if pos.line < len(lines) else ""
    records = ls.error_index.at(path, pos.line, text, pos.character)
    if not records:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=render_hover(records, ls.settings.lang)),
        range=types.Range(types.Position(pos.line, 0), types.Position(pos.line, len(text.rstrip("\r\n")))),
    )


# ---- error memory index and diagnostics ---------------------------------------------------------


def load_records(workspace: Path) -> list[Any]:
    """The unresolved records of the workspace's error memory ([] when there is no store yet)."""
    if not (workspace / ".compaction" / "state.db").exists():
        return []
    from compaction.errors import ErrorMemory

    with ErrorMemory(workspace) as memory:
        return [r for r in memory.list() if not r.resolved]


_index_lock = threading.Lock()


def refresh_error_index(ls: CompactionLanguageServer) -> None:
    """Rebuild the hover/diagnostic index from the store of every workspace folder, then republish
    open documents."""
    with _index_lock:
        parts = []
        for folder in ls.folders():
            if memory_withheld(folder, ls.settings.trust_shipped_memory,
                               report=lambda m: ls.show(f"Compaction: {m}")):
                parts.append(ErrorIndex.build([], folder))  # shipped in git, not trusted: no hovers, no diagnostics
                continue
            try:
                records = load_records(folder)
            except Exception as exc:  # a locked or half-written store: keep the old index, retry on next change
                log.warning("cannot read the error memory of %s: %s", folder, exc)
                return
            parts.append(ErrorIndex.build(records, folder))
        ls.error_index = ErrorIndex.combine(parts)
        ls.index_refreshes += 1
    for path in list(ls.open_files):
        ls.send(publish_diagnostics, ls, Path(path).as_uri())


def publish_diagnostics(ls: CompactionLanguageServer, uri: str) -> None:
    path = to_fs_path(uri)
    if not path:
        return
    try:
        text = ls.workspace.get_text_document(uri).source
    except OSError:
        text = ""
    diagnostics = diagnostics_for(ls.error_index, path, text, ls.options.diagnostics, ls.settings.lang)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))


# ---- watching ------------------------------------------------------------------------------------


# Guards creating the index: warm_index (thread pool) and a command or the watcher (loop or watcher
# thread) may ask for it at once; without the lock both would build and scan their own copy.
_workspace_index_lock = threading.Lock()


def _index_key(ls: CompactionLanguageServer) -> tuple[str, str]:
    """What the index depends on: the workspace root and `restore.coreGlobs`."""
    return os.path.realpath(ls.root), json.dumps(ls.settings.restore.core_globs, sort_keys=True)


def workspace_index(ls: CompactionLanguageServer):
    """The restore index of the workspace (scanned once, then kept fresh by the watcher); rebuilt
    when the root or `restore.coreGlobs` changes."""
    key = _index_key(ls)
    with _workspace_index_lock:
        if ls.index is None or ls.index_key != key:
            from restore.workspace import WorkspaceIndex

            ls.index = WorkspaceIndex(ls.root, core_globs=ls.settings.restore.core_globs or None)
            ls.index_key = key
            ls.index_builds += 1
        return ls.index


def warm_index(ls: CompactionLanguageServer) -> None:
    """Scan the workspace once in the background so the first restore is warm."""
    started = time.perf_counter()
    index = workspace_index(ls).ensure_scanned()
    log.info("workspace index: %d files in %.0f ms", len(index), (time.perf_counter() - started) * 1000)


def _in_background(loop: asyncio.AbstractEventLoop, fn, ls: CompactionLanguageServer) -> None:
    """Run `fn(ls)` in the default executor without awaiting it; its exception is logged, not lost."""

    def done(fut: asyncio.Future) -> None:
        exc = None if fut.cancelled() else fut.exception()
        if exc is not None:
            log.error("%s failed: %s", fn.__name__, exc, exc_info=exc)

    loop.run_in_executor(None, fn, ls).add_done_callback(done)


def on_files_changed(ls: CompactionLanguageServer, paths: set[Path]) -> None:
    """Debounced workspace changes: refresh the restore index and drop cached results."""
    ls.watch_batches += 1
    changed = workspace_index(ls).invalidate(paths)
    dropped = 0
    if (ls.root / ".compaction" / "state.db").exists():  # never create the store just by watching
        from compaction.cache import ResultCache
        from compaction.store import StoreError

        try:
            if ls.cache is None:
                ls.cache = ResultCache(ls.root)
            dropped = sum(ls.cache.invalidate_path(p) for p in paths)
        except StoreError as exc:  # a read-only or foreign store: nothing cached to drop
            log.debug("cache not updated: %s", exc)
    log.debug("%d paths changed: %d index entries updated, %d cached results dropped",
              len(paths), len(changed), dropped)  # fmt: skip


def start_watching(ls: CompactionLanguageServer) -> None:
    stop_watching(ls)
    opts = ls.options.watch
    if opts.enabled:
        ls.watcher = WorkspaceWatcher(ls.folders(), lambda paths: on_files_changed(ls, paths),
                                      debounce_s=opts.debounce_ms / 1000, exclude=opts.exclude)  # fmt: skip
        try:
            ls.watcher.start()
        except OSError as exc:
            log.warning("file watching unavailable: %s", exc)
            ls.watcher = None
    ls.store_watchers = [StoreWatcher(folder, lambda: refresh_error_index(ls)) for folder in ls.folders()]
    for store_watcher in ls.store_watchers:
        store_watcher.start()
    if ls.loop is not None:
        ls.config_watcher = ConfigWatcher(ls.root, lambda: _reload_config_soon(ls))
        ls.config_watcher.start()
        ls.agent_watcher = AgentCompactionWatcher(
            lambda: discover_transcripts(ls.root, include_shipped=ls.settings.trust_shipped_memory,
                                         storage=ls.editor_storage),
            lambda event, ref: on_agent_compaction(ls, event, ref), warm=_warm_compaction_modules)
        ls.agent_watcher.start()


AGENT_COMPACTED = "compaction/agentCompacted"


def _warm_compaction_modules() -> None:
    """Import what reacting to an agent's compaction needs (about 1.5 s cold) before it happens."""
    import compaction.history  # noqa: F401
    import compaction.transcripts  # noqa: F401
    import restore.pipeline  # noqa: F401


def on_agent_compaction(ls: CompactionLanguageServer, event: Any, ref: Any) -> None:
    """The agent compacted (watcher thread): compact the same transcript with our rules — which
    records its errors (idempotent per transcript and round, so the Claude Code hooks ingesting it
    too count nothing twice) and rewrites latest.md and restore.md — then tell the client once."""
    job = commands.Job(workspace=ls.root, settings=ls.settings, open_files=list(reversed(ls.open_files)),
                       index=workspace_index(ls), last_compaction=ls.last_compaction,
                       remember=lambda result: setattr(ls, "last_compaction", result),
                       on_memory_changed=lambda: refresh_error_index(ls), storage=ls.editor_storage)
    try:
        reply = commands.compact(job, commands.CompactParams(transcript=event.path))
    except commands.EXPECTED_ERRORS as exc:
        log.warning("after %s compacted %s: %s", event.agent, event.path, exc)
        return
    log.info("%s compacted %s: restore state refreshed", event.agent, event.path)
    ls.send(ls.protocol.notify, AGENT_COMPACTED, {
        "transcript": event.path, "agent": event.agent, "offset": event.offset,
        "restore": reply["paths"]["restore"], "latest": reply["paths"]["latest"]})


def _reload_config_soon(ls: CompactionLanguageServer) -> None:
    """From the poller's thread: reload on the server's loop; a failure is logged, not lost."""

    def done(fut) -> None:
        exc = None if fut.cancelled() else fut.exception()
        if exc is not None:
            log.error("reloading %s failed: %s", config_path(ls.root), exc, exc_info=exc)

    asyncio.run_coroutine_threadsafe(reload_config_file(ls), ls.loop).add_done_callback(done)


def stop_watching(ls: CompactionLanguageServer) -> None:
    if ls.watcher:
        ls.watcher.stop()
        ls.watcher = None
    for store_watcher in ls.store_watchers:
        store_watcher.stop()
    ls.store_watchers = []
    if ls.config_watcher:
        ls.config_watcher.stop()
        ls.config_watcher = None
    if ls.agent_watcher:
        ls.agent_watcher.stop()
        ls.agent_watcher = None


# ---- commands ------------------------------------------------------------------------------------


def _supports_progress(ls: CompactionLanguageServer) -> bool:
    window = ls.client_capabilities.window if ls.client_capabilities else None
    return bool(window and window.work_done_progress)


def _command_folder(ls: CompactionLanguageServer, args: tuple[Any, ...]) -> Path:
    """The workspace folder a command works in: `workspaceFolder` in its argument (a path or a
    file URI; it must be one of the open folders), else the first folder."""
    raw = args[0].get("workspaceFolder") if args and isinstance(args[0], dict) else None
    if raw is None:
        return ls.root
    wanted = Path(to_fs_path(raw) or raw) if isinstance(raw, str) and raw.startswith("file:") else Path(str(raw))
    for folder in ls.folders():
        if os.path.realpath(folder) == os.path.realpath(wanted):
            return folder
    raise commands.CommandError(f"workspaceFolder {raw} is not one of this window's workspace folders")


async def run_job(ls: CompactionLanguageServer, name: str, args: tuple[Any, ...]) -> Any:
    """Validate, then run a command in a worker thread with progress and cancellation."""
    model, fn, long_running = commands.COMMANDS[name]
    try:
        params = commands.parse(model, args)
        workspace = _command_folder(ls, args)
    except commands.CommandError as exc:
        raise JsonRpcInvalidParams(f"{name}: {exc}") from None
    msg_id = ls.protocol.msg_id
    cancel = threading.Event()
    if msg_id is not None:
        ls.cancel_events[msg_id] = cancel
    progress = ls.work_done_progress
    token = WORK_DONE_TOKEN.get()  # the client's own token, else one we create when it supports that
    if token is None and long_running and _supports_progress(ls):
        token = f"compaction-{uuid.uuid4()}"
        try:
            await progress.create_async(token)
        except Exception as exc:
            log.warning("no progress for %s: %s", name, exc)
            token = None
    if token is not None and long_running:
        progress.begin(token, types.WorkDoneProgressBegin(title=_TITLES.get(name, name), cancellable=True,
                                                          percentage=0))  # fmt: skip
        progress.tokens[token].add_done_callback(lambda f: f.cancelled() and cancel.set())
    elif token is not None:
        token = None  # quick commands report nothing

    def report(message: str, pct: int | None) -> None:
        if token is not None:
            ls.send(progress.report, token, types.WorkDoneProgressReport(message=message, percentage=pct))

    job = commands.Job(
        workspace=workspace,
        settings=ls.settings,
        open_files=list(reversed(ls.open_files)),
        recency=ls.watcher.recent(200) if ls.watcher else [],
        progress=report,
        cancel=cancel,
        index=workspace_index(ls) if workspace == ls.root else None,  # the watched index is the root's
        folders=ls.folders(),
        allow_read=[*ls.allow_read, *ls.options.allow_read],
        last_compaction=ls.last_compaction,
        remember=lambda result: setattr(ls, "last_compaction", result),
        on_memory_changed=lambda: refresh_error_index(ls),
        storage=ls.editor_storage,
        phase_delay_s=commands.request_phase_delay_s(),
    )
    outcome = "done"
    try:
        return await asyncio.get_running_loop().run_in_executor(ls.thread_pool, fn, job, params)
    except commands.Cancelled:
        outcome = "cancelled"
        raise JsonRpcRequestCancelled(f"{name} was cancelled") from None
    except commands.EXPECTED_ERRORS as exc:
        outcome = "failed"
        raise JsonRpcInvalidParams(f"{name}: {exc}") from None
    finally:
        ls.cancel_events.pop(msg_id, None)
        if token is not None:
            progress.end(token, types.WorkDoneProgressEnd(message=outcome))
            progress.tokens.pop(token, None)


_TITLES = {
    "compaction.compact": "Compacting conversation",
    "compaction.restore": "Restoring working state",
    "compaction.status": "Measuring context",
    "compaction.blocks.compress": "Compressing context blocks",
}


def _register(name: str) -> None:
    async def handler(ls: CompactionLanguageServer, *args: Any) -> Any:
        return await run_job(ls, name, args)

    handler.__name__ = "cmd_" + name.replace(".", "_")
    server.command(name)(handler)


for _name in commands.COMMANDS:
    _register(_name)
