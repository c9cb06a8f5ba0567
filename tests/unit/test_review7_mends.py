"""What seven blind readers of 10% hand-overs found misleading (session 44): a session that never
committed said nothing of it, a tag made before later commits read as the release, commands a
`git checkout` wiped read as completed work, a `sed` substitution that matched nothing was told only as a
past command's detail, a block's body line was left out of a final diff (so it read as other code), a
request already answered read as the current one, and a file a read missed, then created, read as an
edit that fixed a mistake."""

from __future__ import annotations

from compaction.errors.classify import classify
from compaction.errors.scan import scan_transcript
from compaction.events import extract_events
from compaction.history.sentences import prose
from compaction.history.sources import FactContext
from compaction.history.sources.completed import completed_facts
from compaction.history.sources.findings import Finding, _phase, informative, outcome
from compaction.history.sources.missed_edits import missed_edit_facts
from compaction.history.sources.reasons import _supposes
from compaction.history.sources.task import task_facts
from compaction.history.sources.uncommitted import uncommitted_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


def _ctx(msgs: list[Message]) -> FactContext:
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                       n_rounds=len(t.rounds), target_tokens=4000)


class _Session:
    """A session built call by call: each `run` is one round of a shell command and its output."""

    def __init__(self, request: str = "fix the parser") -> None:
        self.msgs: list[Message] = [Message(0, Role.USER, request)]

    def say(self, role: Role, text: str) -> _Session:
        self.msgs.append(Message(len(self.msgs), role, text))
        return self

    def run(self, command: str, output: str = "", exit_code: int = 0, text: str = "") -> _Session:
        cid = f"c{len(self.msgs)}"
        call = ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command)
        self.msgs.append(Message(len(self.msgs), Role.ASSISTANT, text, tool_calls=[call]))
        self.msgs.append(Message(len(self.msgs), Role.TOOL,
                                 tool_results=[ToolResult(output, cid, "bash", exit_code=exit_code,
                                                          is_error=exit_code != 0)]))
        return self

    def call(self, name: str, args: dict, kind: ToolKind, output: str, error: bool = False, path: str | None = None
             ) -> _Session:
        cid = f"c{len(self.msgs)}"
        self.msgs.append(Message(len(self.msgs), Role.ASSISTANT, "",
                                 tool_calls=[ToolCall(name, args, cid, kind, path=path)]))
        self.msgs.append(Message(len(self.msgs), Role.TOOL, tool_results=[ToolResult(output, cid, name,
                                                                                     is_error=error)]))
        return self


def test_curly_apostrophes_read_as_straight_ones_for_the_cue_phrases():
    assert prose("I’m going to read the reports.") == "I'm going to read the reports."
    # a closing report tells what was done: the plan it opened with ("I’m going to …") is no part of it
    report = informative(["I’m going to (1) read `a.md`, then (2) write `b.md`.",
                          "Created `b.md` comparing the 10 systems in 7 tables."], 300, closing=True)
    assert report is not None and "going to" not in report and "Created `b.md`" in report


def test_a_command_that_prints_a_file_has_no_outcome_of_its_own():
    printed = ToolResult("# Report\n\nResult: Git flattening behavior remai", "c", exit_code=0)
    assert outcome("sed -n '1,260p' docs/systems/a.md", printed) is None
    assert outcome("cd docs && cat a.md b.md", printed) is None
    # a log is a run's output: its closing line says how the run went
    assert outcome("tail -5 build.log", ToolResult("Result: 3 modules built", "c", exit_code=0)) is not None


def test_a_phase_line_cites_its_span_and_says_how_many_findings_it_stands_for():
    group = [Finding(3, "The cache is keyed by path.", 50), Finding(9, "The key ignores the query string.", 60),
             Finding(12, "So two URLs share one entry.", 40)]
    fact = _phase(group, group[1:2])
    assert fact.text.startswith("Phase (r3-r12), 2 other findings left out: The key ignores the query string. (r9)")


def test_a_steered_session_that_never_committed_says_its_work_is_only_in_the_work_tree():
    s = _Session("add a retry to the client").run("git log --oneline -1", "abc1234 init")
    s.run("sed -i 's/retries = 0/retries = 3/' client.py")
    s.say(Role.ASSISTANT, "Done.").say(Role.USER, "now add a test for it")
    s.call("Write", {"file_path": "test_client.py", "content": "def test_retry():\n    assert True\n"},
           ToolKind.WRITE, "ok", path="test_client.py")
    (fact,) = uncommitted_facts(_ctx(s.msgs))
    assert fact.text == "Not committed: no commit in this session (2 changed files)"  # the file list names them
    # one task handed in by a harness: not said
    one = _Session("fix the parser").run("sed -i 's/a/b/' parser.py")
    assert uncommitted_facts(_ctx(one.msgs)) == []
    # no sign of git (no git command, no branch recorded): nothing is "uncommitted" in a folder git may not
    # track, but that the session made no commit is still said (review 12, cloud-sync)
    plain = _Session("write the app").run("sed -i 's/a/b/' app.py").say(Role.USER, "and the docs")
    plain.run("sed -i 's/c/d/' README.md")
    (fact,) = uncommitted_facts(_ctx(plain.msgs))
    assert fact.text == "No commit made in this session (2 changed files; no git command ran)"
    # a commit whose output was not shown is a commit all the same
    s.run("git commit -qam 'retry'")
    assert uncommitted_facts(_ctx(s.msgs)) == []


def test_commits_after_the_last_push_and_the_last_tag_are_told():
    s = _Session("release it").run("git commit -am 'v1'", "[main 1111111] v1\n 1 file changed, 1 insertion(+)")
    s.run("git tag v1.0 && git push origin main --tags", "To github.com:x/y.git\n * [new tag] v1.0 -> v1.0")
    s.say(Role.USER, "also fix the readme")
    s.run("sed -i 's/v2/v1/' README.md && git commit -am 'readme'",
          "[main 2222222] readme\n 1 file changed, 1 insertion(+), 1 deletion(-)")
    texts = [f.text for f in uncommitted_facts(_ctx(s.msgs))]
    assert "Not pushed: 1 commit after the last push (r2)" in texts
    assert any(t.startswith("Tag `v1.0` (r2) predates the later commits `2222222`") for t in texts)
    # a push the remote turned down (exit 0 through `tail`) is no push; a deleted tag predates nothing
    s.run("git push origin main 2>&1 | tail -2", " ! [rejected]        main -> main (fetch first)\n"
          "error: failed to push some refs to 'github.com:x/y.git'").run("git tag -d v1.0", "Deleted tag 'v1.0'")
    texts = [f.text for f in uncommitted_facts(_ctx(s.msgs))]
    assert any(t.startswith("Not pushed: 1 commit after the last push (r2)") for t in texts)
    assert not any(t.startswith("Tag ") for t in texts)
    from compaction.history.sources.uncommitted import _pushes_branch, _tag_made
    assert _tag_made(["-am", "Release 1", "v1"]) == "v1" and _tag_made(["-l"]) is None
    assert not _pushes_branch(["origin", ":old"], {}) and not _pushes_branch(["--tags"], {})
    assert not _pushes_branch(["origin", "v1"], {"v1": (1, 1)}) and _pushes_branch(["origin", "main", "--tags"], {})


def test_the_current_request_the_last_reply_answered_says_so():
    s = _Session("fix the parser").run("sed -i 's/a/b/' parser.py").say(Role.ASSISTANT, "Fixed.")
    s.say(Role.USER, "just write a little poem").say(Role.ASSISTANT, "Roses are red, parsers are fixed.")
    current = [f.text for f in task_facts(_ctx(s.msgs)) if f.text.startswith("Current request")]
    # answered in its own round (r3): the line's own citation says when
    assert current == ["Current request: just write a little poem (answered)"]
    s.say(Role.USER, "/exit")  # quitting asks nothing
    current = [f.text for f in task_facts(_ctx(s.msgs)) if f.text.startswith("Current request")]
    assert current == ["Current request: just write a little poem (answered)"]
    s.run("ls")  # the agent went on working: no answer yet
    current = [f.text for f in task_facts(_ctx(s.msgs)) if f.text.startswith("Current request")]
    assert current == ["Current request: just write a little poem"]


def test_commands_a_revert_wiped_are_one_line_not_completed_work():
    s = _Session().run("sed -i '3s/a/b/' core.py").run("sed -i '9s/c/d/' core.py").run("sed -i '7s/e/f/' core.py")
    s.run("git checkout core.py").run("sed -i '4s/x/y/' core.py")
    texts = [f.text for f in completed_facts(_ctx(s.msgs))]
    # the commands one revert put back share its line (review 11: a long session's debug prints, one line)
    assert "`sed -i '3s/a/b/' core.py`; `sed -i '9s/c/d/' core.py`; `sed -i '7s/e/f/' core.py` → undone by the " \
           "revert of r4 (r1-r3)" in texts
    assert "`sed -i '4s/x/y/' core.py` (r5)" in texts  # made after it: kept


def test_a_substitution_that_matched_nothing_and_was_never_made_since_is_open_work():
    view = "def set_output(self, *, transform=None):\n    x = 1\n    return super().set_output(transform=transform)\n"
    s = _Session().run("cat -n pipeline.py", "".join(f"{i:6}\t{ln}\n" for i, ln in enumerate(view.splitlines(), 1)))
    s.run("sed -i '1s/transform=None/transform=None, **kw/' pipeline.py && "
          "sed -i '2s/transform=transform/transform=transform, **kw/' pipeline.py")  # line 2 holds `x = 1`
    facts = missed_edit_facts(_ctx(s.msgs))
    assert len(facts) == 1 and facts[0].text.startswith("Not made: 1 of the 2 substitutions of `pipeline.py` (r2)")
    assert "line 2" in facts[0].text
    s.run("sed -i '3s/transform=transform/transform=transform, **kw/' pipeline.py")  # made since: not open
    assert missed_edit_facts(_ctx(s.msgs)) == []


def test_a_file_a_read_missed_and_the_session_then_created_is_no_mistake_fixed():
    s = _Session().call("Read", {"file_path": ".gitignore"}, ToolKind.READ, "File not found: .gitignore", error=True,
                        path=".gitignore")
    s.run("cat > .gitignore << 'EOF'\ntarget/\nEOF")
    (rec,) = [r for r in scan_transcript(Transcript("t.json", "test", s.msgs, group_rounds(s.msgs)))
              if r.id == "ERR_TOOL_FileNotFound"]
    assert rec.solution.startswith("it did not exist: created `.gitignore` (r2)")


def test_a_failure_the_agent_chose_to_do_without_is_not_left_unfixed():
    s = _Session().call("Read", {"file_path": "skills/ROUTER.md"}, ToolKind.READ,
                        "Cannot find path 'skills/ROUTER.md' because it does not exist.", error=True,
                        path="skills/ROUTER.md")
    s.say(Role.ASSISTANT, "The router include is missing from this install, so I'll continue with the workflow "
                          "that is present in SKILL.md.")
    s.run("echo ok", "ok")
    (rec,) = [r for r in scan_transcript(Transcript("t.json", "test", s.msgs, group_rounds(s.msgs)))
              if r.id == "ERR_TOOL_FileNotFound"]
    assert "no fix seen" not in rec.solution


def test_node_s_enoent_is_a_missing_file_and_an_aborted_call_is_the_user_s_choice():
    assert [h.id for h in classify("ENOENT: no such file or directory, access '/a/src/index.html'", failed=True)] \
        == ["ERR_TOOL_FileNotFound"]
    s = _Session().call("bash", {"command": "find / -name x"}, ToolKind.SHELL, "Command aborted", error=True)
    s.say(Role.ASSISTANT, "[error: Request was aborted.]").say(Role.USER, "i gave you the full path ..")
    s.call("Read", {"file_path": "/a/src/index.html"}, ToolKind.READ, "<html>", path="/a/src/index.html")
    (rec,) = [r for r in scan_transcript(Transcript("t.json", "test", s.msgs, group_rounds(s.msgs)))
              if r.id == "ERR_TOOL_UserAborted"]
    assert rec.solution == "the user stopped it, then said: “i gave you the full path ..”"


def test_an_option_the_agent_supposes_is_no_reason_unless_it_gains_what_was_wanted():
    assert _supposes("If I assume that `transform` implies preserving, then I don't need API changes.")
    assert _supposes("If I change `config` to a dict, `_get_output_config` will break.")
    assert _supposes("Maybe the dict is not in the set.")
    assert not _supposes("If I modify `Legend.draw` to call `connect()`, that would ensure a canvas exists.")
    assert not _supposes("The cache is keyed by path, so two URLs share an entry.")


def test_a_choice_put_to_the_user_and_set_aside_is_the_user_s_to_decide():
    from compaction.history.sources.open_choices import open_choice_facts

    s = _Session("review the docs").run("sed -i 's/a/b/' docs/hooks.md")
    s.say(Role.ASSISTANT, "Done.\n\nShould we commit or continue with rpc.md?").say(Role.USER, "ok")
    s.say(Role.ASSISTANT, "Should we commit what we have, or continue with rpc.md?")
    s.say(Role.USER, "write a little poem instead,").say(Role.ASSISTANT, "Roses are red.")
    (fact,) = open_choice_facts(_ctx(s.msgs))
    assert fact.text.startswith("[the user's to decide] “Should we commit what we have, or continue with rpc.md?” "
                                "(set aside: the user answered “write a little poem instead,”, asked 2 times)")
    # an offer the user took up is decided
    s = _Session("fix it").run("sed -i 's/a/b/' x.py").say(Role.ASSISTANT, "Want me to add a test for it?")
    s.say(Role.USER, "yes").run("sed -i 's/c/d/' test_x.py")
    assert open_choice_facts(_ctx(s.msgs)) == []


# --- what a code review of the mends above found (each a defect it confirmed with an input like these) ---

def test_a_revert_after_a_commit_puts_back_the_committed_text_which_holds_the_work():
    s = _Session().run("sed -i '3s/a/b/' core.py").run("git commit -am fix", "[main 1234567] fix\n 1 file changed")
    s.run("sed -i '9s/c/d/' core.py").run("git checkout core.py")
    texts = [f.text for f in completed_facts(_ctx(s.msgs))]
    assert "`sed -i '3s/a/b/' core.py` (r1)" in texts
    assert "`sed -i '9s/c/d/' core.py` → undone by the revert of r4 (r3)" in texts


def test_only_a_closing_question_the_user_then_answers_is_a_choice_put_to_the_user():
    from compaction.history.sources.open_choices import open_choice_facts

    # a question the agent goes on past (a call in the same message) is its own
    s = _Session("tidy it").run("ls", text="Should I also update the tests? Let me check.")
    s.say(Role.ASSISTANT, "Done.")
    assert open_choice_facts(_ctx(s.msgs)) == []
    # a reply that names one of the courses decides it, "first" or not
    s = _Session("tidy it").run("sed -i 's/a/b/' x.py").say(Role.ASSISTANT, "Should we commit, or continue with rpc.md?")
    s.say(Role.USER, "commit first").say(Role.ASSISTANT, "Committed.")
    assert open_choice_facts(_ctx(s.msgs)) == []


def test_a_last_reply_that_asks_back_gives_up_or_plans_answers_nothing():
    for last in ("Which test file do you mean?", "[error: Request was aborted.]",
                 "I was not able to make the tests pass.", "Let me now look at the failing test."):
        s = _Session("fix it").say(Role.ASSISTANT, "Fixed.").say(Role.USER, "now make the tests pass")
        s.say(Role.ASSISTANT, last)
        current = [f.text for f in task_facts(_ctx(s.msgs)) if f.text.startswith("Current request")]
        assert current == ["Current request: now make the tests pass"], last


def test_going_on_without_is_said_of_a_missing_thing_not_of_a_failing_test():
    s = _Session().run("pytest -q tests/test_parse.py", "E   AssertionError: assert [1, [2]] == [1, 2]\n1 failed",
                       exit_code=1)
    s.say(Role.ASSISTANT, "The assert fails because parse flattens nested lists; I'll continue without it for now.")
    s.run("echo ok", "ok")
    recs = scan_transcript(Transcript("t.json", "test", s.msgs, group_rounds(s.msgs)))
    assert recs and all("went on without it" not in r.solution for r in recs)


def test_a_file_missed_at_one_place_and_edited_at_another_was_not_created():
    s = _Session().call("Read", {"file_path": "utils.py"}, ToolKind.READ, "File not found: utils.py", error=True,
                        path="utils.py")
    s.call("Edit", {"file_path": "src/utils.py", "old_string": "a = 1", "new_string": "a = 2"}, ToolKind.EDIT, "ok",
           path="src/utils.py")
    recs = [r for r in scan_transcript(Transcript("t.json", "test", s.msgs, group_rounds(s.msgs)))
            if r.id == "ERR_TOOL_FileNotFound"]
    assert recs and "did not exist" not in recs[0].solution


def test_a_final_diff_line_repeated_in_one_hunk_is_said_once():
    from compaction.edits import Hunk
    from compaction.history.sources.changes import _net_lines

    shown, _ = _net_lines((Hunk((), ("x = compute(1)", "x = compute(1)", "x = compute(1)")),))
    assert shown == ["+ x = compute(1)"]


def test_a_substitution_whose_line_already_holds_its_replacement_is_no_missed_change():
    view = "def f(x):\n    return x is self\n"
    s = _Session().run("cat -n a.py", "".join(f"{i:6}\t{ln}\n" for i, ln in enumerate(view.splitlines(), 1)))
    s.run("sed -i '2s/x == self/x is self/' a.py")
    assert missed_edit_facts(_ctx(s.msgs)) == []


def test_code_spans_keep_their_apostrophes_and_a_closing_report_keeps_what_must_not_be_done():
    assert prose("The test expects `Don’t panic`, and I’m sure.") == "The test expects `Don’t panic`, and I'm sure."
    report = informative(["All tests pass.", "Note that we should not call `init()` twice: it resets `CACHE`."],
                         300, closing=True)
    assert report is not None and "`init()` twice" in report


def test_the_task_s_own_bug_is_advised_its_check_not_the_family_s_habit():
    from compaction.errors.advice import advise
    from compaction.errors.records import ErrorRecord, Location, Occurrence

    occ = Occurrence(round=3, transcript="t", evidence="AttributeError: Unable to convert", detail="",
                     location=Location(path="numpy_handler.py", command="python reproduce_bug.py"), target=True)
    rec = ErrorRecord(id="ERR_PY_AttributeError", occurrences=[occ])
    assert advise(rec) == "the task's own bug: re-run `python reproduce_bug.py` after every change, to see the fix " \
                          "still holds"
    rec.solution = "then the reproduction `python reproduce_v2.py` ran clean (r9)"  # the first shows the old way
    assert "`python reproduce_v2.py`" in advise(rec)


# --- what a second code review found in the mends of the first ---

def test_a_report_that_closes_on_a_question_or_an_offer_answers_the_request():
    from compaction.history.sources.task import _answers_nothing

    assert not _answers_nothing("Done. Updated `skills-lock.json` and pushed.\n\nWhat else would you like me to do?")
    assert not _answers_nothing("Roses are red,\nparsers are fixed,\nWhat more could a coder ask for?")
    assert not _answers_nothing("Fixed it. Let me know if you want any other changes.")
    assert not _answers_nothing("Done. I'll leave the version bump to you.")
    assert _answers_nothing("I couldn't get the tests to pass.")
    assert _answers_nothing("I’ll now look at the failing test.")
    assert _answers_nothing("Which test file do you mean?")


def test_a_block_body_repeated_within_a_hunk_is_kept_in_each_block():
    from compaction.edits import Hunk
    from compaction.history.sources.changes import _net_lines

    shown, _ = _net_lines((Hunk((), ("if a is None:", "return NotImplemented", "if b is None:", "return NotImplemented",
                                     "return a + b")),))
    assert shown == ["+ if a is None:", "+ return NotImplemented", "+ if b is None:", "+ return NotImplemented",
                     "+ return a + b"]


def test_only_a_commit_or_an_add_of_the_file_keeps_a_change_from_a_later_revert():
    s = _Session().run("sed -i '3s/a/b/' core.py").run("git add tests/test_other.py")
    s.run("git checkout HEAD -- core.py")
    assert "`sed -i '3s/a/b/' core.py` → undone by the revert of r3 (r1)" in [f.text for f in completed_facts(_ctx(s.msgs))]
    s = _Session().run("sed -i '3s/a/b/' core.py").run("git add core.py").run("git checkout -- core.py")
    assert "`sed -i '3s/a/b/' core.py` (r1)" in [f.text for f in completed_facts(_ctx(s.msgs))]  # the index kept it
    s = _Session().run("sed -i '3s/a/b/' core.py").run("git add core.py").run("git checkout HEAD -- core.py")
    assert "`sed -i '3s/a/b/' core.py` → undone by the revert of r3 (r1)" in [f.text for f in completed_facts(_ctx(s.msgs))]


def test_a_hunk_is_placed_at_its_first_change_in_the_function_git_names():
    from compaction.history.sources.final_diff import _changed_lines

    diff = ("diff --git a/r.py b/r.py\n--- a/r.py\n+++ b/r.py\n@@ -403,7 +403,7 @@ class PreparedRequest(Mixin):\n"
            " a\n b\n c\n-x\n+y\n d\n")
    assert _changed_lines(diff) == ["# r.py", "@@ line 406 in `PreparedRequest`", "-x", "+y"]


def test_a_push_of_tags_alone_and_a_quiet_commit_are_read_for_what_they_are():
    from compaction.history.sources.uncommitted import _pushes_branch

    assert not _pushes_branch(["origin", "--tags", "2>&1"], {}) and not _pushes_branch(["origin", "tag", "v1.1"], {})
    s = _Session("wip").run("git commit -qam wip").run("sed -i 's/a/b/' client.py").say(Role.USER, "and the test")
    s.run("sed -i 's/c/d/' test_client.py")
    (fact,) = uncommitted_facts(_ctx(s.msgs))
    assert fact.text.startswith("Uncommitted: 2 files changed after the last commit (r1)")


def test_a_replacement_already_on_its_line_is_a_whole_token_the_pattern_does_not_hold():
    from compaction.edits import Hunk
    from compaction.line_views import _holds_made

    assert _holds_made("    return x is self", Hunk(("x == self",), ("x is self",), context="line 2", fragment=True))
    assert not _holds_made("call(timeout=300)", Hunk(("timeout=10",), ("timeout=30",), context="line 2", fragment=True))
    assert not _holds_made("return x", Hunk(("return y",), ("return",), context="line 2", fragment=True))


def test_an_offer_put_off_stays_open_and_options_after_the_question_do_not_hide_it():
    from compaction.history.sources.open_choices import _closing_line, _sets_aside

    assert _sets_aside("Not yet, I want to review the changes first", "Should I commit these changes?")
    assert not _sets_aside("Update README.md first, then we'll see", "Should we commit, or update README.md?")
    assert _closing_line("Done.\n\nShould I refactor the parser?\n\n- a: yes\n- b: no\n") == "Should I refactor the parser?"


def test_a_bare_name_a_read_missed_is_not_the_file_written_in_a_folder():
    from compaction.errors.scan import same_place as _same_place

    assert _same_place(".gitignore", "/home/z/bastion/.gitignore", "/home/z/bastion")
    assert not _same_place("/testbed/src/utils.py", "utils.py", "/testbed")
