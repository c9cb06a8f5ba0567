"""Summarize a graded hand-over exam run: per document kind, overall, per category, early/late
(position < 0.75 or not) and per session, the exam's set-aside sessions apart.

The grader writes `RUN/grades/<session>.json`:
`{"grades": [{"id": "q01", "scores": {"A": 1, "B": 0.5, …}, "confident_wrong": ["B"]}]}`, seeing
only the references and the blinded answers; the letters are mapped back to kinds here, after.

    python -m bench.handover_grades RUN --references DIR --mapping FILE [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from bench.handover import CATEGORIES, exam_set_aside

Cell = list[float]  # [points, questions]


def collect(run: Path, references: Path, mapping: dict[str, str]) -> dict[str, dict[str, dict[str, Cell]]]:
    """kind -> group ("all", category, "early", "late", "session:<id>", "wrong") -> cell, per set."""
    letter_kind = {letter: kind for kind, letter in mapping.items()}
    set_aside = exam_set_aside()
    out: dict[str, dict[str, dict[str, Cell]]] = {
        part: defaultdict(lambda: defaultdict(lambda: [0.0, 0])) for part in ("development", "set-aside")}
    for gfile in sorted((run / "grades").glob("*.json")):
        sid = gfile.name.split(".")[0]
        refs = {q["id"]: q for q in json.loads((references / f"{sid}.json").read_text(encoding="utf-8"))["questions"]}
        part = "set-aside" if sid in set_aside else "development"
        for g in json.loads(gfile.read_text(encoding="utf-8"))["grades"]:
            q = refs[g["id"]]
            for letter, score in g["scores"].items():
                kind = letter_kind.get(letter, letter)
                groups = ["all", q["category"], "early" if q["position"] < 0.75 else "late", f"session:{sid}"]
                for group in groups:
                    cell = out[part][kind][group]
                    cell[0] += float(score)
                    cell[1] += 1
            for letter in g.get("confident_wrong", []):
                out[part][letter_kind.get(letter, letter)]["wrong"][0] += 1
    return out


def _pct(cell: Cell) -> str:
    return f"{100 * cell[0] / cell[1]:.0f}%" if cell[1] else "–"


def render(summary: dict[str, dict[str, dict[str, Cell]]]) -> str:
    lines: list[str] = []
    for part, kinds in summary.items():
        if not kinds:
            continue
        sessions = sorted({g.split(":", 1)[1] for k in kinds.values() for g in k if g.startswith("session:")})
        lines += [f"### {part} sessions ({len(sessions)})", "",
                  "| document | all | " + " | ".join(CATEGORIES) + " | first 75% | last 25% | confident wrong |",
                  "|---|---|" + "---|" * len(CATEGORIES) + "---|---|---|"]
        for kind in sorted(kinds):
            g = kinds[kind]
            lines.append(f"| {kind} | {_pct(g['all'])} | " + " | ".join(_pct(g[c]) for c in CATEGORIES)
                         + f" | {_pct(g['early'])} | {_pct(g['late'])} | {int(g['wrong'][0])} |")
        lines += ["", "| session | " + " | ".join(sorted(kinds)) + " |", "|---|" + "---|" * len(kinds)]
        for sid in sessions:
            lines.append(f"| {sid} | " + " | ".join(_pct(kinds[k][f'session:{sid}']) for k in sorted(kinds)) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.handover_grades", description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--references", type=Path, required=True)
    ap.add_argument("--mapping", type=Path, required=True, help="blind_mapping.json (kind -> letter)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    text = render(collect(args.run, args.references, json.loads(args.mapping.read_text(encoding="utf-8"))))
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
