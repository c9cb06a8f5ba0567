"""A terminal screen the user pasted (a TUI's framed box) is a paste, not the user's words: a request's
short form keeps the user's own asks, and the box's sentences become no constraint of theirs."""

from __future__ import annotations

from compaction.events import EventKind, extract_events, users_words
from compaction.history.sources import FactContext
from compaction.history.sources.decisions import decision_facts
from compaction.history.sources.task import shorten_request
from compaction.history.steering import role_preset
from compaction.model import Message, Role, Transcript, group_rounds

BOX = "\n".join(["╭" + "─" * 60 + "╮",
                 "│ Step 2: Team Roster                              Selected: 0 │",
                 "│ │ 1. [ ] generalist (local)                                 │ │",
                 "│ │    A general-purpose agent. Use this to keep the main session history lean. │ │",
                 "│ │    Invoke this tool for tasks like vague requests and bug root-cause analysis. │ │",
                 "╰" + "─" * 60 + "╯"])
REQUEST = ("- Please stop grouping build & commit BUT first see below\n"
           "- \"Tab to toggle List/Action\" doesn't feel like the right verbiage to finalize agent selection.\n"
           "- maybe we drop the borders around the agent selection box:\n\n" + BOX + "\n")


def test_a_pasted_screen_is_not_condensed_into_the_users_asks():
    short = shorten_request(REQUEST, 200)
    assert "Tab to toggle List/Action" in short
    assert "Invoke this tool" not in short and "Use this to keep" not in short


def test_a_pasted_screens_sentences_are_not_the_users_constraints():
    assert "Use this to keep" not in users_words(REQUEST) and "drop the borders" in users_words(REQUEST)
    msgs = [Message(0, Role.USER, REQUEST), Message(1, Role.ASSISTANT, "Done.")]
    events = extract_events(Transcript("s.jsonl", "t", msgs, group_rounds(msgs)))
    said = [e.text for e in events if e.kind is EventKind.CONSTRAINT]
    assert not any("Use this to keep" in s or "Invoke this tool" in s for s in said)
    t = Transcript("s.jsonl", "t", msgs, group_rounds(msgs))
    decided = decision_facts(FactContext(t, events, [], role_preset("developer"), None, len(t.rounds)))
    assert not any("Use this to keep" in f.text for f in decided)  # a "keep" sentence of the screen's
