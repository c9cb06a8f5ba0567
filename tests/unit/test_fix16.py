"""Correctness fixes of a code review (fix16): what the hand-over document says must not be wrong nor
said twice."""

from __future__ import annotations

import re

from compaction.history.engine import compact
from compaction.model import Message, Role
from tests.unit.synthetic import call_pair as _call
from tests.unit.synthetic import transcript as _transcript

SEARCHED = "import { PoIValidator } from './PoIValidator';"


def _refused_then_applied() -> list[Message]:
    return [
        Message(0, Role.USER, "switch the invoker to SignalScorer"),
        *_call("edit", {"path": "/repo/cli/invoker.ts", "search": SEARCHED,
                        "replace": "import { SignalScorer } from './SignalScorer';"}, "a",
               "SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in cli/invoker.ts\n"
               "<<<<<<< SEARCH\n" + SEARCHED + "\n=======\nimport { SignalScorer } from './SignalScorer';\n"
               ">>>>>>> REPLACE\n", is_error=True),
        *_call("edit", {"path": "/repo/cli/invoker.ts", "search": "// Invokes PoIValidator and the registry",
                        "replace": "// Invokes SignalScorer and the registry"}, "b", "Applied edit to cli/invoker.ts"),
    ]


def _padding(n: int) -> list[Message]:
    out = []
    for i in range(n):
        out.append(Message(0, Role.USER, f"now explain part {i} of the pipeline in detail please"))
        out.append(Message(0, Role.ASSISTANT, f"Part {i} of the pipeline reads the signals, scores them and "
                                              "stores the result; " * 12))
    return out


def test_a_refused_edit_is_told_once_in_the_document():
    t = _transcript([*_refused_then_applied(), *_padding(14)], cwd="/repo")
    doc = compact(t, target_tokens=1500).markdown
    assert "ERR_TOOL_EditNotFound" in doc  # the record is shown
    told = [ln for ln in doc.splitlines() if SEARCHED in ln and not ln.lstrip().startswith(">")]  # not the quoted output
    assert len(told) == 1, told
    assert "(r2) replaced the comment line" in told[0]  # the Problems line, with its cause and what the retry did
    assert "not matched: SearchReplaceNoExactMatch" not in doc  # the record's `Error:` line does not retell it


def test_every_finding_pattern_is_reached_by_the_keyword_search():
    """The keywords that pick candidate sentences are the patterns' own words: a sentence only the last
    pattern's `contain only` (or the fourth's `as suggested by`) matches is still a finding."""
    from compaction.history.sources.findings import statements

    reply = Message(0, Role.ASSISTANT, "The generated `schemas/index.ts` exports contain only the `SignalSchema` re-export.\n"
                                       "As suggested by the trace in `loader.py`, the `parse` step runs twice.")
    said = [s for s, _w in statements(reply.text)]
    assert any(s.startswith("The generated `schemas/index.ts` exports contain only") for s in said), said
    assert any(s.startswith("As suggested by the trace") for s in said), said


def _decisions(msgs: list[Message], cwd: str) -> list[str]:
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.steering import role_preset

    t = _transcript(msgs, cwd=cwd)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), cwd, len(t.rounds), target_tokens=4000)
    return [f.text for f in decision_facts(ctx)]


def test_a_decision_names_the_projects_files_relative_whatever_the_cwd_spelling():
    for cwd, path in (("/home/me/proj", "/home/me/proj/src/union.ts"), ("C:\\Users\\me\\proj", "C:\\Users\\me\\proj\\src\\union.ts"),
                      ("C:\\Users\\me\\proj", "c:/Users/me/proj/src/union.ts")):
        texts = _decisions([
            Message(0, Role.USER, "refactor it"),
            Message(0, Role.ASSISTANT, f"Okay, I will refactor `{path}` to avoid using `await` inside the loop.\n\n"
                                       "The approach will be to map each iterable to a promise of its items."),
        ], cwd)
        [line] = [x for x in texts if "union.ts" in x]
        assert "`src/union.ts`" in line, (cwd, line)


def test_what_the_user_gave_after_reading_an_instruction_is_not_asked_again():
    """A guide the user ran themselves (`!cat SKILL.md`) and then answered, in the same round (a user's
    own command does not close a round): its 'ask the user for…' is no longer pending."""
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.next_steps import needs_from_user
    from compaction.history.steering import role_preset
    from compaction.model import ToolResult
    from compaction.transcripts._agent_tools import make_call

    guide = "# Setup\nAsk the user for their wallet address before signing.\n"
    msgs = [Message(0, Role.USER, "set up the signer"), Message(0, Role.ASSISTANT, "Which guide should I follow?"),
            Message(0, Role.USER, "!cat docs/SKILL.md", tool_calls=[make_call("bash", {"command": "cat docs/SKILL.md"}, "u1")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult(guide, "u1")]),
            Message(0, Role.USER, "my wallet address is 0xabc, go ahead"),
            Message(0, Role.ASSISTANT, "Signing with it now.",
                    tool_calls=[make_call("Read", {"file_path": "/repo/docs/NOTES.md"}, "a2")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult("# Notes\nSigning takes a minute.\n", "a2")])]
    t = _transcript(msgs, cwd="/repo")
    assert len(t.rounds) == 2 and t.rounds[1].messages[-2].text == "Signing with it now."  # the guide, the answer: one round
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=4000)
    assert needs_from_user(ctx) == []


def test_a_commit_message_is_cut_at_a_word():
    from compaction.history.sources.filelog import commit_words

    said = commit_words("feat: add the SignalFinalizationRequestSchema and its type definition", 50)
    assert said.endswith("…") and len(said) <= 50
    assert "add the SignalFinalizationRequestSchema and its type definition".startswith(said[:-1] + " "), said


def test_the_inferred_name_note_follows_the_files_own_parenthesis():
    """A change record's line takes the modified line's note (file named by the patch's content) after
    its file's counts, never after a `)` inside the path or a signature."""
    from compaction.history.facts import Fact
    from compaction.history.sections import Section
    from compaction.history.sources.modified import _INFERRED, with_changes

    def pair(path: str, first: str) -> str:
        m = Fact(Section.MODIFIED, f"`{path}`: edited{_INFERRED} (r3)", [3], path=path)
        c = Fact(Section.CHANGES, f"{first} (r3)", [3], path=path)
        [line], _ = with_changes([m], [c])
        return line.text

    assert pair("app/(shop)/page.tsx", "`app/(shop)/page.tsx` (1 edit): defines Page()") == \
        f"`app/(shop)/page.tsx` (1 edit){_INFERRED}: defines Page() (r3)"
    assert pair("src/a.py", "`src/a.py`: defines load(path)") == f"`src/a.py`{_INFERRED}: defines load(path) (r3)"


def test_one_test_path_rule_for_the_modified_list_and_the_current_work():
    from compaction.history.facts import is_test_path
    from compaction.history.sources import current, modified

    assert all(is_test_path(p) for p in ("tests/test_io.py", "Tests/ParserTests.cs", "src/a.test.ts", "pkg/io_test.go",
                                         "src/__tests__/a.js", "spec/models/user_spec.rb", "test_io.py"))
    assert not any(is_test_path(p) for p in ("src/latest_data.py", "contest_rules.md", "src/attest.py"))
    assert current.is_test_path is modified.is_test_path is is_test_path


def _edit(path: str, rnd: int):
    from compaction.events import Event, EventKind
    return Event(EventKind.EDIT, rnd, rnd * 10, path=path)


def _commit(h: str, rnd: int):
    from compaction.events import Event, EventKind
    return Event(EventKind.COMMIT, rnd, rnd * 10 + 1, commit_hash=h * 7)


def _git(command: str, rnd: int):
    from compaction.events import Event, EventKind
    return Event(EventKind.COMMAND, rnd, rnd * 10 + 2, command=command)


def _kept(events) -> dict[str, bool]:
    from compaction.history.sources.filelog import file_logs
    return {p: bool(log.kept) for p, log in file_logs(events, "/repo").items()}


def test_a_later_head_ref_counts_from_the_commit_an_undo_left():
    from compaction.events import Event, EventKind
    undo = Event(EventKind.REVERT, 3, 30, commit_hash="b" * 7, text="add b")  # aider's /undo of the last commit
    events = [_edit("a.py", 1), _commit("a", 1), _edit("b.py", 2), _commit("b", 2), undo, _git("git revert HEAD", 4)]
    assert _kept(events) == {"a.py": False, "b.py": False}  # HEAD was a's commit once b's was undone


def test_a_later_head_ref_counts_from_the_commit_a_reset_left():
    events = [_edit("a.py", 1), _commit("a", 1), _edit("b.py", 2), _commit("b", 2), _edit("c.py", 3), _commit("c", 3),
              _git("git reset --hard HEAD~1", 4), _git("git revert HEAD", 5)]
    assert _kept(events) == {"a.py": True, "b.py": False, "c.py": False}


def test_a_soft_reset_leaves_the_commits_edits_uncommitted():
    events = [_edit("a.py", 1), _commit("a", 1), _edit("b.py", 2), _commit("b", 2),
              _git("git reset HEAD~1", 3), _git("git checkout .", 4)]
    assert _kept(events) == {"a.py": True, "b.py": False}  # b's edit was in the work tree, then thrown away
    events = [_edit("a.py", 1), _commit("a", 1), _edit("b.py", 2), _commit("b", 2), _git("git reset HEAD b.py", 3),
              _git("git checkout .", 4)]
    assert _kept(events) == {"a.py": True, "b.py": True}  # unstaging a file drops no commit


def test_a_file_shown_by_a_shell_line_is_read_by_the_events_rule():
    """A script written by a heredoc and then run shows its output, not its lines; two files read at
    once run together: neither is one file's view."""
    from compaction.history.sources.blocks import shown_file

    assert shown_file("cat -n src/io.py") == "src/io.py"
    assert shown_file("sed -n '10,40p' src/io.py | head -5") == "src/io.py"
    assert shown_file("cat <<'EOF' > debug.py\nprint('Found x at 3')\nEOF\npython debug.py") is None
    assert shown_file("cat a.py b.py") is None
    assert shown_file("grep -n load src/io.py") is None


def test_a_retry_that_searched_another_line_does_not_count_as_quoting_the_refusal():
    from compaction.history.facts import Fact
    from compaction.history.sections import Section
    from compaction.history.sources.edit_failures import quotes_search

    quoting = Fact(Section.PROBLEMS, "`a.ts`: 2 edits refused: searched `import x`, not in the file (r3)", [3])
    cause_only = Fact(Section.PROBLEMS, "`a.ts`: 2 edits refused: tabs, not spaces — the retry (r4) searched "
                                        "`// anchor` instead (r3, r4)", [3, 4])
    assert quotes_search(quoting)
    assert not quotes_search(cause_only)  # the record's own Error: line must still tell the refusal


def test_an_alias_whose_failure_is_told_elsewhere_leaves_no_empty_label():
    from compaction.errors.records import ErrorRecord, Occurrence
    from compaction.history import errors_adapter

    main = ErrorRecord("ERR_PY_AssertionError", [Occurrence(2, evidence="AssertionError: 1 != 2")], merged=["ERR_B"])
    alias = ErrorRecord("ERR_B", [Occurrence(2, evidence="b")])
    block, _ = errors_adapter.document_block(
        [main, alias], "en", 2000, 3,
        detail=lambda r, brief: "" if r.id == "ERR_B" else "assert 1 == 2 failed",
        clean=lambda r: (r.solution or "", r.avoidance or ""))
    assert "assert 1 == 2 failed" in block
    assert "ERR_B: ;" not in block and not re.search(r"ERR_B: *$", block, re.M)
