"""An earlier session's summary carried into a user message (sources/carried.py): its headed bullet
lists are read as sections, one line each; a structured request the task section shows is not."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext
from compaction.history.sources.carried import carried_facts, summary_parts
from compaction.history.steering import role_preset
from tests.unit.synthetic import steps_transcript

SUMMARY = """policy rules wired)
- Oracle staleness check deferred: it needs on-chain RPC lookups; oracle_staleness_slots reserved
- Token authority detection uses the first-byte discriminator
Next Steps
- Commit and push all changes with credit to Daemon Tech
- Tag release for the submission
Critical Context
- All 66 tests pass
- Program ID: BaSZu123
"""
LOG = "\n".join(f"$ cargo build step {i}\n   Compiling crate_{i} v0.1.0" for i in range(400))


def _facts(text: str, target: int = 500, **meta) -> list:
    t = steps_transcript(text + LOG + "\nContinue please")
    t.messages[0].meta.update(meta)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=target)
    return carried_facts(ctx)


def test_a_pasted_report_is_read_by_its_sections_the_cut_off_opening_included():
    parts = summary_parts(SUMMARY)
    assert [p.heading for p in parts] == [None, "Next Steps", "Critical Context"]
    facts = _facts(SUMMARY)
    by = {f.section: f.text for f in facts}
    assert by[Section.NEXT].startswith("Earlier session's summary, Next Steps: Commit and push all changes with credit")
    assert "oracle_staleness_slots reserved" in next(f.text for f in facts if "Oracle" in f.text)
    assert any("All 66 tests pass; Program ID: BaSZu123" in f.text for f in facts)


def test_a_request_the_task_section_can_show_is_not_a_summary():
    assert _facts(SUMMARY, target=20000) == []  # the message is within what the task shows
    assert _facts(SUMMARY, target=20000, compact_summary=True)  # a harness's compaction summary always is
    assert summary_parts("Fix the parser.\nSteps\n- read it\n- fix it\n") == []  # one list: a request's


def test_a_carried_next_step_a_later_command_did_is_not_open():
    from compaction.model import ToolCall, ToolResult

    text = SUMMARY + LOG + "\nContinue please"
    commit = ToolCall("bash", {"command": 'git commit -m "feat: x\nCo-authored-by: Daemon Tech"'}, "c1", "shell",
                      command='git commit -m "feat: x\nCo-authored-by: Daemon Tech"')
    tag = ToolCall("bash", {}, "c2", "shell", command='git tag -a v1 -m "release for the submission"')
    t = steps_transcript(text, (commit, ToolResult("[main 1] feat", "c1")), (tag, ToolResult("", "c2")))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=500)
    facts = carried_facts(ctx)
    steps = next(f for f in facts if "Next Steps" in f.text)
    assert steps.section is Section.FINDINGS  # all done since: what the session was asked, not open work
    assert "Daemon Tech (done since, r1)" in steps.text and "submission (done since, r2)" in steps.text


CLAUDE_LAYOUT = ("Summary:\n1. Primary Request and Intent:\n   - Ship the parser fix\n   - Keep the public API\n\n"
                 "2. Key Technical Concepts:\n   - tokenizer states\n   - lookahead\n"
                 "3. Errors and fixes:\n   - off-by-one in the lexer: fixed by reading the next byte\n"
                 "4. Pending Tasks:\n   - Commit the change\n   - Tag the release\n")


def test_claude_codes_numbered_summary_is_read_by_its_sections():
    parts = summary_parts(CLAUDE_LAYOUT)
    assert [p.heading for p in parts] == ["Primary Request and Intent", "Key Technical Concepts",
                                          "Errors and fixes", "Pending Tasks"]
    assert parts[-1].items == ["Commit the change", "Tag the release"]


def test_bold_headings_are_headings():
    parts = summary_parts("**Done:**\n- parser fixed\n- tests pass\n\n**Next Steps:**\n- tag v1.2\n- push\n")
    assert [p.heading for p in parts] == ["Done", "Next Steps"]


def test_numbered_items_under_a_markdown_heading_are_its_list():
    text = ("## Decisions\n- Use sqlite\n- Keep API stable\n\n## Next Steps\n1. Update the config:\n"
            "   - set the timeout to 30s\n2. Run the tests:\n   - pytest tests/unit\n")
    parts = summary_parts(text)
    assert [p.heading for p in parts] == ["Decisions", "Next Steps"]
    assert len(parts[1].items) == 2


def test_reading_a_steps_file_does_not_do_the_step():
    from compaction.model import ToolCall, ToolResult

    text = SUMMARY + LOG + "\nContinue please"
    read = ToolCall("bash", {}, "c1", "shell", command="cat release/credits.md tag/submission.txt Daemon Tech")
    t = steps_transcript(text, (read, ToolResult("...", "c1")))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=500)
    steps = next(f for f in carried_facts(ctx) if "Next Steps" in f.text)
    assert "done since" not in steps.text


SNAPSHOT = """<state_snapshot>
    <overall_goal>
        Ship the "Agent Teams" feature.
    </overall_goal>
    <active_constraints>
        <constraint>Keep Apache-2.0 headers.</constraint>
        <constraint>Team selection MUST persist in .gemini/settings.json.</constraint>
    </active_constraints>
    <task_state>
        <!-- the plan -->
        <step status="DONE">Team registry</step>
        <step status="TODO">Wizard tests</step>
    </task_state>
</state_snapshot>"""


def test_an_xml_summary_is_read_by_its_elements():
    """Gemini CLI's <state_snapshot>: each element a section, its child elements its items (attributes first)."""
    parts = summary_parts(SNAPSHOT)
    assert [(p.heading, p.items) for p in parts] == [
        ("Overall goal", ['Ship the "Agent Teams" feature.']),
        ("Active constraints", ["Keep Apache-2.0 headers.", "Team selection MUST persist in .gemini/settings.json."]),
        ("Task state", ["[DONE] Team registry", "[TODO] Wizard tests"])]
    facts = _facts(SNAPSHOT + "\n", target=20000, carried_summary=True)
    by = {f.section: f.text for f in facts}
    assert "<constraint>" not in " ".join(f.text for f in facts)
    assert by[Section.DECISIONS].startswith("Earlier session's summary, Active constraints: Keep Apache-2.0 headers.")


def test_gemini_clis_session_context_and_snapshot_are_the_harness_words(tmp_path):
    import json

    from compaction.transcripts import load_transcript

    messages = [{"id": "1", "type": "user", "content": "<session_context>\nToday's date is Monday.\n</session_context>"},
                {"id": "2", "type": "user", "content": SNAPSHOT},
                {"id": "3", "type": "gemini", "content": "Got it. Thanks for the additional context!"},
                {"id": "4", "type": "user", "content": "agent teams shouldn't persist"},
                {"id": "5", "type": "gemini", "content": "Done."}]
    p = tmp_path / "session-1.json"
    p.write_text(json.dumps({"sessionId": "s", "projectHash": "h", "messages": messages}), encoding="utf-8")
    t = load_transcript(p)
    users = [m for m in t.messages if m.text.startswith(("<session_context>", "<state_snapshot>", "agent teams"))]
    assert [(m.harness, bool(m.meta.get("carried_summary"))) for m in users] == [(True, False), (True, True), (False, False)]


def test_a_carried_rule_the_user_later_denied_is_marked_overturned_first():
    from compaction.model import Message, Role
    summary = ("Active constraints\n- Keep the Apache-2.0 headers.\n- Team selection MUST persist in settings.json.\n"
               "- Always run the linter before a commit.\nNext Steps\n- Polish the wizard\n")
    t = steps_transcript(summary + LOG, Message(0, Role.ASSISTANT, "Continuing."),
                         Message(0, Role.USER, "agent teams shouldn't persist, ask me every boot"),
                         Message(0, Role.ASSISTANT, "Done."))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=500)
    rules = next(f.text for f in carried_facts(ctx) if f.section is Section.DECISIONS)
    assert rules.startswith("Earlier session's summary, Active constraints: OVERTURNED by the user (r2: “agent teams "
                            "shouldn't persist, ask me every boot”): Team selection MUST persist")
    assert rules.count("OVERTURNED") == 1  # the linter rule stands: nothing denied it


def test_a_carried_next_step_naming_a_file_the_session_then_edited_is_done():
    from compaction.model import ToolCall, ToolResult

    text = SUMMARY.replace("- Tag release for the submission", "- Update docs/custom-tools.md") + LOG + "\nContinue"
    edit = ToolCall("edit", {"path": "docs/custom-tools.md", "oldText": "a", "newText": "b"}, "e1", "edit",
                    path="docs/custom-tools.md")
    t = steps_transcript(text, (edit, ToolResult("Successfully replaced text", "e1")))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=500)
    steps = next(f for f in carried_facts(ctx) if "Next Steps" in f.text)
    assert "Update docs/custom-tools.md (done since, r1)" in steps.text, steps.text
