"""`.compaction/hooks.log`: one line per hook run. Standard library and `compaction.store` only, so the
session-start fast path (hook_fastpath) can log without importing the compaction engine or pydantic."""

from __future__ import annotations

import datetime as _dt
import os
import traceback
from pathlib import Path

LOG_FILE = "hooks.log"
_LOG_MAX = 512 * 1024


def log(workspace: Path, event: str, message: str) -> None:
    """Append one line to `.compaction/hooks.log` (rotated at 512 KB); never raises."""
    try:
        from compaction.store import state_dir

        path = state_dir(workspace) / LOG_FILE
        if path.exists() and path.stat().st_size > _LOG_MAX:
            os.replace(path, path.with_name(LOG_FILE + ".1"))
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {event} {message.rstrip()}\n")
    except Exception:  # noqa: BLE001 - logging must never fail the agent
        pass


def log_exception(workspace: Path, event: str) -> None:
    log(workspace, event, "error: " + traceback.format_exc().strip().replace("\n", "\n    "))
