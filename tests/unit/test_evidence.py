"""What the agent learned from what it read: the lines of its reads it later reasoned with, its
sub-agents' reports, and the searches that located the files it then worked on (synthetic transcripts)."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.engine import compact
from compaction.history.sources import FactContext
from compaction.history.sources.evidence import evidence_facts, identifiers, is_report
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

_VIEW = "\n".join([
    "Here's the result of running `cat -n` on /repo/pkg/parser.py:",
    "    10\timport os",
    "    11\t",
    "    12\tdef parse_command(tokens, spec):",
    "    13\t    for opt in spec.options():",
    "    14\t        if opt.name not in seen:",
    "    15\t            value = opt.default_value() if not opt.required else None",
    "    16\t    return Command(spec, seen)",
    "    17\t# a comment that names nothing the agent said",
])

_REPORT = """## Summary of the exploration

- `GetProjectID` in pkg/utils/project_identity.go returns `git_id` when present, else `workspace_id`.
- The identity is read from .specstory/.project.json and looks like xxxx-xxxx-xxxx-xxxx (16 hex chars).
- The cloud summary is printed in main.go's deferred cleanup at lines 1867-1897, after Shutdown returns.
- Uploads run asynchronously, so the summary is the only place where the totals are known.

Overall the codebase is well organised and the change should be small and safe to make."""


def _transcript(msgs: list[Message]) -> Transcript:
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript("t.jsonl", "test", msgs, group_rounds(msgs), cwd="/repo")


def _call(msgs: list[Message], cid: str, name: str, args: dict, output: str, *, kind: str, text: str = "",
          path: str | None = None) -> None:
    command = args.get("command") if kind == ToolKind.SHELL else None
    msgs.append(Message(0, Role.ASSISTANT, text, tool_calls=[ToolCall(name, args, cid, kind, command, path)]))
    msgs.append(Message(0, Role.TOOL, tool_results=[ToolResult(output, cid, name, exit_code=0)]))


def _ctx(t: Transcript) -> FactContext:
    return FactContext(t, extract_events(t), [], role_preset("developer"), t.cwd, len(t.rounds), target_tokens=4000)


def _session() -> Transcript:
    msgs = [Message(0, Role.USER, "options of the parent command lose their defaults, fix it")]
    _call(msgs, "s", "bash", {"command": "grep -rn 'def parse_command' ."}, "./pkg/parser.py:12:def parse_command("
          "tokens, spec):", kind=ToolKind.SHELL)
    _call(msgs, "v", "str_replace_editor", {"command": "view", "path": "/repo/pkg/parser.py"}, _VIEW,
          kind=ToolKind.READ, path="/repo/pkg/parser.py")
    msgs.append(Message(0, Role.USER, "what did you find?"))
    msgs.append(Message(0, Role.ASSISTANT, "`parse_command` fills defaults from `spec.options()` with "
                                           "`opt.default_value()`, but only for the current spec."))
    return _transcript(msgs)


def test_identifiers_are_code_shaped_names_not_words_paths_or_file_names():
    found = identifiers("`parse_command` calls spec.options() and getProjectID; see /repo/pkg/x.py and main.go")
    assert {"parse_command", "spec.options", "getProjectID"} <= found
    assert not found & {"calls", "see", "main.go", "x.py"}


def test_lines_of_a_read_the_agent_later_named_are_evidence_with_their_file_and_line():
    facts = evidence_facts(_ctx(_session()))
    (view,) = [f for f in facts if f.text.startswith("`pkg/parser.py`")]
    full = view.full_text or view.text
    assert "L13: `for opt in spec.options():`" in full
    assert "L15:" in full and "opt.default_value()" in full
    assert "import os" not in full and "a comment" not in full and "Here's the result" not in full
    # a search hit and a view of the same file are one file's evidence, citing the rounds of both reads
    assert "L12: `def parse_command(tokens, spec):`" in full
    assert view.rounds == [1, 2]


def test_a_search_that_located_a_file_the_agent_then_read_is_one_line():
    facts = evidence_facts(_ctx(_session()))
    assert any(f.text.startswith("Found `pkg/parser.py` with `grep -rn 'def parse_command' .`") for f in facts)


def test_a_name_the_agent_never_said_again_makes_no_evidence():
    msgs = [Message(0, Role.USER, "look at the parser")]
    _call(msgs, "v", "view", {"path": "/repo/pkg/parser.py"}, _VIEW, kind=ToolKind.READ, path="/repo/pkg/parser.py")
    msgs.append(Message(0, Role.ASSISTANT, "Looked at it; nothing to change."))
    assert evidence_facts(_ctx(_transcript(msgs))) == []


def test_a_sub_agent_report_is_kept_by_its_most_informative_sentences():
    assert is_report(_REPORT)
    assert not is_report(_VIEW) and not is_report("\n".join(f"{i}: x = f({i});" for i in range(40)))
    msgs = [Message(0, Role.USER, "add the project link to the sync summary")]
    _call(msgs, "t", "Task", {"prompt": "explore how the project id is obtained"}, _REPORT, kind=ToolKind.OTHER)
    msgs.append(Message(0, Role.ASSISTANT, "I will add the link after the summary."))
    (report,) = [f for f in evidence_facts(_ctx(_transcript(msgs))) if f.text.startswith("Report of `Task`")]
    assert "`git_id`" in report.text and "xxxx-xxxx-xxxx-xxxx" in report.text
    assert "well organised" not in report.text  # generic prose gives way to the specific sentences


def test_the_document_shows_the_evidence_section_and_keeps_its_budget():
    msgs = list(_session().messages)
    for i in range(6):  # later rounds that bury the read far from the verbatim tail
        msgs.append(Message(0, Role.USER, f"now run the build step {i}"))
        _call(msgs, f"b{i}", "bash", {"command": f"make step{i}"}, f"building target {i}: " + "ok " * 1500,
              kind=ToolKind.SHELL)
    msgs.append(Message(0, Role.ASSISTANT, "As seen, `parse_command` loops over `spec.options()`."))
    t = _transcript(msgs)
    doc = compact(t, target_tokens=1200).markdown
    assert "## What the agent read and learned" in doc
    assert "for opt in spec.options():" in doc


_QUESTION = """Tool use: **AskUserQuestion**
**Which emoji would you prefer for the promotional line in the summary?**

Options:
- **🔍 (search)** - Emphasizes the search capability of the product
- **💡 (lightbulb)** - Conveys insight and discovery for the reader

**Should the message appear on one line or two separate lines?**

Options:
- **Two lines (Recommended)** - Text on first line, URL indented on the second line
- **One line** - Compact format with text and URL on the same line

**Answer:** 💡 (lightbulb), Two lines (Recommended)"""


def test_the_users_answer_to_a_question_or_a_plan_is_not_a_sub_agents_report():
    assert is_report(_QUESTION)
    msgs = [Message(0, Role.USER, "add the link")]
    _call(msgs, "q", "Ask", {}, _QUESTION, kind=ToolKind.OTHER)  # the options are listed, one is picked
    plan = "\n".join(f"- Step {i}: change the summary printer so that it prints the project link {i}" for i in range(6))
    msgs.append(Message(0, Role.ASSISTANT, "Here is my plan:\n" + plan))
    _call(msgs, "p", "Approve", {}, "The user approved the plan below, go ahead.\n\n" + plan, kind=ToolKind.OTHER)
    facts = evidence_facts(_ctx(_transcript(msgs)))
    assert not [f for f in facts if f.text.startswith("Report of")]


def test_a_report_keeps_the_lines_with_the_names_the_agent_then_used_and_relative_paths():
    report = _REPORT.replace("pkg/utils/project_identity.go", "/repo/pkg/utils/project_identity.go") + (
        "\n- File: /repo/pkg/cloud/sync.go holds `CloudSyncStats` (lines 103-112).")
    msgs = [Message(0, Role.USER, "add the project link to the sync summary")]
    _call(msgs, "t", "Task", {"prompt": "explore"}, report, kind=ToolKind.OTHER)
    msgs.append(Message(0, Role.ASSISTANT, "I will call `identity.GetProjectID()` after the summary."))
    (fact,) = [f for f in evidence_facts(_ctx(_transcript(msgs))) if f.text.startswith("Report of")]
    assert "`GetProjectID` in pkg/utils/project_identity.go returns `git_id`" in fact.text  # a dotted name's part
    assert "/repo/" not in fact.text and "pkg/cloud/sync.go" in fact.text


def test_an_exporters_lines_about_the_call_are_no_evidence():
    """A SpecStory-style result opens with lines about the call itself (the tool's name, its arguments
    as `"key": "value"`): they name what the agent used, yet say nothing it learned."""
    msgs = [Message(0, Role.USER, "why can't I select nodes?")]
    output = ("Tool use: **findTextInFiles** • searching 'getBranchProps'\n"
              '  "relativeWorkspacePath": "connect.ts",\n'
              "src/connect.ts:42: getBranchProps(node) { return { onClick: () => send('SELECT', node) } }")
    _call(msgs, "f", "findTextInFiles", {"query": "getBranchProps", "relativeWorkspacePath": "connect.ts"}, output,
          kind=ToolKind.SEARCH)
    msgs.append(Message(0, Role.ASSISTANT, "`getBranchProps` returns the `onClick` handler, so `render` must keep "
                                           "the elements it bound it to."))
    texts = " ".join(f.text for f in evidence_facts(_ctx(_transcript(msgs))))
    assert "send('SELECT', node)" in texts
    assert "Tool use" not in texts and "relativeWorkspacePath" not in texts

