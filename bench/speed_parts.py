"""Where a compaction's time goes, against one tiktoken encode of the same text: the median over the
30 real sessions of each part's share (event extraction, the error scan, each registered fact source,
the selection, the fill, the rest), and the median of a compaction with no fact source at all.

Why: issue 13's target (compaction ≤ 3× one encode, median over the 30) is far from met, and no one
part is to blame. This prints the figures any plan to meet it must start from; the last line is the
floor that the document's fact sections add to.

    python -m bench.speed_parts [--repeats 3]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.handover import shared_transcripts
from bench.speed_sessions import sessions
from compaction import memo, tokens
from compaction.history import engine
from compaction.history import fill as fill_module
from compaction.history.sources import registry
from compaction.transcripts import load_transcript

HERE = Path(__file__).resolve().parent


class _Clock:
    """Seconds spent in each wrapped part, exclusive of the parts it calls: the change records a source
    builds through `FactContext.shared` are the change records', not that source's (whichever asks first)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self._inner: list[float] = []  # for each running part, the time its own nested parts took

    def run(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._inner.append(0.0)
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            total = time.perf_counter() - start
            nested = self._inner.pop()
            self.spent[name] += total - nested
            if self._inner:
                self._inner[-1] += total

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            return self.run(name, fn, *args, **kwargs)

        return timed


def _instrument(clock: _Clock) -> Callable[[], None]:
    """Wrap the engine's parts, and the work sources share (`FactContext.shared`, by its key's name);
    returns how to put them back."""
    saved = [(engine, "extract_events", engine.extract_events), (engine.errors_adapter, "scan", engine.errors_adapter.scan),
             (engine, "_choose", engine._choose), (fill_module, "fill", fill_module.fill)]
    for owner, attr, fn in saved:
        setattr(owner, attr, clock.wrap({"extract_events": "events", "scan": "error scan", "_choose": "selection",
                                         "fill": "fill"}[attr], fn))
    lists = {section: list(found) for section, found in registry._SOURCES.items()}
    for found in registry._SOURCES.values():
        for i, source in enumerate(found):
            found[i] = clock.wrap(f"source {source.__module__.rsplit('.', 1)[-1]}.{source.__name__}", source)
    shared = registry.FactContext.shared

    def timed_shared(ctx: registry.FactContext, key: Any, make: Callable[[], Any]) -> Any:
        name = key[0] if isinstance(key, tuple) and key else key
        return shared(ctx, key, lambda: clock.run(f"shared {name}", make))

    registry.FactContext.shared = timed_shared  # type: ignore[method-assign]

    def restore() -> None:
        for owner, attr, fn in saved:
            setattr(owner, attr, fn)
        registry._SOURCES.clear()
        registry._SOURCES.update(lists)
        registry.FactContext.shared = shared  # type: ignore[method-assign]

    return restore


def _one(path: Path, repeats: int, clock: _Clock) -> tuple[float, dict[str, float]]:
    """The least disturbed run (best ratio) of `repeats`, cold memos: its ratio and each part's share."""
    transcript = load_transcript(str(path))
    target = max(1, int(tokens.count_messages(transcript.messages) * 0.10))
    engine.compact(transcript, target_tokens=target)  # imports and regex compilation are no per-session cost
    best: tuple[float, dict[str, float]] | None = None
    for _ in range(repeats):
        memo.forget_all()
        clock.spent.clear()
        transcript = load_transcript(str(path))
        text = "\n".join(m.full_text() for m in transcript.messages)
        t0 = time.perf_counter()
        tokens.encoding().encode_ordinary(text)
        t1 = time.perf_counter()
        engine.compact(transcript, target_tokens=target)
        t2 = time.perf_counter()
        encode, total = t1 - t0, t2 - t1
        shares = {name: spent / encode for name, spent in clock.spent.items()}
        shares["rest"] = (total - sum(clock.spent.values())) / encode
        if best is None or total / encode < best[0]:
            best = (total / encode, shares)
    assert best is not None
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.speed_parts", description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "speed_parts.txt")
    args = ap.parse_args(argv)
    found = sessions(shared_transcripts())
    clock = _Clock()
    put_back = _instrument(clock)
    totals: list[float] = []
    parts: dict[str, list[float]] = defaultdict(list)
    try:
        for i, path in enumerate(found):
            ratio, shares = _one(path, args.repeats, clock)
            totals.append(ratio)
            for name in {*parts, *shares}:
                parts[name].extend([0.0] * (i - len(parts[name])))  # a part a session never reached: 0
                parts[name].append(shares.get(name, 0.0))
        for name in parts:
            parts[name].extend([0.0] * (len(found) - len(parts[name])))
        registry._SOURCES.clear()  # the floor: header, error memory and verbatim tail, no fact section
        floor = [_one(path, args.repeats, clock)[0] for path in found]
    finally:
        put_back()
    lines = [f"sessions {len(found)}; median compaction/encode {statistics.median(totals):.2f}; "
             "each part's median share (the medians of the parts need not add up to the total's):"]
    for median, name in sorted(((statistics.median(v), k) for k, v in parts.items()), reverse=True):
        if median >= 0.02:
            lines.append(f"  {median:5.2f}  {name}")
    small = sum(1 for v in parts.values() if statistics.median(v) < 0.02)
    lines.append(f"  ({small} more parts under 0.02 each)")
    lines.append(f"with no fact source registered (header, error memory, verbatim tail only): median "
                 f"{statistics.median(floor):.2f}")
    print("\n".join(lines))
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
