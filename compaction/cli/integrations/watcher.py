"""`compaction watch`: follow the newest transcript of a workspace and compact before the agent does.

The seed's automatic trigger: when the conversation reaches the trigger ratio of the context window
(Settings.trigger_ratio, 70% by default), compact with our rules and write the restore state, so it
is ready before the agent's own compaction fires (Claude Code compacts near the end of the window).
Edge-triggered: one compaction per crossing; the watcher re-arms when utilization falls below the
trigger again (the agent compacted) or another transcript becomes the newest. Rate limit: fewer than
5 compactions in any rolling hour (seed 003 §7 "< 5 per hour").

Why `step()` and an injectable clock: tests drive the watcher one tick at a time, with a grown
transcript between ticks, and never sleep. A tick costs a `stat` when nothing changed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from compaction.discovery import TranscriptRef, discover_transcripts

HOUR = 3600.0
MAX_PER_HOUR = 4  # "fewer than 5 per hour"


@dataclass
class WatchEvent:
    """What one tick saw. kind: none | idle | status | compacted | rate-limited | short | error."""

    kind: str
    path: str | None = None
    agent: str | None = None
    tokens: int = 0
    window: int = 0
    utilization: float = 0.0
    rounds: int = 0
    message: str = ""
    written: list[str] = field(default_factory=list)
    at: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One human line for the terminal."""
        if self.kind == "none":
            return "no transcript found for this workspace yet"
        name = Path(self.path or "").name
        util = f"{self.utilization:6.1%} of {self.window:,} tokens ({self.tokens:,}, {self.rounds} rounds)"
        extra = f" — {self.message}" if self.message else ""
        return f"[{self.kind}] {self.agent} {name}: {util}{extra}"


def live_messages(transcript: Any) -> list[Any]:
    """The messages still in the agent's context: those from its last own compaction on (Claude Code's
    `isCompactSummary` record, Codex's `compacted` item), else all. The session file keeps the old
    messages, so counting them all would overstate utilization after the agent compacted."""
    msgs = transcript.messages
    for i in range(len(msgs) - 1, -1, -1):
        meta = msgs[i].meta or {}
        if meta.get("compact_summary") or meta.get("compacted"):
            return msgs[i:]
    return msgs


class Watcher:
    def __init__(self, workspace: str | Path, settings: Any = None, *, home: str | Path | None = None,
                 clock: Callable[[], float] = time.time, max_per_hour: int = MAX_PER_HOUR,
                 discover: Callable[[Path], list[TranscriptRef]] | None = None) -> None:
        from compaction.config import load_settings

        self.workspace = Path(workspace)
        self.settings = settings or load_settings(self.workspace)
        self.clock = clock
        self.max_per_hour = max_per_hour
        self._discover = discover or (lambda ws: discover_transcripts(
            ws, home, include_shipped=self.settings.trust_shipped_memory))
        self._path: str | None = None
        self._sig: tuple[float, int] | None = None
        self._armed = True
        self._pending = None  # a loaded transcript waiting for the rate limit
        self._last = WatchEvent("none")
        self.compactions: deque[float] = deque()

    # --- rate limit ---------------------------------------------------------------------------------
    def _allowed(self, now: float) -> bool:
        while self.compactions and now - self.compactions[0] >= HOUR:
            self.compactions.popleft()
        return len(self.compactions) < self.max_per_hour

    # --- one tick -------------------------------------------------------------------------------------
    def step(self) -> WatchEvent:
        now = self.clock()
        refs = self._discover(self.workspace)
        if not refs:
            self._last = WatchEvent("none", at=now)
            return self._last
        ref = refs[0]
        if ref.path != self._path:  # another transcript became the newest: a new conversation
            self._path, self._sig, self._armed, self._pending = ref.path, None, True, None
        sig = (ref.mtime, ref.size)
        if sig == self._sig:
            if self._pending is not None and self._allowed(now):
                return self._compact(self._pending, self._last, now)
            idle = WatchEvent(**{**self._last.as_dict(), "kind": "idle", "message": "", "written": [], "at": now})
            return idle
        self._sig = sig
        try:
            event, transcript = self._measure(ref, now)
        except Exception as exc:  # noqa: BLE001 - a bad or half-written transcript must not stop the watch
            self._last = WatchEvent("error", ref.path, ref.agent, message=str(exc), at=now)
            return self._last
        self._pending = None
        ratio = self.settings.trigger_ratio
        if event.utilization < ratio:
            self._armed = True
            self._last = event
            return event
        if not self._armed:
            event.message = f"above the {ratio:.0%} trigger; compacted already for this crossing"
            self._last = event
            return event
        if event.rounds <= self.settings.min_rounds:
            event.kind, event.message = "short", f"above the trigger but only {event.rounds} rounds"
            self._last = event
            return event
        if not self._allowed(now):
            self._pending = transcript
            event.kind = "rate-limited"
            event.message = f"{len(self.compactions)} compactions in the last hour (limit: fewer than 5)"
            self._last = event
            return event
        return self._compact(transcript, event, now)

    def _measure(self, ref: TranscriptRef, now: float) -> tuple[WatchEvent, Any]:
        from compaction import tokens
        from compaction.transcripts import load_transcript

        transcript = load_transcript(ref.path, redact=self.settings.redact_secrets)
        total = tokens.count_messages(live_messages(transcript))
        window = tokens.context_window(self.settings.model, self.settings.context_window)
        util = tokens.utilization(total, window)
        return WatchEvent("status", ref.path, ref.agent, total, window, util, len(transcript.rounds), at=now), transcript

    def _compact(self, transcript: Any, event: WatchEvent, now: float) -> WatchEvent:
        from compaction.cli.integrations.claude_hooks import compact_to_workspace

        self._pending = None
        self._armed = False
        self.compactions.append(now)
        try:
            report = compact_to_workspace(transcript, self.workspace, self.settings, trigger="watch")
        except Exception as exc:  # noqa: BLE001
            self._last = WatchEvent(**{**event.as_dict(), "kind": "error", "message": str(exc), "at": now})
            return self._last
        done = WatchEvent(**{**event.as_dict(), "kind": "compacted", "at": now, "written": report.written,
                             "message": f"{report.tokens_before:,} → {report.tokens_after:,} tokens; "
                                        f"wrote .compaction/restore.md"})
        self._last = done
        return done

    # --- the loop ---------------------------------------------------------------------------------------
    def run(self, interval: float = 2.0, emit: Callable[[WatchEvent], None] = print,
            should_stop: Callable[[], bool] = lambda: False, sleep: Callable[[float], None] = time.sleep) -> None:
        """Tick until `should_stop()`; emit every event except unchanged idle ticks."""
        while not should_stop():
            event = self.step()
            if event.kind != "idle":
                emit(event)
            sleep(interval)
