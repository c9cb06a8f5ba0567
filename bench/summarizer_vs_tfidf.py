"""Our extractive summarizer vs the seed's plain TF-IDF sentence picker, at the same token budget.

For every real transcript in ../shared/transcripts (or $COMPACTION_SHARED/transcripts), both
summarize the whole conversation text to the same budget; we count how many ground-truth facts
survive — files the final patch modified (GROUND_TRUTH.jsonl), the task's words (its opening
words), error identifiers (exception names raised in the transcript) — and time both.

The baseline is seed 000 §1's code reimplemented without scikit-learn: split on '. ', score each
sentence by the sum of its TF-IDF weights (sklearn defaults: `\\b\\w\\w+\\b` tokens, lower case,
smoothed idf, l2 norm), take the top sentences in original order. At a token budget "top-n"
means: best first, each sentence taken if it still fits (otherwise the seed would often pick
nothing, its best "sentences" being whole tool outputs).

Usage: .venv/bin/python bench/summarizer_vs_tfidf.py [--budget 1000 --budget 3000] [--json]
Exit 1 when ours keeps fewer facts of any kind than the baseline at any budget.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from compaction import tokens as tok
from compaction.atomic import write_text_atomic
from compaction.lexical import STOPWORDS
from compaction.summarize import extractive
from compaction.transcripts import load_transcript

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("COMPACTION_SHARED") or REPO.parent / "shared") / "transcripts"
SKIP = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}


# ---- the seed's picker, without sklearn/numpy

_SK_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def seed_tfidf_pick(text: str, budget: int) -> str:
    sentences = text.split(". ")
    docs = [_SK_TOKEN.findall(s.lower()) for s in sentences]
    n = len(docs)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(set(d))
    idf = {t: math.log((1 + n) / (1 + f)) + 1 for t, f in df.items()}
    scores = []
    for d in docs:
        tf = Counter(d)
        vec = [c * idf[t] for t, c in tf.items()]
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        scores.append(sum(v / norm for v in vec))
    costs = tok.count_many(sentences)
    chosen, used = [], 0
    for i in sorted(range(n), key=lambda i: -scores[i]):
        if used + costs[i] + 1 <= budget:
            chosen.append(i)
            used += costs[i] + 1
    out = ". ".join(sentences[i] for i in sorted(chosen))
    while tok.count(out) > budget and chosen:  # settle exactly, like ours
        chosen.remove(min(chosen, key=lambda i: scores[i]))
        out = ". ".join(sentences[i] for i in sorted(chosen))
    return out


# ---- ground-truth facts

_RAISED = re.compile(r"^\s*(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception))\b:", re.M)


def facts_for(text: str, gt: dict) -> dict[str, list[str]]:
    files = list(gt.get("modified_files_from_final_patch") or [])
    words = []
    for w in re.findall(r"[A-Za-z][A-Za-z_]{3,}", gt.get("task_excerpt") or ""):
        lw = w.lower()
        if lw not in STOPWORDS and lw not in words:
            words.append(lw)
    errors = sorted(set(_RAISED.findall(text)))
    return {"modified_files": files, "task_words": words, "error_ids": errors}


def survived(summary: str, facts: dict[str, list[str]]) -> dict[str, int]:
    low = summary.lower()
    return {
        "modified_files": sum(1 for f in facts["modified_files"] if f in summary),
        "task_words": sum(1 for w in facts["task_words"] if re.search(rf"\b{re.escape(w)}\b", low)),
        "error_ids": sum(1 for e in facts["error_ids"] if e in summary),
    }


def timed(fn, *args, repeat: int = 3):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, action="append", help="token budget(s); default 1000 and 3000")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    budgets = args.budget or [1000, 3000]
    gt = {json.loads(line)["file"]: json.loads(line) for line in (SHARED / "GROUND_TRUTH.jsonl").read_text().splitlines()
          if line.strip()}
    files = sorted(p for p in SHARED.iterdir() if p.is_file() and p.name not in SKIP)
    rows = []
    for path in files:
        t = load_transcript(path)
        text = "\n\n".join(m.full_text() for m in t.messages)
        facts = facts_for(text, gt.get(path.name, {}))
        n = tok.count(text)
        for budget in budgets:
            ours, t_ours = timed(lambda t=text, b=budget: extractive(t, b).text, repeat=args.repeat)
            base, t_base = timed(seed_tfidf_pick, text, budget, repeat=args.repeat)
            rows.append({
                "file": path.name, "tokens": n, "budget": budget,
                "facts": {k: len(v) for k, v in facts.items()},
                "ours": {"tokens": tok.count(ours), "seconds": round(t_ours, 4), **survived(ours, facts)},
                "seed_tfidf": {"tokens": tok.count(base), "seconds": round(t_base, 4), **survived(base, facts)},
            })
    kinds = ["modified_files", "task_words", "error_ids"]
    ok = True
    print(f"{'file':<36}{'budget':>7}  {'files o/s/all':>14} {'task o/s/all':>14} {'errors o/s/all':>15} "
          f"{'ms ours':>8} {'ms seed':>8}")
    for r in rows:
        cells = [f"{r['ours'][k]}/{r['seed_tfidf'][k]}/{r['facts'][k]}" for k in kinds]
        print(f"{r['file']:<36}{r['budget']:>7}  {cells[0]:>14} {cells[1]:>14} {cells[2]:>15} "
              f"{r['ours']['seconds'] * 1000:>8.1f} {r['seed_tfidf']['seconds'] * 1000:>8.1f}")
        assert r["ours"]["tokens"] <= r["budget"] and r["seed_tfidf"]["tokens"] <= r["budget"]
    print()
    summary = {}
    for budget in budgets:
        sel = [r for r in rows if r["budget"] == budget]
        tot = {k: (sum(r["ours"][k] for r in sel), sum(r["seed_tfidf"][k] for r in sel), sum(r["facts"][k] for r in sel))
               for k in kinds}
        speed = (sum(r["ours"]["seconds"] for r in sel), sum(r["seed_tfidf"]["seconds"] for r in sel))
        worse = [(r["file"], k) for r in sel for k in kinds if r["ours"][k] < r["seed_tfidf"][k]]
        summary[budget] = {"totals": tot, "seconds": speed, "per_file_worse": worse}
        line = ", ".join(f"{k} ours {o} vs seed {s} of {a}" for k, (o, s, a) in tot.items())
        print(f"budget {budget}: {line}; time ours {speed[0]:.2f}s vs seed {speed[1]:.2f}s "
              f"(ratio {speed[0] / speed[1]:.2f}); files where ours keeps fewer of a kind: {len(worse)}")
        if any(o < s for o, s, _ in tot.values()):
            ok = False
    out = REPO / "bench" / "results" / "summarizer_vs_tfidf.json"
    write_text_atomic(out, json.dumps({"rows": rows, "summary": {str(k): v for k, v in summary.items()}}, indent=2))
    print(f"wrote {out.relative_to(REPO)}; {'PASS' if ok else 'FAIL'}: ours keeps at least as many facts of every kind")
    if args.json:
        print(json.dumps(summary, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
