"""How the hand-over document spends a small budget (issue 14 items 5, 6): project rules the agent
read, the state the session ended in, what a short assent accepts, pastes trimmed before the task
is cut, and no lines that answer nothing (an empty error memory, the "Dropped" bookkeeping)."""

from __future__ import annotations

from compaction.events import extract_events, is_follow_up_request
from compaction.history.engine import compact
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.sources.rules import digest, is_instructions
from compaction.history.sources.task import accepted_offer, trim_pastes
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

AGENTS = """# AGENTS.md

## Overview
This repository is a small game engine.

## Work Rules
- Do not scan the full repository unless required.
- Prefer targeted search by class or function name.
- Never modify files under vendor/.
- Keep changes small.

## Response format
- Your response must contain exactly one bash code block.
"""


def _transcript(msgs: list[Message]) -> Transcript:
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript("s.jsonl", "test", msgs, group_rounds(msgs))


def _facts(t: Transcript, target: int = 2000) -> list:
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=target)
    return gather(ctx)


def test_instruction_files_are_recognised_by_shape_and_digested_under_their_headings() -> None:
    assert is_instructions(AGENTS)
    assert not is_instructions("Here is the output of the build.\nIt compiled fine.\nNo warnings.")
    text = digest(AGENTS)
    assert "Work Rules: Do not scan the full repository unless required; Prefer targeted search" in text
    assert "Never modify files under vendor/" in text
    assert "bash code block" not in text  # a rule about talking to the harness is not the project's
    # within a small limit the binding rules (never/do not) stay, plain items give way
    small = digest(AGENTS, 110)
    assert "Never modify files under vendor/" in small and "Keep changes small" not in small


def test_an_instruction_file_read_by_a_tool_becomes_project_rules() -> None:
    read = ToolCall("Read", {"file_path": "/repo/AGENTS.md"}, "c1", ToolKind.READ, path="/repo/AGENTS.md")
    t = _transcript([Message(0, Role.USER, "Add a pause menu to the game"),
                     Message(1, Role.ASSISTANT, "Reading the rules first.", [read]),
                     Message(2, Role.TOOL, tool_results=[ToolResult(AGENTS, "c1")]),
                     Message(3, Role.ASSISTANT, "Done.")])
    rules = [f for f in _facts(t) if f.section is Section.RULES]
    assert len(rules) == 1 and rules[0].text.startswith("AGENTS.md (r1), to follow:")
    assert "Never modify files under vendor/" in rules[0].text and rules[0].essential


def test_a_short_assent_carries_the_offer_it_accepts_and_stays_pending() -> None:
    t = _transcript([Message(0, Role.USER, "Find the session file for me"),
                     Message(1, Role.ASSISTANT, "Found it at ~/s.jsonl. Want me to copy it into the repo and commit it?"),
                     Message(2, Role.USER, "yes please")])
    assert accepted_offer(t.messages, 2) == "Want me to copy it into the repo and commit it?"
    assert accepted_offer(t.messages, 0) is None
    facts = _facts(t)
    goal = [f.text for f in facts if f.section is Section.GOAL]
    assert goal[-1] == "Current request: yes please (accepting: “Want me to copy it into the repo and commit it?”)"
    pending = [f for f in facts if f.section is Section.CURRENT and f.pending]
    assert pending and pending[0].text == "Pending: the current request (r2) is not answered or done yet"


def test_verification_state_says_whether_tests_ran_after_the_last_edit() -> None:
    edit = ToolCall("Edit", {"file_path": "a.py"}, "e1", ToolKind.EDIT, path="a.py")
    test = ToolCall("Bash", {"command": "pytest -q"}, "t1", ToolKind.SHELL, command="pytest -q")
    again = ToolCall("Edit", {"file_path": "a.py"}, "e2", ToolKind.EDIT, path="a.py")
    msgs = [Message(0, Role.USER, "Fix a.py"),
            Message(1, Role.ASSISTANT, "Editing.", [edit]), Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e1")]),
            Message(3, Role.USER, "now run the tests"),
            Message(4, Role.ASSISTANT, "Running.", [test]),
            Message(5, Role.TOOL, tool_results=[ToolResult("3 passed in 0.1s", "t1", exit_code=0)])]
    checked = [f.text for f in _facts(_transcript(list(msgs))) if f.section is Section.CURRENT and f.pending]
    assert checked and checked[0].startswith("Tests run after the last edit (r1): `pytest -q`")
    msgs += [Message(6, Role.USER, "one more tweak"), Message(7, Role.ASSISTANT, "Tweaked.", [again]),
             Message(8, Role.TOOL, tool_results=[ToolResult("ok", "e2")])]
    unchecked = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert unchecked and unchecked[0].startswith("No test run after the last edit (r3)")


def test_a_build_after_the_last_code_edit_is_its_check_and_a_notes_edit_needs_none() -> None:
    """cc-fundwise: `pnpm build` passed after the feature, then STATUS.md was updated; "Current work" read
    "No test run after the last edit (r66)" with an older script's failure as the last run."""
    edit = ToolCall("Write", {"file_path": "scripts/ready.mjs", "content": "x"}, "e1", ToolKind.WRITE, path="scripts/ready.mjs")
    build = ToolCall("Bash", {"command": "pnpm build 2>&1 | tail -60"}, "b1", ToolKind.SHELL, command="pnpm build 2>&1 | tail -60")
    notes = ToolCall("Edit", {"file_path": "STATUS.md"}, "e2", ToolKind.EDIT, path="STATUS.md")
    msgs = [Message(0, Role.USER, "Add the readiness script and build"),
            Message(1, Role.ASSISTANT, "Writing.", [edit]), Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e1")]),
            Message(3, Role.USER, "build it"),
            Message(4, Role.ASSISTANT, "Building.", [build]),
            Message(5, Role.TOOL, tool_results=[ToolResult("   Creating an optimized production build ...\n"
                                                           " ✓ Compiled successfully in 17.3s\n", "b1")]),
            Message(6, Role.USER, "update the status"),
            Message(7, Role.ASSISTANT, "Updating.", [notes]), Message(8, Role.TOOL, tool_results=[ToolResult("ok", "e2")])]
    state = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert state and state[0].startswith("Checked after the last code edit (r1) by running `pnpm build 2>&1 | tail -60` → "
                                         "✓ Compiled successfully in 17.3s"), state
    # a build that exited 1 after its "Compiled successfully" is no passed check
    msgs[5] = Message(5, Role.TOOL, tool_results=[ToolResult(" ✓ Compiled successfully in 17.3s\nELIFECYCLE Command "
                                                             "failed with exit code 1.\n", "b1", exit_code=1)])
    state = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert state and "Compiled successfully" not in state[0], state


def test_a_script_run_after_the_last_edit_is_a_check_not_a_missing_verification() -> None:
    """A reproduction script rerun after the fix is a check (the graded exam's confident-wrong answer
    came from "No test run after the last edit" when the agent had rerun its script)."""
    edit = ToolCall("Edit", {"file_path": "a.py"}, "e1", ToolKind.EDIT, path="a.py")
    test = ToolCall("Bash", {"command": "pytest -q"}, "t1", ToolKind.SHELL, command="pytest -q")
    repro = ToolCall("Bash", {"command": "python reproduce.py"}, "r1", ToolKind.SHELL, command="python reproduce.py")
    msgs = [Message(0, Role.USER, "Fix a.py"),
            Message(1, Role.ASSISTANT, "Running the tests first.", [test]),
            Message(2, Role.TOOL, tool_results=[ToolResult("1 failed in 0.1s", "t1", exit_code=1)]),
            Message(3, Role.USER, "go on"),
            Message(4, Role.ASSISTANT, "Editing.", [edit]), Message(5, Role.TOOL, tool_results=[ToolResult("ok", "e1")]),
            Message(6, Role.USER, "check it"),
            Message(7, Role.ASSISTANT, "Rerunning the reproduction.", [repro]),
            Message(8, Role.TOOL, tool_results=[ToolResult("Script completed successfully. Result: True", "r1",
                                                           exit_code=0)])]
    state = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert state and state[0].startswith("Checked after the last edit (r2) by running `python reproduce.py` → "
                                          "Script completed successfully. Result: True")
    assert "no test suite run" in state[0]


def test_a_submitted_diff_names_its_files_new_ones_and_those_no_edit_made() -> None:
    """The harness's echo of the final diff says what was submitted: a scratch file the agent created
    (`parse_annotation.py`) and a file the environment changed (`setup.py`) are in the patch too."""
    edit = ToolCall("Edit", {"file_path": "/testbed/sphinx/domains/python.py"}, "e1", ToolKind.EDIT,
                    path="/testbed/sphinx/domains/python.py")
    test = ToolCall("Bash", {"command": "pytest -q"}, "t1", ToolKind.SHELL, command="pytest -q")
    diff = ("diff --git a/parse_annotation.py b/parse_annotation.py\nnew file mode 100644\n--- /dev/null\n"
            "+++ b/parse_annotation.py\n@@ -0,0 +1 @@\n+x = 1\n"
            "diff --git a/setup.py b/setup.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@\n-a\n+b\n"
            "diff --git a/sphinx/domains/python.py b/sphinx/domains/python.py\n--- a/sphinx/domains/python.py\n"
            "+++ b/sphinx/domains/python.py\n@@ -1 +1 @@\n-c\n+d\n")
    echo = Message(6, Role.TOOL, diff, harness=True)
    echo.meta["final_patch_echo"] = True
    msgs = [Message(0, Role.USER, "Fix the type field"),
            Message(1, Role.ASSISTANT, "Editing.", [edit]), Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e1")]),
            Message(3, Role.ASSISTANT, "Testing.", [test]),
            Message(4, Role.TOOL, tool_results=[ToolResult("3 passed in 0.1s", "t1", exit_code=0)]),
            Message(5, Role.ASSISTANT, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"), echo]
    state = [f.text for f in _facts(_transcript(msgs)) if f.section is Section.CURRENT and f.pending]
    assert state and state[0].endswith("then submitted (the harness printed the final diff: new `parse_annotation.py`, "
                                       "`setup.py` (no edit seen: `a` → `b`), `sphinx/domains/python.py`)"), state
    from compaction.history.sources.current import _submitted_files

    dotted = Message(0, Role.TOOL, 'diff --git a/.gitignore b/.gitignore\n--- a\n+++ b\n'
                                   'diff --git "a/docs/my notes.md" "b/docs/my notes.md"\nnew file mode 100644\n')
    dotted.meta["final_patch_echo"] = True
    assert _submitted_files([dotted], {"./.gitignore"}) == "`.gitignore`, new `docs/my notes.md`"


def test_long_pastes_are_trimmed_to_head_informative_lines_and_tail() -> None:
    body = [f"line {i}" for i in range(30)]
    body[15] = "ValueError: bad input"
    text = "Please fix this:\n```\n" + "\n".join(body) + "\n```\nThanks."
    out = trim_pastes(text)
    assert out.startswith("Please fix this:\n```\nline 0") and out.endswith("line 29\n```\nThanks.")
    assert "ValueError: bad input" in out and "lines of pasted code trimmed" in out and "line 10" not in out
    assert trim_pastes("short\n```\na\nb\n```") == "short\n```\na\nb\n```"


def test_tag_only_messages_are_not_requests() -> None:
    assert not is_follow_up_request("<command-name>/exit</command-name>\n<command-args></command-args>")
    assert not is_follow_up_request("<local-command-stdout>Goodbye!</local-command-stdout>")
    assert is_follow_up_request("<b>please</b> fix the build")


def test_no_empty_error_memory_nor_dropped_bookkeeping_in_the_document() -> None:
    msgs = [Message(0, Role.USER, "Write a haiku generator in gen.py")]
    for i in range(30):
        msgs += [Message(0, Role.ASSISTANT, f"Step {i}: thinking about syllables and words " * 20),
                 Message(0, Role.USER, f"go on with step {i + 1}")]
    result = compact(_transcript(msgs), target_tokens=900)
    assert result.stats.tokens_after <= 900
    assert "## Error Memory" not in result.markdown and "## Dropped" not in result.markdown
    assert "Summarized" not in result.markdown
    assert result.error_memory_markdown  # the block itself is still handed to restore and the hooks


def test_the_environment_the_harness_describes_is_one_line() -> None:
    from compaction.history.sources.environment import environment

    text = ("Filesystem sandboxing: `sandbox_mode` is `workspace-write`. Network access is restricted.\n"
            "<environment_context>\n  <shell>powershell</shell>\n  <cwd>C:\\repo</cwd>\n</environment_context>\n"
            "Platform: linux\n")
    assert environment(text) == {"shell": "powershell", "platform": "linux", "sandbox mode": "workspace-write",
                                 "network": "restricted"}
    t = _transcript([Message(0, Role.SYSTEM, text), Message(1, Role.USER, "Add a pause menu"),
                     Message(2, Role.ASSISTANT, "Done.")])
    env = [f.text for f in _facts(t) if f.section is Section.RULES]
    assert env == ["Environment: shell powershell; platform linux; sandbox mode workspace-write; network restricted"]


def test_a_request_sent_again_is_one_line_with_its_rounds() -> None:
    msgs = [Message(0, Role.USER, "Build the parser")]
    for text in ("What is this repo doing?", "what is this repo doing", "Now add tests"):
        msgs += [Message(0, Role.ASSISTANT, "ok"), Message(0, Role.USER, text)]
    goal = [(f.text, f.rounds) for f in _facts(_transcript(msgs)) if f.section is Section.GOAL]
    assert goal[1:] == [("Then asked: What is this repo doing?", [2, 3]), ("Current request: Now add tests", [4])]


def test_a_trimmed_paste_keeps_the_values_it_sets() -> None:
    """A reproduction's field values survive the trim as one digest line; code without literals adds none."""
    from compaction.history.sources.task import trim_pastes

    body = ["import numpy as np", "import os", "import sys", "ds = Dataset()", "ds.meta.UID = '1.2.3.4'", "ds.Bits = 32", "ds.Mode = 'MONO2'",
            "arr = np.zeros((5, 5), dtype=np.float32)", "if a == b:", "    x = compute(y)",
            *[f"step{i}()" for i in range(10)], "print(ds)"]
    out = trim_pastes("Repro:\n```python\n" + "\n".join(body) + "\n```")
    assert "values: UID='1.2.3.4', Bits=32, Mode='MONO2', dtype=np.float32 …]" in out
    assert "x=compute" not in out and "a=b" not in out  # calls and comparisons are not values
    plain = trim_pastes("Log:\n```\n" + "\n".join(f"step{i}()" for i in range(20)) + "\n```")
    assert "trimmed …]" in plain and "values:" not in plain


def test_a_shortened_request_keeps_its_constraint_sentences() -> None:
    from compaction.history.sources.task import shorten_request

    text = ("Please refactor the validator module into smaller pieces. The current code is messy and I have been "
            "working on it for quite a while now, with many detours along the way. Keep it agent-first. "
            "There should be no hardcoded values anywhere. Thanks a lot for the help, really.")
    short = shorten_request(text, 160)
    # telegraphic: its politeness and articles go, each ask a clause joined by ";"
    assert len(short) <= 160 and short.startswith("refactor validator module into smaller pieces; Keep it agent-first")
    assert "agent-first" in short and "no hardcoded values" in short and "messy" not in short and "Thanks" not in short
    # A file name's dot ends no sentence: the request keeps what it names.
    named = shorten_request("> please review Validator.ts and clean up brittle logic. " + "More context here. " * 8, 80)
    assert named.startswith("review Validator.ts and clean up brittle logic")
    assert named.count("More context here") <= 1  # a sentence said again is said once
    assert shorten_request("short request", 160) == "short request"
    assert shorten_request("x" * 200, 160) == "x" * 159 + "…"


def test_a_tag_named_inside_a_sentence_is_said_in_words():
    """A harness's wrapper tags go, but one its instructions name mid-sentence leaves no gap."""
    from compaction.history.facts import clean_task

    text = "<issue_description>\nThe parser drops defaults.\n</issue_description>\n" \
           "Make the minimal changes to ensure the <issue_description> is satisfied."
    cleaned = clean_task(text)
    assert "<" not in cleaned
    assert cleaned.startswith("The parser drops defaults.")
    assert "ensure the issue description is satisfied" in cleaned


def test_a_pasted_ci_log_keeps_one_timestamp_and_its_values_none():
    """GitHub Actions stamps every line: the stamps were a quarter of the request's tokens and its trimmed
    values read `25T22=44`. The first line keeps its stamp (when the run was)."""
    stamp = "2025-09-25T22:44:{:02d}.0442684Z "
    log = [stamp.format(i) + f"step {i}: npm ci --retries={i}" for i in range(30)]
    log[20] = stamp.format(20) + "##[error]Process completed with exit code 1."
    out = trim_pastes("Why did this workflow fail?\n" + "\n".join(log) + "\nPlease fix it.")
    lines = out.splitlines()
    assert lines[1].startswith("2025-09-25T22:44:00") and sum("2025-09-25T" in ln for ln in lines) == 1
    assert "##[error]Process completed with exit code 1." in out and out.endswith("Please fix it.")
    assert "retries=" in out and "25T22" not in out.split("values:", 1)[-1]
    few = "Seen twice:\n" + "\n".join(log[:3])
    assert trim_pastes(few) == few  # a short paste is the user's words as they are


def test_a_pasted_ci_log_is_one_paste_and_keeps_what_failed_before_what_warned():
    """Its unstamped lines (a group's name, a wrapped value) are part of the log, not the user's words
    between two logs; its middle keeps the lines that say what failed before its warnings."""
    from compaction.history.sources.task import trim_pastes

    intro = ["Now I'm seeing this error... Can you help me fix this please?", "It started after the merge.",
             "The unit tests pass locally.", "Only the build step fails on CI.", "Here is the log:"]
    log = [*intro, ""]
    for i in range(40):
        log.append(f"2025-10-02T19:23:{i:02d}.4786472Z step {i}")
        log.append("##[group]Run something" if i % 2 else "  with: value")
    log[34] = "2025-10-02T19:23:14.4786472Z npm warn deprecated node-domexception@1.0.0: use DOMException"
    log[64] = "Type error: File 'frontend/app/api/debug-env/route.ts' is not a module."
    trimmed = trim_pastes("\n".join(log), 4, 2)
    assert len(trimmed.splitlines()) < 20
    assert trimmed.startswith("\n".join(intro))  # the user's words before the log are not part of it
    assert "is not a module" in trimmed and "lines of pasted log trimmed" in trimmed


def test_a_run_the_harness_stopped_says_so() -> None:
    """OpenHands records "Agent reached maximum iteration" beside the events: the agent never saw it, yet
    it is why the work stops mid-way; a submitted run says nothing of the kind."""
    msgs = [Message(0, Role.USER, "Fix the builder lookup"), Message(1, Role.ASSISTANT, "Let's proceed with this.")]
    t = _transcript(msgs)
    t.meta["error"] = "RuntimeError: Agent reached maximum iteration. Current iteration: 50, max iteration: 50"
    state = [f.text for f in _facts(t) if f.section is Section.CURRENT]
    assert "The harness stopped the run: RuntimeError: Agent reached maximum iteration. Current iteration: 50, " \
           "max iteration: 50" in state
    t.meta.pop("error")
    t.meta["exit_status"] = "Submitted"
    assert not any("harness stopped" in x for x in (f.text for f in _facts(t)))
    t.meta["exit_status"] = "exit_cost"
    assert "The harness stopped the run: exit status `exit_cost`" in [f.text for f in _facts(t)]
