"""Time from an agent's compaction record being written to the `compaction/agentCompacted`
notification (issue 17: target < 2 s): a real server subprocess follows a Claude Code session;
each trial appends a compact boundary + summary record and waits for the notification.
Printed, never asserted. Run: `.venv/bin/python bench/agent_compaction_bench.py [--trials 5]`
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from agent_compaction_probe import measure  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        delays, _, _, _ = asyncio.run(measure(Path(tmp), trials=args.trials))
    print(f"agent compaction -> notification, {len(delays)} trials (ms): {', '.join(f'{d:.0f}' for d in delays)}")
    print(f"median {statistics.median(delays):.0f} ms, worst {max(delays):.0f} ms (target < 2000 ms)")


if __name__ == "__main__":
    main()
