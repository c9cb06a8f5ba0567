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


def test_an_option_labeled_as_one_counts_though_it_names_nothing_to_run():
    """The preferred option is often the one with nothing in backticks ("更稳妥：bump the version"); a
    label that says safer or recommended weighs the answer as a recommendation."""
    answer = ("可能是之前的发布把条目写进了 tlog。针对这种情况：\n"
              "- 先用 `npm view pkg versions --json` 确认这个版本确实不存在。\n"
              "- 临时绕过：加 `--provenance=false` 重新发布。\n"
              "- 更稳妥：改一个新的版本号再发。\n"
              "- Purpose: explain the error.\n")
    t = steps_transcript("npm publish fails", Message(0, Role.ASSISTANT, answer))
    (fact,) = advice_facts(FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds)))
    assert "更稳妥：改一个新的版本号再发。" in fact.text and "Purpose" not in fact.text
    assert fact.score >= 44


def test_an_items_closing_lead_into_a_nested_list_is_dropped():
    answer = ("- 如果确实没有，说明之前的 `npm publish` 失败了。针对这种情况：\n"
              "  - 临时绕过：加 `--provenance=false` 重新发布。\n")
    (text,) = _facts(Message(0, Role.ASSISTANT, answer))
    assert "失败了。;" in text and "针对这种情况" not in text


def test_a_described_layout_is_no_set_of_options():
    answer = ("Here is how the `auth` service is laid out:\n- Gateway: routes `/login` to the service.\n"
              "- Hotfix: the branch `hotfix/auth` holds the patch.\n- Quick summary: tokens live in `redis`.\n"
              "- Not recommended: restart `auth` by hand.\n")
    t = steps_transcript("how is auth laid out?", Message(0, Role.ASSISTANT, answer))
    (fact,) = advice_facts(FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds)))
    assert fact.score < 44  # lists what is, prefers nothing
