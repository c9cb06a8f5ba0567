"""bench.handover_gaps: which exam terms a document lacks, the budget that brings them, where the session says them."""

from __future__ import annotations

import json

from bench.handover_gaps import gaps, main


def test_a_term_kept_is_no_gap_and_a_term_the_session_never_says_is_told_apart(tmp_path, shared_transcripts):
    exam = {"transcript": "sweagent-pydicom-1458.traj", "questions": [
        {"id": "q01", "category": "changes", "position": 0.5, "question": "Which file changed?",
         "answer": "numpy_handler.py", "key_terms": ["numpy_handler.py", "zzqx never said"]}]}
    qfile = tmp_path / "sweagent-pydicom-1458.json"
    qfile.write_text(json.dumps(exam), encoding="utf-8")
    (gap,) = gaps(qfile, [0.10, 0.70])
    assert gap.term == "zzqx never said" and not gap.in_session and gap.first_budget is None and gap.said_in == []
    assert main(["--questions", str(tmp_path), "--budgets", "0.1", "0.7"]) == 0
