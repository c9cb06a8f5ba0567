"""Findings round by round (issue 14 item 2) and decisions that are decisions (item 4)."""

from __future__ import annotations

import re

import pytest

from compaction.events import extract_events
from compaction.history import compact
from compaction.history.harness import detect, shouting
from compaction.history.sections import Section
from compaction.history.sources import FactContext
from compaction.history.sources.decisions import SCOPE_RE, decision_facts
from compaction.history.sources.findings import Finding, collect, hierarchical_levels, timeline
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolResult, Transcript
from compaction.transcripts import load_transcript
from compaction.transcripts._agent_tools import make_call
from tests.conftest import TRANSCRIPTS
from tests.unit.synthetic import transcript as _transcript


def _ctx(t: Transcript, target: int = 4000) -> FactContext:
    return FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=target)


def test_agent_diagnoses_and_command_outcomes_form_a_dated_timeline():
    t = _transcript([
        Message(0, Role.USER, "the cache test hangs"),
        Message(0, Role.ASSISTANT, "Let me run the tests.", tool_calls=[make_call("Bash", {"command": "pytest -q"}, "a")]),
        Message(0, Role.TOOL, "", tool_results=[ToolResult(
            "F.\nE   RuntimeError: Event loop is closed\n=== 1 failed, 1 passed in 0.2s ===", "a", exit_code=1)]),
        Message(0, Role.ASSISTANT, "The root cause is that the test reuses one Redis client across event loops. "
                                   "I ruled out key-repeat because the keys are unique per test. Let me fix it."),
    ])
    found = collect(t)
    texts = [f.text for f in found]
    assert any(x.startswith("`pytest -q` → 1 failed, 1 passed") and "RuntimeError: Event loop is closed" in x
               for x in texts)
    assert any("reuses one Redis client" in x for x in texts)
    assert any("ruled out key-repeat" in x for x in texts)
    assert not any(x.startswith("Let me") for x in texts)  # a plan, not a finding
    assert [f.round for f in found] == sorted(f.round for f in found)


def test_hierarchical_levels_keep_half_then_forty_then_a_quarter_percent():
    items = [Finding(i, f"finding {i}", float(i % 7)) for i in range(40)]
    levels = hierarchical_levels(items)
    assert [len(level) for level in levels] == [40, 20, 8, 2]
    assert all(set(map(id, b)) <= set(map(id, a)) for a, b in zip(levels, levels[1:], strict=False))
    assert [f.round for f in levels[2]] == sorted(f.round for f in levels[2])  # still in order


def test_a_tight_budget_merges_older_rounds_into_phases_that_say_what_they_stand_for():
    findings = [Finding(r, f"The problem is number {r} in module m{r} which means the parser breaks", 50.0)
                for r in range(1, 61)]
    roomy = timeline(findings, 100_000)
    assert len(roomy) == 60 and all(not f.text.startswith("Phase") for f in roomy)
    tight = timeline(findings, 600)
    phases = [f for f in tight if f.text.startswith("Phase")]
    assert phases and all(f.essential and f.short for f in phases)
    # each phase: the findings it shows (each with its round) and how many others it left out
    counted = sum(len(re.findall(r" \(r\d+\)", f.text.split("left out: ", 1)[-1]))
                  + int(m.group(1) if (m := re.search(r", (\d+) other findings? left out: ", f.text)) else 0)
                  for f in phases)
    singles = [f for f in tight if not f.text.startswith("Phase")]
    assert counted + len(singles) == 60  # never silently dropped
    assert all(f.section is Section.FINDINGS for f in tight)


def test_harness_rules_are_elided_with_one_line_and_user_constraints_stay():
    opening = ("<pr_description>\nThe export must keep the CSV header. Do not change the public API of the exporter "
               "module, it is used by two other services in production.\n</pr_description>\n<instructions>\n"
               "Your response must contain exactly one bash block. You should never run interactive editors.\n"
               "</instructions>")
    t = _transcript([
        Message(0, Role.USER, opening),
        Message(0, Role.ASSISTANT, "I'll keep the writer streaming instead of buffering because the files are large."),
        Message(0, Role.USER, "Please make sure the tests still pass. YOU MUST ONLY ENTER ONE COMMAND AT A TIME."),
        Message(0, Role.ASSISTANT, "ok"),
    ])
    texts = [f.text for f in decision_facts(_ctx(t))]
    assert any("Do not change the public API" in x for x in texts)  # the user's constraint, inside the request
    assert any("instead of buffering because" in x for x in texts)  # a choice with its reason
    assert not any("exactly one bash block" in x or "ONE COMMAND" in x for x in texts)
    assert any(x.startswith("Harness and system-prompt rules (") for x in texts)
    assert shouting("Remember, YOU CAN ONLY ENTER ONE COMMAND AT A TIME.")
    assert not shouting("Use the HTTP API to fetch the JSON")


@pytest.mark.parametrize("name", ["sweagent-pydicom-1458.traj", "mini-django-13297.traj.json",
                                  "oh-ponyc-4593.json"])
def test_real_harness_boilerplate_is_not_a_decision(name):
    t = load_transcript(TRANSCRIPTS / name)
    facts = decision_facts(_ctx(t))
    texts = [f.text for f in facts]
    assert texts[-1].startswith("Harness and system-prompt rules")
    # A harness's procedural rules are elided; a rule about what the work may change binds a successor and stays.
    assert not any(shouting(x) and not SCOPE_RE.search(x) for x in texts[:-1]), texts
    assert not any("ONE COMMAND AT A TIME" in x or "EXACTLY ONE" in x for x in texts)
    if name.startswith("mini-django"):
        assert "DO NOT MODIFY: Tests, configuration files (pyproject.toml, setup.cfg, etc.)" in texts
        # a binding limit is chosen ahead of the agent's own choices (reader review 59: one harness's sessions
        # kept it, another's lost it to room)
        (rule,) = [f for f in facts if f.text.startswith("DO NOT MODIFY")]
        assert rule.rank() < Section.DECISIONS.priority, rule.rank()
    assert detect(t).template  # the opening message was recognised as a template


def test_findings_on_a_real_session_reach_the_document():
    t = load_transcript(TRANSCRIPTS / "sweagent-pydicom-1458.traj")
    md = compact(t, target_tokens=6000).markdown
    section = md.split("## Findings (round by round)", 1)[1].split("\n## ", 1)[0]
    # what the reproduction showed, in the findings; the command's raw output line is not repeated once
    # the error memory quotes its message and another finding says what it meant (said once)
    r4 = [ln for ln in section.splitlines() if "(r4)" in ln]
    assert r4 and "`AttributeError`" in r4[0] and "reproduced the bug" in r4[0]
    assert "AttributeError: Unable to convert the pixel data as the following required elements are missing" in md
    assert "`python reproduce_bug.py`" in md


def test_the_answer_to_a_users_question_is_a_finding_and_a_reasoned_choice_a_decision():
    t = _transcript([
        Message(0, Role.USER, "nice. is it truly random? i need to reason about it"),
        Message(0, Role.ASSISTANT, "`Math.random()` is a seeded pseudo-random generator, deterministic after seeding. "
                                   "I'll swap to `crypto.getRandomValues()`, which pulls from the OS entropy pool."),
        Message(0, Role.USER, "ok"),
        Message(0, Role.ASSISTANT, "Done."),
    ])
    found = [f.text for f in collect(t)]
    assert found[0].startswith("Asked “is it truly random?”: `Math.random()` is a seeded pseudo-random generator")
    decisions = [f.text for f in decision_facts(_ctx(t))]
    # A switch keeps the sentence that says what was wrong with the old way: its reason.
    assert any(d.startswith("`Math.random()` is a seeded pseudo-random generator, deterministic after seeding. "
                            "I'll swap to `crypto.getRandomValues()`, which pulls") for d in decisions)


def test_sentences_around_keywords_skip_code_and_stay_whole():
    from compaction.history.sentences import prose, sentences_around

    text = prose("Intro line.\n```\nthe bug is in code\n```\nSo the bug is a race. Next we go. Unclosed ```x bug")
    assert "in code" not in text and "Unclosed" in text and "x bug" not in text
    assert sentences_around(text, ("bug",)) == ["So the bug is a race."]


def test_a_harness_label_opening_a_reply_is_no_part_of_its_prose():
    """mini-swe-agent's replies open with `THOUGHT:`; a decision or the last words quoted from one read
    "Stopped: THOUGHT: `idna` rejects IPv6 literals…" (mini-requests)."""
    from compaction.history.sentences import prose

    text = "THOUGHT: `idna` rejects IPv6 literals. I cannot apply it blindly.\n\n```bash\ngit status\n```\n"
    assert prose(text).startswith("`idna` rejects IPv6 literals.") and "git status" not in prose(text)
    assert prose("The THOUGHT: section is required.") == "The THOUGHT: section is required."  # only an opening label


def test_markup_is_left_out_but_a_tag_that_never_closes_is_text():
    """A harness's wrapper tags go, a tag named in a sentence is said in words; a placeholder (`<id>`) or a
    type argument (`MachineContext<any>`) never closes: it is the text's own."""
    from compaction.history.facts import without_tags

    text = "<issue_description>\nBug\n</issue_description>\nthe files described in the <issue_description>. Done"
    assert without_tags(text) == "\nBug\n\nthe files described in the issue description. Done"
    assert without_tags("Run `gccli event <id>` </b>") == "Run `gccli event <id>` "
    assert without_tags("基类“Component<UserDefinedContext, MachineContext<any>>”") == "基类“Component<UserDefinedContext, MachineContext<any>>”"
    # a harness's snake_case tag is markup though the piece read holds only its mention (SWE-agent's boilerplate)
    assert without_tags("read code relevant to the <pr_description>. Then") == "read code relevant to the pr description. Then"
    jsx = "The `<DatePicker>` closes early:\n<DatePicker open>\n</DatePicker>"
    assert without_tags(jsx) == jsx  # a JSX component is code, whatever closes


def test_a_kept_line_without_its_own_stop_is_ended_apart_from_the_next():
    """chefchopsky-playbook r11: "Could not find file" then "`docs/x.md` — deleted" read as "Could not find file
    `docs/x.md` — deleted", the opposite of what happened."""
    from compaction.history.sources.findings import informative

    said = informative(["Could not find file\n\n- `docs/playbook/org.md` — deleted\n- `.cursorrules` — already removed"], 400)
    assert said == "Could not find file; `docs/playbook/org.md` — deleted; `.cursorrules` — already removed"


def test_a_types_parameters_are_no_markup_to_strip():
    """aider-monochromatic r33: `Promise<Set<unknown>>` read as `Promise<Set >`."""
    from compaction.history.sources.findings import informative

    said = informative(["<thinking>plan</thinking>It returns `Promise<Set<unknown>>` from MaybeAsyncIterable<unknown>[] input."], 400)
    assert "Promise<Set<unknown>>" in said and "MaybeAsyncIterable<unknown>[]" in said and "thinking" not in said


def test_a_new_file_in_the_submission_named_like_the_removed_scratch_files_is_flagged():
    from compaction.history.sources.current import _scratch_kin

    assert _scratch_kin("reproduce_ne.py", {"reproduce_issue.py", "check_ne.py"}) == "reproduce_issue.py"
    assert _scratch_kin("sympy/core/numbers.py", {"reproduce_issue.py"}) is None
    assert _scratch_kin("reproduce_ne.sh", {"reproduce_issue.py"}) is None  # another kind of file
