"""Next steps: the checks a written plan names as commands that no later command ran."""

from __future__ import annotations

from compaction.edits import Hunk
from compaction.events import Event, EventKind
from compaction.history.sources.next_steps import unrun_checks

PLAN = ("# Plan", "## Change", "- add the link", "## Verification", "1. Run `go build -o app`",
        "2. Test silent mode (`./app sync --silent`)", "3. Run tests: `go test ./...`")


def _plan(rnd: int) -> Event:
    return Event(EventKind.WRITE, rnd, 1, path="/home/u/.plans/p.md", hunks=(Hunk((), PLAN),), whole=True)


def _ran(rnd: int, command: str) -> Event:
    return Event(EventKind.COMMAND, rnd, 1, command=command)


def test_a_plan_check_no_later_command_ran_is_left_to_do():
    (fact,) = unrun_checks([_plan(2), _ran(3, "go test ./..."), _ran(4, "go build -o app .")])
    assert fact.text.startswith("[not done] checks in the plan `p.md` never run:")
    assert "`./app sync --silent`" in fact.text and "go build" not in fact.text and "go test" not in fact.text


def test_checks_run_before_the_plan_was_written_do_not_count_and_all_run_says_nothing():
    (fact,) = unrun_checks([_ran(1, "go build -o app"), _plan(2)])
    assert "go build -o app" in fact.text
    assert unrun_checks([_plan(2), _ran(3, "go build -o app"), _ran(3, "./app sync --silent"),
                         _ran(3, "go test ./...")]) == []


def test_code_names_under_a_checks_heading_are_not_commands():
    doc = ("# Guide", "### Simulation Checks", "- `NoErrorCheck`: must simulate without errors",
           "- `MaxUnitsCheck`: under 1,400,000 units", "## Testing", "- Run `pytest`")
    event = Event(EventKind.WRITE, 2, 1, path="SKILL.md", hunks=(Hunk((), doc),), whole=True)
    (fact,) = unrun_checks([event])
    assert "`pytest`" in fact.text and "NoErrorCheck" not in fact.text


def test_the_todo_tool_named_in_prose_is_not_an_open_todo():
    from compaction.history.sources.next_steps import _still_open

    assert not _still_open("Let me update the todo list and summarize")
    assert not _still_open("Now updating the TODO items in the appendix to include all the new features.")
    assert _still_open("TODO: wire the parser") and _still_open("still need to add tests")
    assert _still_open("    # TODO: replace with real LLM invocation")


def test_work_said_to_remain_is_open_when_it_names_it():
    """openai-chat's "then continue with the remaining work" (r1) and cal-date's "the remaining height" were
    [open] items 200 rounds later."""
    from compaction.history.sources.next_steps import _still_open

    assert not _still_open("Let me first explore the project, then continue with the remaining work.")
    assert not _still_open("I'll convert this remaining height into a line count.")
    assert _still_open("The remaining failures are in `tests/test_api.py`.")
    assert _still_open("Two remaining tests fail: test_login and test_logout.")


def test_a_whole_suite_run_covers_the_test_files_seen():
    from compaction.history.sources.current import _covers

    assert _covers("cargo test 2>&1 | tail -30", "tests/simulation_checks.rs")  # no path: the whole suite
    assert _covers("pytest tests/unit", "tests/unit/test_b.py") and _covers("go test ./pkg/...", "pkg/x_test.go")
    assert not _covers("pytest tests/unit/test_a.py", "tests/unit/test_b.py")  # another file of the folder


def test_a_next_steps_heading_is_told_with_its_list():
    from compaction.history.sources.next_steps import next_step_facts

    said = [(3, "Done.\n\n### Next steps\n1. Review the PR on GitHub\n2. Test the rules\n\nReady.")]
    e = Event(EventKind.TODO, 3, 1, text="### Next steps", status="next")
    (fact,) = next_step_facts([e], 3, said)
    assert fact.text == "Next steps: Review the PR on GitHub; Test the rules"


def test_go_whole_suite_a_leading_cd_and_a_longer_stem() -> None:
    from compaction.history.sources.current import _covers

    assert _covers("go test ./...", "pkg/foo/foo_test.go")  # Go's whole suite
    assert _covers("cd /work/repo && pytest", "tests/test_utils.py")  # the cd names no test
    assert not _covers("pytest tests/test_utils_extra.py", "tests/test_utils.py")  # another file


def test_tests_by_a_frameworks_own_names_and_told_apart_by_their_folders():
    """Django's `tests.py` and JUnit's `PersonMappingTest.java` are tests; three `tests.py` of three apps
    are named by their folders (antigravity's "never run: `tests.py`, `tests.py`, `tests.py`")."""
    from compaction.history.facts import is_test_path
    from compaction.history.sources.current import _names

    assert is_test_path("backend/jobs/tests.py") and is_test_path("src/test/java/x/PersonMappingTest.java")
    assert is_test_path("src/HTTPTest.java")
    assert not any(map(is_test_path, ("contest.py", "src/Latest.java", "src/Manifest.java", "attest.py", "test.py")))
    paths = ["backend/authentication/tests.py", "backend/resumes/tests.py", "backend/jobs/tests.py", "a/b.py"]
    assert _names(paths) == "`authentication/tests.py`, `resumes/tests.py`, `jobs/tests.py` +1"


def test_a_plan_stated_before_the_session_submitted_its_work_is_not_left_open():
    """requests r34 "I still need to catch the invalid label case" was done at r41 and submitted at r50."""
    from compaction.history.sources.next_steps import next_step_facts

    e = Event(EventKind.TODO, 4, 1, text="But I still need to catch the invalid label case `.example.com`", status="next")
    assert any(f.text.startswith("[open] But I still need") for f in next_step_facts([e], 20, []))
    assert not any(f.text.startswith("[open]") for f in next_step_facts([e], 20, [], submitted=True))


def test_a_plan_the_user_then_said_works_left_no_checks_to_do():
    """cloud-sync: the user ran it and said "it works well" (r26); its plan's checks were still listed as owed."""
    said = Event(EventKind.REQUEST, 5, 1, text="I tested it and it works well. Now also print the link after run.")
    assert unrun_checks([_plan(2), said]) == []
    assert unrun_checks([_plan(2), Event(EventKind.REQUEST, 5, 1, text="now add the link")])  # no report: still owed
