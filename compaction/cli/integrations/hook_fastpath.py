"""The session-start fast path: print the restore block the pre-compact worker already built.

Why: session-start runs while the agent waits, and building the block costs the imports of the whole
engine (pydantic models, the error memory, the restore renderer: about 0.4 s of a 0.6 s run on a loaded
machine), while the pre-compact worker has all of them loaded anyway. So the worker writes the block
(`.compaction/restore-block.json`, with the session, the state's time and the limit it was cut to) and
session-start answers from it with the standard library alone. Anything it cannot vouch for (another
session, another limit, a state written after the block, unreadable files) returns None: the caller
then takes the full path, which compacts or rebuilds as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BLOCK_FILE = "restore-block.json"
STATE_FILE = "hook-state.json"


def payload_cwd(raw: bytes) -> str | None:
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    cwd = data.get("cwd") if isinstance(data, dict) else None
    return cwd if isinstance(cwd, str) else None


def _read_json(workspace: Path, name: str) -> dict[str, Any] | None:
    """A JSON object under `.compaction/`, never read through a link (compaction.statedir)."""
    from compaction import statedir

    try:
        data = json.loads(statedir.read_text(workspace, name) or "")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def cached_block(raw: bytes, workspace: Path, limit: int, any_source: bool = False) -> tuple[str | None, str] | None:
    """(the block, or None when this source gets nothing; the source), or None when the cache cannot answer.
    Mirrors claude_hooks.should_inject / session_start."""
    try:
        payload = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    state = _read_json(workspace, STATE_FILE)
    cache = _read_json(workspace, BLOCK_FILE)
    if state is None or cache is None or not isinstance(cache.get("block"), str):
        return None
    if cache.get("session_id") != state.get("session_id") or cache.get("written_at") != state.get("written_at") \
            or cache.get("limit") != limit:
        return None
    source = payload.get("source")
    session = payload.get("session_id") or ""
    ours = bool(session) and state.get("session_id") == session
    if source in (None, "compact"):
        return (cache["block"], str(source)) if ours else None  # another session's state: the full path compacts
    if source == "resume":
        return (cache["block"] if any_source or ours else None), source
    return (cache["block"] if any_source else None), str(source)


def write_cached_block(workspace: Path, session_id: str, written_at: float, limit: int, block: str) -> Path:
    from compaction import statedir

    record = {"session_id": session_id, "written_at": written_at, "limit": limit, "block": block}
    return statedir.write_text(workspace, BLOCK_FILE, json.dumps(record, ensure_ascii=False) + "\n")
