"""Key-term recall of the hand-over exam: a deterministic stand-in between graded runs.

The graded exam (../shared/tools/handover-exam/) has separate assistants answer questions from one
document each and a blind grader score them; that is the measure. Between graded runs this script
tells whether a change to the engine keeps what the answers need: for every exam question, the
share of its key terms that each document names (case-insensitive substring match).

Documents: `ours` (the compaction at 10% of the session's tokens), `recent` (the most recent
tokens at the same budget) and `anchor` (an LLM-written summary in Claude Code's /compact layout at
the same budget, committed under bench/handover/anchor/). Sessions set aside for the exam
(bench/holdout/SET_ASIDE.md) are reported apart.

    python -m bench.handover [--budget 0.10] [--write-docs DIR] [--only ID ...] [--questions DIR]

`--questions DIR` scores another set of exam questions (`bench/handover/questions-fresh/`: a second exam
on five sessions the hand-over was not built against, written after the engine was).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bench import baselines
from bench.harness import transcript_text
from compaction import tokens
from compaction.transcripts import load_transcript

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "handover" / "questions"
ANCHORS = HERE / "handover" / "anchor"
SET_ASIDE_FILE = HERE / "holdout" / "SET_ASIDE.md"
CATEGORIES = ("task", "changes", "errors", "state", "decisions", "next")
KINDS = ("ours", "recent", "anchor")


def shared_transcripts() -> Path:
    import os

    env = os.environ.get("COMPACTION_SHARED")
    root = Path(env) if env else HERE.parent.parent / "shared"
    return root / "transcripts"


def exam_set_aside() -> set[str]:
    """Session ids listed under the hand-over exam's heading of SET_ASIDE.md."""
    text = SET_ASIDE_FILE.read_text(encoding="utf-8")
    section = text.split("## Issue 14", 1)[-1].split("\n## ", 1)[0]  # that heading's section only
    return {Path(m).name.split(".")[0] for m in re.findall(r"`([^`]+\.(?:json|jsonl|md|traj))`", section)}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold())


def term_found(term: str, doc_norm: str) -> bool:
    return _norm(term).strip() in doc_norm


@dataclass
class SessionScore:
    session: str
    set_aside: bool
    target: int
    doc_tokens: dict[str, int] = field(default_factory=dict)
    # kind -> category -> (found, total)
    recall: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    error: str | None = None


def documents(transcript_path: Path, budget: float) -> tuple[int, dict[str, str]]:
    from compaction.history import compact

    t = load_transcript(str(transcript_path))
    before = tokens.count_messages(t.messages)
    target = max(1, int(before * budget))
    ours = compact(t, target_tokens=target).markdown
    recent = baselines.recent(transcript_text(t), target)
    return target, {"ours": ours, "recent": recent}


def score_session(qfile: Path, budget: float, set_aside: set[str], write_docs: Path | None) -> SessionScore:
    exam = json.loads(qfile.read_text(encoding="utf-8"))
    sid = qfile.name.split(".")[0]
    score = SessionScore(sid, sid in set_aside, 0)
    try:
        target, docs = documents(shared_transcripts() / exam["transcript"], budget)
    except Exception as exc:  # an unreadable session is a row with its reason, not a crash
        score.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        return score
    score.target = target
    anchor = ANCHORS / f"{sid}.md"
    if anchor.exists():
        docs["anchor"] = anchor.read_text(encoding="utf-8")
    for kind, doc in docs.items():
        score.doc_tokens[kind] = tokens.count(doc)
        doc_norm = _norm(doc)
        per_cat = {c: [0, 0] for c in CATEGORIES}
        for q in exam["questions"]:
            cell = per_cat[q["category"]]
            for term in q["key_terms"]:
                cell[0] += term_found(term, doc_norm)
                cell[1] += 1
        score.recall[kind] = per_cat
        if write_docs is not None:
            (write_docs / kind).mkdir(parents=True, exist_ok=True)
            (write_docs / kind / f"{sid}.md").write_text(doc, encoding="utf-8")
    return score


def _pct(found: int, total: int) -> str:
    return f"{100 * found / total:.1f}%" if total else "–"


def table(scores: list[SessionScore], title: str) -> list[str]:
    rows = [s for s in scores if s.error is None]
    lines = [f"### {title} ({len(rows)} sessions)", "",
             "| document | all | " + " | ".join(CATEGORIES) + " | budget used |",
             "|---|---|" + "---|" * len(CATEGORIES) + "---|"]
    for kind in KINDS:
        have = [s for s in rows if kind in s.recall]
        if not have:
            continue
        cats = {c: [sum(s.recall[kind][c][0] for s in have), sum(s.recall[kind][c][1] for s in have)]
                for c in CATEGORIES}
        found = sum(v[0] for v in cats.values())
        total = sum(v[1] for v in cats.values())
        used = [s.doc_tokens[kind] / s.target for s in have if s.target]
        use = f"{100 * min(used):.0f}–{100 * max(used):.0f}%" if used else "–"
        lines.append(f"| {kind} | {_pct(found, total)} | " + " | ".join(_pct(*cats[c]) for c in CATEGORIES)
                     + f" | {use} |")
    return lines


def per_session(scores: list[SessionScore]) -> list[str]:
    lines = ["| session | set aside | target | " + " | ".join(f"{k} recall (tokens)" for k in KINDS) + " |",
             "|---|---|---|" + "---|" * len(KINDS)]
    for s in scores:
        if s.error:
            lines.append(f"| {s.session} | {'yes' if s.set_aside else ''} | not read: {s.error} |" + " |" * len(KINDS))
            continue
        cells = []
        for kind in KINDS:
            if kind not in s.recall:
                cells.append("–")
                continue
            found = sum(v[0] for v in s.recall[kind].values())
            total = sum(v[1] for v in s.recall[kind].values())
            cells.append(f"{_pct(found, total)} ({s.doc_tokens[kind]})")
        lines.append(f"| {s.session} | {'yes' if s.set_aside else ''} | {s.target} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.handover", description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=0.10, help="share of the session's tokens (default 0.10)")
    ap.add_argument("--only", nargs="*", help="session ids")
    ap.add_argument("--write-docs", type=Path, help="write each document under DIR/<kind>/<session>.md")
    ap.add_argument("--out", type=Path, default=None,
                    help="where the table goes (default bench/results/handover_recall.md for the main set)")
    ap.add_argument("--questions", type=Path, default=QUESTIONS, help="the exam's question files")
    args = ap.parse_args(argv)
    set_aside = exam_set_aside()
    files = sorted(args.questions.glob("*.json"))
    if args.out is None:
        name = "handover_recall.md" if args.questions.resolve() == QUESTIONS else f"handover_recall_{args.questions.name}.md"
        args.out = HERE / "results" / name
    if args.only:
        files = [f for f in files if f.name.split(".")[0] in args.only]
    scores = [score_session(f, args.budget, set_aside, args.write_docs) for f in files]
    dev = [s for s in scores if not s.set_aside]
    held = [s for s in scores if s.set_aside]
    lines = [f"## Hand-over exam: key-term recall at {args.budget:.0%} of each session's tokens", ""]
    lines += table(dev, "Development sessions") + [""]
    if held:
        lines += table(held, "Set-aside sessions (reported apart)") + [""]
    lines += per_session(scores)
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.only:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
