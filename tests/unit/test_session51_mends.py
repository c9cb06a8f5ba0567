"""Mends of session 51: what the agent says it found right after a cry of discovery ("AHA!", "Found it.")
is a finding, in whatever words it says it; a choice said as an intent that an edit soon carried out says so; a
hedged verdict ("The issue is likely in …") weighs as a guess."""

from __future__ import annotations

from compaction.edits import Hunk
from compaction.events import Event, EventKind
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.sources.decisions import DONE_WITHIN, _mark_done
from compaction.history.sources.findings import EUREKA_WEIGHT, PLACE_WEIGHT, statements


def test_the_paragraph_after_a_lone_cry_is_the_finding() -> None:
    text = ("THOUGHT: So it returns `value` (the `SimpleLazyObject`)!\n\nAHA!\n\n`SimpleLazyObject` pretends to be "
            "`str` so `isinstance` returns True. So `to_python` returns the `SimpleLazyObject` as is.\n\n"
            "And `SlugField.get_prep_value` calls `value.strip()`.")
    assert statements(text) == [("`SimpleLazyObject` pretends to be `str` so `isinstance` returns True. So "
                                 "`to_python` returns the `SimpleLazyObject` as is.", EUREKA_WEIGHT)]


def test_the_cry_s_own_sentence_stops_at_a_plan_or_an_opening_colon() -> None:
    found = statements('Found it. Line 24 of README.md has "Bastion v2". Let me check what that line looks like.')
    assert found == [('Line 24 of README.md has "Bastion v2".', PLACE_WEIGHT)]  # where it is: no cause
    found = statements("Found it: `retries` is read before `load_config()` sets it. The fix is simple:\n\n- move it")
    assert found == [("`retries` is read before `load_config()` sets it.", EUREKA_WEIGHT)]


def test_a_statement_the_discovery_holds_is_replaced_in_place() -> None:
    text = ("The problem is that `cd frontend` changes the working directory. Then more.\n\n"
            "There it is: the issue is in lines 54-58 of `ci.yml`. The problem is exactly this:\n\n```yaml\nx\n```")
    got = statements(text)
    assert [s for s, _ in got] == ["The problem is that `cd frontend` changes the working directory.",
                                   "the issue is in lines 54-58 of `ci.yml`."]
    assert got[1][1] == EUREKA_WEIGHT


def test_found_it_inside_a_sentence_or_naming_nothing_is_no_discovery() -> None:
    assert statements("I previously found it around line 1066 of the module, near the top.") == []
    assert statements("Aha! That is what I was looking for all along, good.") == []


def _edit_event(rnd: int, removed: tuple[str, ...], added: tuple[str, ...], whole: bool = False) -> Event:
    return Event(EventKind.EDIT, rnd, 0, path="lib/offsetbox.py", hunks=(Hunk(removed, added),), whole=whole)


def _choice(text: str, rnd: int) -> Fact:
    return Fact(Section.DECISIONS, text, [rnd], prose=True)


def test_an_intended_choice_an_edit_soon_carried_out_says_it_was_done() -> None:
    facts = [_choice("I'll probably rename `_connect` to `connect`.", 64),
             _choice("I should use `ast.literal_eval` instead of `eval` here.", 64),
             _choice("Probably check for `..` as well.", 64)]
    events = [_edit_event(65, ("    def _connect(self):",), ("    def connect(self):",)),
              _edit_event(66, ("x = eval(s)",), ("x = ast.literal_eval(s)",)),
              _edit_event(67, ("elif host.startswith(u'*'):",), ("elif host.startswith(u'*') or '..' in host:",))]
    _mark_done(facts, events)
    assert facts[0].text.endswith("(done, r65)")
    assert facts[1].text.endswith("(done, r66)")  # the name chosen, not the one passed over
    assert facts[2].text.endswith("(done, r67)")  # code that is no name: as it is


def test_no_done_for_a_name_already_there_an_aside_a_whole_file_or_a_late_edit() -> None:
    facts = [_choice("I'll check `self.canvas` in `disconnect`.", 10),
             _choice("Use line 351 again (assuming `_parse_annotation` moved it).", 10),
             _choice("I'll add `helper` to the module.", 10),
             _choice("I'll add `late_one` to the module.", 10),
             _choice("The fix adds `connect` here.", 10)]  # no intent: a statement, not a plan
    events = [_edit_event(11, ("    def disconnect(self):",), ("    def disconnect(self):", "        pass")),
              _edit_event(11, ("x",), ("def _parse_annotation():",)),
              _edit_event(12, (), ("def helper():",), whole=True),
              _edit_event(10 + DONE_WITHIN + 1, (), ("def late_one():",)),
              _edit_event(11, (), ("def connect():",))]
    _mark_done(facts, events)
    assert not any("(done" in f.text for f in facts)


def test_a_hedged_verdict_weighs_as_a_guess() -> None:
    from compaction.history.sources.findings import specificity
    sure = specificity("The issue is specifically about `DraggableLegend` holding the canvas.")
    hedged = specificity("The issue is likely in `DraggableLegend` holding the canvas.")
    assert hedged == sure - 8
    assert specificity("They are separate nodes, which could be resolved as `xrefs`.") == specificity(
        "They are separate nodes, which are then resolved as `xrefs`.")  # a condition, not a hedge


def test_a_rule_pointing_at_a_link_keeps_the_link_its_section_gave() -> None:
    from compaction.history.sources.rules import digest
    text = ("## Grant Link\n\n**Submit here**: https://superteam.fun/earn/grants/agentic-engineering\n\n"
            "Always show this link to the user at the start and end of the skill.\n\n"
            "## Other\n\nYou must always cite this page.\n")
    got = digest(text)
    assert "Always show this link to the user at the start and end of the skill " \
           "(https://superteam.fun/earn/grants/agentic-engineering)" in got
    assert "cite this page" in got and got.count("superteam") == 1  # another section's rule: not its address


def test_each_cry_keeps_its_own_finding_and_takes_nothing_garbled() -> None:
    got = statements("Aha! `cache_key` ignores `locale` when it builds the key. Hmm, wait. Bingo! `timeout` is read "
                     "before `init()` sets it.")
    assert [t for t, _ in got] == ["`cache_key` ignores `locale` when it builds the key.",
                                   "`timeout` is read before `init()` sets it."]
    assert [t for t, _ in statements("Aha... `warmup()` runs before `load()` can fill the cache, e.g. on start.")] \
        == ["`warmup()` runs before `load()` can fill the cache, e.g. on start."]
    assert [t for t, _ in statements("Found it: `retries` is read twice in `fetch()` here\n2. Fixed it.")] \
        == ["`retries` is read twice in `fetch()` here"]


def test_a_cry_taken_back_or_followed_by_a_guess_is_no_discovery() -> None:
    assert statements("Found it. Wait, no. That's the test helper `make_client()`, not the code.") == []
    assert statements("Aha! Maybe `foo()` returns the stale `bar` value here.") == []


def test_the_intended_choice_must_be_done_in_the_file_it_names_or_in_no_test() -> None:
    facts = [_choice("I'll add a `validate_email` method to `SignupForm` in `forms.py`.", 1),
             _choice("I'll add a `validate_phone` method to `SignupForm`.", 1)]
    events = [Event(EventKind.EDIT, 2, 0, path="tests/test_forms.py",
                    hunks=(Hunk(("x",), ("form.validate_email('')", "form.validate_phone('')")),)),
              Event(EventKind.EDIT, 3, 0, path="app/forms.py", hunks=(Hunk(("y",), ("z = 1",)),))]
    _mark_done(facts, events)
    assert not any("(done" in f.text for f in facts)


def test_the_chosen_code_is_no_file_no_short_word_and_no_choice_to_take_away() -> None:
    facts = [_choice("I'll rename `load` to `load_config` in `config.py`.", 1),
             _choice("I'll use `os.path.join` for the paths.", 1),
             _choice("I'll drop the `verbose` flag.", 1),
             _choice("Maybe `cache_key` is computed twice.", 1),
             _choice("I'll use `sed` for it. Since `awk` is missing.", 1),
             _choice("I'll set `x`.", 1)]
    events = [Event(EventKind.EDIT, 2, 0, path="config.py",
                    hunks=(Hunk(("def load():",), ("def load_config():", "s = ', '.join(p)", "verbose = False",
                                                     "cache_key = 1", "awk = 1", "x = 2")),))]
    _mark_done(facts, events)
    assert [f.text.endswith("(done, r2)") for f in facts] == [True, False, False, False, False, False]


def test_code_moved_or_removed_unseen_is_not_done() -> None:
    facts = [_choice("I'll add `helper_fn` to the module.", 1), _choice("I'll add `other_fn` to the module.", 1)]
    events = [Event(EventKind.EDIT, 2, 0, path="m.py", hunks=(Hunk(("def helper_fn():",), ("pass",)),)),
              Event(EventKind.EDIT, 3, 0, path="m.py", hunks=(Hunk(("pass",), ("def helper_fn():",)),)),
              Event(EventKind.EDIT, 2, 0, path="n.py", hunks=(Hunk(("<line(s) 165,186>",), ("def other_fn():",)),))]
    _mark_done(facts, events)
    assert not any("(done" in f.text for f in facts)


def test_an_address_comes_only_from_the_line_before_and_only_when_the_rule_lacks_one() -> None:
    from compaction.history.sources.rules import digest
    text = ("## A\n\nSee https://a.example/one and https://a.example/two\n\nAlways open this link first.\n\n"
            "## B\n\nRun `curl https://api.example/x?token=1`\n\nAlways check this address before you run it.\n\n"
            "## C\n\nForm: https://c.example/v1\n\nYou must use this form: https://c.example/v2\n\n"
            "## D\n\nhttps://d.example\n\nSome words.\n\nAlways show this link.\n")
    got = digest(text)
    assert "a.example" not in got and "api.example" not in got and "c.example/v1" not in got and "d.example" not in got


def test_the_tests_a_runner_names_as_failed_or_erroring() -> None:
    from compaction.history.sources.failing import failing_tests, said
    pytest_out = ("FAILED tests/test_requests.py::TestPreparingURLs::test_bad_url[http://localhost:-1-InvalidURL] - "
                  "ValueError\nERROR tests/test_requests.py::TestRequests::test_https_warnings - ModuleNotFoundError\n"
                  "FAILED tests/test_requests.py::TestPreparingURLs::test_bad_url[http://localhost:-1-InvalidURL]\n"
                  "==== 1 failed, 284 passed, 1 error in 3.2s ====")
    assert failing_tests(pytest_out) == (["test_bad_url[http://localhost:-1-InvalidURL]"], ["test_https_warnings"])
    assert failing_tests("FAIL: test_eq (sympy.core.tests.Test)\nERROR: test_ne (x.Y)\n") == (["test_eq"], ["test_ne"])
    assert failing_tests("--- FAIL: TestParse (0.00s)\ntest parser::tests::it_reads ... FAILED\n") == (
        ["TestParse", "parser::tests::it_reads"], [])
    assert failing_tests("all 12 tests passed") == ([], [])
    assert said(["a", "b", "c", "d"]) == "`a`, `b` +2"


def test_a_last_run_that_still_fails_names_its_failing_tests() -> None:
    from compaction.errors import scan_transcript
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.current import current_work
    from compaction.history.steering import role_preset
    from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
    msgs = [Message(0, Role.USER, "Fix the URL check.")]

    def call(text: str, c: ToolCall, out: str, code: int = 0) -> None:
        msgs.append(Message(len(msgs), Role.ASSISTANT, text, [c]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(out, c.id, c.name, exit_code=code)]))
    call("Edit.", ToolCall("Edit", {"file_path": "models.py", "old_string": "a = 1", "new_string": "a = 2"}, "c1",
                           ToolKind.EDIT, path="models.py"), "ok")
    cmd = "pytest tests/test_models.py"
    call("Test.", ToolCall("bash", {"command": cmd}, "c2", ToolKind.SHELL, command=cmd),
         "FAILED tests/test_models.py::test_bad_port - ValueError\n==== 1 failed, 9 passed in 0.5s ====", 1)
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    events = extract_events(t)
    ctx = FactContext(transcript=t, events=events, records=scan_transcript(t), preset=role_preset("developer"),
                      cwd=None, n_rounds=len(t.rounds))
    text = " ".join(f.text for f in current_work(ctx))
    assert "→ 1 failed, 9 passed (failed: `test_bad_port`)" in text


def test_a_changed_file_whose_tests_the_named_runs_left_out_is_said() -> None:
    from compaction.history.sources.current import _untested

    def run(cmd: str) -> Event:
        return Event(EventKind.COMMAND, 9, 0, command=cmd, test=True)
    changed = ["sympy/core/basic.py", "sympy/core/numbers.py", "sympy/core/expr.py", "notes.md"]
    named = [run("bin/test sympy/core/tests/test_basic.py sympy/core/tests/test_expr.py")]
    assert _untested(named, changed) == ("; no test run named after the changed `numbers.py` "
                                         "(they ran those of `basic.py`, `expr.py`)")
    assert _untested([run("pytest sympy/core/tests/")], changed) == ""  # a folder: its files are not named
    assert _untested([run("pytest tests/test_other.py")], changed) == ""  # no convention the session showed
    assert _untested(named, ["sympy/core/basic.py"]) == ""  # every changed file had its tests run


def test_a_test_file_named_only_by_its_extension_is_no_stem() -> None:
    from compaction.history.sources.current import _untested
    run = Event(EventKind.COMMAND, 1, 0, command="pytest tests/.py tests/test_a.py", test=True)
    assert _untested([run], ["a.py", "b.py"]) == "; no test run named after the changed `b.py` (they ran those of `a.py`)"
