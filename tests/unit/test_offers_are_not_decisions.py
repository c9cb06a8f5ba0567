"""An offer to the user ("If you'd rather…, say the word and I'll…") is what the agent would do if asked:
never one of its decisions nor the reason for an edit (issue 14 item 4: decisions that are decisions)."""

from __future__ import annotations

from compaction.events import OFFER_RE, EventKind, extract_events
from compaction.model import Message, Role, Transcript, group_rounds


def test_an_offer_to_the_user_is_no_decision_nor_a_reason():
    offer = ("If you'd rather move the brief into its own `docs/visa.md` instead of inline in ROADMAP, "
             "say the word and I'll pull it out.")
    choice = "I'll keep the brief in `ROADMAP.md` instead of a new file because the ADRs link to it."
    for said in (offer, "Want me to also add a LICENSE file?", "Let me know if you want the tests too."):
        assert OFFER_RE.search(said), said
    assert not OFFER_RE.search(choice)
    msgs = [Message(0, Role.USER, "add the Visa brief"), Message(1, Role.ASSISTANT, f"{choice}\n\n{offer}")]
    decided = [e.text for e in extract_events(Transcript("t.json", "test", msgs, group_rounds(msgs)))
               if e.kind is EventKind.DECISION]
    assert decided == [choice]
