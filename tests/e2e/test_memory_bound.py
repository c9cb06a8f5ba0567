"""Memory is bounded by the messages kept, not by the records read (issue 15): a session of
1,000,000 tiny records (~67 MB) compacts to a document in a process limited to 1 GiB of address
space (`RLIMIT_AS`), where it used to end in a MemoryError traceback. Peak RSS and time are
printed by `bench/large_input.py` (not asserted here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.large_input import generate_tiny
from tests.conftest import REPO

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from compaction.cli import main
sys.exit(main(["compact", sys.argv[1], "-o", sys.argv[2]]))
"""


@pytest.mark.slow
def test_a_million_tiny_records_compact_under_a_1_gib_limit(tmp_path: Path) -> None:
    src = tmp_path / "tiny.jsonl"
    info = generate_tiny(src, 1_000_000)
    assert 60 * 2**20 < info["bytes"] < 80 * 2**20
    out = tmp_path / "summary.md"
    run = subprocess.run([sys.executable, "-c", LIMITED, str(src), str(out)], capture_output=True, text=True,
                         cwd=REPO, timeout=590)
    assert "MemoryError" not in run.stderr and run.returncode == 0, run.stderr[-2000:]
    doc = out.read_text(encoding="utf-8")
    assert doc.startswith("# Compacted conversation") and "500000 rounds" in doc
    assert "now fix bug 999998" in doc  # the latest request is the current goal
