"""Every ask of a request survives its shortening, and what only the user can give stays open
(issue 14: task and next questions)."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.condense import ask_count, telegraph
from compaction.history.sources import FactContext
from compaction.history.sources.next_steps import needs_from_user
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolResult, Transcript, group_rounds

AUDIT = """You are auditing the payments service to prepare it for release.

Objectives:
1. Verify the API schema versions
2. Identify dead code paths
3. Flag missing migrations (tables, indexes, triggers)

Constraints:
- Preserve backward compatibility
- Keep every public endpoint documented

Provide:
- A prioritized list of issues
- Safe, incremental changes"""


def test_an_enumerated_request_keeps_each_list_and_its_constraints_before_its_preamble() -> None:
    assert ask_count(AUDIT) >= 8
    short = telegraph(AUDIT, 240)
    assert len(short) <= 240 and "\n" not in short
    # each list gets its first item before any list its second; the constraints are kept
    assert "Objectives: Verify API schema versions" in short  # telegraphic: no article
    assert "Constraints: Preserve backward compatibility" in short and "Provide: prioritized list" in short
    roomy = telegraph(AUDIT, 330)  # shorter than the request: every ask, no article, no list marker
    assert all(w in roomy for w in ("dead code paths", "missing migrations", "public endpoint", "incremental"))
    assert roomy.startswith("auditing payments service")  # a role that is a task says the task


def test_three_asks_of_one_request_each_stay_as_a_clause() -> None:
    text = ("> please review Scorer.ts and help clean up any logic that feels brittle or hard to test. "
            "ensure schema imports are correct and usable with signal_schema. "
            "surface any hardcoded values or placeholder logic that needs refactoring.")
    short = telegraph(text, 200)
    assert short.count(";") == 2 and "hardcoded values" in short and "signal_schema" in short
    assert "please" not in short and "any " not in short
    assert ask_count("import { z } from 'zod';\nexport const A = z.object({\n  id: z.string(),\n});") == 0  # a paste


def _session(messages: list[Message]) -> Transcript:
    return Transcript("s.json", "test", messages, group_rounds(messages))


def _ctx(t: Transcript) -> FactContext:
    return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset(None), cwd=None,
                       n_rounds=len(t.rounds), target_tokens=2000)


SKILL = """# Apply for the grant
1. Read the README.
2. Ask the user for any missing required fields (handle, wallet) that cannot be inferred.

| Field | Required | What to fill |
|---|---|---|
| **Project Title** | Yes | Infer from the README. |
| **Wallet Address** | Yes | Ask the user for their payout wallet address. |
| **Deadline** | Yes | Ask the user for their target shipping deadline. |
"""


def test_values_an_instruction_says_to_ask_the_user_for_stay_open_until_the_user_answers() -> None:
    call = ToolCall("Read", {"file_path": "skills/grant/SKILL.md"}, "c1", "read", path="skills/grant/SKILL.md")
    msgs = [Message(0, Role.USER, "help me apply for the grant"),
            Message(1, Role.ASSISTANT, "Reading the skill.", [call]),
            Message(2, Role.TOOL, "", tool_results=[ToolResult(SKILL, "c1")]),
            Message(3, Role.ASSISTANT, "Now reading the README.")]
    facts = needs_from_user(_ctx(_session(msgs)))
    assert len(facts) == 1
    text = facts[0].text
    assert "`SKILL.md`" in text and "Wallet Address" in text and text.startswith("[ask the user]") and "Deadline" in text
    assert "Project Title" not in text  # inferred, not asked
    assert text.index("Deadline") < text.index("missing required fields")  # the form's fields first
    answered = msgs + [Message(4, Role.USER, "wallet is abc, deadline friday")]
    assert needs_from_user(_ctx(_session(answered))) == []  # asked before the user's last message


def test_a_value_the_agent_asked_the_user_for_is_open() -> None:
    msgs = [Message(0, Role.USER, "deploy the bot"),
            Message(1, Role.ASSISTANT, "The config is ready. Could you provide the API token for the staging bot?")]
    facts = needs_from_user(_ctx(_session(msgs)))
    assert facts and "API token for the staging bot" in facts[0].text


def test_a_windows_path_is_no_paste_its_ask_stays_beside_the_others():
    """Four backslashes of `packages\\config\\eslint\\src\\index.ts` are a path's separators, not code's
    marks: the ask naming it is one of four alike, not a paste dropped first."""
    request = ("look at my CONVENTIONS.md\n"
               "Also look at my eslint config packages\\config\\eslint\\src\\index.ts\n"
               "Also look at my oxlint config packages\\config\\oxlint\\index.jsonc\n"
               "Also look at my dprint config packages\\config\\dprint\\index.json\n"
               "Suggest changes to my CONVENTIONS.md\n"
               "Be sure to be concise in the changes you make.")
    assert ask_count(request) == 6
    short = telegraph(request, 245)
    assert "eslint" in short and "oxlint" in short and "dprint" in short


def test_a_pasted_line_of_code_is_still_a_paste():
    """Code's own backslashes and marks still count: a shell line with a pipe and a redirect is no ask."""
    request = ("Fix the build.\nKeep the old log files.\n"
               "for f in $(ls src\\*.ts); do echo \"$f\" | tee -a log.txt; done")
    assert ask_count(request) == 2
    assert "tee" not in telegraph(request, 60)


def test_an_issue_pasted_in_a_markdown_fence_is_read_as_the_request():
    """A user pastes an issue's text in "```md" (its own fences inside, bare ones too): its sentences
    are what is asked, not one paste shown by its first and last lines."""
    request = ("How should this be fixed?\n\n```md\n## Description\n"
               "The package publishes files containing raw runes that were never compiled.\n\n### Error\n\n"
               "```\nReferenceError: $state is not defined\n    at l (https://esm.sh/pkg.mjs:2:412)\n```\n\n"
               "## Suggested Solution\nUse compileModule during the build process to compile the rune files.\n\n"
               "```js\nconst result = compileModule(source, { generate: 'client' });\n```\n```")
    short = telegraph(request, 250)
    assert "compileModule during build" in short and "raw runes" in short


def test_a_markdown_example_closed_before_the_request_ends_stays_a_paste():
    """A README shown in "```markdown" with the request going on after it: the example's end cannot be
    told from its inner fences' ends, so it stays a paste and the ask after it is kept."""
    request = ("Create a tool with a README:\n\n```markdown\n# Screenshot Tool\nTakes a screenshot.\n\n"
               "## Usage\n```bash\nscreenshot.sh\n```\nReturns the path.\n```\n\n"
               "we should tell people about custom tools here.")
    assert len(request) > 120 and "tell people about custom tools" in telegraph(request, 120)
    # closed early, then a shell block ends the request: the shell's closing fence is not the Markdown one's
    request = ("Add this to the README:\n\n```markdown\n# Tool\nTakes a screenshot.\n```\n\n"
               "Then make the script print its path.\n\n```bash\nset -e\nscreenshot.sh --out /tmp/x.png\n```")
    assert ask_count(request) == 2
    short = telegraph(request, 90)
    assert "print its path" in short and "screenshot.sh --out" not in short


def test_an_escape_in_code_is_no_windows_path():
    """`id\tname\tage` in a shell line keeps its marks: the line is a paste, the ask after it stays."""
    request = 'The log is garbled.\necho "id\\tname\\tage" > $OUT\nMake the output readable.'
    assert "readable" in telegraph(request, 60) and "echo" not in telegraph(request, 60)
