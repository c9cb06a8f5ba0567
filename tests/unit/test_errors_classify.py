"""Classification of error text into identifiers, with verbatim evidence and locations."""

from __future__ import annotations

import pytest

from compaction.errors.classify import classify
from compaction.errors.tsc_codes import TS_CODES, ts_id


def ids(text: str, **kw) -> list[str]:
    return [h.id for h in classify(text, **kw)]


def test_every_hit_span_is_verbatim():
    text = 'x\nTraceback (most recent call last):\n  File "a.py", line 3, in f\n    g()\nKeyError: \'k\'\ntail'
    for h in classify(text):
        assert text[h.start:h.end] == h.evidence


def test_python_traceback_names_exception_and_project_frame():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/repo/app/main.py", line 10, in run\n'
        "    helper()\n"
        '  File "/usr/lib/python3.11/site-packages/lib/x.py", line 5, in helper\n'
        "    raise ValueError('bad')\n"
        "ValueError: bad\n"
    )
    (hit,) = classify(text)
    assert hit.id == "ERR_PY_ValueError"
    assert (hit.path, hit.line, hit.symbol) == ("/repo/app/main.py", 10, "run")  # the project's frame, not the lib's
    assert hit.evidence.endswith("ValueError: bad")


def test_chained_tracebacks_give_each_exception():
    text = (
        "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    d['x']\nKeyError: 'x'\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    raise RuntimeError()\n"
        "RuntimeError\n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n  File \"a.py\", line 5, in <module>\n"
        "django.core.exceptions.ImproperlyConfigured: settings\n"
    )
    assert ids(text) == ["ERR_PY_KeyError", "ERR_PY_RuntimeError", "ERR_PY_ImproperlyConfigured"]


def test_prefixed_traceback_and_cut_output():
    text = (
        "INTERNALERROR> Traceback (most recent call last):\n"
        'INTERNALERROR>   File "/x/reports.py", line 310, in _from_json\n'
        "INTERNALERROR>     return cls(**reportdict)\n"
        "INTERNALERROR> TypeError: type() takes 1 or 3 arguments\n"
        "INTERNALERROR> Traceback (most recent call last):\n"
        'INTERNALERROR>   File "/x/a.py", line 1, in f\n'
        "INTERNALE\n[…]\n"
    )
    assert ids(text) == ["ERR_PY_TypeError"]  # the cut-off second traceback yields nothing invented


def test_syntax_error_without_traceback_header():
    text = '  File "/repo/src/r.py", line 231\n    """\n    ^\nSyntaxError: invalid syntax\n'
    (hit,) = classify(text)
    assert hit.id == "ERR_PY_SyntaxError" and hit.path == "/repo/src/r.py" and hit.line == 231


def test_pytest_short_summary_and_e_lines():
    text = (
        "E       KeyError: 'reprtraceback'\n"
        "FAILED testing/test_reports.py::TestReportSerialization::test_chained[TestReport] - KeyError: 'a'\n"
        "ERROR tests/test_requests.py::TestTimeout::test_invalid_timeout[timeout0-(connect, read)]\n"
        "==== 1 failed, 1 error in 0.5s ====\n"
    )
    hits = classify(text)
    got = [(h.id, h.tests) for h in hits]
    assert ("ERR_PY_KeyError", []) in got
    assert ("ERR_LOGIC_TestFailed", ["testing/test_reports.py::TestReportSerialization::test_chained[TestReport]"]) in got
    assert ("ERR_PY_KeyError", ["testing/test_reports.py::TestReportSerialization::test_chained[TestReport]"]) in got
    assert ("ERR_LOGIC_TestFailed", ["tests/test_requests.py::TestTimeout::test_invalid_timeout[timeout0-(connect, read)]"]) in got
    assert "ERR_TOOL_Timeout" not in ids(text, failed=True)  # "TestTimeout" in a test id is not a timeout


def test_unittest_and_assertion_mismatch():
    text = "FAIL: test_add (tests.test_math.MathTest)\nAssertionError: expected: <3> but was: <4>\n"
    got = ids(text)
    assert "ERR_LOGIC_TestFailed" in got and "ERR_LOGIC_AssertionMismatch" in got


@pytest.mark.parametrize("line", [
    "src/a.ts(12,5): error TS2741: Property 'b' is missing in type '{}' but required in type 'A'.",
    "src/a.ts:12:5 - error TS2741: Property 'b' is missing in type '{}' but required in type 'A'.",
    "\x1b[96msrc/a.ts\x1b[0m:\x1b[93m12\x1b[0m:\x1b[93m5\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2741: \x1b[0mProperty 'b'",
])
def test_typescript_both_output_styles(line):
    (hit,) = classify(line + "\n")
    assert hit.id == "ERR_TS_MissingProperty" and hit.ts_codes == ["TS2741"]
    assert hit.path == "src/a.ts" and hit.line == 12


def test_ts_table_covers_common_codes():
    assert len(TS_CODES) >= 40
    assert ts_id(2741) == "ERR_TS_MissingProperty"
    assert ts_id("TS2339") == "ERR_TS_PropertyDoesNotExist"
    assert ts_id(2322) == "ERR_TS_TypeNotAssignable"
    assert ts_id(2304) == "ERR_TS_CannotFindName"
    assert ts_id(2307) == "ERR_TS_CannotFindModule"
    assert ts_id(2345) == "ERR_TS_ArgumentNotAssignable"
    assert ts_id(99999) == "ERR_TS_Code99999"


def test_java_compile_maven_and_exceptions():
    text = (
        "/home/R.java:12: error: cannot find symbol\n        JSONReader.Context ctx;\n        ^\n"
        "  symbol:   class Context\n"
        "/home/R.java:1: error: package com.alibaba.fastjson2 does not exist\n"
        "[ERROR] src/main/java/JSON.java:[1284] (regexp) RegexpMultiline: Line contains carriage return\n"
        "[INFO] BUILD FAILURE\n"
        "Exception in thread \"main\" java.lang.NullPointerException: x\n\tat R.main(R.java:5)\n"
    )
    hits = classify(text)
    got = [h.id for h in hits]
    assert got.count("ERR_JAVA_CannotFindSymbol") == 1 and hits[0].symbol == "Context"
    assert "ERR_JAVA_PackageDoesNotExist" in got and "ERR_TOOL_FileNotFound" not in got
    assert "ERR_JAVA_CheckstyleViolation" in got and "ERR_JAVA_CompileError" not in got
    assert "ERR_JAVA_BuildFailure" in got and "ERR_JAVA_NullPointerException" in got


def test_other_languages():
    assert ids("TypeError: Cannot read properties of undefined (reading 'x')\n    at f (/a/b.js:3:9)\n") == [
        "ERR_JS_TypeError"]
    assert ids("panic: runtime error: index out of range [3]\n") == ["ERR_GO_Panic"]
    assert ids("./main.go:12:2: undefined: foo\n") == ["ERR_GO_Undefined"]
    assert ids("error[E0382]: borrow of moved value: `v`\n --> src/main.rs:5:20\n") == ["ERR_RS_E0382"]
    assert ids("src/x.c:3:5: error: 'y' undeclared (first use in this function)\n") == ["ERR_C_Undeclared"]
    assert ids("/usr/bin/ld: main.o: in function `main': undefined reference to `foo'\n") == [
        "ERR_C_UndefinedReference"]


@pytest.mark.parametrize("text, err_id", [
    ("ls: cannot access 'src/lib': No such file or directory", "ERR_TOOL_FileNotFound"),
    ("The path /home/x/JSON.java does not exist. Please provide a valid path.", "ERR_TOOL_FileNotFound"),
    ("bash: line 1: tsc: command not found", "ERR_TOOL_CommandNotFound"),
    # zsh's own lower-case messages (here a backticked path in a double-quoted argument, run as a command)
    ("(eval):1: no such file or directory: .cursor/rules/001-004.mdc", "ERR_TOOL_FileNotFound"),
    ("zsh: permission denied: docs/playbook/", "ERR_TOOL_PermissionDenied"),
    ("zsh: command not found: tsc", "ERR_TOOL_CommandNotFound"),
    # Gemini CLI's words for a call the user turned down
    ("[Operation Cancelled] Reason: User denied execution.", "ERR_TOOL_UserRejected"),
    ("cp: cannot create regular file '/etc/x': Permission denied", "ERR_TOOL_PermissionDenied"),
    ("No replacement was performed, old_str `x` did not appear verbatim in /a.py.", "ERR_TOOL_EditNotFound"),
    ("String to replace not found in file.", "ERR_TOOL_EditNotFound"),
    ("## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.ts", "ERR_TOOL_EditNotFound"),
    # Codex's apply_patch, whose result an export may not mark as an error
    ("apply_patch verification failed: Failed to find expected lines in /r/docs/SUMMARY.md:", "ERR_TOOL_EditNotFound"),
    ("Parameter 'command' is expected to be one of ['view', 'create'].", "ERR_TOOL_InvalidArgument"),
    ("Please always provide EXACTLY ONE action in triple backticks, found 2 actions.", "ERR_TOOL_FormatError"),
])
def test_tool_failures(text, err_id):
    hits = classify(text + "\n")
    assert [h.id for h in hits] == [err_id]
    assert hits[0].evidence == text


def test_tool_paths_and_commands_are_located():
    (h,) = classify("ls: cannot access 'src/lib': No such file or directory\n")
    assert h.path == "src/lib"
    (h,) = classify("bash: line 1: tsc: command not found\n")
    assert h.symbol == "tsc"


def test_timeout_needs_a_failed_call_and_source_lines_are_not_messages():
    assert ids("Command timed out after 120 seconds\n") == []
    assert ids("Command timed out after 120 seconds\n", failed=True) == ["ERR_TOOL_Timeout"]
    listing = "    12\t    raise FileNotFoundError('No such file or directory')\n"
    assert "ERR_TOOL_FileNotFound" not in ids(listing)


def test_prose_gets_no_tool_patterns_and_clean_text_nothing():
    assert ids("The file does not exist yet, I will create it.", tool_output=False) == []
    assert classify("all 12 tests passed\n") == []


def test_each_tool_familys_line_is_found_alone() -> None:
    """The gate holds every family's words: a line is classified whatever the other lines say."""
    for line, err_id in [("The system cannot find the path specified.", "ERR_TOOL_FileNotFound"),
                         ("Command produced no output for 300 seconds and was killed", "ERR_TOOL_Timeout"),
                         ("(eval):cd:1: no such file or directory: agent", "ERR_TOOL_FileNotFound"),
                         ("[WARN] /a/src/B.java:[3,4] (javadoc) MissingJavadocMethod: Missing a Javadoc comment.",
                          "ERR_JAVA_CheckstyleViolation")]:
        alone = [h.id for h in classify(line, failed=True)]
        assert alone == [h.id for h in classify(line + "\nerror", failed=True)][:len(alone)]
        assert err_id in alone, line


def test_zsh_names_the_path_after_its_message() -> None:
    assert [(h.id, h.path) for h in classify("zsh:cd:1: no such file or directory: My Project/x.py")] == [
        ("ERR_TOOL_FileNotFound", "My Project/x.py")]
    assert [(h.id, h.path) for h in classify("(eval):1: permission denied: docs/playbook/")] == [
        ("ERR_TOOL_PermissionDenied", "docs/playbook/")]


def test_the_missing_command_is_named_not_the_shell_that_says_so():
    """zsh puts its own name first (`zsh: command not found: shard-sd`), bash the command's (`bash: foo:
    command not found`): the advice checks the command (cline-export-pip-module advised `command -v zsh`)."""
    from compaction.errors.advice import advise
    from compaction.errors.records import ErrorRecord, Location, Occurrence

    for text, name in (("zsh: command not found: shard-sd", "shard-sd"), ("bash: foo: command not found", "foo")):
        [hit] = [h for h in classify(text) if h.id == "ERR_TOOL_CommandNotFound"]
        assert hit.symbol == name
    rec = ErrorRecord("ERR_TOOL_CommandNotFound")
    rec.add(Occurrence(round=12, transcript="t", evidence="zsh: command not found: shard-sd",
                       location=Location(command="shard-sd -h", symbol="shard-sd")))
    assert "`command -v shard-sd`" in advise(rec)


def test_advice_says_an_unknown_file_in_words_not_as_a_placeholder():
    """oh-fastjson2's exception carried no file: "after each edit to `<file>`" read as a path to open."""
    from compaction.errors.advice import advise
    from compaction.errors.records import ErrorRecord, Occurrence

    rec = ErrorRecord("ERR_JAVA_JSONException")
    rec.add(Occurrence(round=12, transcript="t", evidence="com.alibaba.fastjson2.JSONException: not support type"))
    said = advise(rec)
    assert "<file>" not in said and "the file" in said
