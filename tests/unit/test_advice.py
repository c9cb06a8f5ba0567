"""What the agent advised when it only answered (sources/advice.py): the items of an answer's lists that
name something to run or set, in a round with no tool call; a round that used tools, or a list that
names nothing to run, gives none."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.advice import advice_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript

ANSWER = ("An earlier publish wrote the tlog entry. You can:\n"
          "- Quick workaround: publish with `--provenance=false` (no tlog entry).\n"
          "- Safer: bump to a new version in `package.json`.\n"
          "- Give npm support the UUID `108e9186` to clear the entry.\n"
          "- Wait a day.\n")


def _facts(*steps) -> list[str]:
    t = steps_transcript("npm publish fails with TLOG_CREATE_ENTRY_ERROR, I never published it", *steps)
    return [f.text for f in advice_facts(FactContext(t, extract_events(t), [], role_preset("developer"), None,
                                                     len(t.rounds)))]


def test_an_answer_only_round_keeps_the_options_it_gave():
    (text,) = _facts(Message(0, Role.ASSISTANT, ANSWER))  # the answer to the opening question
    assert text.startswith("Advised: Quick workaround: publish with `--provenance=false` (no tlog entry).; Safer: bump")
    assert "UUID `108e9186`" in text and "Wait a day" not in text  # nothing to run or set in it


def test_a_round_with_tool_calls_or_a_plain_list_gives_none():
    call = (make_call("Bash", {"command": "npm view pkg versions"}, "a"), ToolResult("[]", "a"))
    assert _facts(call, Message(0, Role.ASSISTANT, ANSWER)) == []  # a report after tool work
    assert _facts(Message(0, Role.ASSISTANT, "You can:\n- wait\n- retry later\n")) == []


def test_a_list_inside_a_code_block_is_code_not_advice():
    diff = ("Remove the two flags:\n```diff\n- parser.add_argument(\"--legacy-mode\")\n"
            "- parser.add_argument(\"--fast\")\n```\n")
    assert _facts(Message(0, Role.ASSISTANT, diff)) == []
