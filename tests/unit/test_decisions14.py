"""Decisions as the agent's choices with their reasons (issue 14): how it explored before the first
change, its latest plan, the user's answer-backed preferences and picks, reasoned target choices."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.decisions import AHEAD, decision_facts
from compaction.history.sources.exploration import exploration_facts
from compaction.history.sources.plans import plan_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, Transcript
from tests.unit.synthetic import call_pair as _call
from tests.unit.synthetic import transcript as _transcript


def _ctx(t: Transcript, target: int = 4000) -> FactContext:
    return FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=target)


def test_exploration_tells_dead_ends_hits_and_reads_before_the_first_change():
    t = _transcript([
        Message(0, Role.USER, "fix the parser defaults"),
        *_call("Bash", {"command": 'find src -name "*parser*.pony"'}, "a", ""),
        *_call("Bash", {"command": 'grep -rl "class CommandParser" .'}, "b", "./packages/cli/command_parser.pony\n"),
        *_call("Read", {"file_path": "/repo/packages/cli/command_parser.pony"}, "c", "class CommandParser"),
        *_call("Edit", {"file_path": "/repo/packages/cli/command_parser.pony", "old_string": "a", "new_string": "b"},
               "d", "The file has been updated."),
        *_call("Read", {"file_path": "/repo/packages/cli/later.pony"}, "e", "x"),
    ])
    [fact] = exploration_facts(_ctx(t))
    text = fact.full_text or fact.text
    assert text.startswith("Explored before the first change")
    assert 'found nothing: `find src -name "*parser*.pony"`' in text
    assert "→ packages/cli/command_parser.pony" in text
    assert "read packages/cli/command_parser.pony" in text
    assert "later.pony" not in text  # read after the first change: not part of the search
    assert fact.priority == AHEAD  # a dead end: chosen early


def test_reading_that_led_to_no_change_is_not_retold():
    t = _transcript([
        Message(0, Role.USER, "what does this project do?"),
        *_call("Read", {"file_path": "/repo/README.md"}, "a", "# Project"),
        *_call("Read", {"file_path": "/repo/package.json"}, "b", "{}"),
    ])
    assert exploration_facts(_ctx(t)) == []


def test_a_delegated_report_gives_its_outline():
    report = "## Analysis\n\n### 1. Output Locations\ntext\n### 2. Data Available\n**Shutdown Handling** - `sync.go` " \
             "lines 10-20\n" + "detail line\n" * 200
    t = _transcript([
        Message(0, Role.USER, "find where the summary is printed"),
        *_call("Task", {"description": "Explore output", "prompt": "Find where the sync summary is printed " * 3},
               "a", report),
        *_call("Edit", {"file_path": "/repo/main.go", "old_string": "a", "new_string": "b"}, "b", "updated"),
    ])
    [fact] = exploration_facts(_ctx(t))
    text = fact.full_text or fact.text
    assert "delegated to a sub-agent (Task “Explore output”)" in text
    assert "1. Output Locations" in text and "Shutdown Handling – `sync.go` lines 10-20" in text


def test_the_latest_plan_gives_its_title_and_the_lines_that_say_where():
    plan = ("# Plan: Add the cloud link\n\n## Summary\n\nAdd an enticing link.\n\n## Implementation\n\n"
            "### File to modify\n\n`main.go` around line 1896 (after the stats block)\n\n```go\nfmt.Println(x)\n```\n")
    t = _transcript([
        Message(0, Role.USER, "propose the change"),
        *_call("Write", {"file_path": "/home/u/.claude/plans/p.md", "content": "# Plan: draft\n\n`old.go` line 1\n"},
               "a", "ok"),
        *_call("ExitPlanMode", {"plan": plan}, "b", "approved"),
    ])
    [fact] = plan_facts(_ctx(t))
    assert fact.text.startswith("Plan “Add the cloud link” (r")
    assert "File to modify: `main.go` around line 1896" in fact.text
    assert "old.go" not in (fact.full_text or fact.text)  # the draft was superseded
    assert "fmt.Println" not in (fact.full_text or fact.text)  # code is not a key line


def test_a_users_question_with_a_preference_is_paired_with_the_answer_and_picks_are_kept():
    t = _transcript([
        Message(0, Role.USER, "build the page"),
        Message(0, Role.ASSISTANT, "Done."),
        Message(0, Role.USER, "do we need something for hosting? i don't think we need a Dockerfile"),
        Message(0, Role.ASSISTANT, "Nope, no Dockerfile needed. Render has a **Static Site** type.\n\n"
                                   "- **Publish directory:** `.`"),
        Message(0, Role.USER, "pick the styling"),
        *_call("AskUserQuestion", {}, "q", "**Which emoji?**\n\nOptions:\n- **🔍**\n- **💡**\n\n**Answer:** 💡 (lightbulb)"),
    ])
    facts = decision_facts(_ctx(t))
    paired = [f for f in facts if f.text.startswith("User: “")]
    assert paired and "Static Site" in paired[0].text and "→" in paired[0].text
    assert any(f.text == "User chose: Which emoji? → 💡 (lightbulb)" for f in facts)


def test_a_target_chosen_on_evidence_is_a_reasoned_decision():
    t = _transcript([
        Message(0, Role.USER, "fix the AttributeError"),
        Message(0, Role.ASSISTANT, "The file we are interested in is `pkg/handlers/numpy_handler.py`, as indicated by "
                                   "the traceback from the script execution."),
    ])
    assert any("as indicated by the traceback" in f.text for f in decision_facts(_ctx(t)))


def test_a_choice_a_later_one_reverts_says_so_and_an_explanation_does_not_count():
    t = _transcript([
        Message(0, Role.USER, "fix the cache"),
        Message(0, Role.ASSISTANT, "I'll use `lru_cache` because the keys are hashable."),
        Message(0, Role.USER, "go on"),
        Message(0, Role.ASSISTANT, "I'll keep `maxsize` small since the objects are large, rather than `None`."),
        Message(0, Role.USER, "it leaks"),
        Message(0, Role.ASSISTANT, "I'll revert `lru_cache` because it holds references to every instance."),
    ])
    facts = {f.text.split(" (later")[0]: f.text for f in decision_facts(_ctx(t))}
    first = next(v for k, v in facts.items() if "use `lru_cache`" in k)
    assert "(later reversed, r3: I'll revert `lru_cache`" in first
    assert not any("later reversed" in v for k, v in facts.items() if "`maxsize`" in k)


def test_a_switch_keeps_the_sentence_that_says_what_was_wrong_with_the_old_way():
    t = _transcript([
        Message(0, Role.USER, "is it truly random?"),
        Message(0, Role.ASSISTANT, "`Math.random()` is a pseudo-random generator, deterministic after seeding. "
                                   "For fairness, I'll swap to `crypto.getRandomValues()` which pulls from the OS RNG."),
    ])
    assert any(f.text.startswith("`Math.random()` is a pseudo-random generator, deterministic after seeding. For "
                                 "fairness, I'll swap") for f in decision_facts(_ctx(t)))


def test_a_review_verdict_is_a_decision_without_its_lead_in():
    t = _transcript([
        Message(0, Role.USER, "review the diff and tell me whether any of this is breaking"),
        Message(1, Role.ASSISTANT, "The schema gains a `content` field. Based on these changes, the new `content` "
                                   "field is critical and breaking. Here is a summary of the files:"),
    ])
    texts = [f.text for f in decision_facts(_ctx(t))]
    assert "Concluded: the new `content` field is critical and breaking." in texts
    assert not any("summary of the files" in x for x in texts)  # no judgement: not a verdict


def test_a_path_chosen_among_same_named_candidates_says_which_were_passed_over():
    listing = "Found 3 matches:\n/repo/pkg/overlays/handler.py\n/repo/pkg/pixel/handler.py\n/repo/pkg/waves/handler.py\n"
    t = _transcript([
        Message(0, Role.USER, "fix the crash"),
        *_call("find_file", {"name": "handler.py"}, "a", listing),
        Message(3, Role.ASSISTANT, "The file we are interested in is `/repo/pkg/pixel/handler.py`, as indicated by "
                                   "the traceback."),
    ])
    [chosen] = [f for f in decision_facts(_ctx(t)) if "interested in" in f.text]
    assert chosen.text.endswith("(not overlays/handler.py, waves/handler.py)")


def test_a_function_chosen_as_the_place_to_change_says_what_calls_it():
    t = _transcript([
        Message(0, Role.USER, "lazy objects crash filters"),
        Message(1, Role.ASSISTANT, "`add_filter` calls `build_filter`. It seems `build_filter` calls "
                                   "`resolve_lookup_value`."),
        Message(2, Role.ASSISTANT, "I suspect `resolve_lookup_value` is the right place, so I'll unwrap it there."),
    ])
    texts = [f.text for f in decision_facts(_ctx(t))]
    assert any("the right place" in x and x.endswith("(`resolve_lookup_value` is called by `build_filter`)")
               for x in texts), texts


def test_a_search_s_redirections_are_not_places_searched():
    from compaction.history.sources.exploration import _searched

    assert _searched("rg '^#\\[test\\]' -c tests/ src/simulation.rs 2>/dev/null", None) == ["tests", "src/simulation.rs"]
    assert _searched("grep -rn foo src 2>&1 > out.txt", None) == ["src"]


def test_each_command_of_a_list_names_its_own_places():
    """`which fileicon 2>/dev/null; ls …/*.icns` had read `ls` and `;` as places searched (cc-speakfree):
    every look-up of a list is read alone, the first stage of each pipeline; a `cd`, an `echo` after
    `||` and a quoted pattern's words are no places."""
    from compaction.history.sources.exploration import _searched

    assert _searched("cd repo && grep -rn 'a|b;c' src | head -5; find lib -name x.py", None) == ["src", "lib"]
    assert _searched("which fileicon 2>/dev/null; ls /opt/app/Resources", None) == ["/opt/app/Resources"]
    assert _searched("find src -name '*.py' -exec grep -l foo {} \\;", None) == ["src"]
    assert _searched('ls /root/hub/ | grep -i qwen 2>/dev/null || echo "No Qwen model cached"', None) == ["/root/hub"]
    assert _searched('grep -rn "def foo bar" src/pkg', None) == ["src/pkg"]


def test_a_pasted_ci_logs_lines_are_no_constraint_of_the_users():
    """`…Z [command]/usr/bin/git config --local …` in a pasted GitHub Actions log was a user decision."""
    log = "\n".join(f"2025-10-02T19:23:42.76{i}Z [command]/usr/bin/git config --local --name-only --get-regexp core.sshCommand"
                    for i in range(3))
    t = _transcript([Message(0, Role.USER, f"Now I'm seeing this error:\n{log}\nYou must keep the Node 20 matrix.")])
    texts = [f.text for f in decision_facts(_ctx(t))]
    assert not any("git config" in x for x in texts)
    assert any("must keep the Node 20 matrix" in x for x in texts)  # the user's own words still count


def test_a_sentence_inside_a_pasted_log_line_is_no_constraint_either():
    log = "\n".join(f"2025-10-02T19:23:4{i}.1Z ##[error]Build failed. You must set NODE_ENV before running."
                    for i in range(3))
    t = _transcript([Message(0, Role.USER, f"CI says:\n{log}\nPlease fix it; do not touch the lockfile.")])
    texts = [f.text for f in decision_facts(_ctx(t))]
    assert not any("NODE_ENV" in x for x in texts)
    assert any("do not touch the lockfile" in x for x in texts)


def test_a_recommendation_is_a_decision_with_its_reason():
    """cc-speakfree r47: "Given you're dictating long pieces … — **small.en** is the move." was in no section."""
    t = _transcript([
        Message(0, Role.USER, "which whisper model should I use?"),
        Message(1, Role.ASSISTANT, "**Model sizes:**\n\n- **tiny.en** (75 MB) — sloppy.\n- **small.en** (466 MB) — "
                "Meaningfully better. This is probably the right upgrade for you.\n\nGiven you're dictating long "
                "pieces and that's when it degrades — **small.en** is the move. Want to use that?"),
        Message(2, Role.USER, "ok"),
        Message(3, Role.ASSISTANT, "I'd go with `fastjson` for the parser. It already handles the streaming case. "
                "If I go with the dict approach, I need to update `_get_output_config`. "
                "I recommend setting `C:\\Users\\B. Akhilesh\\work` as the workspace."),
    ])
    texts = [f.text for f in decision_facts(_ctx(t))]
    assert "Recommended: Given you're dictating long pieces and that's when it degrades — small.en is the move." in texts
    assert "Recommended: I'd go with `fastjson` for the parser. It already handles the streaming case." in texts
    assert not any("right upgrade" in x for x in texts)  # "This is…": names nothing on its own
    assert not any("If I go with" in x for x in texts)  # a condition, not advice
    assert not any("Akhilesh" in x or "C:\\Users\\B." in x for x in texts)  # cut inside a code span


def test_a_choice_gives_the_reason_the_next_sentence_states():
    """Gemini CLI's reasoning (figma r8): the choice in one sentence, "This should help me avoid rate limits…"
    in the next; "I've decided against X, as Y" too."""
    t = _transcript([
        Message(0, Role.USER, "export the frames"),
        Message(1, Role.ASSISTANT, "", meta={"thinking": [
            'Next Steps: I\'m focusing on "Dashboard # 1" and "Dashboard # 2" for the initial frames. This should help '
            "me avoid rate limits and time-outs. I'm focusing on the styling.",
            "I've decided against introducing a new setting for persistence, as the non-persistent behavior is the "
            "standard requirement."]}),
    ])
    texts = [f.text for f in decision_facts(_ctx(t))]
    assert any(x.endswith('"Dashboard # 2" for the initial frames. This should help me avoid rate limits and time-outs.')
               for x in texts), texts
    assert any("decided against introducing a new setting for persistence, as the" in x for x in texts), texts
    assert not any("the styling" in x for x in texts)  # no reason given: narration, not a choice
    t = _transcript([Message(0, Role.USER, "fix it"), Message(1, Role.ASSISTANT,
                     "I'll run the test suite now. This will help confirm the fix works. I'll check the logs next, "
                     "as shown in the README. I'll update the login handler, as well as the signup form.")])
    assert decision_facts(_ctx(t)) == []  # narration: no pick with its reason
