"""What the events read as the agent's choices (issue 14 item 4): a choice and the reason said right after
it, a mini-swe-agent's "I should use X", and the same choices said in Chinese, the seed's language."""

from __future__ import annotations

from compaction.events import EventKind, extract_events
from compaction.model import Message, Role, Transcript, group_rounds


def test_a_choice_keeps_the_reason_said_right_after_it():
    """"I should use X. It already handles Y." — the second sentence is why: it goes with the choice
    (a mini-swe-agent thought; "I should check …" is no choice, "I should not have …" a regret)."""
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.sources.registry import FactContext
    from compaction.history.steering import role_preset

    said = ("I should use `_parse_annotation` which I saw earlier. It already handles `|` (BitOr) and returns "
            "a list of nodes.\n\nI should check the tests next.\n\nI should not have started without the design docs.")
    msgs = [Message(0, Role.USER, "support `bytes | str` in :type: fields"), Message(1, Role.ASSISTANT, said)]
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    events = extract_events(t)
    assert [e.text for e in events if e.kind is EventKind.DECISION] == [
        "I should use `_parse_annotation` which I saw earlier."]
    ctx = FactContext(t, events, [], role_preset("developer"), None, len(t.rounds))
    texts = [f.text for f in decision_facts(ctx)]
    assert any("`_parse_annotation`" in x and x.endswith("It already handles `|` (BitOr) and returns a list of nodes.")
               for x in texts), texts


def test_a_choice_said_in_chinese_is_a_decision_with_its_reason():
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.sources.registry import FactContext
    from compaction.history.steering import role_preset

    said = ("### 5. Bot 过滤三层\n你对。\n- 砍掉 LLM counterfactual narrative，因为 LLM 会 sycophantic，而且不可验证。\n"
            "- 全选按钮放在右上角")
    msgs = [Message(0, Role.USER, "看一下这个方案"), Message(1, Role.ASSISTANT, said)]
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    events = extract_events(t)
    decided = [e.text for e in events if e.kind is EventKind.DECISION]
    assert decided == ["- 砍掉 LLM counterfactual narrative，因为 LLM 会 sycophantic，而且不可验证。"]
    ctx = FactContext(t, events, [], role_preset("developer"), None, len(t.rounds))
    fact = next(f for f in decision_facts(ctx) if "砍掉" in f.text)
    assert fact.score >= 38  # a reasoned choice (因为): above a bare one


def test_a_reasoned_choice_said_only_in_the_agents_reasoning_is_a_decision():
    """Claude's thinking blocks, Gemini's thoughts: what the agent chose and why is often said only there
    ("I should copy, not move, the JSONL since Claude Code is still writing it")."""
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.sources.registry import FactContext
    from compaction.history.steering import role_preset

    reply = Message(1, Role.ASSISTANT, "Moving the source now.")
    reply.meta["thinking"] = ["The user wants it in the workbench. I should copy the JSONL rather than move it, "
                              "since Claude Code is still writing to it."]
    msgs = [Message(0, Role.USER, "move openwisprmod into ~/Code/workbench"), reply]
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    assert "I should copy the JSONL rather than move it, since Claude Code is still writing to it." in \
        [f.text for f in decision_facts(ctx)]


def test_an_alternative_weighed_with_its_downside_is_a_decision():
    """mini-swe-agent's reasoning weighs ways and rules them out by their consequence ("If I modify
    `TypedField` in `sphinx/util/docfields.py`, it will affect all domains using `TypedField`."): the answer
    to "why there, not in TypedField"; a way weighed as a fix ("that might fix it") rules nothing out."""
    from compaction.history.sources.decisions import _weighed

    text = ("The `TypedField` class seems generic. If I modify `TypedField` in `sphinx/util/docfields.py`, it will "
            "affect all domains using `TypedField`. If I modify `resolve_lookup_value` to force evaluation, that "
            "might fix it. If you want, I can also add tests.")
    assert _weighed(text) == ["If I modify `TypedField` in `sphinx/util/docfields.py`, it will affect all domains "
                              "using `TypedField`."]


def test_a_way_weighed_as_working_is_no_downside():
    from compaction.history.sources.decisions import _weighed

    assert _weighed("If I add the missing import to utils.py, it will work again. If we change the default timeout, "
                    "the tests will no longer fail. If I use the cache here, it would not break anything.") == []
    assert _weighed("If I change line 401 to always try IDNA encoding, it might be too heavy or have side effects.") \
        == ["If I change line 401 to always try IDNA encoding, it might be too heavy or have side effects."]


def test_a_downside_is_told_apart_from_one_denied():
    from compaction.history.sources.decisions import _weighed

    said = ["If I change the schema, it will mean old configs won't load.",
            "If I change the parser, it will not only break the CLI but the API."]
    denied = ["If I change it, it will have no side effects.", "If I change it, it will work without breaking callers."]
    assert [s for s in said + denied if _weighed(s)] == said
