"""The 30 exam sessions' documents at 5, 10 and 20% of their tokens, with their hashes, key-term recall and
budget use: what an engine change alters, before any reader sees it.

    python -m bench.handover_documents OUTDIR

Writes OUTDIR/p5|p10|p20/<session>.md and OUTDIR/HASHES, and prints key-term recall at 10% and budget use for
the development and the set-aside sessions apart (`SET_ASIDE`: never read or tuned against)."""

from __future__ import annotations

import hashlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench.handover import _norm, shared_transcripts, term_found

HANDOVER = Path(__file__).resolve().parent / "handover"
QUESTION_DIRS = ("questions", "questions-fresh", "questions-fresh2", "questions-fresh3", "questions-fresh4")
SET_ASIDE = frozenset({"mini-sphinx-9258", "oh-mapstruct-3492", "cc-speakfree-vscode", "pi-trl-grpo-smoke",
                       "antigravity-applysense", "gemini-cli-agent-teams", "cline-export-image-describer2",
                       "cline-export-pip-module", "specstory-cursor-chefchopsky-e2e"})
PERCENTS = (5, 10, 20)


def question_files() -> list[Path]:
    return sorted(q for d in QUESTION_DIRS for q in (HANDOVER / d).glob("*.json"))


def _document(job: tuple[Path, int]) -> tuple[Path, int, str, int, int]:
    from compaction import tokens
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    qfile, pct = job
    t = load_transcript(str(shared_transcripts() / json.loads(qfile.read_text())["transcript"]))
    target = max(1, tokens.count_messages(t.messages) * pct // 100)
    md = compact(t, target_tokens=target).markdown
    return qfile, pct, md, tokens.count(md), target


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    hashes: list[str] = []
    terms = {"development": [0, 0], "set aside": [0, 0]}
    budget: dict[str, list[float]] = {"development": [], "set aside": []}
    with ProcessPoolExecutor(2) as pool:
        for qfile, pct, md, n, target in pool.map(_document, [(q, p) for q in question_files() for p in PERCENTS]):
            sid = qfile.name.split(".")[0]
            (out / f"p{pct}").mkdir(parents=True, exist_ok=True)
            (out / f"p{pct}" / f"{sid}.md").write_text(md, encoding="utf-8")
            hashes.append(f"{hashlib.sha1(md.encode()).hexdigest()[:12]} p{pct}/{sid}")
            part = "set aside" if sid in SET_ASIDE else "development"
            budget[part].append(n / target)
            if pct == 10:
                doc = _norm(md)
                for q in json.loads(qfile.read_text())["questions"]:
                    for term in q["key_terms"]:
                        terms[part][0] += term_found(term, doc)
                        terms[part][1] += 1
    (out / "HASHES").write_text("\n".join(sorted(hashes, key=lambda h: h.split()[1])) + "\n", encoding="utf-8")
    for part, (found, total) in terms.items():
        print(f"{part}: key terms {found}/{total} ({100 * found / total:.1f}%), "
              f"budget {100 * min(budget[part]):.1f}-{100 * max(budget[part]):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
