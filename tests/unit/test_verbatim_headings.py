"""A message shown verbatim keeps its headings below the round's own (`### rN`): an assistant's `## Run
Command` read as one of the document's sections (pi-trl-grpo-smoke's tail had three)."""

from __future__ import annotations

from compaction.history import compact
from compaction.mdsafe import demoted
from compaction.model import Message, Role, Transcript, group_rounds


def test_headings_go_below_the_round_and_code_blocks_stay_as_written() -> None:
    text = "## Run Command\n```bash\n# install\npip install .\n```\n### What it does:\n#not-a-heading\n~~~\n## kept\n~~~"
    assert demoted(text, 3) == ("##### Run Command\n```bash\n# install\npip install .\n```\n###### What it does:\n"
                                "#not-a-heading\n~~~\n## kept\n~~~")
    assert demoted("no headings here", 3) == "no headings here"


def test_a_compacted_documents_sections_are_its_own() -> None:
    report = "## ✅ Both Smoke Tests Passed\n\n### GRPO baseline — 3 steps in 37.7s\n\nDone."
    msgs = [Message(0, Role.USER, "run the smoke tests " + "and report the timings " * 40)]
    for i in range(14):
        msgs.append(Message(len(msgs), Role.ASSISTANT, f"step {i}: " + "working on it " * 30))
        msgs.append(Message(len(msgs), Role.USER, f"continue {i}"))
    msgs.append(Message(len(msgs), Role.ASSISTANT, report))
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    md = compact(t, target_tokens=600).markdown
    sections = [line for line in md.splitlines() if line.startswith("## ")]
    assert not any("Smoke Tests" in line for line in sections)  # the message's heading is not a section
    assert "##### ✅ Both Smoke Tests Passed" in md  # the last round is shown, its heading below `### r15`
