"""Compaction time against one tiktoken encode of the same text, per real session (all 30 under
../shared/transcripts and more-agents/), and the median: issue 13's speed target (median ≤ 3×).

    python -m bench.speed_sessions [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench.handover import shared_transcripts
from bench.speed import time_one

HERE = Path(__file__).resolve().parent
SKIP = {"GROUND_TRUTH.jsonl", "README.md", "MANIFEST.tsv"}


def sessions(root: Path) -> list[Path]:
    found = [p for folder in (root, root / "more-agents") for p in sorted(folder.iterdir())
             if p.is_file() and p.name not in SKIP and p.suffix in (".json", ".jsonl", ".md", ".traj")]
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.speed_sessions", description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "speed_sessions.txt")
    args = ap.parse_args(argv)
    lines, ratios, end_to_end = [], [], []
    for path in sessions(shared_transcripts()):
        r = time_one(path, repeats=args.repeats)
        ratios.append(r["ratio_compact"])
        end_to_end.append(r["ratio_end_to_end"])
        lines.append(f"{path.name:55s} {r['tokens']:>8} tokens  compact/encode {r['ratio_compact']:.2f}  "
                     f"(load+compact)/encode {r['ratio_end_to_end']:.2f}")
        print(lines[-1], flush=True)
    lines.append(f"sessions {len(ratios)}; median compact/encode {statistics.median(ratios):.2f}; "
                 f"median (load+compact)/encode {statistics.median(end_to_end):.2f}")
    print(lines[-1])
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
