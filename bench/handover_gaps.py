"""Where the hand-over exam's answers go missing: for every key term of every question, whether the
session's own text holds it, the smallest budget whose document holds it, and where the session says it
(the user's or the agent's words, a call's arguments, a tool's result).

Why: a term the document lacks even at a generous budget (70% of the session's tokens) is an extraction
gap, not a selection one: a reader that never looks at a tool's arguments (pi's `oldText`), a file text an
agent double-encoded, a plan said inside a call. Every extraction fix of the second 2026-12-02 session came
from this list; the terms that only a larger budget brings are the selection gap.

    python -m bench.handover_gaps [--questions DIR ...] [--budgets 0.1 0.2 0.7] [--only ID ...]

Development material only: never run it on sessions set aside for an exam (it prints their questions).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.handover import QUESTIONS, _norm, shared_transcripts, term_found
from bench.harness import transcript_text
from compaction import tokens
from compaction.model import Transcript
from compaction.transcripts import load_transcript


@dataclass
class Gap:
    session: str
    question: str
    category: str
    term: str
    in_session: bool
    first_budget: float | None  # the smallest budget whose document holds the term, None when none does
    said_in: list[str]  # where the session holds it: `12 assistant text`, `12 assistant call:write`, `13 tool result`


def where(transcript: Transcript, term: str) -> list[str]:
    """The messages holding `term` (case- and space-insensitive), with the part of each that does."""
    wanted = _norm(term).strip()
    out = []
    for m in transcript.messages:
        role = str(m.role.value if hasattr(m.role, "value") else m.role)
        if wanted in _norm(m.text or ""):
            out.append(f"{m.index} {role} text")
        for call in m.tool_calls:
            if wanted in _norm(json.dumps(call.arguments, ensure_ascii=False)):
                out.append(f"{m.index} {role} call:{call.kind}")
        for result in m.tool_results:
            if wanted in _norm(result.content if isinstance(result.content, str) else str(result.content)):
                out.append(f"{m.index} {role} result")
    return out


def gaps(qfile: Path, budgets: list[float]) -> list[Gap]:
    """The key terms of one exam file that the document at the first budget lacks."""
    from compaction.history import compact

    exam = json.loads(qfile.read_text(encoding="utf-8"))
    t = load_transcript(str(shared_transcripts() / exam["transcript"]))
    before = tokens.count_messages(t.messages)
    session = _norm(transcript_text(t))
    docs = {b: _norm(compact(t, target_tokens=max(1, int(before * b))).markdown) for b in budgets}
    out = []
    for q in exam["questions"]:
        for term in q["key_terms"]:
            if term_found(term, docs[budgets[0]]):
                continue
            first = next((b for b in budgets if term_found(term, docs[b])), None)
            out.append(Gap(qfile.stem, q["id"], q["category"], term, term_found(term, session), first,
                           where(t, term)[:6]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.handover_gaps", description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=Path, nargs="*", default=[QUESTIONS], help="exam question folders")
    ap.add_argument("--budgets", type=float, nargs="*", default=[0.10, 0.20, 0.40, 0.70],
                    help="shares of the session's tokens, the exam's first (default 0.1 0.2 0.4 0.7)")
    ap.add_argument("--only", nargs="*", help="session ids")
    args = ap.parse_args(argv)
    budgets = sorted(args.budgets)
    found = []
    for folder in args.questions:
        for qfile in sorted(folder.glob("*.json")):
            if args.only and qfile.stem not in args.only:
                continue
            found += gaps(qfile, budgets)
    never = [g for g in found if g.in_session and g.first_budget is None]
    later = [g for g in found if g.first_budget is not None]
    print(f"terms missing at {budgets[0]:.0%}: {len(found)}; brought by a larger budget: {len(later)}; "
          f"in the session but in no document (extraction gaps): {len(never)}; not in the session's text: "
          f"{sum(1 for g in found if not g.in_session)}")
    for title, rows in (("extraction gaps (no budget brings them)", never), ("selection gaps", later)):
        print(f"\n## {title}")
        for g in rows:
            budget = f" at {g.first_budget:.0%}" if g.first_budget is not None else ""
            print(f"- {g.session} {g.question} {g.category}{budget}: `{g.term}` — {'; '.join(g.said_in) or '?'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
