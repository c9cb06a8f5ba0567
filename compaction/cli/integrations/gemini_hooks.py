"""Gemini CLI's hooks: `PreCompress` compacts and stores, `BeforeAgent` injects the restore block on the
first prompt after a compression (`hookSpecificOutput.additionalContext`, appended to that prompt).

Why the hooks decide themselves whether a compression is due: Gemini CLI (0.61) fires `PreCompress`
before every model request, before it checks its threshold, and there is no after-compression event
(SessionStart is startup/resume/clear only). Its rule is reproduced from the session transcript: a
manual `/compress` always compresses; an automatic one when the last reply's prompt tokens
(`tokens.input` of the last `gemini` record) reach `model.compressionThreshold` (0.5 by default) of
the model's 1,048,576-token window. So every other `PreCompress` costs a tail read of the transcript.

When due, `PreCompress` copies the session file as it is (Gemini CLI rewrites it with the compressed
history right after) and hands the copy to the detached worker that Claude Code's hook uses (the same
store, the same `hook-state.json`). Whether Gemini CLI really compressed (it declines when the
history is too short to split) is read afterwards: a compression rewrites the session file with a
`<state_snapshot>` user message. `BeforeAgent` injects once per snapshot (its message id is kept in
`.compaction/gemini-injected`), after waiting for the worker, or compacting itself when no worker ran.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

INJECTED = "gemini-injected"  # in .compaction/: the id of the last snapshot message our block followed
_SNAPSHOT = b'"<state_snapshot>'
_ID = re.compile(rb'"id"\s*:\s*"([^"]+)"')
TOKEN_LIMIT = 1_048_576  # Gemini CLI's tokenLimit() for the Gemini 2.5 / 3 models
DEFAULT_THRESHOLD = 0.5  # Gemini CLI's DEFAULT_COMPRESSION_TOKEN_THRESHOLD
_TAIL = 256 * 1024
_QUOTE = re.compile(r"(?m)^> ")


def parse(raw: bytes) -> dict[str, Any]:
    data = json.loads(raw.decode("utf-8", errors="replace") or "{}")
    if not isinstance(data, dict):
        raise ValueError("stdin:1: expected the hook's JSON object")
    return data


def last_prompt_tokens(transcript: str | None) -> int:
    """`tokens.input` of the last model reply in a Gemini CLI session file (.jsonl or .json); 0 if none."""
    if not transcript:
        return 0
    try:
        with open(transcript, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - _TAIL))
            tail = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return 0
    for line in reversed(tail.splitlines()):
        if '"tokens"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        records = record.get("messages") if isinstance(record.get("messages"), list) else [record]
        for r in reversed(records):
            tokens = r.get("tokens") if isinstance(r, dict) else None
            if isinstance(tokens, dict) and isinstance(tokens.get("input"), int):
                return tokens["input"]
    if transcript.endswith(".json"):  # the older whole-file format: {"messages": [...]}
        try:
            messages = json.loads(Path(transcript).read_text(encoding="utf-8")).get("messages") or []
        except (OSError, ValueError, AttributeError):
            return 0
        for r in reversed(messages):
            tokens = r.get("tokens") if isinstance(r, dict) else None
            if isinstance(tokens, dict) and isinstance(tokens.get("input"), int):
                return tokens["input"]
    return 0


def compression_threshold(workspace: Path, home: Path | None = None) -> float:
    """`model.compressionThreshold` from the project's, else the user's `.gemini/settings.json`."""
    home = home or Path.home()
    for path in (workspace / ".gemini" / "settings.json", home / ".gemini" / "settings.json"):
        try:
            value = json.loads(path.read_text(encoding="utf-8")).get("model", {}).get("compressionThreshold")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, int | float) and 0 < value <= 1:
            return float(value)
    return DEFAULT_THRESHOLD


def compression_due(payload: dict[str, Any], workspace: Path) -> bool:
    if payload.get("trigger") == "manual":
        return True
    return last_prompt_tokens(payload.get("transcript_path")) >= compression_threshold(workspace) * TOKEN_LIMIT


def last_snapshot_id(transcript: str | None) -> str | None:
    """The message id of the newest `<state_snapshot>` in a Gemini CLI session file (None: never compressed)."""
    if not transcript:
        return None
    try:
        data = Path(transcript).read_bytes()
    except OSError:
        return None
    at = data.rfind(_SNAPSHOT)
    if at < 0:
        return None
    ids = _ID.findall(data, max(0, at - 400), at)
    return ids[-1].decode("utf-8", "replace") if ids else f"offset-{at}"


def on_pre_compress(raw: bytes, workspace: Path) -> str:
    """Start the compaction when Gemini CLI is about to compress; else nothing (the common case)."""
    payload = parse(raw)
    if not compression_due(payload, workspace):
        return "skip (not due)"
    from compaction.cli.integrations.detached import _detach

    copy = snapshot_transcript(payload.get("transcript_path"), workspace)
    if copy is not None:
        payload["transcript_path"] = str(copy)
    _detach(json.dumps(payload).encode())
    return f"ok trigger={payload.get('trigger')} (compaction started)"


def snapshot_transcript(transcript: str | None, workspace: Path) -> Path | None:
    """A copy of the session file as it is now, for the background compaction. Why: Gemini CLI rewrites
    the file with its `<state_snapshot>` right after this hook returns, and the compressed-away turns
    (errors included) would be gone before the background process gets to read them."""
    if not transcript:
        return None
    from compaction import statedir

    try:
        text = Path(transcript).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return statedir.write_text(workspace, f"gemini-precompress-{Path(transcript).name}", text)


def on_before_agent(raw: bytes, workspace: Path, limit: int) -> tuple[str | None, str]:
    """The hook's stdout JSON (None: nothing to add) and a log line."""
    payload = parse(raw)
    snapshot = last_snapshot_id(payload.get("transcript_path"))
    from compaction import statedir

    try:
        injected = (statedir.read_text(workspace, INJECTED) or "").strip()
    except OSError:
        injected = ""
    if snapshot is None or snapshot == injected:
        return None, "skip"
    from compaction.cli.integrations import claude_hooks as ch
    from compaction.cli.integrations.detached import wait_for_pending

    wait_for_pending(workspace)
    state = ch.read_state(workspace)
    if state is None or state.session_id != payload.get("session_id"):
        ch.pre_compact(ch.parse_payload(raw), workspace)  # PreCompress did not run for this compression
        state = ch.read_state(workspace)
    if state is None:
        return None, "skip (no restore state)"
    if ch.shipped_refused(workspace):
        return None, "skip (the repository ships the restore files or the store; not trusted)"
    # Gemini CLI escapes `<` and `>` inside <hook_context>: our blockquote markers would reach the model
    # as "&gt; ", so the block goes without them (same text otherwise).
    block = _QUOTE.sub("", ch.build_restore_block(workspace, state, limit=limit))
    statedir.write_text(workspace, INJECTED, snapshot + "\n")
    out = {"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": block}}
    return json.dumps(out), f"ok after compression (snapshot {snapshot}) chars={len(block)}"
