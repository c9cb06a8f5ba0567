"""Text -> error hits. Each hit names an identifier, the verbatim evidence span (offsets into the
scanned string) and where the output says it happened.

Why regexes, precompiled and gated: classification runs over every tool result of transcripts up
to a million tokens; a cheap keyword gate skips clean output, and each pattern is one linear pass.
Specific patterns claim their span first, so a FileNotFoundError inside a traceback is not also a
generic ERR_TOOL_FileNotFound, and ERR_TOOL_NonZeroExit is only used when nothing else explains a
failed command.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace

from compaction.edits import EDIT_REFUSALS
from compaction.errors.families import BY_EXTENSION, family_of
from compaction.errors.triggers import Needles, Triggers, needles
from compaction.errors.tsc_codes import ts_id
from compaction.memo import per_text

MAX_SPAN = 600  # evidence spans are cut to this many characters (still verbatim)


@dataclass(slots=True)
class Hit:
    id: str
    start: int
    end: int
    evidence: str
    path: str | None = None
    line: int | None = None
    symbol: str | None = None
    detail: str = ""
    ts_codes: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    signals: int = 1

    @property
    def family(self) -> str:
        return family_of(self.id)


# The structured patterns' words; the gate adds every tool family's own (`_GATE`, below the table).
_GATE_WORDS = (
    "Traceback", "Error", "error", "FAIL", "Fail", "fail", "not found", "No such", "does not exist", "denied",
    "timed out", "Timeout", "Exception", "exception", "panic", "did not match", "No replacement", "too long",
    "not permitted", "Invalid", "invalid", "expected", "Expected", "not recognized", "Unknown command",
    "EXACTLY ONE", "No module", "COMMIT", "ERROR", "Parameter", "undefined", " 429",
    "no such file",  # zsh's own lower-case message
    "[WARN] ",  # checkstyle's violations
    "fixture '", "ScopeMismatch",  # pytest's fixture setup errors
)
_TS_CODE = re.compile(r"TS\d")


def _may_hold_errors(trig: Triggers) -> bool:
    """A cheap gate before the patterns: a few substring searches (much faster than one regex of
    alternatives over a long clean output); no pattern can match a text that fails it."""
    text = trig.text
    return trig.holds(_GATE) or ("TS" in text and _TS_CODE.search(text) is not None)


# --- Python -------------------------------------------------------------------------------------
_TB_HEAD = re.compile(r"Traceback \(most recent call last\):[ \t]*\r?$", re.M)
_FRAME = re.compile(r'^\s*File "([^"\n]+)", line (\d+)(?:, in (\S+))?')
_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::[ \t]?(.*))?$")
_PY_EXC_NAME = re.compile(r"^_*+[A-Z](?=\w*?[a-z])\w*+$")  # CamelCase: not log levels (DEBUG) or cut-off text
_NOT_EXC = {"During", "The", "Traceback", "Error"}  # (`Exception` itself is raised: `raise Exception(…)`)
_E_LINE = re.compile(r"^E {1,}((?:[\w]+\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure))(?::[ \t]?(.*))?$", re.M)
_BARE_EXC = re.compile(  # `Exception` itself too (`raise Exception(…)`): only right after a frame, as the rest
    r"^(?:Sorry: )?((?:[a-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception)|Exception))(?::[ \t]?(.*))?$", re.M)
_PYTEST_FAILED = re.compile(r"^(FAILED|ERROR) ([^\s:]+::[^\n]*?)(?: - ([^\n]*))?$", re.M)
# pytest's setup errors: a fixture no plugin or conftest provides, one that depends on itself, a scope clash.
# (pytest prints the first two under `E`, a scope mismatch on a line of its own)
_PYTEST_FIXTURE = re.compile(r"^(?:E\s+(?:fixture '([^'\n]+)' not found|recursive dependency involving fixture "
                             r"'([^'\n]+)' detected)|(?:E\s+)?ScopeMismatch: [^\n]*?fixture '?([\w\[\]-]+)?[^\n]*)"
                             r"[ \t]*$", re.M)
_PYTEST_SUMMARY = re.compile(r"^=++ (?:[^\n=]*?\b)?(\d+) (failed|errors?)\b[^\n]*=[ \t]*+$", re.M)
_UNITTEST_FAIL = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)[^\n]*$", re.M)
_SYMPY_FAIL = re.compile(r"^_{3,} (\S+\.py:\w+) _{3,}$", re.M)
# A traceback's last line: the exception (or the warning run as one) and its message, at a line's start.
_RAISED_LINE = re.compile(r"^(?:[\w]+\.)*[A-Z]\w*(?:Error|Exception|Warning)\b(?::[^\n]{0,200})?$", re.M)
_BLOCK_CHARS = 20_000  # of one failure's block read for its exception: bounded work
_SYMPY_SUMMARY = re.compile(r"^(?:tests finished: [^\n]*\b\d+ (?:failed|exceptions?)\b[^\n]*|DO \*NOT\* COMMIT!)$", re.M)
_NO_MODULE = re.compile(r"^[^\n]*?No module named '?([\w.]+)'?[^\n]*$", re.M)
_ASSERT_MISMATCH = re.compile(
    r"^(?:E\s+)?(?:AssertionError: )?(?:assert .+ == .+|[Ee]xpected:? ?<.*?> but was:? ?<.*?>|"
    r"[Ee]xpected:? [^\n]+ but (?:was|got):? [^\n]+)$", re.M)

# --- TypeScript ----------------------------------------------------------------------------------
_TS_PAREN = re.compile(r"^([^\s(][^\n(]*?)\((\d+),(\d+)\): error (TS\d+): ([^\n]*)$", re.M)
_A = r"(?:\x1b\[[\d;]*m)*"  # ANSI colour codes of `tsc --pretty`, allowed between the fields
_TS_DASH = re.compile(
    rf"^{_A}([^\s:\x1b][^\n:\x1b]*?){_A}:{_A}(\d+){_A}:{_A}(\d+){_A} - {_A}error{_A} ?{_A}(TS\d+): {_A}([^\n]*)$", re.M)
_TS_BARE = re.compile(r"^error (TS\d+): ([^\n]*)$", re.M)

# --- Java / JVM ----------------------------------------------------------------------------------
_JAVAC = re.compile(r"^(?:\[ERROR\] )?(\S+\.java):(?:(\d+)|\[(\d+)(?:,\d+)?\]):? (?:error: )?([^\n]*)$", re.M)
_JAVA_EXC = re.compile(
    r"^(?:Exception in thread \"[^\"]+\" |Caused by: )?((?:[a-z][\w$]*\.)+([A-Z][\w$]*(?:Exception|Error)))"
    r"(?::[^\n]*)?\n\s+at ", re.M)
_STACK_AT = re.compile(r"\n\s+at ")  # the frame line both stack patterns need: one search spares them most texts
_MVN_FAIL = re.compile(r"^\[(?:INFO|ERROR)\] (?:BUILD FAILURE|[^\n]*? FAILURE \[[^\n]*\])[ \t]*$", re.M)
_MVN_GOAL = re.compile(r"^\[ERROR\] Failed to execute goal ([^\s]+)[^\n]*$", re.M)
_CHECKSTYLE = re.compile(r"^\[(?:ERROR|WARN)\] (\S+?):\[(\d+)(?:,\d+)?\] \([\w]+\) (\w+): ([^\n]*)$", re.M)
_SUREFIRE = re.compile(r"^(?:\[ERROR\] )?Tests run: \d+, Failures: (\d+), Errors: (\d+)[^\n]*$", re.M)

# --- JS, Go, Rust, C, Pony -------------------------------------------------------------------------
_JS_EXC = re.compile(r"^(?:Uncaught )?((?:[A-Z]\w*)?Error)(?: \[\w+\])?: ([^\n]*)\n\s+at ", re.M)
_NPM_ERR = re.compile(r"^npm (?:ERR!|error) code (\w+)[^\n]*$", re.M)
# ESLint's stylish report: the file alone on its line, then `  18:5  error  Message  rule-name` under it
_LINT_LINE = re.compile(r"^[ \t]+(\d+):(\d+)[ \t]+error[ \t]+(.+?)[ \t]{2,}(@?[\w-]+(?:/[\w-]+)*)[ \t]*$", re.M)
_LINT_FILE = re.compile(r"^(\S[^\n]*\.\w{1,6})[ \t]*$", re.M)
# A bundler's failed build (Vite, Rollup): its verdict line, and the `file:line:col message` that says why
_BUILD_FAILED = re.compile(r"^[^\n]*(?:\[vite\][^\n]*Build failed|error during build:|\[!\] RollupError:)[^\n]*$", re.M)
# (a bundler's virtual module names its file after a scheme: `astro-entry:/…/Sinppets.svelte:1:9 Unexpected token`)
_BUILD_CAUSE = re.compile(r"^(?:[^\n]*? )?(?:(?!https?:)[a-z][\w-]{1,30}:)?(/?[\w.@/-]+\.\w{1,6}):(\d+):(\d+):? ([^\n]{8,300})$", re.M)
_GO_PANIC = re.compile(r"^panic: ([^\n]*)$", re.M)
_GO_BUILD = re.compile(r"^(\S+\.go):(\d+):(\d+): ([^\n]*)$", re.M)
_GO_FAIL = re.compile(r"^--- FAIL: (\S+)[^\n]*$", re.M)
# vitest/jest: ` FAIL  src/a.test.ts > suite > test` (vitest, a browser project's name first), ` FAIL  src/a.test.js`
# (jest, with its run time when slow: `(5.831 s)`);
# their summaries `Tests  1 failed | 38 passed (39)` and `Tests:       1 failed, 38 passed, 39 total`.
_JS_TEST_FAIL = re.compile(r"^[ \t]*FAIL[ \t]+(?:\|?[\w-]+(?: \([^)\n]*\))?\|?[ \t]+(?=\S+\.\w+))?"
                           r"(\S+\.(?:[cm]?[jt]sx?|vue|svelte|astro))"
                           r"(?:[ \t]+>[ \t]+([^\n]+?))?(?:[ \t]+\(\d[\d.]*[ \t]*m?s\))?[ \t]*$", re.M)
# jest names each failed test under its file's FAIL line: `  ● suite › test`.
_JEST_TEST = re.compile(r"^[ \t]*● ([^\n]+?)[ \t]*$", re.M)
_JS_TEST_SUMMARY = re.compile(r"^[ \t]*Tests:?[ \t]+(\d+) failed\b[^\n]*$", re.M)
_JS_EXC_NAME = re.compile(r"((?:[A-Z]\w*)?(?:Error|Exception)):")
_JS_TEST_REASON = re.compile(r"^[ \t]*(?:(?:[A-Z]\w*)?(?:Error|Exception)\b|expected\b|Expected\b)[^\n]*", re.M)
_RS_ERR = re.compile(r"^error\[(E\d{4})\]: ([^\n]*)(?:\n\s*--> ([^\s:]+):(\d+):\d+)?", re.M)
_RS_TEST = re.compile(r"^test result: FAILED\.[^\n]*$", re.M)
_C_ERR = re.compile(r"^(\S+\.(?:c|h|cc|cpp|cxx|hpp|hh|m)):(\d+):(?:\d+:)? (?:fatal )?error: ([^\n]*)$", re.M)
_C_LD = re.compile(r"^[^\n]*undefined reference to [`'](\w+)'[^\n]*$", re.M)
_PONY_ERR = re.compile(r"^(\S+\.pony):(\d+):(\d+): ([^\n]*)$", re.M)

# --- tools ----------------------------------------------------------------------------------------
_NO_SUCH = re.compile(r"^[^\n]*?No such file or directory[^\n]*$", re.M)
# zsh's own messages, lower-case, after its name or an `(eval):1:` prefix: "zsh: no such file or directory: x"
# (a builtin's error names it too: "zsh:cd:1: no such file or directory: x", "(eval):cd:1: …")
_ZSH_NO_SUCH = re.compile(r"^\s*(?:zsh|\(eval\))(?::[\w-]+)?:(?:\d+:)?\s*no such file or directory: \S[^\n]*$", re.M)
# Node's (and libuv tools'): "ENOENT: no such file or directory, access '/a/b.html'", "Error: ENOENT: …, open 'x'"
_ENOENT = re.compile(r"^(?!\s*npm\b)[^\n]*?\bENOENT: no such file or directory\b[^\n]*$", re.M)  # npm's own: ERR_JS
_ZSH_DENIED = re.compile(r"^\s*(?:zsh|\(eval\))(?::[\w-]+)?:(?:\d+:)?\s*permission denied: \S[^\n]*$", re.M)
_AFTER_COLON = re.compile(r": (?:no such file or directory|permission denied): (.*\S)\s*$")  # zsh: the rest is the path
_DOES_NOT_EXIST = re.compile(
    r"^[^\n]*?(?:\b(?:[Ff]ile|[Pp]ath|[Dd]irectory|[Ff]older)\b[^\n]{0,200}?\bdoes not exist|"
    r"pathspec '[^'\n]*' did not match any file|[Ff]ile not found|[Cc]annot find the (?:file|path))[^\n]*$",
    re.M)
_CMD_NOT_FOUND = re.compile(r"^[^\n]*(?:command not found|is not recognized as an internal)[^\n]*$")
# bash's `bash: foo: command not found`, zsh's `zsh: command not found: foo` (the shell's name is no command)
_CMD_NAME = re.compile(r"(?<![^\s:])([^\s:]++): command not found(?!: )|command not found: (\S+)|'([^'\s]+)' is not recognized")
_PERM = re.compile(r"^[^\n]*?(?:Permission denied|Operation not permitted|EACCES)[^\n]*$", re.M)
_TIMEOUT = re.compile(
    r"^[^\n]*?(?:[Cc]ommand timed out|timed out after|TimeoutExpired|[Tt]ook too long|"
    r"no output for \d+ seconds|\bTimeout(?:Error)?: )[^\n]*$", re.M)
_EDIT_MISS = re.compile(r"^[^\n]*?(?:" + "|".join(map(re.escape, EDIT_REFUSALS)) + r")[^\n]*$", re.M)
_RATE_LIMIT = re.compile(
    r"^[^\n]*?(?:\b429\b[^\n]*?(?:Too Many|[Rr]ate|[Ll]imit)|(?:Too Many|[Rr]ate|[Ll]imit)[^\n]*?\b429\b|"
    r"[Rr]ate[ _-]?[Ll]imit(?:ed|s)?\b[^\n]{0,80}?\b(?:exceeded|reached|hit|error|retry)|"
    r"[Rr]ate[ _-]?[Ll]imit(?:ed|_error)|Too Many Requests|[Qq]uota exceeded)[^\n]*$", re.M)
_UNKNOWN_TOOL = re.compile(
    r"^[^\n]*?(?:[Uu]nknown (?:tool|skill|function)\b|[Nn]o such (?:tool|skill)\b|not a valid tool\b|"
    r"\b(?:[Tt]ool|[Ss]kill) [`'\"]?[\w:.-]+[`'\"]? (?:not found|does not exist|is not available))[^\n]*$", re.M)
_SANDBOX = re.compile(
    r"^[^\n]*?(?:\b[Ss]andbox(?:ed|ing)?\b[^\n]*?\b(?:error|denied|failed|failure|blocked|not permitted|violation|"
    r"refused)|CreateProcessAsUserW? failed|[Ss]andbox(?:Denied|Violation|Error)\b)[^\n]*$", re.M)
_READ_ONLY = re.compile(r"^[^\n]*?(?:Read-only file system|\[Errno 30\]|\bEROFS\b)[^\n]*$", re.M)
# A harness that confines file tools to the workspace ("File path must be within one of the workspace
# directories: /w", "path is outside the allowed working directory"): the path's root was wrong.
_OUTSIDE = re.compile(r"^[^\n]*?(?:must be within (?:one of )?the (?:workspace|project|allowed)|"
                      r"(?:is )?outside (?:of )?(?:the )?(?:allowed |current )?(?:workspace|working director|project root))"
                      r"[^\n]*$", re.M)
_LINT_REJECTED = re.compile(r"^[^\n]*?\bE9\d\d (?:SyntaxError|IndentationError|TabError|TokenError)\b[^\n]*$", re.M)
_INVALID_RANGE = re.compile(
    r"^[^\n]*?(?:[Ii]nvalid `?view_range`?|`?view_range`?[^\n]*?\b(?:should|must|invalid|out of)\b|"
    r"[Ii]nvalid (?:line )?range\b)[^\n]*$", re.M)
_TOO_LONG = re.compile(r"^[^\n]*The output of your last command was too long[^\n]*$", re.M)
# A file tool that writes only files it has read this session (Claude Code's "File has not been read yet.
# Read it first before writing to it.")
_READ_FIRST = re.compile(r"^[^\n]*?(?:has not been read yet|[Rr]ead it first|must (?:first )?read (?:the|this|that) "
                         r"file)[^\n]*$", re.M)
# The model's request outgrew its context window (litellm/OpenAI-compatible servers, Anthropic, aider); not a
# search's hit on the words (`src/llm.py:42: if code == "context_length_exceeded":`).
_CONTEXT_FULL = re.compile(r"^(?![^\s:]+:\d+[:-])[^\n]*?(?:exceeds? the (?:available|maximum) context (?:size|length|window)|"
                           r"maximum context length is \d+|context_length_exceeded|prompt is too long: \d+|"
                           r"has hit a token limit!)[^\n]*$", re.M)
_FORMAT = re.compile(r"^[^\n]*Please always provide EXACTLY ONE action[^\n]*$", re.M)
_INVALID_PARAM = re.compile(
    r"^[^\n]*?(?:Parameter ['`]\w+['`] is (?:expected to be one of|required)|Invalid `\w+` parameter|"
    r"Invalid command: \S+|Unknown command: \S+|invalid choice: )[^\n]*$", re.M)

# --- the literal words each family's lines hold (a pattern is tried only on such lines) -------------
_E_LINE_WORDS = needles("E  ")
_NO_MODULE_WORDS = needles("No module named")
_BARE_EXC_WORDS = needles("Error", "Exception")
_PYTEST_FAILED_WORDS = needles("FAILED ", "ERROR ")
_PYTEST_SUMMARY_WORDS = needles(" failed", " error")
_PYTEST_FIXTURE_WORDS = needles("fixture '", "ScopeMismatch")
_SYMPY_FAIL_WORDS = needles("___ ")
_SYMPY_SUMMARY_WORDS = needles("tests finished:", "DO *NOT* COMMIT")
_UNITTEST_FAIL_WORDS = needles("FAIL: ", "ERROR: ")
_SUREFIRE_WORDS = needles("Tests run:")
_GO_FAIL_WORDS = needles("--- FAIL")
_JS_TEST_FAIL_WORDS = needles("FAIL ")
_JS_TEST_SUMMARY_WORDS = needles(" failed")
_RS_TEST_WORDS = needles("test result: FAILED")
_ASSERT_MISMATCH_WORDS = needles("assert ", "xpected")
_TS_ERR_WORDS = needles("error TS", "error\x1b[")
_TS_BARE_WORDS = needles("error TS")
_CHECKSTYLE_WORDS = needles("[ERROR] ", "[WARN] ")
_JAVAC_WORDS = needles(".java:")
_JAVA_EXC_WORDS = needles("Exception", "Error")
_MVN_FAIL_WORDS = needles("FAILURE")
_MVN_GOAL_WORDS = needles("Failed to execute goal")
_JS_EXC_WORDS = needles("Error")
_NPM_ERR_WORDS = needles("npm ")
_LINT_WORDS = needles("  error  ")
_BUILD_FAILED_WORDS = needles("Build failed", "error during build:", "RollupError")
_GO_PANIC_WORDS = needles("panic: ")
_GO_BUILD_WORDS = needles(".go:")
_RS_ERR_WORDS = needles("error[E")
_C_ERR_WORDS = needles("error: ")
_C_LD_WORDS = needles("undefined reference")
_PONY_ERR_WORDS = needles(".pony:")


class _Spans:
    """Claimed lines, so a weaker pattern does not re-report what a stronger one already did.
    Every pattern matches from a line start, so a set of claimed line starts answers in O(1)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: set[int] = set()

    def claim(self, start: int, end: int) -> None:
        text = self.text
        pos = text.rfind("\n", 0, start) + 1
        while pos < max(end, start + 1):
            self.lines.add(pos)
            nl = text.find("\n", pos)
            if nl < 0:
                break
            pos = nl + 1

    def covered(self, start: int, end: int = 0) -> bool:
        return (self.text.rfind("\n", 0, start) + 1) in self.lines


def _iter(rx: re.Pattern, trig: Triggers, words: Needles, multiline: bool = False):
    """Matches of a line-anchored pattern, tried only on lines holding one of the family's words:
    linear in the words' occurrences, not in the text, so a clean 1 MB output costs a few searches."""
    text = trig.text
    for ls, le in trig.lines_with(words):
        m = rx.match(text, ls) if multiline else rx.match(text, ls, le)
        if m:
            yield m


def _cut(text: str, start: int, end: int) -> tuple[int, int]:
    if end - start > MAX_SPAN:
        return end - MAX_SPAN, end
    return start, end


def _project_frame(path: str) -> bool:
    return not ("site-packages" in path or "/lib/python" in path or path.startswith("<"))


def _python_tracebacks(text: str, hits: list[Hit], spans: _Spans) -> None:
    for m in _TB_HEAD.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        prefix = text[line_start:m.start()]
        pos = m.end() + 1
        frames: list[tuple[str, int, str | None, int]] = []
        for _ in range(2000):  # a traceback longer than this is cut off anyway
            if pos >= len(text):
                break
            nl = text.find("\n", pos)
            nl = len(text) if nl < 0 else nl
            raw = text[pos:nl]
            if prefix and not raw.startswith(prefix):
                break  # the prefixed block ended or the output was cut: no final line to read
            line = raw[len(prefix):]
            line = line.rstrip("\r")
            fm = _FRAME.match(line)
            if fm:
                frames.append((fm.group(1), int(fm.group(2)), fm.group(3), pos))
            elif line and not line[0].isspace():
                em = _EXC_LINE.match(line)
                if em:
                    full = em.group(1)
                    name = full.rsplit(".", 1)[-1]
                    if _PY_EXC_NAME.match(name) and name not in _NOT_EXC:
                        frame = next((f for f in reversed(frames) if _project_frame(f[0])), frames[-1] if frames else None)
                        last = frames[-1] if frames else None
                        s = last[3] if last else m.start()
                        s, e = _cut(text, s, nl)
                        spans.claim(m.start(), nl)
                        hits.append(Hit(
                            f"ERR_PY_{name}", s, e, text[s:e],
                            path=frame[0] if frame else None, line=frame[1] if frame else None,
                            symbol=frame[2] if frame else None, detail=line[:300]))
                break
            pos = nl + 1


def _python_lines(trig: Triggers, hits: list[Hit], spans: _Spans) -> None:
    text = trig.text
    for m in _iter(_E_LINE, trig, _E_LINE_WORDS):
        if spans.covered(m.start(), m.end()):
            continue
        name = m.group(1).rsplit(".", 1)[-1]
        s, e = _cut(text, m.start(), m.end())
        spans.claim(m.start(), m.end())
        hits.append(Hit(f"ERR_PY_{name}", s, e, text[s:e], detail=m.group(0)[:300]))
    for m in _iter(_NO_MODULE, trig, _NO_MODULE_WORDS):
        if not spans.covered(m.start(), m.end()) and "Error" not in m.group(0):
            spans.claim(m.start(), m.end())
            hits.append(Hit("ERR_PY_ModuleNotFoundError", m.start(), m.end(), m.group(0), symbol=m.group(1),
                            detail=m.group(0)[:300]))
    for m in _iter(_BARE_EXC, trig, _BARE_EXC_WORDS):
        if spans.covered(m.start(), m.end()):
            continue
        # a bare "Name: msg" line counts only right after a frame or a caret line (SyntaxError shape)
        before = text[max(0, m.start() - 400):m.start()]
        if not re.search(r'File "[^"\n]+", line \d+[^\n]*\n(?:[^\n]*\n){0,3}$', before):
            continue
        name = m.group(1).rsplit(".", 1)[-1]
        fm = list(re.finditer(r'File "([^"\n]+)", line (\d+)', before))
        f = fm[-1] if fm else None
        s = m.start() - (len(before) - f.start()) if f else m.start()
        s, e = _cut(text, s, m.end())
        spans.claim(s, m.end())
        hits.append(Hit(f"ERR_PY_{name}", s, e, text[s:e], path=f.group(1) if f else None,
                        line=int(f.group(2)) if f else None, detail=m.group(0)[:300]))


def _tests(trig: Triggers, hits: list[Hit], spans: _Spans) -> None:
    text = trig.text
    failed = list(_iter(_PYTEST_FAILED, trig, _PYTEST_FAILED_WORDS))
    for k, m in enumerate(failed):
        test_id, reason = m.group(2), (m.group(3) or "")
        exc = re.match(r"((?:[\w]+\.)*[A-Z]\w*(?:Error|Exception|Exit|Failure|Warning))\b", reason)
        path = test_id.split("::", 1)[0]
        symbol = test_id.rsplit("::", 1)[-1]
        spans.claim(m.start(), m.end())
        detail, line = m.group(0), None
        if not reason and k < _REASONS_LOOKED_UP:
            found = _pytest_reason(text, test_id, m.start())
            if found:
                detail, line = f"{detail} - {found[0]}", found[1]
        hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), path=path, symbol=symbol,
                        line=line, detail=detail[:300], tests=[test_id]))
        if exc:
            hits.append(Hit(f"ERR_PY_{exc.group(1).rsplit('.', 1)[-1]}", m.start(), m.end(), m.group(0),
                            path=path, symbol=symbol, detail=reason[:300], tests=[test_id]))
    fixtures: set[str] = set()
    for m in _iter(_PYTEST_FIXTURE, trig, _PYTEST_FIXTURE_WORDS):
        name = next((g for g in m.groups() if g), None)
        if (name or "") not in fixtures:  # one record a fixture, however many tests it failed to set up
            fixtures.add(name or "")
            hits.append(Hit("ERR_LOGIC_FixtureError", m.start(), m.end(), m.group(0), symbol=name,
                            detail=re.sub(r"^E\s+", "", m.group(0)).strip()[:300]))
    if not failed:
        for m in _iter(_PYTEST_SUMMARY, trig, _PYTEST_SUMMARY_WORDS):
            hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), detail=m.group(0)[:300]))
    sympy = [m for m in _iter(_SYMPY_FAIL, trig, _SYMPY_FAIL_WORDS)]
    for i, m in enumerate(sympy):
        # what failed it: the exception its block ends on, never the next block's ("DeprecationWarning:
        # NotImplemented should not be used in a boolean context" under sympy's `____ file:test ____` rule)
        stop = min(len(text), m.end() + _BLOCK_CHARS, sympy[i + 1].start() if i + 1 < len(sympy) else len(text))
        raised = [r.group(0).strip() for r in _RAISED_LINE.finditer(text, m.end(), stop)]
        detail = f"{m.group(1)}: {raised[-1]}" if raised else m.group(0)
        hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), path=m.group(1).split(":")[0],
                        symbol=m.group(1).rsplit(":", 1)[-1], detail=detail[:300], tests=[m.group(1)]))
    if not sympy:
        for m in _iter(_SYMPY_SUMMARY, trig, _SYMPY_SUMMARY_WORDS):
            hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), detail=m.group(0)))
    for m in _iter(_UNITTEST_FAIL, trig, _UNITTEST_FAIL_WORDS):
        test_id = f"{m.group(3)}.{m.group(2)}"
        hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), symbol=m.group(2),
                        detail=m.group(0)[:300], tests=[test_id]))
    for m in _iter(_SUREFIRE, trig, _SUREFIRE_WORDS):
        if int(m.group(1)) or int(m.group(2)):
            hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), detail=m.group(0)))
    for m in _iter(_GO_FAIL, trig, _GO_FAIL_WORDS):
        hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), symbol=m.group(1),
                        detail=m.group(0), tests=[m.group(1)]))
    for m in _iter(_RS_TEST, trig, _RS_TEST_WORDS):
        hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), detail=m.group(0)))
    _js_tests(trig, hits)
    for m in _iter(_ASSERT_MISMATCH, trig, _ASSERT_MISMATCH_WORDS):
        s, e = _cut(text, m.start(), m.end())
        hits.append(Hit("ERR_LOGIC_AssertionMismatch", s, e, text[s:e], detail=m.group(0)[:300]))


_REASONS_LOOKED_UP = 20  # failed tests per output whose block is searched for the reason: bounded work
_BLOCK_END = re.compile(r"^(?:_{3,} \S[^\n]* _{3,}|={3,}[^\n]*|-{3,} Captured [^\n]*)$", re.M)
_FIRST_E = re.compile(r"^E {1,}(\S[^\n]*)$", re.M)
_FAILED_AT = re.compile(r"^([^\s:]+):(\d+): \w+$", re.M)


def _pytest_reason(text: str, test_id: str, before: int) -> tuple[str, int | None] | None:
    """(the first `E` line, the line of the test file it failed at) of a failed test's block, for a summary line
    that gives no reason (pytest before 6: `FAILED testing/test_reports.py::T::test_x`, while its block says
    `E Failed: DID NOT RAISE <class 'RuntimeError'>` at `testing/test_reports.py:243`); None when no block is
    found. Its own block only: it ends at the next test's header, a `===` rule or its captured output (a
    nested run's `E assert False` is not its reason)."""
    name = test_id.split("::", 1)[-1].replace("::", ".")
    head = text.rfind(f" {name} _", 0, before)
    if head < 1 or text[head - 1] != "_":
        return None
    start = text.find("\n", head) + 1
    if start <= 0:
        return None
    stop = min(before, start + _BLOCK_CHARS)
    end = _BLOCK_END.search(text, start, stop)
    stop = end.start() if end else stop
    reason = _FIRST_E.search(text, start, stop)
    if reason is None:
        return None
    path = test_id.split("::", 1)[0]
    at = [a for a in _FAILED_AT.finditer(text, reason.end(), stop) if a.group(1).endswith(path)]
    return " ".join(reason.group(1).split()), int(at[0].group(2)) if at else None


def _js_tests(trig: Triggers, hits: list[Hit]) -> None:
    """vitest's and jest's failed tests, each with the reason on the lines after it (`TimeoutError:
    locator.click: Timeout 29873ms exceeded.`); their summary line when no test is named."""
    text = trig.text
    named = 0
    failed = list(_iter(_JS_TEST_FAIL, trig, _JS_TEST_FAIL_WORDS))
    for i, m in enumerate(failed):
        path, test = m.group(1), (m.group(2) or "").strip()
        stop = min(len(text), m.end() + 400, failed[i + 1].start() if i + 1 < len(failed) else len(text))
        if not test and (named_by_jest := _JEST_TEST.search(text, m.end(), stop)):
            test = named_by_jest.group(1).replace(" › ", " > ")
        reason = _JS_TEST_REASON.search(text, m.end(), stop)  # its own block's, never the next test's
        detail = ": ".join(p for p in (test, reason.group(0).strip() if reason else "") if p)
        tests = [f"{path} > {test}" if test else path]
        symbol = test.rsplit(" > ", 1)[-1] or None
        line = _js_test_line(text, path, m.end(), failed[i + 1].start() if i + 1 < len(failed) else len(text))
        hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), path=path, symbol=symbol,
                        line=line, detail=(detail or m.group(0))[:300], tests=tests))
        exc = _JS_EXC_NAME.match(reason.group(0).strip()) if reason else None
        if exc:  # the exception that failed it: the record's primary id, the test failure its alias
            hits.append(Hit(f"ERR_JS_{exc.group(1)}", m.start(), m.end(), m.group(0), path=path, symbol=symbol,
                            line=line, detail=reason.group(0).strip()[:300], tests=tests))
        named += 1
    if not named:
        for m in _iter(_JS_TEST_SUMMARY, trig, _JS_TEST_SUMMARY_WORDS):
            if int(m.group(1)):
                hits.append(Hit("ERR_LOGIC_TestFailed", m.start(), m.end(), m.group(0), detail=m.group(0).strip()))


# A stack frame vitest or jest prints under a failure: `❯ helper path/x.spec.ts:102:38`, `at Object.<anonymous> (x.test.js:9:5)`
_JS_FRAME = re.compile(r"^[ \t]*(?:❯|at)[ \t][^\n]{0,200}?\(?([^\s():]{1,300}):(\d+):\d+\)?[ \t]*$", re.M)  # bounded


def _js_test_line(text: str, path: str, start: int, stop: int) -> int | None:
    """The line of the test file a failure's block last points at, among its stack frames: the test's own line
    (a helper of the same file is called from it, so its frame comes first); None when no frame names the file.
    Why: a test that fails at `:360`, then `:371`, `:373`, `:374` as its body changed is failing at the same
    last assertion each time (destyler-tree-vanilla's), which the message alone does not say."""
    stop = min(stop, start + _BLOCK_CHARS)
    block = text[start:stop]
    if "❯" not in block and " at " not in block:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    lines = [int(f.group(2)) for f in _JS_FRAME.finditer(text, start, stop)
             if f.group(1).replace("\\", "/").rsplit("/", 1)[-1] == name]
    return lines[-1] if lines else None


def _typescript(trig: Triggers, hits: list[Hit], spans: _Spans) -> None:
    text = trig.text
    for rx in (_TS_PAREN, _TS_DASH):
        for m in _iter(rx, trig, _TS_ERR_WORDS):
            code = m.group(4)
            spans.claim(m.start(), m.end())
            s, e = _cut(text, m.start(), m.end())
            hits.append(Hit(ts_id(code), s, e, text[s:e], path=m.group(1).strip(), line=int(m.group(2)),
                            detail=m.group(5)[:300], ts_codes=[code]))
    for m in _iter(_TS_BARE, trig, _TS_BARE_WORDS):
        if not spans.covered(m.start(), m.end()):
            spans.claim(m.start(), m.end())
            hits.append(Hit(ts_id(m.group(1)), m.start(), m.end(), m.group(0), detail=m.group(2)[:300],
                            ts_codes=[m.group(1)]))


def _camel(message: str, limit: int = 4) -> str:
    words = re.findall(r"[A-Za-z]+", message)[:limit]
    return "".join(w[:1].upper() + w[1:] for w in words) or "CompileError"


_JAVAC_BOTH = re.compile(r"^[ \t]+both (?:method|constructor) [^\n]{1,400}? match[ \t]*$", re.M)  # an ambiguity's pair


def _pair(both: str) -> str:
    """javac's ambiguity line said short: `both parseObject(String,Type,Feature...) and parseObject(String,Type,Context)
    match`, without its type variables (`<T#1>`), the word "method" and the class each is in."""
    said = re.sub(r"<T#\d+>", "", " ".join(both.split()))
    said = re.sub(r" in [\w.$]+(?:<[^>]*>)?(?= and | match)", "", said)
    return re.sub(r"\b(?:both|and) (?:method|constructor) ", lambda m: m.group(0).split()[0] + " ", said)


_JAVAC_KINDS = (
    ("cannot find symbol", "CannotFindSymbol"), ("does not exist", "PackageDoesNotExist"),
    ("incompatible types", "IncompatibleTypes"), ("expected", "SyntaxError"),
    ("unreported exception", "UnreportedException"), ("already defined", "AlreadyDefined"),
    ("cannot be applied", "MethodNotApplicable"), ("might not have been initialized", "UninitializedVariable"),
    ("is not abstract and does not override", "MissingOverride"), ("unreachable statement", "UnreachableStatement"),
)


def _java(trig: Triggers, hits: list[Hit], spans: _Spans, stack: bool) -> None:
    text = trig.text
    for m in _iter(_CHECKSTYLE, trig, _CHECKSTYLE_WORDS):
        spans.claim(m.start(), m.end())
        hits.append(Hit("ERR_JAVA_CheckstyleViolation", m.start(), m.end(), m.group(0), path=m.group(1),
                        line=int(m.group(2)), symbol=m.group(3), detail=m.group(4)[:300]))
    for m in _iter(_JAVAC, trig, _JAVAC_WORDS):
        msg = m.group(4)
        if spans.covered(m.start(), m.end()) or not (m.group(0).startswith("[ERROR]") or "error:" in m.group(0)):
            continue
        kind = next((k for needle, k in _JAVAC_KINDS if needle in msg), "CompileError")
        spans.claim(m.start(), m.end())
        sym = re.search(r"symbol:\s+\w+ (\w+)", text[m.end():m.end() + 200]) if kind == "CannotFindSymbol" else None
        if msg.endswith(" is ambiguous") and (both := _JAVAC_BOTH.search(text, m.end(), m.end() + 600)):
            # which two declarations clash: a new overload makes every such call ambiguous (fastjson2's
            # `parseObject(s, type, null)` between `(String,Type,Feature...)` and the added `(String,Type,Context)`)
            msg = f"{msg}: {_pair(both.group(0))}"
        hits.append(Hit(f"ERR_JAVA_{kind}", m.start(), m.end(), m.group(0), path=m.group(1),
                        line=int(m.group(2) or m.group(3)), symbol=sym.group(1) if sym else None, detail=msg[:300]))
    for m in (_iter(_JAVA_EXC, trig, _JAVA_EXC_WORDS, multiline=True) if stack else ()):
        end = m.start() + len(m.group(0).split("\n", 1)[0])
        spans.claim(m.start(), end)
        hits.append(Hit(f"ERR_JAVA_{m.group(2)}", m.start(), end, text[m.start():end], detail=text[m.start():end][:300]))
    for m in _iter(_MVN_FAIL, trig, _MVN_FAIL_WORDS):
        hits.append(Hit("ERR_JAVA_BuildFailure", m.start(), m.end(), m.group(0), detail="BUILD FAILURE"))
    for m in _iter(_MVN_GOAL, trig, _MVN_GOAL_WORDS):
        s, e = _cut(text, m.start(), m.end())
        hits.append(Hit("ERR_JAVA_BuildFailure", s, e, text[s:e], symbol=m.group(1), detail=m.group(0)[:300]))


def _others(trig: Triggers, hits: list[Hit], spans: _Spans, stack: bool) -> None:
    text = trig.text
    for m in (_iter(_JS_EXC, trig, _JS_EXC_WORDS, multiline=True) if stack else ()):
        if spans.covered(m.start(), m.start() + 1):
            continue
        end = m.start() + len(m.group(0).split("\n", 1)[0])
        spans.claim(m.start(), end)
        hits.append(Hit(f"ERR_JS_{m.group(1)}", m.start(), end, text[m.start():end], detail=m.group(2)[:300]))
    for m in _iter(_NPM_ERR, trig, _NPM_ERR_WORDS):
        hits.append(Hit(f"ERR_JS_Npm{m.group(1).title().replace('_', '')}", m.start(), m.end(), m.group(0),
                        detail=m.group(0)))
    for m in _iter(_LINT_LINE, trig, _LINT_WORDS):
        if spans.covered(m.start(), m.end()):
            continue
        spans.claim(m.start(), m.end())
        files = list(_LINT_FILE.finditer(text, max(0, m.start() - 4000), m.start()))
        hits.append(Hit("ERR_JS_LintError", m.start(), m.end(), m.group(0).strip(),
                        path=files[-1].group(1).strip() if files else None, line=int(m.group(1)), symbol=m.group(4),
                        detail=f"{m.group(3)} ({m.group(4)})"[:300]))
    for m in _iter(_BUILD_FAILED, trig, _BUILD_FAILED_WORDS):
        if spans.covered(m.start(), m.end()):
            continue
        cause = _BUILD_CAUSE.search(text, m.end(), m.end() + 2000)
        end = cause.end() if cause else m.end()
        spans.claim(m.start(), end)
        hits.append(Hit("ERR_JS_BuildFailed", m.start(), end, text[m.start():end][:600],
                        path=cause.group(1) if cause else None, line=int(cause.group(2)) if cause else None,
                        detail=(cause.group(4) if cause else m.group(0).strip())[:300]))
    for m in _iter(_GO_PANIC, trig, _GO_PANIC_WORDS):
        hits.append(Hit("ERR_GO_Panic", m.start(), m.end(), m.group(0), detail=m.group(1)[:300]))
    for m in _iter(_GO_BUILD, trig, _GO_BUILD_WORDS):
        kind = "Undefined" if "undefined:" in m.group(4) else "CompileError"
        hits.append(Hit(f"ERR_GO_{kind}", m.start(), m.end(), m.group(0), path=m.group(1),
                        line=int(m.group(2)), detail=m.group(4)[:300]))
    for m in _iter(_RS_ERR, trig, _RS_ERR_WORDS, multiline=True):
        s, e = _cut(text, m.start(), m.end())
        hits.append(Hit(f"ERR_RS_{m.group(1)}", s, e, text[s:e], path=m.group(3),
                        line=int(m.group(4)) if m.group(4) else None, detail=m.group(2)[:300]))
    for m in _iter(_C_ERR, trig, _C_ERR_WORDS):
        msg = m.group(3)
        kind = ("MissingHeader" if "No such file" in msg else "Undeclared" if "undeclared" in msg
                else "ImplicitDeclaration" if "implicit declaration" in msg else "SyntaxError" if "expected" in msg
                else "CompileError")
        spans.claim(m.start(), m.end())
        hits.append(Hit(f"ERR_C_{kind}", m.start(), m.end(), m.group(0), path=m.group(1), line=int(m.group(2)),
                        detail=msg[:300]))
    for m in _iter(_C_LD, trig, _C_LD_WORDS):
        hits.append(Hit("ERR_C_UndefinedReference", m.start(), m.end(), m.group(0), symbol=m.group(1),
                        detail=m.group(0)[:300]))
    for m in _iter(_PONY_ERR, trig, _PONY_ERR_WORDS):
        if "rror" in text[max(0, m.start() - 10):m.start()] or m.group(4)[:1].isupper():
            hits.append(Hit("ERR_PONY_CompileError", m.start(), m.end(), m.group(0), path=m.group(1),
                            line=int(m.group(2)), detail=m.group(4)[:300]))


_THE_PATH = re.compile(r"[Tt]he path (\S+) does not exist")
_QUOTED_PATH = re.compile(r"""['"`](?=[^'"`\s]*[/.])([^'"`\s]*+)['"`]""")
_BEFORE_COLON = re.compile(r"(?<![^\s:'\"`])(?=[^\s:'\"`]+[/.][^\s:'\"`])([^\s:'\"`]++): "
                           r"(?:No such file|[Ff]ile not found|does not exist)")


# The user turned the call down (Cline: "The user denied this operation."; Claude Code: "The user doesn't
# want to proceed with this tool use."): no fault of the call's, their words after it say what instead.
# Claude Code's and Cline's words, and Gemini CLI's `[Operation Cancelled] Reason: User denied execution.`
USER_REJECTED_SENTENCE = (r"(?:The user (?:denied this operation|doesn't want to proceed with this tool use)|"
                          r"Operation Cancelled\] Reason: User denied execution)")
# The user stopped a running call (pi's "Command aborted", "Request was aborted"; Claude Code's "[Request
# interrupted by user]"): the whole message, no program's failure. What they said next is what to do instead.
_USER_ABORTED = re.compile(r"^\W{0,3}(?:(?:Command|Request|Operation|Tool call|Execution) (?:was )?aborted(?: by (?:the )?user)?"
                           r"|Request interrupted by (?:the )?user(?: for tool use)?)\W{0,3}$")
_USER_REJECTED = re.compile(rf"^\W{{0,3}}{USER_REJECTED_SENTENCE}\b")

_TOOL_TABLE: list[tuple[Needles, re.Pattern, str, bool]] = [
    (needles("user denied this operation", "user doesn't want to proceed", "User denied execution"), _USER_REJECTED,
     "ERR_TOOL_UserRejected",
     False),
    (needles("borted", "nterrupted by user", "nterrupted by the user"), _USER_ABORTED, "ERR_TOOL_UserAborted", False),
    (needles("ate limit", "ate_limit", "ateLimit", "Too Many Requests", "uota exceeded", "429 Too", "code 429",
             "code\": 429", "status 429", "Error 429", "Error: 429"), _RATE_LIMIT, "ERR_TOOL_RateLimited", False),
    (needles("nknown tool", "nknown skill", "nknown function", "o such tool", "o such skill", "not a valid tool",
             "ool not found", "kill not found", "' not found", "` not found"), _UNKNOWN_TOOL, "ERR_TOOL_UnknownTool",
     False),
    (needles(*EDIT_REFUSALS), _EDIT_MISS, "ERR_TOOL_EditNotFound", False),
    (needles("has not been read yet", "ead it first", "read the file", "read this file", "read that file"), _READ_FIRST,
     "ERR_TOOL_ReadFirst", False),
    # Before the generic rows: a sandbox or a read-only mount says why an operation was refused.
    (needles("andbox", "CreateProcessAsUser"), _SANDBOX, "ERR_TOOL_SandboxDenied", False),
    (needles("Read-only file system", "Errno 30", "EROFS"), _READ_ONLY, "ERR_TOOL_ReadOnlyFileSystem", False),
    (needles("must be within", "outside the", "outside of the"), _OUTSIDE, "ERR_TOOL_OutsideWorkspace", False),
    (needles("E999 ", "E902 "), _LINT_REJECTED, "ERR_TOOL_EditRejected", False),  # an edit tool's linter refused it
    (needles("view_range", "nvalid range", "nvalid line range"), _INVALID_RANGE, "ERR_TOOL_InvalidRange", False),
    (needles("No such file or directory"), _NO_SUCH, "ERR_TOOL_FileNotFound", False),
    (needles("no such file or directory: "), _ZSH_NO_SUCH, "ERR_TOOL_FileNotFound", False),
    (needles("ENOENT: no such"), _ENOENT, "ERR_TOOL_FileNotFound", False),
    (needles("permission denied: "), _ZSH_DENIED, "ERR_TOOL_PermissionDenied", False),
    (needles("does not exist", "did not match any file", "ile not found", "annot find the"), _DOES_NOT_EXIST,
     "ERR_TOOL_FileNotFound", False),
    (needles("command not found", "is not recognized as an internal"), _CMD_NOT_FOUND, "ERR_TOOL_CommandNotFound",
     False),
    (needles("Permission denied", "Operation not permitted", "EACCES"), _PERM, "ERR_TOOL_PermissionDenied", False),
    (needles("output of your last command was too long"), _TOO_LONG, "ERR_TOOL_OutputTooLong", False),
    (needles("context size", "context length", "context window", "context_length", "prompt is too long",
             "hit a token limit"), _CONTEXT_FULL, "ERR_TOOL_ContextOverflow", False),
    (needles("EXACTLY ONE action"), _FORMAT, "ERR_TOOL_FormatError", False),
    (needles("is expected to be one of", "is required for command", "parameter", "Invalid command:", "Unknown command:",
             "invalid choice:"), _INVALID_PARAM, "ERR_TOOL_InvalidArgument", False),
    (needles("timed out", "TimeoutExpired", "ook too long", "no output for", "Timeout: ", "TimeoutError: "), _TIMEOUT,
     "ERR_TOOL_Timeout", True),
]


# The gate holds every tool family's words (they were a hand-kept copy that drifted: "annot find the",
# "no output for" and zsh's lower-case lines passed no gate), beside the structured patterns' own.
_GATE = needles(*dict.fromkeys((*_GATE_WORDS, *(w for row in _TOOL_TABLE for w in row[0].words))))


_GUTTER = re.compile(r"^\s+\| \S")  # PowerShell prints an error's message in a `     | ` gutter


def _tool(trig: Triggers, hits: list[Hit], spans: _Spans, failed: bool) -> None:
    text = trig.text
    for words, rx, err_id, needs_failure in _TOOL_TABLE:
        if needs_failure and not failed:
            continue
        for ls, le in trig.lines_with(words):
            line = text[ls:le]
            if not rx.match(line) or spans.covered(ls, le):
                continue
            if (re.match(r"^\s*\d+[\t:]", line) or line.startswith(("    ", "\t"))) and not _GUTTER.match(line):
                continue  # a numbered or indented source listing line, not a message (PowerShell's `  | msg` is one)
            spans.claim(ls, le)
            s, e = _cut(text, ls, le)
            path = None
            if err_id in ("ERR_TOOL_FileNotFound", "ERR_TOOL_ReadOnlyFileSystem", "ERR_TOOL_PermissionDenied"):
                pm = (_THE_PATH.search(line) or _QUOTED_PATH.search(line) or _BEFORE_COLON.search(line)
                      or _AFTER_COLON.search(line))
                path = pm.group(1) if pm else None
            symbol = None
            if err_id == "ERR_TOOL_CommandNotFound":
                cm = _CMD_NAME.search(line)
                symbol = next((g for g in cm.groups() if g), None) if cm else None
            hits.append(Hit(err_id, s, e, text[s:e], path=path, symbol=symbol, detail=line[:300]))


# PowerShell's error record: the message, then `+ CategoryInfo : <Category>: (…) [], <Exception>` and
# `+ FullyQualifiedErrorId : <Id>`. Its category names the failure, whatever the command; `NotSpecified …
# RemoteException` wraps a native program's stderr line (`npx` writing progress) and is none.
_PS_RECORD = re.compile(r"^[^\S\n]*\+ CategoryInfo\s*:\s*(\w+):[^\n]*?(?<!\w)(\w++)\s*$", re.M)
_PS_IDS = {"ParserError": "ERR_TOOL_ShellSyntaxError", "PermissionDenied": "ERR_TOOL_PermissionDenied"}
_PS_NOT_FOUND = {"CommandNotFoundException": "ERR_TOOL_CommandNotFound",
                 "ItemNotFoundException": "ERR_TOOL_FileNotFound", "DriveNotFoundException": "ERR_TOOL_FileNotFound"}


def _powershell(text: str, hits: list[Hit], spans: _Spans) -> None:
    """PowerShell's error records by their category (`ParserError`: `&&` in Windows PowerShell 5), the
    message being the last line above the record that is not its `+ …` code echo or `~~~` marker."""
    for m in _PS_RECORD.finditer(text):
        err_id = _PS_IDS.get(m.group(1)) or (_PS_NOT_FOUND.get(m.group(2)) if m.group(1) == "ObjectNotFound" else None)
        if err_id is None:
            continue
        above = text[max(0, m.start() - 2000):m.start()].rstrip("\n").split("\n")
        message = next((ln.strip() for ln in reversed(above) if ln.strip() and not ln.lstrip().startswith(("+", "~"))
                        and not ln.startswith("At ")), "")
        if not message or spans.covered(m.start(), m.end()):
            continue
        at = text.rfind(message, max(0, m.start() - 2000), m.start())
        start = at if at >= 0 else m.start()
        spans.claim(start, m.end())
        hits.append(Hit(err_id, start, m.end(), text[start:m.end()], detail=message[:300]))


def classify(text: str, *, tool_output: bool = True, failed: bool = False) -> list[Hit]:
    """All error hits in one string, in text order.

    `tool_output`: the string is command/tool output (tool families apply); message prose only gets
    the structured patterns (tracebacks, compiler and test-runner lines). `failed`: the producing
    call reported failure (non-zero exit / is_error), which enables the weaker timeout pattern.
    """
    return list(_classified(text, tool_output, failed)) if text else []


# A process's tag before each line of a log several processes write (vLLM's `(APIServer pid=7309) `, Ray's
# `(RayWorker pid=81) `, docker compose's `web-1  | `): a traceback under it is still one.
_LOG_TAG_RE = re.compile(r"^(?:\([^()\n]{1,40}\) |[\w.-]{1,30} +\| )", re.M)
_LOG_TAG_PROBE = 2000  # characters of an output looked at for tags first (most outputs have none)


def _untagged(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """The text without its lines' process tags, with each stripped line's (start, characters removed
    before it and on it), when at least half the lines and three at least carry a tag; else None."""
    if len(_LOG_TAG_RE.findall(text[:_LOG_TAG_PROBE])) < 3:
        return None
    lines = text.split("\n")
    tags = [len(m.group(0)) if (m := _LOG_TAG_RE.match(ln)) else 0 for ln in lines]
    tagged = sum(1 for n in tags if n)
    if tagged < 3 or 2 * tagged < len(lines):
        return None
    out, where, removed, at = [], [], 0, 0
    for ln, n in zip(lines, tags, strict=True):
        removed += n
        where.append((at, removed))
        out.append(ln[n:])
        at += len(ln) - n + 1
    return "\n".join(out), where


def _retagged(hit: Hit, where: list[tuple[int, int]]) -> Hit:
    """A hit on the untagged text, its span moved back onto the tagged text it came from (its end by
    the line of its last character: an end at a line's start is the previous line's end)."""
    starts = [at for at, _ in where]

    def back(pos: int) -> int:  # by the last stripped line starting at or before pos
        return pos + where[max(0, bisect_right(starts, pos) - 1)][1]
    return replace(hit, start=back(hit.start), end=back(hit.end - 1) + 1 if hit.end > hit.start else back(hit.end))


@per_text(maxsize=1024)
def _classified(text: str, tool_output: bool, failed: bool) -> tuple[Hit, ...]:
    """`classify`'s hits, remembered by text: a session repeats outputs word for word (the harness's
    format complaint, `(no output)`, an edit tool's reply) and the solutions read again the opening
    of results the walk classified. Never mutated: `classify` hands out a new list of them. A log
    whose lines carry a process's tag is read without them (`_untagged`, one level of tags: a tag
    removed adds no error word, so a log with none is never split); the spans are the log's."""
    trig = Triggers(text)
    if not _may_hold_errors(trig):
        return ()
    if "(" in text[:_LOG_TAG_PROBE] or "|" in text[:_LOG_TAG_PROBE]:
        untagged = _untagged(text)
        if untagged is not None:
            bare, where = untagged
            return tuple(_retagged(h, where) for h in _hits(Triggers(bare), tool_output, failed))
    return _hits(trig, tool_output, failed)


def _hits(trig: Triggers, tool_output: bool, failed: bool) -> tuple[Hit, ...]:
    """Every family's hits in a text that may hold errors, in text order."""
    text = trig.text
    hits: list[Hit] = []
    spans = _Spans(text)
    if "Traceback" in text:
        _python_tracebacks(text, hits, spans)
    _typescript(trig, hits, spans)
    stack = _STACK_AT.search(text) is not None  # a stack frame line: both exception patterns need one
    _java(trig, hits, spans, stack)
    _tests(trig, hits, spans)
    _python_lines(trig, hits, spans)
    _others(trig, hits, spans, stack)
    if tool_output:
        if '"message"' in text and any(map(text.__contains__, _DIAGNOSTIC_WORDS)):
            hits += json_diagnostics(text)
        if "CategoryInfo" in text:
            _powershell(text, hits, spans)
        _tool(trig, hits, spans, failed)
    hits.sort(key=lambda h: h.start)
    return tuple(hits)


# --- an editor's diagnostics, as JSON (Cursor's read_lints, Claude Code's IDE getDiagnostics) -------------
_DIAGNOSTIC_WORDS = ('"severity"', '"Severity"', '"errors"', '"diagnostics"')  # beside a `"message"` key
_JSON_START = re.compile(r"^[\[{]", re.M)  # a document opens at a line's start (an indented brace is inside one)
_PATH_KEYS = ("relativeWorkspacePath", "filePath", "path", "file", "fileName", "uri")
_WARNING_RE = re.compile(r"warn|info|hint", re.I)
MAX_DIAGNOSTICS = 20
MAX_JSON_DEPTH = 32


def _is_error(value: dict, severity: object, listed: bool) -> bool:
    """A diagnostic's severity, by what it says (`"Error"`, `DIAGNOSTIC_SEVERITY_ERROR`) or by number in
    the shape that gives it: an LSP diagnostic (it has a `range`) counts 1 as an error, an ESLint message
    (it has a `ruleId`) 2. No severity at all: an error when listed under `errors`/`diagnostics`."""
    if isinstance(severity, int) and not isinstance(severity, bool):
        return severity == 2 if "ruleId" in value else severity == 1 and "range" in value
    said = str(severity) if severity is not None else ""
    return "ERROR" in said.upper() or (listed and not _WARNING_RE.search(said))


def _line_of(value: dict) -> int | None:
    """A diagnostic's line, 1-based: an LSP range's start is 0-based (`range.start.line`); Cursor's
    `startPosition` and a flat `line` are as the editor shows them."""
    rng = value.get("range") if isinstance(value.get("range"), dict) else {}
    start, zero_based = rng.get("startPosition"), False
    if not isinstance(start, dict):
        start, zero_based = rng.get("start"), True
    line = start.get("line") if isinstance(start, dict) else value.get("line")
    if not isinstance(line, int) or isinstance(line, bool):
        return None
    return line + 1 if zero_based and isinstance(start, dict) else line


def json_diagnostics(text: str, *, named: bool = False) -> list[Hit]:
    """The errors an editor reported for files, read from the JSON documents in a tool's output: each
    object with a `message` under an `errors`/`diagnostics` list or with an error severity, the file
    of the object around it, its start line. Named by the file's family (`ERR_TS_Diagnostic` for a
    `.tsx`); warnings and hints are not errors. `named`: only those whose file is named (a report
    an editor made, not a JSON file that happens to hold messages)."""
    hits: list[Hit] = []
    for doc, offset in _json_documents(text):
        for message, path, line in _walk_diagnostics(doc, None, False):
            if len(hits) >= MAX_DIAGNOSTICS:
                return hits
            if named and not path:
                continue
            name = re.split(r"[/\\]", path)[-1] if path else ""
            ext = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
            family_code = BY_EXTENSION.get(ext, "TOOL")
            start = text.find(message[:60], offset)
            start = start if start >= 0 else offset
            hits.append(Hit(f"ERR_{family_code}_Diagnostic", start, start + min(len(message), MAX_SPAN),
                            message[:MAX_SPAN], path=path, line=line, detail=message[:300]))
    return hits


def _json_documents(text: str) -> list[tuple[object, int]]:
    """The JSON values a text holds whole (a fenced block, or the output itself), with their offsets."""
    out: list[tuple[object, int]] = []
    decoder = json.JSONDecoder()
    pos = 0
    for m in _JSON_START.finditer(text):
        if m.start() < pos:
            continue
        at = m.end() - 1
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            out.append((value, at))
        pos = end
    return out


def _walk_diagnostics(value: object, path: str | None, listed: bool,
                      depth: int = 0) -> list[tuple[str, str | None, int | None]]:
    """(message, file, line) of each diagnostic object in a JSON value: `listed` when the value sits in
    an `errors`/`diagnostics` list; `path` the file of the nearest object around it that names one.
    Walked to a bound: real diagnostics nest a few levels, a deeper document must not exhaust the stack."""
    out: list[tuple[str, str | None, int | None]] = []
    if depth > MAX_JSON_DEPTH:
        return out
    if isinstance(value, list):
        for item in value[:200]:
            out += _walk_diagnostics(item, path, listed, depth + 1)
        return out
    if not isinstance(value, dict):
        return out
    own = next((v for k in _PATH_KEYS if isinstance(v := value.get(k), str) and v), None)
    path = own.removeprefix("file://") if own else path
    message, severity = value.get("message"), value.get("severity")
    if isinstance(message, str) and message.strip() and _is_error(value, severity, listed):
        out.append((" ".join(message.split()), path, _line_of(value)))
    for key, inner in value.items():
        if isinstance(inner, (list, dict)) and key not in ("range", "relatedInformation"):
            out += _walk_diagnostics(inner, path, listed or key in ("errors", "diagnostics"), depth + 1)
    return out
