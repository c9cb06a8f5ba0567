"""Run every fuzzer with many examples and print how many ran and what crashed.

`python -m bench.fuzz_all [--examples 10000] [--only NAME ...] [--json out.json]`

The targets and strategies are the test suite's (tests/unit/test_fuzz_*.py); here a crash does
not stop the run: each distinct crash (exception type + where it was raised) is counted and one
reproducing input is saved under `bench/results/fuzz_crashes/`, so a long run reports all of them.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.unit import test_fuzz_loaders as L  # noqa: E402
from tests.unit import test_fuzz_targets as T  # noqa: E402

CRASH_DIR = ROOT / "bench" / "results" / "fuzz_crashes"


class Crashes:
    def __init__(self) -> None:
        self.kinds: Counter = Counter()
        self.first: dict[str, str] = {}

    def record(self, target: str, exc: BaseException, sample: bytes | str) -> None:
        tb = traceback.extract_tb(exc.__traceback__)
        frame = next((f for f in reversed(tb) if "/compaction/" in f.filename or "/restore/" in f.filename),
                     tb[-1] if tb else None)
        where = f"{Path(frame.filename).name}:{frame.lineno}" if frame else "?"
        key = f"{target}: {type(exc).__name__} at {where}"
        self.kinds[key] += 1
        if key not in self.first:
            self.first[key] = f"{type(exc).__name__}: {str(exc)[:300]}"
            CRASH_DIR.mkdir(parents=True, exist_ok=True)
            name = "".join(c if c.isalnum() else "_" for c in key)[:120]
            data = sample if isinstance(sample, bytes) else sample.encode("utf-8", "surrogatepass")
            (CRASH_DIR / name).write_bytes(data)


def run_loaders(examples: int, only: set[str], crashes: Crashes) -> dict[str, int]:
    counts = {}
    for fmt in sorted(L.SEEDS):
        if only and fmt not in only:
            continue

        def on_example(forced, path, blob, fmt=fmt):
            try:
                L.check_loader(forced, path)
            except AssertionError as exc:
                crashes.record(f"loader {fmt}", exc, blob)
            except Exception as exc:  # noqa: BLE001 - that is what we count
                crashes.record(f"loader {fmt}", exc, blob)

        with tempfile.TemporaryDirectory() as d:
            start, t0 = L.COUNTS[fmt], time.perf_counter()
            L.fuzz_loader(fmt, Path(d), examples, on_example)()
            counts[f"loader:{fmt}"] = L.COUNTS[fmt] - start
            print(f"loader {fmt:16} {counts[f'loader:{fmt}']:>7} examples  {time.perf_counter() - t0:7.1f} s",
                  flush=True)
    return counts


def run_targets(examples: int, only: set[str], crashes: Crashes) -> dict[str, int]:
    counts = {}
    for name, make in T.TARGETS.items():
        if only and name not in only:
            continue

        def on_crash(exc, sample, name=name):
            crashes.record(name, exc, sample)

        with tempfile.TemporaryDirectory() as d:
            start, t0 = T.COUNTS[name], time.perf_counter()
            make(Path(d), examples, on_crash)()
            counts[name] = T.COUNTS[name] - start
            print(f"{name:23} {counts[name]:>7} examples  {time.perf_counter() - t0:7.1f} s", flush=True)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=10_000, help="examples per target (default 10,000)")
    ap.add_argument("--only", nargs="*", default=[], help="loader format names or target names")
    ap.add_argument("--memory-mb", type=int, default=3072, help="address-space limit of this process")
    ap.add_argument("--json", type=Path, help="write the counts and crashes here")
    args = ap.parse_args(argv)
    # a runaway allocation becomes a MemoryError (counted as a crash), not the OOM killer on a shared host
    resource.setrlimit(resource.RLIMIT_AS, (args.memory_mb * 2**20, resource.RLIM_INFINITY))
    only = set(args.only)
    crashes = Crashes()
    counts = run_loaders(args.examples, only, crashes)
    counts.update(run_targets(args.examples, only, crashes))
    print(f"\ntotal examples: {sum(counts.values())} over {len(counts)} targets; "
          f"minimum per target: {min(counts.values(), default=0)}")
    if crashes.kinds:
        print(f"distinct crashes: {len(crashes.kinds)} (inputs in {CRASH_DIR})")
        for key, n in crashes.kinds.most_common():
            print(f"  {n:>6}x {key}\n          {crashes.first[key]}")
    else:
        print("crashes: none")
    if args.json:
        args.json.write_text(json.dumps({"counts": counts, "crashes": dict(crashes.kinds),
                                         "first": crashes.first}, indent=2), encoding="utf-8")
    return 1 if crashes.kinds else 0


if __name__ == "__main__":
    raise SystemExit(main())
