#!/usr/bin/env python3
"""Prepare a blind exam of two engines' documents (as session 63 ran exam 61): copy the 30 sessions' questions,
blind the two kinds of documents with ../../../../shared/tools/handover-exam/blind.py, and write one prompt per
answerer (each letter, four groups of sessions) and per grader (each group, both letters) from the templates here.

    python bench/handover/exam_kit/prepare.py EXAMDIR NEW_DOCS_DIR OLD_DOCS_DIR [--seed N]

The documents are `make_documents`' OUTDIR/p10 of each engine. Then start the eight answerers, then the four
graders, each a separate blind assistant given only its prompt, and summarize with analyze.py EXAMDIR."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

KIT = Path(__file__).resolve().parent
HANDOVER = KIT.parent
QUESTION_DIRS = ("questions", "questions-fresh", "questions-fresh2", "questions-fresh3", "questions-fresh4")
GROUPS = 4


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("exam")
    ap.add_argument("new")
    ap.add_argument("old")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--blind", default=str(HANDOVER.parent.parent.parent / "shared/tools/handover-exam/blind.py"))
    a = ap.parse_args()
    exam = Path(a.exam).resolve()
    questions = exam / "questions"
    questions.mkdir(parents=True, exist_ok=True)
    for d in QUESTION_DIRS:
        for f in (HANDOVER / d).glob("*.json"):
            shutil.copy(f, questions / f.name)
    subprocess.run([sys.executable, a.blind, "--questions", str(questions), "--docs", f"new={a.new}", f"old={a.old}",
                    "--out", str(exam / "run")] + (["--seed", str(a.seed)] if a.seed is not None else []), check=True)
    letters = sorted(json.loads((exam / "run" / "blind_mapping.json").read_text()).values())
    sessions = sorted(p.stem for p in (exam / "run" / "exam").glob("*.json"))
    groups = [sessions[i::GROUPS] for i in range(GROUPS)]
    answer = (KIT / "answerer_prompt.txt").read_text().replace("RUN_PARENT", str(exam)).replace("examNN", exam.name)
    grade = (KIT / "grader_prompt.txt").read_text().replace("RUN_PARENT", str(exam)).replace("examNN", exam.name)
    prompts = exam / "prompts"
    prompts.mkdir(exist_ok=True)
    for letter in letters:
        for i, group in enumerate(groups):
            (prompts / f"answer_{letter}{i}.txt").write_text(
                answer.replace("@SESSIONS@", ", ".join(group)).replace("@LETTER@", letter).replace("@N@", str(i)))
    scores = ", ".join(f'"{letter}": 1' for letter in letters)
    for i, group in enumerate(groups):
        (prompts / f"grade_{i}.txt").write_text(
            grade.replace("@SESSIONS@", ", ".join(group)).replace("@LETTERS@", " and ".join(letters))
            .replace("@SCORES@", scores).replace("@N@", str(i)))
    print(f"{len(sessions)} sessions, letters {letters}; prompts in {prompts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
