#!/usr/bin/env python3
"""Summarize a blind exam prepared by prepare.py: each kind's score overall, per category and per set
(development, set aside), confident wrong answers, and every answer the two kinds' readers were graded apart on.

    python bench/handover/exam_kit/analyze.py EXAMDIR"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.handover_documents import SET_ASIDE  # noqa: E402

CATEGORIES = ("task", "changes", "errors", "state", "decisions", "next")


def main(exam: Path) -> int:
    run = exam / "run"
    kind_of = {letter: kind for kind, letter in json.loads((run / "blind_mapping.json").read_text()).items()}
    cells: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    wrong: Counter[str] = Counter()
    apart = []
    for gfile in sorted((run / "grades").glob("*.json")):
        sid = gfile.stem
        ref = {q["id"]: q for q in json.loads((run / "references" / f"{sid}.json").read_text())["questions"]}
        part = "aside" if sid in SET_ASIDE else "dev"
        for g in json.loads(gfile.read_text())["grades"]:
            cat = ref[g["id"]]["category"]
            for letter, score in g["scores"].items():
                for key in ("all", cat, part, f"{part}:{cat}"):
                    cells[(kind_of[letter], key)][0] += float(score)
                    cells[(kind_of[letter], key)][1] += 1
            wrong.update(kind_of[letter] for letter in g.get("confident_wrong", []))
            by_kind = {kind_of[letter]: score for letter, score in g["scores"].items()}
            if len(set(by_kind.values())) > 1:
                apart.append((sid, g["id"], cat, by_kind, g.get("note", "")[:200]))

    def pct(kind: str, key: str) -> str:
        points, n = cells[(kind, key)]
        return f"{100 * points / n:.1f}" if n else "-"

    for kind in sorted({k for k, _ in cells}):
        print(f"{kind}: {pct(kind, 'all')}% ({cells[(kind, 'all')][0]}/{cells[(kind, 'all')][1]}); "
              + ", ".join(f"{c} {pct(kind, c)}" for c in CATEGORIES)
              + f"; development {pct(kind, 'dev')}, set aside {pct(kind, 'aside')}; confident wrong {wrong[kind]}")
        for part in ("dev", "aside"):
            print(f"  {part}: " + ", ".join(f"{c} {pct(kind, part + ':' + c)}" for c in CATEGORIES))
    print(f"{len(apart)} answers graded apart")
    for row in apart:
        print("  ", row)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
