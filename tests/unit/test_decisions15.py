"""Decisions with their reasons (issue 14, item 4): the user's preferences as the reason for what the
work left out, how a choice is carried out, why the agent stopped (its conclusion, not its earlier
guess), a review's conditional advice, the concern shared by proposed alternatives."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.decisions import decision_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, Transcript
from tests.unit.synthetic import transcript as _transcript


def _facts(t: Transcript) -> list[str]:
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=4000)
    return [f.text for f in decision_facts(ctx)]


def test_a_users_preference_in_a_request_is_a_constraint_said_as_the_users():
    t = _transcript([
        Message(0, Role.USER, "Audit the structure and give a checklist.\n\nConstraints:\n- Preserve the API shape.\n"
                              "- Avoid unnecessary implementation logic—focus on scaffolding and modular integrity."),
        Message(0, Role.ASSISTANT, "Here is the checklist."),
    ])
    texts = _facts(t)
    assert "User: Avoid unnecessary implementation logic—focus on scaffolding and modular integrity." in texts
    assert "User: Preserve the API shape." in texts


def test_a_descriptive_sentence_with_never_weighs_less_than_a_prohibition():
    t = _transcript([
        Message(0, Role.USER, "Defaults would be filled in later, but we never get that far.\nDo not change the "
                              "public API."),
        Message(0, Role.ASSISTANT, "ok"),
    ])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds))
    score = {f.text: f.score for f in decision_facts(ctx)}
    assert score["User: Do not change the public API."] > score["User: Defaults would be filled in later, but we "
                                                                  "never get that far."]


def test_a_choice_keeps_the_approach_that_carries_it_out_once():
    t = _transcript([
        Message(0, Role.USER, "refactor it"),
        Message(0, Role.ASSISTANT, "Okay, I will refactor the `unionAsync` function to avoid using `await` inside the "
                                   "loop.\n\nThe approach will be to map each iterable to a promise of its items. "
                                   "Then, `Promise.all` will await them concurrently. Finally, the arrays fill the "
                                   "`Set`. The comment will be removed."),
    ])
    texts = _facts(t)
    [line] = [x for x in texts if "unionAsync" in x]
    assert "Approach: map each iterable to a promise of its items." in line
    assert "`Promise.all` will await them concurrently" in line and "fill the `Set`" in line
    assert "The comment will be removed" not in line


def test_a_listed_approach_keeps_its_steps_without_the_chores():
    t = _transcript([
        Message(0, Role.USER, "process them at once"),
        Message(0, Role.ASSISTANT, "Okay, I will refactor the loop in `intersectAsync` to process iterables "
                                   "concurrently.\n\nThis involves:\n1.  Mapping the iterables to promises of sets.\n"
                                   "2.  Using `await Promise.all()` to convert them concurrently.\n"
                                   "3.  Removing the `//refactor this AI!` comment."),
    ])
    [line] = [x for x in _facts(t) if "intersectAsync" in x]
    assert "Approach: Mapping the iterables to promises of sets; Using `await Promise.all()`" in line
    assert "Removing" not in line


def test_a_stop_says_what_the_agent_concluded_and_which_guess_it_replaces():
    t = _transcript([
        Message(0, Role.USER, "reorder the lists in CONVENTIONS.md"),
        Message(0, Role.ASSISTANT, "The block for the list under \"# Rules:\" failed, likely because the markers in "
                                   "`CONVENTIONS.md` use two spaces."),
        Message(0, Role.USER, "try again"),
        Message(0, Role.ASSISTANT, "It appears the section \"# Rules:\" does not exist in `CONVENTIONS.md`. The file "
                                   "ends after the Markdown section. Therefore, I cannot provide a block for a "
                                   "non-existent section."),
    ])
    [line] = [x for x in _facts(t) if x.startswith("Stopped:")]
    assert "does not exist in `CONVENTIONS.md`. Therefore, I cannot provide" in line
    assert "(replaces r1's guess: likely because the markers" in line


def test_a_review_verdict_keeps_its_conditional_advice():
    t = _transcript([
        Message(0, Role.USER, "review the diff; should we restore old.mjs?"),
        Message(0, Role.ASSISTANT, "Based on these changes, the new `content` field is breaking.\n\nIf `old.mjs` was "
                                   "deleted unintentionally and is still needed, it should be restored. Otherwise, "
                                   "it can be ignored."),
    ])
    [line] = [x for x in _facts(t) if x.startswith("Concluded:")]
    assert line == ("Concluded: the new `content` field is breaking; If `old.mjs` was deleted unintentionally and is "
                    "still needed, it should be restored.")


def test_proposed_alternatives_keep_the_concern_that_applies_to_both():
    issue = ("The parser ignores parent defaults.\n\nTwo possibilities which spring to mind are\n\n"
             "1. add a back-reference in the child so that options() returns parent options\n"
             "2. don't return from parsing a sub command, but keep track of it\n\n"
             "both suggestions raise questions around duplicated options between the parent and child.\n")
    t = _transcript([Message(0, Role.USER, issue), Message(0, Role.ASSISTANT, "ok")])
    texts = _facts(t)
    [line] = [x for x in texts if x.startswith("Proposed:")]
    assert "1) add a back-reference in the child so…" in line and "2) don't return from parsing a sub…" in line
    assert line.endswith("— both suggestions raise questions around duplicated options between the parent and child.")
    assert not any("don't return from parsing" in x for x in texts if x is not line)  # said once, with its option


def test_a_change_made_on_a_condition_is_a_decision_with_what_it_achieves():
    t = _transcript([
        Message(0, Role.USER, "make it optional for float data"),
        Message(0, Role.ASSISTANT, "The code has been updated to conditionally include 'PixelRepresentation' only "
                                   "if 'PixelData' is present. This should allow float data without it."),
    ])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds))
    [fact] = [f for f in decision_facts(ctx) if "conditionally include" in f.text]
    assert fact.text.endswith("only if 'PixelData' is present.")
    assert fact.full_text and fact.full_text.endswith("This should allow float data without it.")


def test_the_plans_place_says_what_the_delegated_report_found_there():
    from compaction.history.sources.plans import plan_facts
    from tests.unit.synthetic import call_pair as _call

    report = ("## Analysis\n\n**Run Command** - `main.go` lines 680-792\n- Calls sync asynchronously\n\n"
              "**Shutdown Sequence** (`main.go` lines 1837-1904):\n1. Defer function runs on exit\n"
              "2. Calls `cloud.Shutdown()` - waits up to 120 seconds\n3. Returns CloudSyncStats\n\nMore text.\n")
    plan = "# Plan: Add the link\n\n### File to modify\n\n`main.go` around line 1896 (after the stats block)\n"
    t = _transcript([
        Message(0, Role.USER, "find where the summary is printed and propose the change"),
        *_call("Task", {"description": "Explore", "prompt": "find the output"}, "a", report),
        *_call("ExitPlanMode", {"plan": plan}, "b", "approved"),
    ])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=4000)
    why = [f.text for f in plan_facts(ctx) if f.text.startswith("Why the plan's place")]
    assert why == ["Why the plan's place (`main.go` line 1896), per the report (r1): Shutdown Sequence (`main.go` "
                   "lines 1837-1904): Defer function runs on exit; Calls `cloud.Shutdown()` - waits up to 120 seconds; "
                   "Returns CloudSyncStats"]


def _weighed(*replies: str) -> list[str]:
    """The Weighed decisions of a session where the user reports a failing build and the agent replies."""
    t = _transcript([Message(0, Role.USER, "the CI build fails"), *(Message(0, Role.ASSISTANT, r) for r in replies)])
    return [x for x in _facts(t) if x.startswith("Weighed: ")]


def test_options_the_agent_lays_out_for_itself_are_told_with_what_it_then_did():
    [weighed] = _weighed("`app/api/debug-env/route.ts` is empty, causing the \"not a module\" error. Options:\n"
                         "- Delete the file if unused\n- Implement a minimal API route if needed\n\n"
                         "Checking for references to `debug-env` to decide.\n\nNo references found. "
                         "Deleting the empty file.\n\nTesting the build locally.")
    assert weighed == ("Weighed: `app/api/debug-env/route.ts` is empty, causing the \"not a module\" error: 1) Delete "
                       "the file if unused; 2) Implement a minimal API route if needed — then (r1): “Checking for "
                       "references to `debug-env` to decide. No references found. Deleting the empty file.”")
    offered = _transcript([  # options the user is asked to pick from: the user's answer is the choice
        Message(0, Role.USER, "the CI build fails"),
        Message(0, Role.ASSISTANT, "Options:\n- Delete the file\n- Implement the route\n\nWhich do you prefer?"),
        Message(0, Role.USER, "delete it"),
        Message(0, Role.ASSISTANT, "Deleting it now."),
    ])
    assert not [t for t in _facts(offered) if t.startswith("Weighed: ")]
    [weighed] = _weighed("Two ways to fix the import are:\n1. Pin the package\n2. Vendor the module",
                         "Pinning is smaller. I'll pin it to 2.1.")
    assert weighed.endswith("1) Pin the package; 2) Vendor the module — then (r1): “Pinning is smaller. I'll pin it to 2.1.”")


def test_options_put_to_the_user_fixes_applied_and_a_code_blocks_list_are_not_weighed():
    assert _weighed("Options:\n- Delete the file\n- Implement the route\n\nLet me know which one you want.") == []
    assert _weighed("Applied two fixes:\n1. Pinned `lodash`\n2. Removed the cache\n\nAll green now.") == []
    assert _weighed("```yaml\noptions:\n  - --debug\n  - --verbose\n```\ntarget: web") == []
    [one] = _weighed("There are a couple of possible approaches here:\r\n- Pin it\r\n- Vendor it\r\n\r\nPinning it.")
    assert one.startswith("Weighed: 1) Pin it; 2) Vendor it — then (r1):")  # no half-cut lead-in as context
