"""Built-in avoidance advice: an executable check or code pattern per identifier (or family),
refined with the file/command the transcript shows. Why a table: advice must be concrete even
offline, and the same identifier recurs across projects."""

from __future__ import annotations

import ntpath
import posixpath
import re

from compaction.errors.episodes import label_of_test
from compaction.errors.families import advice_for
from compaction.errors.records import ErrorRecord, Occurrence
from compaction.shell import double_quoted_backticks, program_of, run_words, split_commands, words
from compaction.transcripts.path_spelling import is_windows_path

_BY_ID: dict[str, str] = {
    "ERR_PY_SyntaxError": "run `python -m py_compile {path}` (or `ruff check` rule E999) after every edit",
    "ERR_PY_IndentationError": "check the target lines with `sed -n 'N,+3p' {path}` before inserting; "
                               "run `python -m py_compile {path}` after every edit",
    "ERR_PY_NameError": "run `ruff check --select F821 {path}` (undefined names) before running",
    "ERR_PY_ImportError": "verify with `python -c 'import {symbol}'` before use; `ruff check --select F401,F811`",
    "ERR_PY_ModuleNotFoundError": "check the environment first: `python -c 'import {symbol}'` / `pip show <pkg>`",
    "ERR_PY_AttributeError": "check the attribute exists (`hasattr`/`getattr(obj, name, None)`) or type-check "
                             "with `mypy {path}`",
    "ERR_PY_KeyError": "use `d.get(key)` or test `key in d` first; keep old keys when changing a serialised format",
    "ERR_PY_IndexError": "guard with `if len(seq) > i` before indexing",
    "ERR_PY_TypeError": "check call signatures and decorators before editing; type-check with `mypy {path}`",
    "ERR_PY_ValueError": "validate inputs before converting; add a test for the bad value",
    "ERR_PY_AssertionError": "run the failing test alone (`pytest {test} -x`) and compare expected vs actual",
    "ERR_PY_FileNotFoundError": "check `os.path.exists(p)` / `ls {dir}` before opening",
    "ERR_PY_ZeroDivisionError": "guard divisors: `if d == 0: ...` before dividing",
    "ERR_PY_RecursionError": "add a base case; check for self-referencing calls",
    "ERR_PY_UnboundLocalError": "initialise the variable before the branch (`ruff` rule F823)",
    "ERR_PY_NotImplementedError": "implement the abstract method in the subclass before calling it",
    "ERR_PY_OSError": "read the first traceback, not teardown noise: `... 2>&1 | grep -m3 'Error:'`",
    "ERR_PY_OperationalError": "create/migrate the database before querying (`manage.py migrate`)",
    "ERR_PY_ImproperlyConfigured": "set `DJANGO_SETTINGS_MODULE` / call `settings.configure()` before importing models",
    "ERR_TOOL_FileNotFound": "list the directory (`ls {dir}`) before opening a guessed path",
    "ERR_TOOL_ShellSyntaxError": "write for the shell that runs the command: Windows PowerShell 5.1 has no `&&` "
                                 "or `||` (separate with `;`, guard with `if ($?) {…}`)",
    "ERR_TOOL_CommandNotFound": "check with `command -v {symbol}` before use; install it or use the project's runner",
    "ERR_TOOL_PermissionDenied": "check permissions with `ls -l {path}`; do not write outside the workspace",
    "ERR_TOOL_NonZeroExit": "run `{command}` again only after reading its first error line",
    "ERR_TOOL_EditNotFound": "view the exact lines first (`sed -n 'a,bp' {path}` / view) and copy the old text "
                             "verbatim, whitespace included",
    "ERR_TOOL_ToolError": "check the tool's parameters against its schema before calling it",
    "ERR_TOOL_UserAborted": "the user stopped this call: follow what they said next before running it again",
    "ERR_TOOL_UserRejected": "the user turned this call down: do what they said instead before proposing it again",
    "ERR_TOOL_InvalidArgument": "use only the commands and parameters the tool lists (its usage or `--help`), "
                                "spelled as listed",
    "ERR_TOOL_SandboxDenied": "rerun a command the sandbox refused with the escalation the harness offers",
    "ERR_TOOL_ReadOnlyFileSystem": "write only inside the workspace; check the target path (`{path}`) is not a "
                                   "stray argument taken for a file name",
    "ERR_TOOL_OutsideWorkspace": "write inside the workspace: build a path from the working directory the session "
                                 "shows, not from a root typed from memory",
    "ERR_TOOL_EditRejected": "keep the edit's line range and brackets balanced: view the lines first and replace "
                             "whole statements (`python -m py_compile {path}`)",
    "ERR_TOOL_ReadFirst": "read `{path}` with the file tool before writing or editing it: the tool refuses a write to "
                          "a file it has not read in this session",
    "ERR_TOOL_InvalidRange": "check the file's length (`wc -l {path}`) before viewing a line range",
    "ERR_TOOL_OutputTooLong": "never dump whole files or test logs: pipe through `| tail -n 40` or `| grep -m5 Error`",
    "ERR_TOOL_ContextOverflow": "keep the request inside the model's context: drop files from the chat, clear "
                                "or compact the history, or ask about one file at a time",
    "ERR_TOOL_RateLimited": "wait before retrying (back off: 1 s, 2 s, 4 s…) and batch work into fewer calls",
    "ERR_TOOL_UnknownTool": "call only the tools and skills the session lists; check the exact name first",
    "ERR_TOOL_FormatError": "exactly one ```bash block per reply; quote other code in plain text",
    "ERR_LOGIC_TestFailed": "re-run `{test}` after every change (`pytest {test} -x -q`), negative tests included",
    "ERR_LOGIC_FixtureError": "list the fixtures the run offers (`pytest --fixtures`): install the plugin that "
                              "provides `{symbol}` or define it in conftest.py before running the tests",
    "ERR_LOGIC_AssertionMismatch": "print expected and actual before asserting; add the case as a regression test",
    "ERR_JAVA_CannotFindSymbol": "compile after each edit (`mvn -q compile` / `javac`) and check imports of {symbol}",
    "ERR_JAVA_PackageDoesNotExist": "compile with the project classpath (`mvn -q compile`, `-cp target/classes`)",
    "ERR_JAVA_CheckstyleViolation": "run `mvn checkstyle:check` before the build; keep LF line endings, no trailing spaces",
    "ERR_JAVA_BuildFailure": "run the failing goal alone (`mvn -q -pl <module> <goal>`) and fix its first [ERROR]",
    "ERR_JAVA_NullPointerException": "null-check (`Objects.requireNonNull`) before dereferencing",
    "ERR_JS_TypeError": "guard with optional chaining (`obj?.prop`) and enable `strictNullChecks`",
    "ERR_JS_ReferenceError": "enable ESLint `no-undef`",
    "ERR_JS_LintError": "run the linter on what you touch before handing over (`npx eslint {path}`); rule `{symbol}`",
    "ERR_JS_BuildFailed": "run the build after each change to what it bundles, and read its first `file:line:col` "
                          "message (`{path}`)",
    "ERR_GO_Panic": "check errors and nil before use (`if err != nil`); run `go vet ./...`",
    "ERR_RS_E0382": "borrow (`&x`) or clone instead of moving; run `cargo check` after each edit",
    "ERR_C_ImplicitDeclaration": "include the header that declares it; compile with `-Werror=implicit-function-declaration`",
    "ERR_C_UndefinedReference": "link the object/library that defines {symbol}",
}

_TS_BY_NAME: dict[str, str] = {
    "MissingProperty": "build object literals against the declared type (`const x: T = {…}` or `satisfies T`)",
    "MissingProperties": "build object literals against the declared type (`satisfies T`)",
    "PropertyDoesNotExist": "narrow first (`'prop' in obj`, a type guard) or add the property to the interface",
    "TypeNotAssignable": "annotate the target type and fix the value, do not cast; run `npx tsc --noEmit`",
    "ArgumentNotAssignable": "check the parameter type before calling; run `npx tsc --noEmit` after each edit",
    "CannotFindName": "import or declare it; enable ESLint `no-undef`",
    "CannotFindModule": "check the path/package (`ls`, `npm ls <pkg>`) and install `@types/<pkg>`",
    "ObjectPossiblyUndefined": "narrow with `if (x)` or `x?.` under `strictNullChecks`",
    "ObjectPossiblyNull": "narrow with `if (x !== null)` under `strictNullChecks`",
    "WrongArgumentCount": "check the signature before calling",
    "ParameterImplicitlyAny": "annotate parameters (`noImplicitAny`)",
    "NotAllCodePathsReturn": "add `default: exhaustiveCheck(x)` / a final `return` (`noImplicitReturns`)",
}

def _cut(command: str, limit: int = 80) -> str:
    """A command within `limit` characters, cut between words (a cut word reads as a real one)."""
    if len(command) <= limit:
        return command
    return command[:limit].rsplit(" ", 1)[0] + " …"


def _folder(path: str) -> str:
    """The folder of a path, a Windows one's too (`C:\\Users\\me\\skills\\x.md`: posixpath finds no folder in it,
    and "`ls .`" lists the project, not where the file was missed)."""
    return (ntpath.dirname(path) if is_windows_path(path) else posixpath.dirname(path)) or "."


def _fill(template: str, rec: ErrorRecord) -> str:
    loc = next(iter(rec.locations()), None)
    path = (loc.path if loc else None) or ""
    command = next((o.location.command for o in reversed(rec.occurrences) if o.location.command), "") or ""
    symbol = next((o.location.symbol for o in reversed(rec.occurrences) if o.location.symbol), "") or ""
    test = _latest_test(rec)
    values = {
        "path": path or "<file>", "dir": _folder(path), "command": _cut(command) or "<command>",
        "symbol": symbol or "<name>", "test": test or "<test>",
    }
    out = template
    for k, v in values.items():
        if v.startswith("<"):  # unknown: in prose it is said in words (`<file>` in a command is its usage)
            out = out.replace("`{" + k + "}`", _UNKNOWN_IN_PROSE[k])
        out = out.replace("{" + k + "}", v)
    return out


_UNKNOWN_IN_PROSE = {"path": "the file", "command": "the command", "symbol": "the name", "test": "the failing test"}


# A tool's error that says what to do ("File has not been read yet. Read it first before writing to it.",
# "Please retry with complete response."): for an error of no better-known kind, its own words advise best.
_INSTRUCTION_RE = re.compile(
    r"(?:^|(?<=[.!]\s))((?:[Pp]lease\s+)?(?i:read|use|call|provide|make sure|ensure|run|check|specify|pass|include|"
    r"retry|try|wait|remove|add|view|open|select|install|do not|don't)\b(?!\s+(?:failed|error))"
    r"(?:[^.!?\n<]|[.!?](?!\s|$)){3,160}[.!]?)")
_TAG_RE = re.compile(r"</?[\w-]+>")
_SAID_BY_TOOL = frozenset({"ERR_TOOL_ToolError"})


def _tool_instruction(rec: ErrorRecord) -> str | None:
    """The instruction the tool's latest error gave, when it gave one."""
    said = next((o.detail or o.evidence for o in reversed(rec.occurrences) if o.detail or o.evidence), "")
    m = _INSTRUCTION_RE.search(_TAG_RE.sub(" ", said))
    return m.group(1).strip() if m else None


# Errors a shell gives for a word it ran: not found as a command, or run as a path (zsh: "no such file or
# directory: docs/x.md", "permission denied: docs/").
RUN_AS_COMMAND = frozenset({"ERR_TOOL_CommandNotFound", "ERR_TOOL_FileNotFound", "ERR_TOOL_PermissionDenied"})
# Those errors when the word sat in backticks inside double quotes: one mistake, whatever the shell said
# of each word it ran (`merge.split_substitutions` gives them this id)
SUBSTITUTION_ID = "ERR_TOOL_BacktickSubstitution"


def substituted(err_id: str, occurrences: list[Occurrence]) -> str | None:
    """The word a "command not found" (or zsh's "no such file", "permission denied") ran when the failing
    command held it in backticks inside double quotes (a commit message quoting `startTimeColor`, a PR
    body quoting `docs/playbook/`): the shell substituted it, nobody meant to run it. The latest such
    occurrence's word."""
    return next((w for o in reversed(occurrences) if (w := own_word(err_id, o))), None)


def own_word(err_id: str, o: Occurrence) -> str | None:
    """The word this occurrence shows the shell ran, when it sat in backticks inside double quotes."""
    if err_id not in RUN_AS_COMMAND and err_id != SUBSTITUTION_ID:
        return None
    name, command = o.location.symbol or o.location.path or "", o.location.command or ""
    if not name or "`" not in command:
        return None
    if any(words(segment)[:1] == [name] for segment in split_commands(command)):  # run on its own: a real miss
        return None
    return name if any(span.strip() == name or span.split()[:1] == [name]
                       for span in double_quoted_backticks(command)) else None


def substituted_words(err_id: str, occurrences: list[Occurrence]) -> list[str]:
    """Every word the shell substituted in the commands these occurrences show substituting one (see
    `substituted`): each backticked span inside double quotes, whether or not it failed loudly (a
    `git status` runs quietly, and the text lacks it all the same). In order, once each."""
    found: list[str] = []
    for o in occurrences:
        if own_word(err_id, o) is None:
            continue
        for span in double_quoted_backticks(o.location.command or ""):
            if span not in found:
                found.append(span)
    return found


def substituted_last(err_id: str, occurrences: list[Occurrence]) -> list[str]:
    """The words the latest command that substituted one substituted."""
    return next((found for o in reversed(occurrences) if (found := substituted_words(err_id, [o]))), [])


def words_list(spans: list[str], most: int = 4) -> str:
    """`a`, `b`, `c` and 3 more."""
    shown = ", ".join(f"`{w}`" for w in spans[:most])
    return shown + (f" and {len(spans) - most} more" if len(spans) > most else "")


# "then `npm run check` passed (r125) after `cd packages/agent && npm run build` (r124)" (`scan._passed_later`):
# the very check passed once that command had run, with no edit between
_STEP_FIRST_RE = re.compile(r"passed \(r\d+\) after `([^`]+)` \(r\d+\)")
# a step that prepares what the check runs on (a build, an install, a regenerated cache), not one that changes
# the code (`git apply`, `git stash pop`, `git checkout x`, a patch): only the former is a habit to keep
_PREPARES_RE = re.compile(r"\b(?:build|rebuild|install|compile|make|tsc|bundle|generate|codegen|prepare|sync|"
                          r"migrate|cache|clean)\b", re.I)
_CHANGES_CODE_RE = re.compile(r"\b(?:git|patch|sed|mv|cp|rm)\b")


def advise(rec: ErrorRecord) -> str:
    """Avoidance for a record: its id's entry, else a TS-name or family entry, filled with the
    record's own file/command/symbol/test so it can be run as-is; a tool error of no known kind that
    says what to do: that, in the tool's words."""
    if rec.id in _SAID_BY_TOOL and (told := _tool_instruction(rec)):
        return f"do as the tool said: “{told}”"
    if name := substituted(rec.id, rec.occurrences):
        ran_words = substituted_last(rec.id, rec.occurrences) or [name]
        ran = words_list(ran_words) + (" as commands" if len(ran_words) > 1 else " as a command")
        return (f"backticks inside a double-quoted argument ran {ran}: quote such text with single "
                "quotes, escape its backticks (\\`), or pass it in a file (`git commit -F msg.txt`, "
                "`gh pr create --body-file`)")
    if rec.target_bug and any(o.location.command for o in rec.occurrences):
        # the bug the task is about, shown by its reproduction on purpose: the family's habit ("check the
        # attribute exists") would point away from the fix the task wants. The check is the run that then
        # passed (a second reproduction, when the first shows the old behaviour by design), else the failing one.
        passed = _PASSED_RUN_RE.search(rec.solution or "")
        return _fill(TARGET_BUG_ADVICE.format(command=f"`{_cut(passed.group(1))}`" if passed else "`{command}`"), rec)
    if (step := _STEP_FIRST_RE.search(rec.solution or "")) and _PREPARES_RE.search(step.group(1)) \
            and not _CHANGES_CODE_RE.search(step.group(1)):
        # the failing check passed once a command ran first (a stale package rebuilt, a dependency installed):
        # that step is the habit to keep, whatever the kind's usual advice (TS2322's "do not cast") says
        return f"when it shows again, run `{step.group(1)}` first: that ended it here, no code change did"
    if rec.id == "ERR_TOOL_Timeout":
        return _timeout_advice(rec)
    template = _BY_ID.get(rec.id)
    if template is None and rec.family == "TS":
        name = rec.id.removeprefix("ERR_TS_")
        template = _TS_BY_NAME.get(name)
        if template is None:
            codes = ", ".join(rec.ts_codes)
            template = "run `npx tsc --noEmit` after each edit to `{path}`" + (f" and fix {codes} at its first report"
                                                                                 if codes else "")
    if template is None and rec.id.startswith(_NPM_PREFIX):
        template = _NPM_ADVICE
    if rec.id in MODEL_SIDE and "the model was switched to" in (rec.solution or ""):
        return "when the provider keeps refusing, switch to another model or provider, as this session did"
    if template is None and rec.tests and rec.family != "LOGIC":
        # a failure a test run showed (vitest's TimeoutError in a browser test): that test, run again, is the
        # check, not the family's linter or compiler the session may never have used
        return _fill(_rerun_tests(rec), rec)
    if template is None:
        template = advice_for(rec.family)
        last = next((o.location.command for o in reversed(rec.occurrences) if o.location.command), "") or ""
        if program_of(last) in _COMPILERS:
            # the compiler the session ran, as it ran it (`javac -cp core/target/classes … Repro.java`): the family's
            # build tool (`mvn -q compile`) never compiles a file outside the project
            template = "re-run `{command}` after each edit to `{path}`"
    if "pytest {test}" in template and not _python_test(rec):
        # A test of another runner (vitest, jest, go test…): the command that ran it, else no command at all.
        template = _rerun_tests(rec) + (", negative tests included" if rec.id == "ERR_LOGIC_TestFailed" else "")
    return _fill(template, rec)


# Compilers a command runs on files itself (not a build tool's goal): the check to run again after an edit
_COMPILERS = frozenset({"javac", "tsc", "gcc", "g++", "clang", "clang++", "cc", "rustc", "ponyc", "kotlinc", "scalac"})


# How a test runner runs less, by a word of the command that ran it: the selection that would have finished
_NARROWER = (
    (re.compile(r"\b(?:pytest|py\.test|tox)\b"), "`-k <name>` or one test file"),
    (re.compile(r"\bmvnw?\b"), "`-Dtest=<Class>` or one module (`-pl <module>`)"),
    (re.compile(r"\bgradlew?\b"), "`--tests <Class>`"),
    (re.compile(r"\bcargo\s+(?:test|nextest)\b"), "a test name filter (`cargo test <name>`)"),
    (re.compile(r"\bgo\s+test\b"), "`-run <Name>` or one package"),
    (re.compile(r"\b(?:jest|vitest)\b"), "`-t <name>` or one test file"),
)


def _timeout_advice(rec: ErrorRecord) -> str:
    """What to do when a command outlasts the tool's wait. A run that finished when the agent read on is no
    hang: it needs the time, so `timeout 120` would kill it (fastjson2's five-minute Maven build); start it in
    the background and read its log. One that never finished: bound it. Either way, a narrower selection in
    the words of the runner the command ran (pytest's `-k` says nothing to Maven)."""
    command = next((o.location.command for o in reversed(rec.occurrences) if o.location.command), "") or ""
    # the program each part of the line runs (`cd ~/pytest-demo && cargo test` runs cargo, not pytest)
    programs = " ".join(" ".join(run_words(part)[:3]) for part in split_commands(command))
    narrower = next((how for pattern, how in _NARROWER if pattern.search(programs)), "one module or test file at a time")
    if "the run finished" in (rec.solution or ""):
        return ("it needs longer than the tool waits: start it in the background with its output to a file "
                f"(`… > run.log 2>&1 &`) and read the log, or run less ({narrower})")
    return f"bound long commands below the tool's wait (`timeout 100 …`) and run less ({narrower})"


TARGET_BUG_ADVICE = "the task's own bug: re-run {command} after every change, to see the fix still holds"
_PASSED_RUN_RE = re.compile(r"then (?:the reproduction )?`([^`\n]+)` (?:ran clean|passed)")


# Failures of the model's provider, not of a call: a session gets past them by waiting or by another model
MODEL_SIDE = ("ERR_TOOL_RateLimited", "ERR_TOOL_ContextOverflow")


def _rerun_tests(rec: ErrorRecord) -> str:
    """Run again what failed: the command that ran it, else its tests' one file, else its last test."""
    tests = latest_tests(rec)
    last_run = next((o.tests for o in sorted(rec.occurrences, key=lambda o: -o.round) if o.tests), [])
    if any(o.location.command for o in rec.occurrences) and set(tests) <= set(last_run):
        return "re-run `{command}` after every change"  # its last run holds every test still failing
    files = {re.split(r"::| > ", t, maxsplit=1)[0] for t in tests}
    if len(files) == 1 and len(tests) > 1:
        # which ones, by their own names (a successor asks which tests failed, not how many)
        names = [_test_name(t) for t in tests[:TESTS_NAMED]]
        named = ", ".join(f"`{_short_test(n)}`" for n in names) + (f" +{len(tests) - TESTS_NAMED}"
                                                                if len(tests) > TESTS_NAMED else "")
        return f"re-run the {len(tests)} failing tests of `{next(iter(files))}` ({named}) after every change"
    return "re-run the test `{test}` after every change"


def _latest_test(rec: ErrorRecord) -> str:
    """The last test the latest run that named tests failed."""
    return next((o.tests[-1] for o in sorted(rec.occurrences, key=lambda o: -o.round) if o.tests), "")


def latest_tests(rec: ErrorRecord) -> list[str]:
    """The tests still failing as last seen: the latest run's, then those of each earlier run of another
    command (`-k one` ran one test: the others it did not run). A test an earlier run of the same command
    failed and a later one did not (fixed, or renamed by an edit) is no longer one to re-run."""
    out: list[str] = []
    commands: set[str] = set()  # the command lines of the later runs
    for o in sorted(rec.occurrences, key=lambda o: -o.round):
        if not o.tests:
            continue
        command = " ".join((o.location.command or "").split())
        if command in commands:
            continue
        commands.add(command)
        out += [t for t in o.tests if t not in out]
    return out


TESTS_NAMED = 3  # of a record's failing tests, named in its avoidance
TEST_NAME_CHARS = 60


def _test_name(test: str) -> str:
    """A test's own name with its parameters (`test_cmp[1 > 0]`): split before them, they may hold `::` or ` > `."""
    at = test.find("[")
    return label_of_test(test[:at]) + test[at:] if at > 0 else label_of_test(test)


def _short_test(name: str) -> str:
    return name if len(name) <= TEST_NAME_CHARS else name[:TEST_NAME_CHARS - 1] + "…"


# npm's own failures (`npm error code TLOG_CREATE_ENTRY_ERROR`, `ELIFECYCLE`): the registry, the version, a script;
# a linter or a test of the code never catches them, so the JS family's advice would mislead.
_NPM_PREFIX = "ERR_JS_Npm"
_NPM_ADVICE = ("npm's failure, not the code's: act on its first `npm error` line and the debug log it names; an "
               "`ELIFECYCLE` only says a script failed (fix the first error above it)")


def _python_test(rec: ErrorRecord) -> bool:
    """The record's latest test is pytest's (`path.py::name`) or has no file: a pytest command fits."""
    test = _latest_test(rec)
    path = test.split("::", 1)[0].split(" > ", 1)[0]
    return "::" in test or not path or path.endswith(".py")
