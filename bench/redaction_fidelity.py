"""Fidelity with secret redaction on and off: the evaluation harness (bench/harness.py) run twice,
the engine's retention per fact class and budget compared. Redaction must not cost a fact.

`python -m bench.redaction_fidelity [--only NAME ...]` prints the comparison and writes
bench/results/redaction_fidelity.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from compaction.transcripts import load_transcript  # noqa: E402


def _run(transcripts: Path, only: list[str] | None, redact: bool) -> dict:
    harness.load_transcript = functools.partial(load_transcript, redact=redact)
    try:
        return harness.run(transcripts, only=only, timing=False, log=lambda *a: None)
    finally:
        harness.load_transcript = load_transcript


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transcripts", type=Path, default=ROOT.parent / "shared" / "transcripts")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "redaction_fidelity.json")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    off = _run(args.transcripts, args.only, redact=False)
    on = _run(args.transcripts, args.only, redact=True)
    redactions = {}
    for p in sorted(args.transcripts.iterdir()):
        if p.name in {n for n in off["copies"]}:
            redactions[p.name] = load_transcript(p).meta.get("redactions", {})
    rows, same = [], True
    for key in sorted(k for k in off["aggregate"] if k.startswith("ours@")):
        a, b = off["aggregate"][key], on["aggregate"][key]
        per_class = {c: (a["classes"][c]["retained"], b["classes"][c]["retained"], a["classes"][c]["expected"])
                     for c in harness.CLASSES}
        diff = {c: v for c, v in per_class.items() if v[0] != v[1]}
        same = same and not diff and a["loss_total"] == b["loss_total"]
        rows.append({"budget": key, "loss_off": a["loss_total"], "loss_on": b["loss_total"],
                     "within_budget_off": a["within_budget"], "within_budget_on": b["within_budget"],
                     "retained_off_on_expected": per_class, "differences": diff})
        print(f"{key:8} loss off {a['loss_total']:.4f}  on {b['loss_total']:.4f}  "
              f"within budget {a['within_budget']}/{a['n']} vs {b['within_budget']}/{b['n']}  "
              f"{'identical' if not diff else 'DIFF ' + json.dumps(diff)}")
    print(f"redactions per transcript: { {k: v for k, v in redactions.items() if v} or 'none' }")
    print(f"fidelity with redaction on {'UNCHANGED' if same else 'CHANGED'} "
          f"({time.perf_counter() - t0:.0f} s)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "unchanged": same, "redactions": redactions}, indent=2) + "\n",
                        encoding="utf-8")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
