"""Follow the workspace's newest transcripts and react when the agent compacts by itself.

Polling, not watchdog: the transcripts live outside the workspace (~/.claude/projects, ~/.codex,
the editor's globalStorage), one `stat` per followed file per tick is cheap, and a tick of 0.2 s
keeps the time from the record being written to the notification well under the 2 s target.
Discovery (globs over the agents' folders) runs only every `rediscover_s`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from compaction.agent_compaction import AgentCompaction, CompactionTail
from compaction.discovery import TranscriptRef

log = logging.getLogger(__name__)


class AgentCompactionWatcher:
    """Calls `on_compaction(event, ref)` from its own thread when a followed transcript gets a new
    compaction record. Follows the `follow` newest transcripts that `discover()` returns."""

    def __init__(self, discover: Callable[[], list[TranscriptRef]],
                 on_compaction: Callable[[AgentCompaction, TranscriptRef], None], *,
                 interval_s: float = 0.2, rediscover_s: float = 2.0, follow: int = 3,
                 warm: Callable[[], None] = lambda: None) -> None:
        self.discover = discover
        self.on_compaction = on_compaction
        self.interval_s = interval_s
        self.rediscover_s = rediscover_s
        self.follow = follow
        self.warm = warm  # run once in the thread: the first reaction must not pay for cold imports
        self.tails: dict[str, tuple[TranscriptRef, CompactionTail]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="compaction-agent-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def refresh(self) -> None:
        """Follow the newest transcripts; a newly followed file starts from its current end."""
        try:
            refs = self.discover()[: self.follow]
        except Exception as exc:  # noqa: BLE001 - discovery failing must not stop the watch
            log.warning("transcript discovery failed: %s", exc)
            return
        keep = {}
        for ref in refs:
            ref_tail = self.tails.get(ref.path)
            if ref_tail is None:
                tail = CompactionTail(ref.path)
                tail.poll()  # baseline: what is already there is not news
                ref_tail = (ref, tail)
            keep[ref.path] = ref_tail
        self.tails = keep

    def tick(self) -> list[AgentCompaction]:
        seen = []
        for ref, tail in list(self.tails.values()):
            event = tail.poll()
            if event is None:
                continue
            seen.append(event)
            try:
                self.on_compaction(event, ref)
            except Exception:  # noqa: BLE001
                log.exception("reacting to the compaction in %s failed", ref.path)
        return seen

    def _run(self) -> None:
        self.refresh()
        try:
            self.warm()
        except Exception:  # noqa: BLE001
            log.exception("warming up for agent compactions failed")
        next_discovery = time.monotonic() + self.rediscover_s
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= next_discovery:
                self.refresh()
                next_discovery = now + self.rediscover_s
            self.tick()
            self._stop.wait(self.interval_s)
