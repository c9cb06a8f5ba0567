"""What ended an error, and what it said, found in the shapes real sessions take: a retry with an
environment prefix some rounds later, a rerun whose pipe hid its failure, a fix a dozen rounds on in a
Windows path, an edit whose text the export left out (told by the agent's words), a look-up that found
nothing (no error), jest's slow-test FAIL line, the model's context window overflowing, a SpecStory
shell block's exit code and a harness's status lines, and a search retried until it found (issue 14)."""

from __future__ import annotations

import pytest

from compaction.errors import scan_transcript
from compaction.errors.advice import advise
from compaction.errors.classify import classify
from compaction.history.lookups import found_nothing_in
from compaction.history.sources.findings import collect, decisive_line
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.shell import STATUS_LINE_RE, benign_exit, first_word, found_nothing, printed_nothing, went_wrong
from compaction.transcripts import load_transcript

COREPACK_REFUSAL = 'This project is configured to use yarn because /home/u/package.json has a "packageManager" field'


def _shell(msgs: list[Message], cid: str, command: str, output: str, code: int, *, say: str = "",
           description: str | None = None) -> None:
    args = {"command": command, **({"description": description} if description else {})}
    msgs.append(Message(len(msgs), Role.ASSISTANT, say, tool_calls=[ToolCall("Bash", args, cid, ToolKind.SHELL,
                                                                             command)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, cid, "Bash", is_error=code != 0,
                                                                       exit_code=code or None)]))


def _edit(msgs: list[Message], cid: str, path: str, *, say: str = "", args: dict | None = None) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, say, tool_calls=[ToolCall("edit_file", args or {"path": path},
                                                                             cid, ToolKind.EDIT, path=path)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("ok", cid, "edit_file")]))


def _records(msgs: list[Message]) -> dict[str, str]:
    return {r.id: r.solution or "" for r in scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs)))}


def test_a_retry_with_an_environment_prefix_rounds_later_ends_the_error_and_a_masked_failure_does_not():
    msgs = [Message(0, Role.USER, "build the app with pnpm")]
    _shell(msgs, "a", "pnpm --version 2>&1", f"Exit code 1\n{COREPACK_REFUSAL}", 1)
    _shell(msgs, "b", "cat /home/u/package.json | head -5", '{"packageManager": "yarn@1"}', 0)
    _shell(msgs, "c", "ls -la | grep lock", "pnpm-lock.yaml", 0)
    _shell(msgs, "d", "which pnpm corepack", "/usr/bin/pnpm\n/usr/bin/corepack", 0)
    _shell(msgs, "e", "/usr/bin/pnpm --version 2>&1 | head -5", COREPACK_REFUSAL, 0)  # head's status, pnpm's error
    _shell(msgs, "f", "COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3", "10.33.2", 0)
    solution = _records(msgs)["ERR_TOOL_NonZeroExit"]
    assert solution == "then `COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3` succeeded (r6)"


@pytest.mark.parametrize(("failed", "code", "looks", "later"), [
    # a line that only opens with the same `cd` as the failed one
    ("cd /testbed && make release", 2, [f"cd /testbed && cat part{i}.mk" for i in range(3)],
     "cd /testbed && git status"),
    # another command of the same program, past three rounds
    ("pnpm build", 1, [f"ls dir{i}" for i in range(4)], "pnpm install"),
])
def test_a_later_success_that_is_no_retry_of_the_failed_call_ends_nothing(failed, code, looks, later):
    msgs = [Message(0, Role.USER, "build it")]
    _shell(msgs, "a", failed, f"Exit code {code}\nmake: *** No rule to make target 'release'", code)
    for i, look in enumerate(looks):
        _shell(msgs, f"l{i}", look, "all:", 0)
    _shell(msgs, "z", later, "done", 0)
    assert _records(msgs)["ERR_TOOL_NonZeroExit"].startswith("no fix seen after r1")


def test_a_look_up_that_printed_nothing_is_no_failure_even_when_later_commands_of_its_chain_did_not_run():
    command = 'grep -E "packageManager" package.json && echo "---" && ls .npmrc'
    assert printed_nothing("Exit code 1") and printed_nothing("") and not printed_nothing("Exit code 1\nls: x")
    assert printed_nothing("Command: grep x f\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1")
    assert found_nothing(command, 1, silent=True) and benign_exit(command, 1, silent=True)
    assert not benign_exit(command, 1) and not found_nothing(command, 1)  # its output unknown: ls may have failed
    assert not found_nothing("make -s && echo built", 1, silent=True)  # a silent failure of a build is one
    msgs = [Message(0, Role.USER, "check the config")]
    _shell(msgs, "a", command, "Exit code 1", 1)
    assert "ERR_TOOL_NonZeroExit" not in _records(msgs)


def test_the_program_of_a_line_is_found_past_assignments_and_wrappers():
    assert first_word("COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version") == "pnpm"
    assert first_word("sudo -u app env -i /usr/bin/python3 x.py") == "/usr/bin/python3"
    assert first_word("(cd x && make)") == "cd"
    assert first_word("  time  pytest -q") == "pytest"


def test_an_edit_of_the_failing_test_file_a_dozen_rounds_on_in_windows_spelling_ends_the_error():
    jest = ("FAIL src/__tests__/Shell.test.tsx (5.831 s)\n"
            "  ● Shell › passes canPin=false to MessageList\n\n"
            "    TypeError: window.matchMedia is not a function\n\n"
            "      at getViewportSnapshot (src/components/Shell.tsx:49:42)\n\n"
            "Tests:       1 failed, 1 passed, 2 total\n")
    msgs = [Message(0, Role.USER, "run the frontend tests")]
    _shell(msgs, "t", "npm test -- src/__tests__/Shell.test.tsx", jest, 1)
    for i in range(11):
        _shell(msgs, f"r{i}", f"rg -n canPin src/part{i}", "src/x.tsx:1: canPin", 0)
    _edit(msgs, "e", "c:\\Users\\me\\app\\src\\__tests__\\Shell.test.tsx",
          say="Env files are there now.\nAdding a `matchMedia` mock so the Shell test can run under jsdom.")
    _shell(msgs, "t2", "npm test -- src/__tests__/Shell.test.tsx", "Tests:       2 passed, 2 total", 0)
    records = _records(msgs)
    assert list(records) == ["ERR_JS_TypeError"]  # the exception is the record, the test failure its alias
    assert records["ERR_JS_TypeError"] == (
        "edited `c:\\Users\\me\\app\\src\\__tests__\\Shell.test.tsx` (r13) — “Adding a `matchMedia` mock so the "
        "Shell test can run under jsdom”; then `npm test -- src/__tests__/Shell.test.tsx` passed (r14)")


def test_jest_names_the_slow_failed_test_from_its_bullet_line():
    out = ("FAIL src/a.test.tsx (12.5 s)\n  ● Suite › renders the list\n\n    Error: expected 3 rows\n")
    hits = [h for h in classify(out, tool_output=True) if h.id == "ERR_LOGIC_TestFailed"]
    assert hits and hits[0].path == "src/a.test.tsx" and hits[0].tests == ["src/a.test.tsx > Suite > renders the list"]


def test_a_new_commands_caption_is_not_told_as_what_the_retry_changed():
    msgs = [Message(0, Role.USER, "find the lint config")]
    _shell(msgs, "a", "ls .eslintignore", "Exit code 1\nls: .eslintignore: No such file or directory", 1,
           description="Find ESLint config")
    _shell(msgs, "b", "ls next.config*", "next.config.ts", 0, description="Find next config")
    assert _records(msgs)["ERR_TOOL_FileNotFound"] == "then `ls next.config*` succeeded (r2)"


def test_the_models_context_window_overflowing_is_a_tool_record_of_its_own():
    line = ("litellm.BadRequestError: OpenAIException - request (10259 tokens) exceeds the available context size "
            "(10240 tokens), try increasing it")
    assert [h.id for h in classify(line, tool_output=True)] == ["ERR_TOOL_ContextOverflow"]
    assert [h.id for h in classify("Error: prompt is too long: 212000 tokens > 200000 maximum")] == [
        "ERR_TOOL_ContextOverflow"]
    assert classify("The context window of this model is 128k tokens.") == []
    assert classify('src/llm.py:42:    if code == "context_length_exceeded":', tool_output=True) == []  # a search hit
    msgs = [Message(0, Role.USER, "analyse deploy.sh"), Message(1, Role.TOOL, "> " + line)]
    (rec,) = scan_transcript(Transcript("t.json", "test", msgs, group_rounds(msgs)))
    assert rec.id == "ERR_TOOL_ContextOverflow" and "context" in advise(rec)


def test_an_aider_reply_cut_by_the_token_limit_inside_a_fence_ends_there(tmp_path):
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(
        "# aider chat started at 2025-01-01 10:00:00\n\n"
        "#### improve Counter.sol  \n\n"
        "Here is the improved contract:\n\n```solidity\ncontract Counter {\n    uint public number;\n\n\n"
        ">  \n> Model openai/qwen has hit a token limit!  \n> Token counts below are approximate.  \n\n"
        "#### analyse deploy_anvil.sh  \n"
        "> litellm.BadRequestError: OpenAIException - request (10259 tokens) exceeds the available context size "
        "(10240 tokens), try increasing it  \n", encoding="utf-8")
    t = load_transcript(str(history))
    users = [m.text.strip() for m in t.messages if m.role is Role.USER]
    assert users == ["improve Counter.sol", "analyse deploy_anvil.sh"]
    assert not any("deploy_anvil" in m.text for m in t.messages if m.role is Role.ASSISTANT)
    assert "ERR_TOOL_ContextOverflow" in {r.id for r in scan_transcript(t)}


GEMINI_SHELL_BLOCK = """<!-- Generated by SpecStory, Markdown v2.1.0 -->

# Widget tests (2025-12-04 21:38Z)

_**User (2025-12-04 21:38Z)**_

run the EventFilter tests

---

_**Agent (gemini-2.5-pro)**_

<tool-use data-tool-type="shell" data-tool-name="run_shell_command">
<details>
<summary>Tool use: **run_shell_command**</summary>

```bash
./gradlew test --tests ai.dcar.EventFilterTest
```

Result:
```text
Command: ./gradlew test --tests ai.dcar.EventFilterTest
Directory: (root)
Output:
FAILURE: Build failed with an exception.

* What went wrong:
Problem configuring task :app:test from command line.
> Unknown command-line option '--tests'.

* Try:
> Run gradlew help --task :app:test to get task usage details.

BUILD FAILED in 846ms
Error: (none)
Exit Code: 1
Signal: 0
Background PIDs: (none)
Process Group PGID: 76097
```
</details>
</tool-use>
"""


def test_a_shell_block_of_a_specstory_export_fails_by_its_exit_code_and_says_what_went_wrong(tmp_path):
    path = tmp_path / "2025-12-04_21-38Z-widget-tests.md"
    path.write_text(GEMINI_SHELL_BLOCK, encoding="utf-8")
    t = load_transcript(str(path))
    (res,) = [r for m in t.messages for r in m.tool_results]
    assert res.exit_code == 1 and res.is_error
    (rec,) = scan_transcript(t)
    assert rec.id == "ERR_TOOL_NonZeroExit"
    assert rec.occurrences[0].evidence == ("Problem configuring task :app:test from command line.\n"
                                           "> Unknown command-line option '--tests'.")
    assert decisive_line(res.content, failed=True) == (
        "Problem configuring task :app:test from command line. > Unknown command-line option '--tests'.")


def test_a_harness_status_line_is_never_what_a_failure_said():
    for line in ("Error: (none)", "Exit Code: 1", "Signal: 0", "Background PIDs: (none)", "Process Group PGID: 7",
                 "```", "```text", "<output>", "[The command completed with exit code 1.]"):
        assert STATUS_LINE_RE.fullmatch(line), line
    for line in ("Error: connection refused", "Tests: 3 failed", "Exit code is wrong in main.c"):
        assert not STATUS_LINE_RE.fullmatch(line), line
    assert decisive_line("make: *** [all] Error 2\nError: (none)\nExit Code: 2\n```", failed=True) == (
        "make: *** [all] Error 2")
    assert went_wrong("* What went wrong:\nExecution failed for task ':app:compileKotlin'.\nmore text\n") is not None


def test_the_intent_before_an_edit_is_told_only_when_it_names_the_errors_code():
    msgs = [Message(0, Role.USER, "run it")]
    _shell(msgs, "t", "python app.py", "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
           "    cfg['error']\nKeyError: 'error'", 1)
    _edit(msgs, "e", "app.py", say="Now let me update the README to describe the error handling flow in full.")
    assert "README" not in _records(msgs)["ERR_PY_KeyError"]  # `error` is a word, not the code's name


def test_a_search_that_found_nothing_then_one_that_found_is_a_finding():
    assert found_nothing_in("No matches found") and found_nothing_in("") and found_nothing_in("Found 0 files")
    assert not found_nothing_in("README.md:24: Bastion v2")
    msgs = [Message(0, Role.USER, "why does it still say Bastion V2?")]
    for i, (pattern, output) in enumerate([("Bastion V2", "No matches found"), ("V2|v2", "README.md:24: Bastion v2")]):
        call = ToolCall("Grep", {"pattern": pattern}, f"g{i}", ToolKind.SEARCH)
        msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, f"g{i}", "Grep")]))
    found = [f.text for f in collect(Transcript("t.json", "test", msgs, group_rounds(msgs)))]
    assert "`Grep Bastion V2` → nothing; then `Grep V2|v2` → README.md:24: Bastion v2" in found
    other = [Message(0, Role.USER, "look around")]  # a search for something else found is no correction
    for i, (pattern, output) in enumerate([("Bastion V2", "No matches found"), ("TODO", "src/a.py:3: TODO")]):
        call = ToolCall("Grep", {"pattern": pattern}, f"g{i}", ToolKind.SEARCH)
        other.append(Message(len(other), Role.ASSISTANT, "", tool_calls=[call]))
        other.append(Message(len(other), Role.TOOL, tool_results=[ToolResult(output, f"g{i}", "Grep")]))
    assert not [f for f in collect(Transcript("t.json", "test", other, group_rounds(other))) if "nothing;" in f.text]


CURSOR_LINTS = """Tool use: **read_lints**

Parameters:

```json
{
  "paths": ["c:\\\\app\\\\src\\\\Shell.test.tsx"]
}
```
Result:

```json
{
  "linterErrorsByFile": [
    {"relativeWorkspacePath": "c:\\\\app\\\\tests\\\\setup-env.ts"},
    {
      "errors": [
        {"message": "Property 'div' does not exist on type 'JSX.IntrinsicElements'.",
         "range": {"startPosition": {"line": 37, "column": 5}, "endPosition": {"line": 37, "column": 80}},
         "severity": "DIAGNOSTIC_SEVERITY_ERROR", "source": "ts"},
        {"message": "'x' is declared but never used.", "severity": "DIAGNOSTIC_SEVERITY_WARNING"}
      ],
      "relativeWorkspacePath": "c:\\\\app\\\\src\\\\Shell.test.tsx"
    }
  ]
}
```
"""

IDE_DIAGNOSTICS = ('[{"uri": "file:///repo/app.py", "diagnostics": [{"message": "\\"foo\\" is not defined", '
                   '"severity": "Error", "range": {"start": {"line": 3, "character": 0}}}, '
                   '{"message": "Import \\"os\\" is not accessed", "severity": "Hint"}]}]')


def test_an_editors_diagnostics_are_errors_of_their_files_family_warnings_are_not():
    (hit,) = classify(CURSOR_LINTS, tool_output=True)
    assert (hit.id, hit.path, hit.line) == ("ERR_TS_Diagnostic", "c:\\app\\src\\Shell.test.tsx", 37)
    assert hit.detail == "Property 'div' does not exist on type 'JSX.IntrinsicElements'."
    (hit,) = classify(IDE_DIAGNOSTICS, tool_output=True)  # an LSP range's line is 0-based
    assert (hit.id, hit.path, hit.line, hit.detail) == ("ERR_PY_Diagnostic", "/repo/app.py", 4, '"foo" is not defined')
    assert classify('{"errors": [], "message": "ok"}', tool_output=True) == []
    eslint = ('[{"filePath": "/r/a.js", "messages": [{"ruleId": "no-unused-vars", "severity": 1, "message": '
              '"x is assigned but never used", "line": 3}, {"ruleId": "no-undef", "severity": 2, "message": '
              '"y is not defined", "line": 7}], "errorCount": 1}]')
    (hit,) = classify(eslint, tool_output=True)  # ESLint's 2 is an error, its 1 a warning
    assert (hit.id, hit.path, hit.line, hit.detail) == ("ERR_JS_Diagnostic", "/r/a.js", 7, "y is not defined")
    (hit,) = classify('{"diagnostics": [{"message": "bad thing here", "severity": "error", "line": 12}]}')
    assert (hit.id, hit.line) == ("ERR_TOOL_Diagnostic", 12)


def test_diagnostics_a_lint_tool_reads_for_paths_stay_open_until_an_edit():
    msgs = [Message(0, Role.USER, "check the lints")]
    call = ToolCall("read_lints", {"paths": ["c:\\app\\src\\Shell.test.tsx"]}, "l", ToolKind.READ,
                    path="c:\\app\\src\\Shell.test.tsx")
    msgs.append(Message(1, Role.ASSISTANT, "", tool_calls=[call]))
    msgs.append(Message(2, Role.TOOL, tool_results=[ToolResult(CURSOR_LINTS + " " * 2000, "l", "read_lints")]))
    read = ToolCall("read_file", {"path": "c:\\app\\src\\Shell.test.tsx"}, "r", ToolKind.READ,
                    path="c:\\app\\src\\Shell.test.tsx")
    msgs.append(Message(3, Role.ASSISTANT, "", tool_calls=[read]))
    msgs.append(Message(4, Role.TOOL, tool_results=[ToolResult("export {}", "r", "read_file")]))
    msgs.append(Message(5, Role.USER, "thanks, that is all"))
    records = _records(msgs)
    assert records == {"ERR_TS_Diagnostic": "no fix seen after r1"}  # a read is no fix of the code


def test_a_powershell_parser_error_is_a_record_and_set_location_is_a_cd():
    """Windows PowerShell 5.1 refuses `&&` with an error record (`+ CategoryInfo : ParserError`); the retry
    `Set-Location "…"; npx jest …` changes directory first like `cd`, so it is the same run, and it passed."""
    from compaction.errors.classify import classify
    from compaction.shell import first_word

    record = ("At C:\\Users\\t\\ps-script.ps1:7 char:51\n+ cd \"c:\\h\\backend\" && npx jest tests/pin.test.ts ...\n"
              "+                                                   ~~\n"
              "The token '&&' is not a valid statement separator in this version.\n"
              "    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n"
              "    + FullyQualifiedErrorId : InvalidEndOfLine\n")
    hits = classify(record, tool_output=True)
    assert [(h.id, h.detail) for h in hits] == [
        ("ERR_TOOL_ShellSyntaxError", "The token '&&' is not a valid statement separator in this version.")]
    noise = "npx : jest progress\n    + CategoryInfo          : NotSpecified: (jest progress:String) [], RemoteException\n"
    assert classify(noise, tool_output=True) == []  # a native program's stderr line, wrapped: no failure
    assert first_word('Set-Location "c:\\h\\backend"') == "cd" and first_word("pushd src") == "cd"


def test_a_failed_builds_decisive_line_is_the_compilers_located_error_not_the_wrappers_last_words():
    out = ("> cli build\n\nsrc/ui/Wizard.tsx:171:9 - error TS6133: 'teamProviders' is declared but its value is "
           "never read.\n\nFound 1 error.\n\nError: Command failed: tsc --build\n    at execSync (node:child_process:954:15)\n"
           "npm error command failed\n*** gpkg: Exceptions are available: http://go/airlock#request-exception\n")
    assert decisive_line(out, True) == ("src/ui/Wizard.tsx:171:9 - error TS6133: 'teamProviders' is declared but "
                                        "its value is never read.")
    assert decisive_line("12:00:01 ERROR worker started\nValueError: SECRET_KEY must be set\n", True) == \
        "ValueError: SECRET_KEY must be set"  # a log line's time is no file's place
