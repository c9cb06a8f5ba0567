"""Issue 14 items 2-4: tool failures by kind become their own ERR_TOOL_ records (sandbox refusal,
read-only file system, an edit a linter rejected, an invalid view range) whose solution says what the
call that worked changed; a user's question keeps the reply's most informative sentences; a
state-changing command says its closing summary line."""

from __future__ import annotations

from compaction.errors import scan_transcript
from compaction.errors.classify import classify
from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.completed import completed_facts
from compaction.history.sources.findings import collect, outcome
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult
from tests.unit.synthetic import transcript as _transcript


def _call(msgs: list[Message], cid: str, name: str, args: dict, output: str, *, kind: str = ToolKind.SHELL,
          text: str = "", code: int | None = None, path: str | None = None) -> None:
    command = args.get("command") if kind == ToolKind.SHELL else None
    msgs.append(Message(0, Role.ASSISTANT, text, tool_calls=[ToolCall(name, args, cid, kind, command, path)]))
    msgs.append(Message(0, Role.TOOL, tool_results=[ToolResult(output, cid, name, exit_code=code)]))


def test_tool_failures_by_kind_have_their_own_ids():
    cases = {
        'execution error: Io(Custom { error: "windows sandbox: runner error: CreateProcessAsUserW failed: 1312" })':
            "ERR_TOOL_SandboxDenied",
        "> Error creating file /add: [Errno 30] Read-only file system: '/add'": "ERR_TOOL_ReadOnlyFileSystem",
        "Your proposed edit has introduced new syntax error(s).\n\nERRORS:\n- E999 SyntaxError: unmatched ']'":
            "ERR_TOOL_EditRejected",
        "ERROR:\nInvalid `view_range` parameter: [100, 150]. Its second element `150` should be smaller than the "
        "number of lines in the file: `122`.": "ERR_TOOL_InvalidRange",
    }
    for text, err_id in cases.items():
        assert [h.id for h in classify(text)] == [err_id], text
    (hit,) = classify("> Error creating file /add: [Errno 30] Read-only file system: '/add'")
    assert hit.path == "/add"
    assert classify("the sandbox keeps writes inside the workspace") == []  # no failure word: not an error


def test_a_sandbox_refusal_is_solved_by_the_same_command_rerun_with_the_escalation():
    msgs = [Message(0, Role.USER, "read the skill file")]
    _call(msgs, "a", "shell_command", {"command": "Get-Content SKILL.md", "workdir": "C:\\r"},
          'execution error: "windows sandbox: runner error: CreateProcessAsUserW failed: 1312"')
    _call(msgs, "b", "shell_command", {"command": "Get-Content SKILL.md", "workdir": "C:\\r",
                                       "sandbox_permissions": "require_escalated"}, "Exit code: 0\nhello", code=0,
          text="The sandbox runner failed before PowerShell started, so I'm rerunning it outside the sandbox.")
    (rec,) = scan_transcript(_transcript(msgs))
    assert rec.id == "ERR_TOOL_SandboxDenied"
    assert rec.solution.startswith("then the same command rerun with `sandbox_permissions: require_escalated` "
                                   "succeeded (r2)")
    assert "failed before PowerShell started" in rec.solution  # the agent's own account
    assert "CreateProcessAsUserW" not in rec.solution  # never the error text again


def test_a_rejected_edit_is_solved_by_the_edit_that_applied_and_says_what_its_range_changed():
    msgs = [Message(0, Role.USER, "fix the handler")]
    rejected = "Your proposed edit has introduced new syntax error(s).\n\nERRORS:\n- E999 SyntaxError: unmatched ')'"
    for cid in ("a", "b"):
        _call(msgs, cid, "edit", {"start": 287, "end": 295, "replacement": "x = [\n  1]\n"}, rejected,
              kind=ToolKind.EDIT, path="pkg/handler.py")
    _call(msgs, "c", "edit", {"start": 287, "end": 296, "replacement": "x = [\n  1]\n"}, "File updated.",
          kind=ToolKind.EDIT, path="pkg/handler.py")
    (rec,) = scan_transcript(_transcript(msgs))
    assert rec.id == "ERR_TOOL_EditRejected" and rec.count == 2  # one failure kind, one record
    assert "edited `pkg/handler.py` (r3) with `end: 296` (was 295)" in rec.solution
    assert "E999" not in rec.solution


def test_an_edit_the_tool_refused_is_not_taken_for_the_fix_of_an_earlier_error():
    msgs = [Message(0, Role.USER, "fix it")]
    _call(msgs, "a", "bash", {"command": "python repro.py"},
          'Traceback (most recent call last):\n  File "pkg/h.py", line 3, in f\nKeyError: \'k\'', code=1)
    _call(msgs, "b", "edit", {"start": 3, "end": 3, "replacement": "d.get('k'"},
          "Your proposed edit has introduced new syntax error(s).\nERRORS:\n- E999 SyntaxError: '(' was never closed",
          kind=ToolKind.EDIT, path="pkg/h.py")
    _call(msgs, "c", "edit", {"start": 3, "end": 3, "replacement": "d.get('k')"}, "File updated.",
          kind=ToolKind.EDIT, path="pkg/h.py")
    (rec,) = [r for r in scan_transcript(_transcript(msgs)) if r.id == "ERR_PY_KeyError"]
    assert "edited `pkg/h.py` (r3)" in rec.solution


def test_the_answer_to_a_question_keeps_its_most_informative_sentences_in_order():
    t = _transcript([
        Message(0, Role.USER, "how is the random number seeded?"),
        Message(0, Role.ASSISTANT, "Good question, happy to explain. It is a nice property to have in general. "
                                   "Browsers are pretty smart about this sort of thing nowadays. "
                                   "`crypto.getRandomValues()` is not seeded like a PRNG: it reads the OS CSPRNG. "
                                   "On Linux that is `/dev/urandom`, so 256 values need 1 byte each. "
                                   "Hope that helps a lot."),
    ])
    (answer,) = [f.text for f in collect(t) if f.text.startswith("Asked")]
    assert "`crypto.getRandomValues()` is not seeded like a PRNG" in answer
    assert "`/dev/urandom`, so 256 values" in answer
    assert answer.index("crypto.getRandomValues") < answer.index("/dev/urandom")  # the reply's order
    assert "Hope that helps" not in answer and "pretty smart" not in answer


def test_a_commit_and_a_script_say_their_decisive_output_line():
    commit_out = "[main (root-commit) e2aec0d] Initial commit\n 2 files changed, 393 insertions(+)\n create mode 100644 a"
    found = outcome('git commit -m "Initial commit"', ToolResult(commit_out, "a", exit_code=0))
    assert found is not None and found[0] == '`git commit -m "Initial commit"` → 2 files changed, 393 insertions(+)'
    script = "pixel array decoded\nScript completed successfully, no errors. Result: True"
    found = outcome("python reproduce_bug.py", ToolResult(script, "b", exit_code=0))
    assert found is not None and found[0].endswith("→ Script completed successfully, no errors. Result: True")
    assert outcome("ls -la", ToolResult("a\nb", "c", exit_code=0)) is None  # routine and silent: no line

    msgs = [Message(0, Role.USER, "commit it")]
    _call(msgs, "a", "Bash", {"command": "git add . && git commit -m 'Initial commit'"}, commit_out, code=0)
    t = _transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=4000)
    texts = [f.text for f in completed_facts(ctx)]
    # the commit's own line says it: the command that only staged and committed is not told again
    assert texts == ["Commit e2aec0d “Initial commit” → 2 files changed, 393 insertions(+) (r1)"], texts


def test_a_harness_rule_about_what_may_change_is_a_constraint_and_client_markup_is_not():
    from compaction.history.sources.decisions import decision_facts

    opening = ("<pr_description>\nThe CSV export drops the header row.\n</pr_description>\n<instructions>\n"
               "Your response must contain exactly one bash block. You should never run interactive editors.\n"
               "DO NOT MODIFY: Tests, configuration files (pyproject.toml, setup.cfg, etc.)\n</instructions>")
    t = _transcript([
        Message(0, Role.USER, opening),
        Message(0, Role.ASSISTANT, "ok"),
        Message(0, Role.USER, "<local-command-caveat>DO NOT respond to these messages unless the user explicitly "
                              "asks you to.</local-command-caveat>"),
        Message(0, Role.ASSISTANT, "ok"),
    ])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=4000)
    texts = [f.text for f in decision_facts(ctx)]
    assert any(x.startswith("DO NOT MODIFY: Tests, configuration files") for x in texts), texts
    assert not any("local-command-caveat" in x for x in texts), texts


def test_a_conclusion_drawn_from_evidence_is_a_finding():
    t = _transcript([
        Message(0, Role.USER, "fix the pixel handler"),
        Message(0, Role.ASSISTANT, "The file to edit is `pydicom/pixel_data_handlers/numpy_handler.py`, as indicated "
                                   "by the traceback from the script."),
    ])
    assert any("as indicated by the traceback" in f.text for f in collect(t))


def test_an_injected_project_instruction_document_is_context_one_line_per_section_not_decisions():
    from compaction.history.sections import Section
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.sources.rules import instruction_context_facts, rule_facts

    doc = ("# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n# AGENTS.md\n\n## Work Rules\n"
           "- Prefer server-authoritative multiplayer for important gameplay.\n- Make small, safe changes.\n\n"
           "## Search Strategy\nUse this order:\n1. Find game loop / main update loop.\n2. Find player tank logic.\n"
           "</INSTRUCTIONS>\n<environment_context>\n  <shell>powershell</shell>\n</environment_context>")
    t = _transcript([
        Message(0, Role.USER, doc, harness=True),
        Message(0, Role.USER, "add online lobbies"),
        Message(0, Role.ASSISTANT, "ok"),
    ])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=4000)
    context = instruction_context_facts(ctx)
    assert all(f.section is Section.RULES for f in context)
    texts = [f.text for f in context]
    # The modal rule ("Prefer …") is the rules digest's; the section's other lines are context here.
    assert "Project instructions, Work Rules: Make small, safe changes" in texts
    assert ("Project instructions, Search Strategy: Use this order; Find game loop / main update loop; "
            "Find player tank logic") in texts
    assert any("server-authoritative" in f.text for f in rule_facts(ctx))
    # each item said once: the digest of an injected document keeps its rules, its context lines the rest
    digest = " ".join(f.full_text or f.text for f in rule_facts(ctx))
    assert "Make small, safe changes" not in digest and "Find game loop" not in digest
    assert not any("powershell" in x for x in texts)  # the markup after the document is not a rule
    assert not any(f.text.startswith("Project instructions") for f in decision_facts(ctx))  # context, not decisions
    # A harness message without an instructions opening (a checkpoint summary, a template) gives none.
    t2 = _transcript([Message(0, Role.USER, "# Context Checkpoint\n\n## Progress\n- done a\n\n## Next\n- do b",
                              harness=True), Message(0, Role.USER, "go on"), Message(0, Role.ASSISTANT, "ok")])
    ctx2 = FactContext(t2, extract_events(t2), [], role_preset("developer"), None, len(t2.rounds), target_tokens=4000)
    assert not instruction_context_facts(ctx2)


def test_a_conclusion_reached_in_the_agents_reasoning_is_a_finding_weighed_below_its_words():
    """Gemini's thought parts and Claude's thinking blocks (message meta "thinking") often hold the
    only statement of what the agent found; it is read like the agent's text, weighed a little less."""
    said = "The problem is the recorder never listens for audio device changes, so AirPods are missed."
    thought = ("**Diagnosing Audio Input** The problem is the `AVAudioEngine` is created once at launch, so a device "
               "that connects later is never used by the recorder. Ah, I see the issue now, I noticed it before.")
    t = _transcript([Message(0, Role.USER, "why are my AirPods ignored?"),
                     Message(0, Role.ASSISTANT, said, meta={"thinking": [thought]})])
    found = {f.text: f.score for f in collect(t) if not f.text.startswith("Asked")}
    reasoned = next(text for text in found if "created once at launch" in text)
    assert "Diagnosing" not in reasoned  # the thought's title is not part of the sentence
    assert found[reasoned] < found[said]
    assert not any("I see the issue now" in text for text in found)  # thinking aloud, naming nothing: no finding


def test_a_look_up_that_matched_nothing_is_told_as_such_not_as_a_failure():
    found = outcome("grep -rn debug-env frontend/", ToolResult("", "a", exit_code=1))
    assert found is not None and found[0] == "`grep -rn debug-env frontend/` → nothing found"
    failed = outcome("npm run build", ToolResult("Type error: x is not a module", "b", exit_code=1))
    assert failed is not None and "exit 1" in failed[0] and failed[1] > found[1]


def test_a_report_of_courtesy_alone_is_no_report_and_apologies_never_make_one():
    """Courtesy at a sentence's start followed by its end or a pause; 'Thanks to the cache…' says something."""
    from compaction.history.sources.findings import report_of

    assert report_of(["I am so sorry for the repeated mistakes. Thank you for your patience!"]) is None
    said = report_of(["My apologies for the confusion. The `model_name` is now a constant in `main`, set to `llava`."])
    assert said is not None and "apolog" not in said.lower() and "`model_name`" in said
    kept = report_of(["Thanks to the cache in `utils.py` the run takes 2 s. Got it working by pinning numpy to 1.26."])
    assert kept is not None and "Thanks to the cache" in kept and "Got it working" in kept


def test_an_instruction_that_leads_into_a_nested_list_keeps_its_children_under_it():
    """codex-battle: "- Server should control:" then "  - Match state." read "Match state; …; Local input; UI",
    who controls what lost; the lead is a rule, but its list is what it says."""
    from compaction.history.sources.rules import instruction_context_facts

    doc = ("# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n# AGENTS.md\n\n## Multiplayer Architecture Rules\n"
           "- Server should control:\n  - Match state.\n  - Enemy spawning.\n\n- Client should control:\n"
           "  - Local input.\n  - UI.\n\n## Work Rules\n- You should make small, safe changes.\n- Keep logs.\n"
           "</INSTRUCTIONS>")
    t = _transcript([Message(0, Role.USER, doc, harness=True), Message(0, Role.USER, "add online lobbies"),
                     Message(0, Role.ASSISTANT, "ok")])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=4000)
    texts = [f.text for f in instruction_context_facts(ctx)]
    assert ("Project instructions, Multiplayer Architecture Rules: Server should control: Match state, Enemy "
            "spawning; Client should control: Local input, UI") in texts, texts
    assert "Project instructions, Work Rules: Keep logs" in texts  # a modal line alone stays the digest's
