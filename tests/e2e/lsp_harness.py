"""Start the real `python -m lsp_server` as a subprocess with pytest-lsp and talk to it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = Path(__file__).resolve().parents[2]
# Upper bound for one request or handshake: a hung server fails the test instead of hanging CI.
REQUEST_TIMEOUT = 120.0


CLI = [sys.executable, "-c", "import sys; from compaction.cli import main; sys.exit(main())"]


def server_env(home: Path | None = None, **extra: str) -> dict[str, str]:
    """pytest-lsp replaces the whole environment: start from ours."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    if home is not None:
        env["COMPACTION_HOME"] = str(home)
    env.update(extra)
    return env


@contextlib.asynccontextmanager
async def lsp_session(
    workspace: Path,
    *,
    home: Path | None = None,
    init_options: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    client: str = "visual-studio-code",
    extra_folders: tuple[Path, ...] = (),
) -> AsyncIterator[LanguageClient]:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "lsp_server"],
        server_env=server_env(home if home is not None else workspace / ".no-home", **(env or {})),
    )
    lc: LanguageClient = await asyncio.wait_for(config.start(), REQUEST_TIMEOUT)  # type: ignore[assignment]
    if configuration is not None:
        lc.set_configuration(configuration, section="compaction")
    uri = workspace.as_uri()
    try:
        await within(lc.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities(client),
                root_uri=uri,
                workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in (workspace, *extra_folders)],
                initialization_options=init_options,
            )
        ), "initialize")  # fmt: skip
        await wait_for(lambda: any("ready for" in m.message for m in lc.log_messages), what="server ready")
        yield lc
        await asyncio.wait_for(lc.shutdown_session(), 20)
    finally:
        server = lc._server
        if server is not None and server.returncode is None:  # failed test: don't wait for a clean exit
            await asyncio.sleep(0.2)
            if server.returncode is None:
                server.kill()
        await lc.stop()


async def wait_for(cond: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


async def within(awaitable: Awaitable[Any], what: str = "request", timeout: float = REQUEST_TIMEOUT) -> Any:
    """Await a request, failing (not hanging) when the server does not answer within `timeout`."""
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except TimeoutError:
        raise AssertionError(f"no answer to {what} within {timeout:.0f}s") from None


async def command(lc: LanguageClient, name: str, arg: dict[str, Any] | None = None) -> Any:
    return await within(lc.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=[arg] if arg is not None else [])
    ), name)  # fmt: skip


def open_doc(lc: LanguageClient, path: Path, language: str = "python") -> str:
    uri = path.as_uri()
    lc.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=path.read_text())
        )
    )
    return uri
