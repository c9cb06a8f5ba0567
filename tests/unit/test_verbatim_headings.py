"""A message shown verbatim keeps its headings below the round's own (`### rN`): an assistant's `## Run
Command` read as one of the document's sections (pi-trl-grpo-smoke's tail had three). A tool's output or a
command holding a fenced block is shown in a longer fence, so its block does not close ours."""

from __future__ import annotations

from compaction.history import compact
from compaction.mdsafe import demoted, fence_for
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


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


def test_a_fence_is_longer_than_any_the_text_opens_a_line_with() -> None:
    assert fence_for("plain output") == "```"
    assert fence_for("README written:\n```bash\nmake\n```\n## Usage") == "````"
    assert fence_for("   `````\ninline ``` is no fence") == "``````"


def test_an_output_holding_a_fenced_block_stays_inside_its_own() -> None:
    written = "Saved README.md:\n```bash\nmake demo\n```\n## Usage\nRun it."
    msgs = [Message(0, Role.USER, "write the readme")]
    for i in range(12):
        msgs.append(Message(len(msgs), Role.ASSISTANT, f"step {i}",
                            tool_calls=[ToolCall("bash", {"command": f"echo {i}"}, f"c{i}", ToolKind.SHELL,
                                                 command=f"echo {i}")]))
        msgs.append(Message(len(msgs), Role.TOOL, "", tool_results=[ToolResult(written if i == 11 else "ok", f"c{i}")]))
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    md = compact(t, target_tokens=2000).markdown
    assert "````text\nSaved README.md:" in md
    assert not any(line.startswith("## Usage") for line in md.split("````text")[0].splitlines())
    inside = md.split("````text\nSaved README.md:")[1].split("\n````")[0]
    assert "## Usage" in inside  # the output's heading is inside the block, not a section of the document


def test_setext_and_indented_headings_and_a_fence_with_an_info_string_inside_one() -> None:
    text = "Results\n=======\n  ## indented\n```\nx\n```python\ny\n```\n## after\ntext\n---"
    assert demoted(text, 3) == ("Results\n\n=======\n  ##### indented\n```\nx\n```python\ny\n```\n##### after\n"
                                "text\n\n---")
    assert demoted("---\n---\nmore", 3) == "\n---\n---\nmore"  # not under the speaker's label; a rule after a rule
