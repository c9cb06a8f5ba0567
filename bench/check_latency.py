"""`ErrorMemory.check` latency on a store of 1,000 records (target: median < 5 ms), plus the
classification throughput of `scan_transcript` on a ~1M-token transcript built from the real ones
(target: well under a second). Prints figures; asserts nothing.

    .venv/bin/python bench/check_latency.py [--records 1000] [--calls 300]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from compaction import tokens
from compaction.errors import ErrorMemory, scan_transcript
from compaction.errors.records import ErrorRecord, Location, Occurrence
from compaction.model import Transcript, group_rounds
from compaction.store import transaction
from compaction.transcripts import load_transcript

FAMILIES = ["PY", "TS", "TOOL", "LOGIC", "JAVA"]
NAMES = ["KeyError", "TypeError", "MissingProperty", "FileNotFound", "TestFailed", "CannotFindSymbol", "ValueError",
         "AttributeError", "EditNotFound", "SyntaxError"]


def fill(mem: ErrorMemory, n: int, rng: random.Random) -> None:
    """n synthetic records, each with 1-4 occurrences at plausible files, commands and symbols."""
    now = time.time()
    with transaction(mem.conn):
        for i in range(n):
            fam = FAMILIES[i % len(FAMILIES)]
            rec = ErrorRecord(f"ERR_{fam}_{NAMES[i % len(NAMES)]}{i}")
            for _ in range(rng.randint(1, 4)):
                path = f"src/pkg{rng.randint(0, 80)}/mod{rng.randint(0, 30)}.{'ts' if fam == 'TS' else 'py'}"
                cmd = rng.choice(["pytest tests/test_a.py", "python repro.py", "npx tsc --noEmit", f"python {path}"])
                rec.occurrences.append(Occurrence(round=rng.randint(1, 400), transcript=f"t{i % 7}",
                                                  evidence="boom", detail="boom",
                                                  location=Location(path, rng.randint(1, 500), f"fn{i % 50}", cmd)))
            rec.solution, rec.avoidance = "fixed", "check first"
            mem._upsert_record(rec, now, user=False)
            for occ in rec.occurrences:
                mem._put_occurrence(rec.id, occ, now)


def check_latency(n: int, calls: int) -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as ws, ErrorMemory(ws) as mem:
        fill(mem, n, rng)
        t0 = time.perf_counter()
        mem.check("warm-up", files=["src/pkg1/mod1.py"])
        cold = (time.perf_counter() - t0) * 1000
        samples = []
        hits = 0
        for _ in range(calls):
            files = [f"src/pkg{rng.randint(0, 80)}/mod{rng.randint(0, 30)}.py" for _ in range(rng.randint(1, 3))]
            cmds = [rng.choice(["pytest tests/test_a.py", "python repro.py", "npx tsc --noEmit", "ls"])]
            text = f"refactor fn{rng.randint(0, 60)} to avoid KeyError"
            t = time.perf_counter()
            warns = mem.check(text, files=files, commands=cmds, limit=3)
            samples.append((time.perf_counter() - t) * 1000)
            hits += bool(warns)
        samples.sort()
        print(f"check() on {len(mem.list())} records, {calls} calls: median {statistics.median(samples):.3f} ms, "
              f"p95 {samples[int(0.95 * len(samples)) - 1]:.3f} ms, max {samples[-1]:.3f} ms "
              f"(first call incl. index build {cold:.1f} ms; {hits}/{calls} calls warned) — target median < 5 ms")


def scan_throughput(shared: Path, target_tokens: int) -> None:
    folder = shared / "transcripts"
    skip = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
    parts = [load_transcript(p) for p in sorted(folder.iterdir()) if p.is_file() and p.name not in skip]
    msgs = []
    while True:
        for t in parts:
            for m in t.messages:
                msgs.append(m)
        chars = sum(len(m.full_text()) for m in msgs)
        if chars / 4 >= target_tokens:
            break
    big = Transcript("big.json", "synthetic", msgs, group_rounds(msgs))
    n_tokens = tokens.count_messages(msgs)
    t0 = time.perf_counter()
    records = scan_transcript(big)
    dt = time.perf_counter() - t0
    print(f"scan_transcript on {len(msgs)} messages / {len(big.rounds)} rounds / {n_tokens:,} tokens "
          f"({chars / 1e6:.1f} M chars): {dt:.3f} s, {len(records)} records — target well under 1 s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--tokens", type=int, default=1_000_000)
    ap.add_argument("--shared", default=os.environ.get("COMPACTION_SHARED") or
                    str(Path(__file__).resolve().parents[1].parent / "shared"))
    args = ap.parse_args()
    check_latency(args.records, args.calls)
    scan_throughput(Path(args.shared), args.tokens)
    return 0


if __name__ == "__main__":
    sys.exit(main())
