"""Noticing that an agent compacted its own conversation, by following its transcript file.

Why: our restore is ready after *our* compaction; when the agent compacts by itself (Claude Code's
`/compact` or auto-compact, Codex's compaction, Cline's condense) the new context starts from the
agent's summary only, and the restore state and error memory should be offered again right away.
The markers, as each agent writes them:

- Claude Code session JSONL: a `{"type": "system", "subtype": "compact_boundary"}` record and the
  user record holding the summary (`"isCompactSummary": true`, its `parentUuid` the boundary's
  `uuid`): one compaction, however the two records fall across polls. Not a `"type": "summary"`
  record: that is a conversation's title (`summary` + `leafUuid`, for the resume picker), which
  Claude Code appends at startup for earlier sessions' chains — to the file being followed too.
  Appended lines: read incrementally from the last offset.
- Codex rollout JSONL: a `{"type": "compacted", ...}` item.
- Cline / Roo / Kilo `api_conversation_history.json` (rewritten whole): a `condense` tool call
  (`<condense>` in the assistant's text, or a `tool_use` named `condense`); the count of markers
  is compared with the previous read.

One compaction may write several marker records at once (boundary + summary): a poll reports one
event per poll however many it saw. Pure library: reads only.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLINE_HISTORY = "api_conversation_history.json"  # Cline, Roo Code, Kilo Code
_MAX_WHOLE_READ = 64 * 1024 * 1024  # a rewritten JSON transcript larger than this is not re-read
_CONDENSE = re.compile(r"<condense>|\"name\"\s*:\s*\"condense\"")


def record_marker(rec: Any) -> str | None:
    """The agent whose compaction this JSONL record marks, or None."""
    if not isinstance(rec, dict):
        return None
    rtype = rec.get("type")
    if rec.get("isCompactSummary") or _is_boundary(rec):
        return "claude-code"
    if rtype == "compacted":
        return "codex"
    return None


def _is_boundary(rec: dict) -> bool:
    return rec.get("type") == "system" and rec.get("subtype") == "compact_boundary"


@dataclass(frozen=True, slots=True)
class AgentCompaction:
    """One compaction seen in a transcript: which agent, and where the file ended when it was seen."""

    path: str
    agent: str
    offset: int  # file size after the marker (JSONL) or at the read (JSON)
    records: int  # marker records seen in this poll


class CompactionTail:
    """Follows one transcript; `poll()` returns an AgentCompaction when a new marker was written
    since the previous poll. The first poll only sets the baseline (markers already in the file
    are old news)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._offset = 0
        self._partial = b""
        self._whole_count: int | None = None
        self._started = False
        self._boundaries: set[str] = set()  # uuids of the compact boundaries seen (their summary follows)

    def poll(self) -> AgentCompaction | None:
        try:
            size = os.stat(self.path).st_size
        except OSError:
            return None
        if self.path.endswith(".jsonl"):
            return self._poll_lines(size)
        if os.path.basename(self.path) == CLINE_HISTORY:
            return self._poll_whole(size)
        return None  # other whole-file sessions (Copilot Chat, Gemini) carry no compaction record we know

    # --- JSONL: appended records ----------------------------------------------------------------------
    def _poll_lines(self, size: int) -> AgentCompaction | None:
        if size < self._offset:  # truncated or replaced: start over from the beginning
            self._offset, self._partial = 0, b""
        if size == self._offset:
            self._started = True
            return None
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read(size - self._offset)
        except OSError:
            return None
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()  # an incomplete last line waits for its end
        agents = [a for line in lines if line.strip() and (a := self._new_marker(_loads(line)))]
        first = not self._started
        self._started = True
        if first or not agents:
            return None
        return AgentCompaction(self.path, agents[0], self._offset - len(self._partial), len(agents))

    def _new_marker(self, rec: Any) -> str | None:
        """`record_marker`, except a summary whose boundary was already seen (in this poll, an
        earlier one or the baseline): the two records are one compaction."""
        agent = record_marker(rec)
        if agent is None:
            return None
        if _is_boundary(rec) and isinstance(rec.get("uuid"), str):
            self._boundaries.add(rec["uuid"])
        elif rec.get("isCompactSummary") and rec.get("parentUuid") in self._boundaries:
            return None
        return agent

    # --- JSON rewritten whole (Cline and its forks) ---------------------------------------------------
    def _poll_whole(self, size: int) -> AgentCompaction | None:
        if size == self._offset and self._whole_count is not None:
            return None
        if size > _MAX_WHOLE_READ:
            return None
        try:
            text = Path(self.path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        self._offset = size
        count = len(_CONDENSE.findall(text))
        previous, self._whole_count = self._whole_count, count
        if previous is None or count <= previous:
            return None
        return AgentCompaction(self.path, "cline", size, count - previous)


def _loads(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None
