"""A tool's refusal or error says what it wants in its own words: Gemini CLI's "0 occurrences found for
old_string" is an edit whose old text was not found (it was a generic tool error, and the edit counted as
made), and Claude Code's "File has not been read yet. Read it first before writing to it." is the advice."""

from __future__ import annotations

from compaction.edits import refused
from compaction.errors.advice import advise
from compaction.errors.classify import classify
from compaction.errors.records import ErrorRecord, Location, Occurrence

GEMINI = ("Failed to edit, 0 occurrences found for old_string in packages/cli/src/ui/Wizard.tsx. No edits made. "
          "Ensure you're not escaping content incorrectly and check whitespace, indentation, and context.")


def test_an_edit_whose_old_text_was_not_found_is_refused_and_classified_so() -> None:
    assert refused(GEMINI)
    assert [h.id for h in classify(GEMINI, failed=True)] == ["ERR_TOOL_EditNotFound"]


def test_a_tool_error_that_says_what_to_do_is_its_own_advice() -> None:
    said = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    rec = ErrorRecord("ERR_TOOL_ToolError", [Occurrence(round=3, evidence=said, detail=said)])
    assert advise(rec) == "do as the tool said: “Read it first before writing to it.”"
    silent = ErrorRecord("ERR_TOOL_ToolError", [Occurrence(round=3, evidence="Command aborted", detail="Command aborted")])
    assert advise(silent) == "check the tool's parameters against its schema before calling it"


def test_a_name_the_shell_substituted_from_backticks_in_double_quotes_is_no_missing_command() -> None:
    """cal-date-widget: seven commit messages quoting `startTimeColor` in double quotes, each 'command not found'."""
    command = 'git commit -m "fix: default color\\n\\nUpdated the default `startTimeColor` in `PrefsManager.kt`"'
    rec = ErrorRecord("ERR_TOOL_CommandNotFound", [Occurrence(
        round=5, evidence="bash: startTimeColor: command not found",
        location=Location(command=command, symbol="startTimeColor"))])
    assert advise(rec).startswith("backticks inside a double-quoted argument ran `startTimeColor`, `PrefsManager.kt` "
                                  "as commands")  # the quiet one is lost from the message all the same
    missing = ErrorRecord("ERR_TOOL_CommandNotFound", [Occurrence(
        round=5, evidence="zsh: command not found: shard-sd", location=Location(command="shard-sd -h", symbol="shard-sd"))])
    assert advise(missing).startswith("check with `command -v shard-sd` before use")


def test_a_path_zsh_ran_from_backticks_in_a_double_quoted_pr_body_is_no_missing_file() -> None:
    """chefchopsky: `gh pr create --body "… `.cursor/rules/001-004.mdc` …"`; zsh ran the quoted paths."""
    command = 'gh pr create --title "feat: playbook" --body "Adds `.cursor/rules/001-004.mdc` and `docs/playbook/`"'
    for err_id, said, path in (
            ("ERR_TOOL_FileNotFound", "(eval):1: no such file or directory: .cursor/rules/001-004.mdc",
             ".cursor/rules/001-004.mdc"),
            ("ERR_TOOL_PermissionDenied", "(eval):1: permission denied: docs/playbook/", "docs/playbook/")):
        rec = ErrorRecord(err_id, [Occurrence(round=13, evidence=said, location=Location(path=path, command=command))])
        assert advise(rec).startswith("backticks inside a double-quoted argument ran `.cursor/rules/001-004.mdc`, "
                                      "`docs/playbook/` as commands")  # every word the body lost, not only this one
        assert "--body-file" in advise(rec)
    read = ErrorRecord("ERR_TOOL_FileNotFound", [Occurrence(
        round=2, evidence="cat: docs/x.md: No such file or directory",
        location=Location(path="docs/x.md", command="cat docs/x.md"))])
    assert advise(read).startswith("list the directory")


def test_the_tools_words_are_read_whole_and_only_as_an_instruction() -> None:
    from compaction.errors.advice import _INSTRUCTION_RE
    from compaction.shell import quote_at as _quote_at

    def said(text: str) -> str | None:
        m = _INSTRUCTION_RE.search(text)
        return m.group(1) if m else None

    assert said("Missing value. Please retry with complete response.") == "Please retry with complete response."
    assert said("Use file_path.absolute instead of the name.") == "Use file_path.absolute instead of the name."
    assert said("Check failed: x != y") is None  # a report, not an instruction
    command = "echo 'it\"s' \"`foo`\" '`bar`'"
    assert _quote_at(command, command.find("`foo")) == '"' and _quote_at(command, command.find("`bar")) == "'"


def test_a_path_outside_the_workspace_is_its_own_refusal() -> None:
    """cal-date-widget r123: an edit to /Users/dcar/… (the home directory misspelt) in /Users/dancar/…'s workspace."""
    said = "Result: File path must be within one of the workspace directories: /Users/dancar/github/cal-date-widget"
    assert [h.id for h in classify(said, failed=True)] == ["ERR_TOOL_OutsideWorkspace"]
    assert [h.id for h in classify("Error: /etc/x is outside the allowed working directory", failed=True)] == \
        ["ERR_TOOL_OutsideWorkspace"]
    assert classify("We must be within budget; the file is outside the scope", failed=True) == []
    rec = ErrorRecord("ERR_TOOL_OutsideWorkspace", [Occurrence(round=3, evidence=said, detail=said)])
    assert advise(rec).startswith("write inside the workspace")


def test_a_write_refused_until_the_file_is_read_is_its_own_refusal_ended_by_reading_it() -> None:
    """speakfree r50-r63: Claude Code's Write refuses a file the session has not read; reading it ends that."""
    said = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    assert [h.id for h in classify(said, failed=True)] == ["ERR_TOOL_ReadFirst"]
    assert classify("I read the file and it looks fine", failed=True) == []
    rec = ErrorRecord("ERR_TOOL_ReadFirst", [Occurrence(round=3, evidence=said, detail=said,
                                                        location=Location(path="/repo/config.json"))])
    assert advise(rec).startswith("read `/repo/config.json` with the file tool before writing")


def test_a_failure_a_test_run_showed_is_advised_that_test_not_the_familys_linter() -> None:
    """tree-vanilla r5: vitest's TimeoutError in a browser test was advised `npx eslint …`, a tool the session never
    used; the check is the test run again."""
    occ = Occurrence(round=5, detail="TimeoutError: locator.click", evidence="TimeoutError",
                     location=Location(path="src/tree.spec.ts"), tests=["src/tree.spec.ts > selection > deselects"])
    assert advise(ErrorRecord("ERR_JS_TimeoutError", [occ])) == \
        "re-run the test `src/tree.spec.ts > selection > deselects` after every change"
    two = Occurrence(round=5, detail="Error: not selected", location=Location(path="src/tree.spec.ts"),
                     tests=["src/tree.spec.ts > selection > deselects", "src/tree.spec.ts > a11y > aria-selected"])
    assert advise(ErrorRecord("ERR_JS_Error", [two])) == \
        "re-run the 2 failing tests of `src/tree.spec.ts` (`deselects`, `aria-selected`) after every change"
    occ.location.command = "npx vitest run src/tree.spec.ts"
    assert advise(ErrorRecord("ERR_JS_TimeoutError", [occ])) == "re-run `npx vitest run src/tree.spec.ts` after every change"


def test_a_rate_limit_the_user_got_past_by_switching_models_says_so() -> None:
    """aider-monochromatic r10-r12: Vertex's 429 quota errors ended when aider restarted on Gemini, not by waiting."""
    from compaction.errors import scan_transcript
    from compaction.model import Message, Role, Transcript, group_rounds

    said = "litellm.RateLimitError: VertexAIException - code 429 Quota exceeded\nThe API provider has rate limited you."
    msgs = [Message(0, Role.USER, "> Main model: vertex_ai/claude-sonnet-4 with diff edit format", harness=True),
            Message(1, Role.USER, "what's this repo?"), Message(2, Role.ASSISTANT, "It"),
            Message(3, Role.USER, said, harness=True),
            Message(4, Role.USER, "> Main model: gemini/gemini-2.5-pro with diff edit format", harness=True),
            Message(5, Role.USER, "what's this repo?"), Message(6, Role.ASSISTANT, "A monorepo of TypeScript modules.")]
    t = Transcript("t.md", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_TOOL_RateLimited")
    assert rec.solution.startswith("then the model was switched to `gemini/gemini-2.5-pro` (r1), and the next reply succeeded (r2)")
    assert rec.avoidance.startswith("when the provider keeps refusing, switch to another model or provider")
    msgs[4] = Message(4, Role.USER, "my config:\nmodel: gpt-4o-mini\nretries: 3")  # a paste names a model not in use
    t = Transcript("t.md", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_TOOL_RateLimited")
    assert "switched" not in rec.solution
