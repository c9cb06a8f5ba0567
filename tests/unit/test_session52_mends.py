"""Mends of a seventeenth blind review (error records and change records, 15 development sessions)."""

from __future__ import annotations

from compaction.edits import Hunk
from compaction.events import Event, EventKind
from compaction.history.sources.reasons import _taken_out

FINAL = "from . import icrs_observed_transforms\nfrom . import itrs_observed_transforms\nreturn cirs"


def _edit(*hunks: Hunk) -> Event:
    return Event(EventKind.EDIT, 15, 40, path="builtin_frames/__init__.py", hunks=hunks)


def test_a_deletion_the_final_diff_adds_again_was_a_probe() -> None:
    """astropy r15: `sed -i '/from . import itrs_observed_transforms/d'` to run the tests without the change,
    put back at r26: the agent's words at r15 are no reason for the file's final change."""
    back = set(FINAL.split("\n"))
    assert _taken_out(_edit(Hunk(deletes_matching="from . import itrs_observed_transforms")), FINAL, back)
    assert _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",))), FINAL, back)


def test_a_deletion_that_lasts_keeps_its_reason() -> None:
    back = set(FINAL.split("\n"))
    assert not _taken_out(_edit(Hunk(removed=("import pdb; pdb.set_trace()  # debug",))), FINAL, back)
    assert not _taken_out(_edit(Hunk(removed=("x = 1",))), FINAL, back)  # too short to judge by
    assert not _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",))), None)  # no final diff
    # (code review) a deleted line that is only a part of a line the final diff adds was not put back
    final = "        return self.timeout or DEFAULT_TIMEOUT"
    assert not _taken_out(_edit(Hunk(removed=("return self.timeout",))), final, {final.strip()})
    # (code review) nor a line the final diff moves: it removes it here and adds it there (no `put_back`)
    assert not _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",))), FINAL, set())


def test_an_edit_that_adds_kept_or_unjudgeable_lines_is_no_probe() -> None:
    back = set(FINAL.split("\n"))
    assert not _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",), added=("return cirs",))),
                          FINAL, back)
    assert not _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",), added=("v",),
                                     fragment=True)), FINAL, back)


def _config_edit(rnd: int, removed: tuple[str, ...], added: tuple[str, ...]) -> Event:
    return Event(EventKind.EDIT, rnd, rnd, path="package.json", hunks=(Hunk(removed=removed, added=added),))


def test_a_config_files_edits_say_what_each_left_latest_wins() -> None:
    """npm-publish r7: `"main"` went to `dist/client/index.js`, then, a copy into its own source being
    recursive, to `./dist-client/index.js`: the detail lines say the final path at the later edit and never
    the one in between."""
    from compaction.history.sources.changes import _netted_summaries

    events = [_config_edit(5, ('"build": "rimraf ./dist && svelte-package -i src",',),
                           ('"build": "rimraf ./dist && svelte-package -i src && node ./scripts/build-client.mjs",',)),
              _config_edit(7, ('"main": "dist/index.js",', '"module": "dist/index.js",'),
                           ('"main": "dist/client/index.js",', '"module": "dist/client/index.js",')),
              _config_edit(7, ('"main": "dist/client/index.js",', '"files": ["dist"]'),
                           ('"main": "./dist-client/index.js",', '"files": ["dist", "dist-client"]'))]
    said = _netted_summaries(events)
    assert said is not None
    text = " | ".join(w for _, _, w in said)
    assert "dist/client/index.js\"," not in text.replace('"module": "dist/client/index.js"', "")
    latest = next(w for order, _, w in said if order == 2)
    assert '"main": "dist/index.js",\' → \'"main": "./dist-client/index.js",' in latest
    middle = next(w for order, _, w in said if order == 1)
    assert "module" in middle and '"main"' not in middle  # its "main" is said where it ended up
    assert [order for order, _, _ in said] == [2, 1, 0]  # latest first, as `_replay` says them


def test_a_line_added_then_removed_says_nothing_and_whole_rewrites_are_left_to_their_own_summaries() -> None:
    from compaction.history.sources.changes import _netted_summaries

    events = [_config_edit(3, (), ("DEBUG = true  # remove before release",)),
              _config_edit(4, ("DEBUG = true  # remove before release",), ())]
    assert _netted_summaries(events) == []
    whole = Event(EventKind.WRITE, 2, 2, path="package.json", hunks=(Hunk(added=("{}",)),), whole=True)
    assert _netted_summaries([whole, *events]) is None


def test_an_export_that_kept_no_file_name_still_names_the_fixed_file(shared_transcripts) -> None:
    """SpecStory's Copilot export keeps `copilot_multiReplaceString` without its arguments; the events name
    the file by the edit's content: the error memory's fix says it (it said "an edit (r5)"), and quotes no
    words from before the user's new ask (r4's note on the API a test uses was no account of r5's fix)."""
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "more-agents" / "specstory-copilot-destyler-tree-vanilla.md"))
    records = {r.id: r for r in compact(t, target_tokens=10**6).error_records}
    assert "tree/test/tree.spec.ts` (r5)" in records["ERR_JS_TimeoutError"].solution
    assert "tree/test/tree.spec.ts` (r5)" in records["ERR_JS_Error"].solution
    assert "getAttribute" not in records["ERR_JS_Error"].solution
    # the user ran the tests and pasted the report (r6): the assertion's failure is gone from it
    assert records["ERR_JS_Error"].solution.endswith("; then the user's test run no longer printed it (r6)")
    # a timeout's absence shows nothing (a run may simply not reach it): not said of it
    assert "user's test run" not in records["ERR_JS_TimeoutError"].solution
    # the failure still in every later paste: tried, never checked
    assert "user's test run" not in records["ERR_JS_VitestBrowserElementError"].solution


def test_lines_deleted_and_a_file_read_in_their_place_are_a_replacement() -> None:
    """pytest r67: `sed -i '225,312d' reports.py && sed -i '224r new_from_json.py' reports.py` put the new
    `_from_json` in: "deleted lines 225-312" read as if the method was only removed."""
    from compaction.errors.scan import key_change
    from compaction.model import ToolCall, ToolKind

    call = ToolCall("bash", {}, "c1", kind=ToolKind.SHELL,
                    command="sed -i '225,312d' src/_pytest/reports.py && sed -i '224r new_from_json.py' src/_pytest/reports.py")
    assert key_change(call) == "replaced lines 225-312 with `new_from_json.py`"
    alone = ToolCall("bash", {}, "c2", kind=ToolKind.SHELL, command="sed -i '225,312d' src/_pytest/reports.py")
    assert key_change(alone) == "deleted lines 225-312"
    # (code review) a file read in elsewhere, into another file or at another line, replaced nothing
    other = ToolCall("bash", {}, "c3", kind=ToolKind.SHELL,
                     command="sed -i '225,312d' src/a.py && sed -i '10r /tmp/header.txt' src/b.py")
    assert key_change(other) == "deleted lines 225-312"
    apart = ToolCall("bash", {}, "c4", kind=ToolKind.SHELL,
                     command="sed -i '300,310d' src/a.py && sed -i '40r extra_imports.py' src/a.py")
    assert key_change(apart) == "deleted lines 300-310"


def test_a_missed_substitution_says_what_its_line_held() -> None:
    from compaction.events import _missed_where

    hunk = Hunk(removed=("super().set_output(transform=transform)",), added=("x",), context="line 1048", fragment=True)
    assert _missed_where(hunk, '        """') == 'line 1048 holds `"""`, not `super().set_output(transform=transform)`'
    assert _missed_where(hunk, "   ") == "line 1048 is blank, not `super().set_output(transform=transform)`"
    assert _missed_where(hunk, None) == "line 1048: no `super().set_output(transform=transform)`"
    long = _missed_where(hunk, "x = " + "y" * 100)
    assert long.startswith("line 1048 holds `x = yyy") and "…`, not" in long
    # (code review) a line holding a backtick is fenced by a longer run: its span does not close early
    assert _missed_where(hunk, "const msg = `Hello ${name}`;") == \
        "line 1048 holds `` const msg = `Hello ${name}`; ``, not `super().set_output(transform=transform)`"


def test_an_error_the_same_command_never_printed_again_is_not_an_open_problem(shared_transcripts) -> None:
    """pytest r41: an `OSError: [Errno 9] Bad file descriptor` in the teardown of the crash the TypeError
    caused; the same run went on seven more times without it. "no fix seen after r41" read as a live bug."""
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "mini-pytest-5787.traj.json"))
    records = {r.id: r for r in compact(t, target_tokens=10**6).error_records}
    assert records["ERR_PY_OSError"].solution == \
        "not seen again: `pytest -n 2 reproduce_issue.py` ran 7 more times without it (r43-r82)"


def test_a_document_the_session_wrote_keeps_its_drafting_edits() -> None:
    """git-provenance wrote SYSTEM-SUMMARY.md with a patch's `*** Add File` (an edit that only adds lines),
    then reworked it: its first version's sections are how it was drafted, which a successor may be asked
    about; only an existing file's edits are said latest-wins."""
    from compaction.history.sources.changes import _drafted

    added = Event(EventKind.EDIT, 21, 21, path="docs/SUMMARY.md", hunks=(Hunk(added=("# Summary", "## Matrix")),))
    assert _drafted(added, existed=False)
    assert not _drafted(added, existed=True)  # read before: an append to a file that was there
    changed = Event(EventKind.EDIT, 21, 21, path="docs/SUMMARY.md", hunks=(Hunk(removed=("a",), added=("b",)),))
    assert not _drafted(changed, existed=False)


def _pasted_run_transcript(again: str):
    from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

    first = ("The tree test fails when I run it:\n\n FAIL  test/tree.spec.ts > tree > selects an item on click\n"
             "Error: expected the item to be selected after clicking package.json\n ❯ test/tree.spec.ts:5:5\n\n"
             " Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)\n")
    call = ToolCall("Edit", {"file_path": "/repo/src/tree.ts", "old_string": "this.selected = null",
                             "new_string": "this.selected = item"}, "c1", ToolKind.EDIT, path="/repo/src/tree.ts")
    msgs = [Message(0, Role.USER, first),
            Message(0, Role.ASSISTANT, "The click handler never sets `selected`; setting it to the clicked item.", [call]),
            Message(0, Role.TOOL, tool_results=[ToolResult("ok", "c1")]),
            Message(0, Role.USER, again), Message(0, Role.ASSISTANT, "Let me look again at the click handler.")]
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript("s.jsonl", "test", msgs, group_rounds(msgs), cwd="/repo")


def test_a_pasted_run_that_fails_as_often_is_no_sign_the_error_went() -> None:
    """(code review) "Still failing after your change: 1 failed | 3 passed" without the error's line: the
    same count still fails; only fewer failures and no error line say the fix held."""
    from compaction.errors import scan_transcript

    still = " Still failing after your change:\n\n Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)\n"
    rec = next(r for r in scan_transcript(_pasted_run_transcript(still)) if r.id == "ERR_JS_Error")
    assert "user's test run" not in rec.solution
    passing = " Test Files  1 passed (1)\n      Tests  4 passed (4)\n"
    rec = next(r for r in scan_transcript(_pasted_run_transcript(passing)) if r.id == "ERR_JS_Error")
    assert rec.solution.endswith("then the user's test run no longer printed it (r2)"), rec.solution


def test_not_seen_again_quotes_the_line_that_runs() -> None:
    """(code review) A command with a comment line first: the quote is the line that runs, not the comment
    joined to it (pasted into a shell, that line would run nothing)."""
    from compaction.errors import scan_transcript
    from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

    cmd = "# run the reproduction again\npython reproduce_issue.py"
    outs = ["Traceback (most recent call last):\n  File \"/repo/x.py\", line 3, in <module>\n"
            "OSError: [Errno 9] Bad file descriptor while closing the capture pipe", "AssertionError: still wrong", "ok"]
    msgs = [Message(0, Role.USER, "fix the reproduction")]
    for k, out in enumerate(outs):
        call = ToolCall("bash", {"command": cmd}, f"c{k}", ToolKind.SHELL, command=cmd)
        msgs += [Message(0, Role.ASSISTANT, "Running it.", [call]),
                 Message(0, Role.TOOL, tool_results=[ToolResult(out, f"c{k}", exit_code=1 if k < 2 else 0)])]
    for i, m in enumerate(msgs):
        m.index = i
    t = Transcript("s.jsonl", "test", msgs, group_rounds(msgs), cwd="/repo")
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_PY_OSError")
    assert "not seen again: `python reproduce_issue.py` ran 2 more times without it" in rec.solution, rec.solution
