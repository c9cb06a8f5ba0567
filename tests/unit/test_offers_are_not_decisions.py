"""An offer to the user ("If you'd rather…, say the word and I'll…") is what the agent would do if asked:
never one of its decisions nor the reason for an edit (issue 14 item 4: decisions that are decisions)."""

from __future__ import annotations

from compaction.events import OFFER_RE, EventKind, extract_events
from compaction.model import Message, Role, Transcript, group_rounds


def test_an_offer_to_the_user_is_no_decision_nor_a_reason():
    offer = ("If you'd rather move the brief into its own `docs/visa.md` instead of inline in ROADMAP, "
             "say the word and I'll pull it out.")
    choice = "I'll keep the brief in `ROADMAP.md` instead of a new file because the ADRs link to it."
    for said in (offer, "Want me to also add a LICENSE file?", "Let me know if you want the tests too.",
                 "If you’d rather keep it inline, I'll leave it."):
        assert OFFER_RE.search(said), said
    assert not OFFER_RE.search(choice)
    msgs = [Message(0, Role.USER, "add the Visa brief"), Message(1, Role.ASSISTANT, f"{choice}\n\n{offer}")]
    decided = [e.text for e in extract_events(Transcript("t.json", "test", msgs, group_rounds(msgs)))
               if e.kind is EventKind.DECISION]
    assert decided == [choice]


def test_the_decisions_section_and_an_edits_reason_leave_the_offer_out():
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.sources.reasons import reasons
    from compaction.history.sources.registry import FactContext
    from compaction.history.steering import role_preset
    from compaction.model import ToolCall, ToolKind, ToolResult

    offer = ("If you'd rather move `visa_brief` into `docs/visa.md` instead of inline in ROADMAP, "
             "say the word and I'll pull `visa_brief` out because the ADRs link to it.")
    edit = ToolCall("Edit", {"file_path": "ROADMAP.md", "old_string": "## Phase 3", "new_string": "## Phase 3\nvisa_brief"},
                    "e", ToolKind.EDIT, path="ROADMAP.md")
    msgs = [Message(0, Role.USER, "add the Visa brief"),
            Message(1, Role.ASSISTANT, "Adding the brief.", tool_calls=[edit]),
            Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e", "Edit")]),
            Message(3, Role.ASSISTANT, offer)]
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    assert not [f for f in decision_facts(ctx) if "say the word" in f.text]
    assert not [r for r in reasons(ctx) if "say the word" in r.full]


def test_a_line_quoted_from_a_tools_output_is_no_decision():
    from compaction.events import QUOTED_OUTPUT_RE

    quoted = ("\"DeprecationWarning: Using or importing the ABCs from 'collections' instead of from "
              "'collections.abc' is deprecated since Python 3.3\"")
    bare = "DeprecationWarning: Using or importing the ABCs from 'collections' instead of from 'collections.abc'"
    choice = "I'll return `NotImplemented` instead of `False` so that the reflected `__eq__` is tried."
    for said in (quoted, bare, f"`{bare}`", "ValueError: use int instead of str"):
        assert QUOTED_OUTPUT_RE.match(said), said
    for said in (choice, "Warning: I'll keep the old API instead of breaking callers.",
                 "Error: handling goes in `load()` rather than in `parse()`.", "`load()` instead of `parse()`."):
        assert not QUOTED_OUTPUT_RE.match(said), said
    assert not QUOTED_OUTPUT_RE.match("“Keep it simple” was the user's word: I'll use a dict instead of a class.")
    msgs = [Message(0, Role.USER, "fix the comparison"),
            Message(1, Role.ASSISTANT, f"The run failed with exceptions:\n{quoted}\n\n{choice}")]
    decided = [e.text for e in extract_events(Transcript("t.json", "test", msgs, group_rounds(msgs)))
               if e.kind is EventKind.DECISION]
    assert decided == [choice]
