"""scan_transcript on small hand-built transcripts: counting per round, target bugs, drifting
line numbers, locations and the inferred solution."""

from __future__ import annotations

import pytest

from compaction.errors import records_to_out, render_block, scan_transcript
from compaction.errors.merge import find
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


def build(steps: list[tuple]) -> Transcript:
    """steps: ("user", text) | ("shell", command, output, exit) | ("edit", path) | ("write", path) | ("say", text)."""
    msgs: list[Message] = []
    for i, step in enumerate(steps):
        kind = step[0]
        if kind == "user":
            msgs.append(Message(len(msgs), Role.USER, step[1]))
        elif kind == "say":
            msgs.append(Message(len(msgs), Role.ASSISTANT, step[1]))
        elif kind == "shell":
            cid = f"c{i}"
            msgs.append(Message(len(msgs), Role.ASSISTANT, step[4] if len(step) > 4 else "",
                                tool_calls=[ToolCall("bash", {"command": step[1]}, cid, ToolKind.SHELL, step[1])]))
            msgs.append(Message(len(msgs), Role.TOOL, tool_results=[
                ToolResult(step[2], cid, "bash", is_error=step[3] != 0, exit_code=step[3])]))
        elif kind in ("edit", "write"):
            cid = f"c{i}"
            tk = ToolKind.EDIT if kind == "edit" else ToolKind.WRITE
            msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall(kind, {"path": step[1]}, cid, tk,
                                                                                    path=step[1])]))
            msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("ok", cid, kind)]))
    return Transcript("mem.json", "test", msgs, group_rounds(msgs))


def tb(name: str, line: int, path: str = "/repo/app.py") -> str:
    return f'Traceback (most recent call last):\n  File "{path}", line {line}, in main\n    x()\n{name}: boom\n'


def test_once_per_round_and_recurring_flag():
    t = build([
        ("user", "fix the app"),
        ("shell", "python app.py", tb("KeyError", 3) + tb("KeyError", 9), 1),
        ("shell", "python app.py", tb("KeyError", 4), 1),
        ("shell", "python app.py", "ok", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_KeyError"]
    assert rec.rounds == [1, 2] and rec.count == 2 and rec.recurring
    assert rec.occurrences[0].signals == 2  # both tracebacks of round 2 are kept as signals
    assert "#recurring ERR_PY_KeyError: occurrences 2 (rounds 1, 2)" in render_block([rec])


def test_line_drift_stays_one_record_with_both_locations():
    t = build([
        ("user", "go"),
        ("shell", "python -m py_compile src/r.py", '  File "src/r.py", line 231\n    """\n    ^\nSyntaxError: invalid syntax\n', 1),
        ("edit", "src/r.py"),
        ("shell", "python -m py_compile src/r.py", '  File "src/r.py", line 233\n    """\n    ^\nSyntaxError: invalid syntax\n', 1),
        ("edit", "src/r.py"),
        ("shell", "python -m py_compile src/r.py", "", 0),
    ])
    recs = [r for r in scan_transcript(t) if r.id == "ERR_PY_SyntaxError"]
    assert len(recs) == 1
    assert {loc.line for loc in recs[0].locations()} == {231, 233}
    out = records_to_out(recs)[0]
    assert out.count == 2 and out.locations[0]["path"] == "src/r.py"


def test_reproduction_script_errors_are_the_target_bug():
    t = build([
        ("user", "Division crashes: ZeroDivisionError in calc.mean"),
        ("shell", "cat > reproduce_bug.py <<'EOF'\nfrom calc import mean\nmean([])\nEOF", "", 0),
        ("shell", "python reproduce_bug.py", tb("ZeroDivisionError", 2, "/repo/calc.py"), 1),
        ("edit", "calc.py"),
        ("shell", "python reproduce_bug.py", tb("NameError", 5, "/repo/calc.py"), 1),
        ("edit", "calc.py"),
        ("shell", "python reproduce_bug.py", "0", 0),
    ])
    by_id = {r.id: r for r in scan_transcript(t)}
    assert by_id["ERR_PY_ZeroDivisionError"].target_bug  # provoked on purpose, before the fix
    assert not by_id["ERR_PY_NameError"].target_bug  # introduced by the fix: a mistake to avoid
    assert "[target bug]" in render_block([by_id["ERR_PY_ZeroDivisionError"]])


def test_test_written_to_fail_first_is_target_but_its_syntax_error_is_not():
    t = build([
        ("user", "add overflow handling"),
        ("write", "tests/test_overflow.py"),
        ("shell", "pytest tests/test_overflow.py", "FAILED tests/test_overflow.py::test_big - AssertionError: 1\n", 1),
        ("write", "tests/test_overflow.py"),
        ("shell", "pytest tests/test_overflow.py",
         '  File "tests/test_overflow.py", line 4\n    def x(\n         ^\nSyntaxError: invalid syntax\n', 2),
    ])
    records = scan_transcript(t)
    failed = find(records, "ERR_LOGIC_TestFailed")  # merged into the AssertionError of the same output
    assert failed.target_bug
    assert failed.tests == ["tests/test_overflow.py::test_big"]
    assert not find(records, "ERR_PY_SyntaxError").target_bug


def test_solution_names_the_fix_and_the_explanation():
    t = build([
        ("user", "run it"),
        ("shell", "cat src/app/mian.py", "cat: src/app/mian.py: No such file or directory", 1),
        ("say", "THOUGHT: The file does not exist because the name is misspelled. It is main.py."),
        ("edit", "src/app/main.py"),
        ("shell", "python src/app/main.py", "hello", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_TOOL_FileNotFound"]
    assert rec.occurrences[0].location.path == "src/app/mian.py"
    assert rec.occurrences[0].location.command == "cat src/app/mian.py"
    assert "misspelled" in rec.solution and "src/app/main.py" in rec.solution
    assert "ls src/app" in rec.avoidance


def test_non_zero_exit_only_when_nothing_more_specific_and_grep_no_match_is_fine():
    t = build([
        ("user", "x"),
        ("shell", "grep -rn foo src", "", 1),
        ("shell", "make build", "make: *** [Makefile:3: build] Error 2", 2),
        ("shell", "ls nope", "ls: cannot access 'nope': No such file or directory", 2),
    ])
    ids = [r.id for r in scan_transcript(t)]
    assert ids == ["ERR_TOOL_NonZeroExit", "ERR_TOOL_FileNotFound"]


def test_no_record_without_evidence():
    t = build([("user", "x"), ("shell", "true", "", 0), ("say", "I think a KeyError could happen here.")])
    assert scan_transcript(t) == []


def test_records_to_out_boundary_model():
    t = build([("user", "x"), ("shell", "tsc", "src/a.ts(1,7): error TS2322: Type 'string' is not assignable.\n", 2)])
    (out,) = records_to_out(scan_transcript(t))
    assert out.id == "ERR_TS_TypeNotAssignable" and out.rounds == [1] and not out.recurring
    assert out.locations == [{"path": "src/a.ts", "line": 1, "symbol": None, "command": "tsc"}]


def test_the_fallback_quotes_the_lines_a_listing_of_every_line_would():
    """The fallback's lines are found from the end it reads: the same as listing every line that says
    something (not blank, not a bare `<tag>`) and taking the first two or the last."""
    import random
    import re

    from compaction.errors.scan import _said_lines

    def listed(text: str) -> list[tuple[int, int]]:
        spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*\S[^\n]*", text)]
        return [(s, e) for s, e in spans if not re.fullmatch(r"\s*</?\w+>\s*", text[s:e])]

    rnd = random.Random(5)
    pieces = ["\n", " ", "\t", "\r", "\x0b", "\x1c", "\u00a0", "ERROR:", "<output>", "</x>", "ok", "\n\n", "é"]
    for _ in range(3000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 12)))
        assert _said_lines(text, last=True) == listed(text)[-1:]
        assert _said_lines(text, last=False) == listed(text)[:2]


def test_results_pair_with_their_calls_by_id_else_by_position():
    """The walk hands each result message the round's calls so far: a result names its call by id,
    else takes the call at its position among them (the last when it is past them)."""
    from compaction.errors.scan import _calls_for

    a, b = (ToolCall("bash", {"command": c}, c, ToolKind.SHELL, c) for c in ("ls", "pwd"))
    msg = Message(3, Role.TOOL, tool_results=[ToolResult("x", "ls", "bash"), ToolResult("y", None, "bash"),
                                              ToolResult("z", None, "bash")])
    assert _calls_for(msg, [a, b], {"ls": a, "pwd": b}) == {0: a, 1: b, 2: b}
    assert _calls_for(msg, [a], {}) == {0: a, 1: a, 2: a}


def test_a_process_lookup_that_matched_nothing_is_no_error():
    """pgrep/pkill exit 1 when no process matched (the last command of the line decides the status)."""
    t = build([
        ("user", "x"),
        ("shell", "pgrep -la -i whisper 2>/dev/null; pgrep -la -i openwhisper 2>/dev/null", "Exit code 1\n9621 whisper-server", 1),
        ("shell", "pkill -f open-wispr", "", 1),
        ("shell", "make build", "make: *** [Makefile:3: build] Error 2", 2),
    ])
    (rec,) = scan_transcript(t)
    assert rec.id == "ERR_TOOL_NonZeroExit"
    assert rec.count == 1 and "Error 2" in rec.occurrences[0].evidence


def test_a_cause_the_agent_answers_no_to_is_not_its_account():
    t = build([
        ("user", "run it"),
        ("shell", "python update.py", "Could not find disconnect", 1),
        ("say", "THOUGHT: It failed. This is because I'm searching in lines which I already modified in place? "
                "No, the slice assignment modifies the list. The failure is because the first match is a docstring."),
        ("edit", "update.py"),
        ("shell", "python update.py", "done", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.occurrences[0].location.command == "python update.py"]
    assert "modified in place" not in rec.solution
    assert "the first match is a docstring" in rec.solution


def test_a_retried_edit_is_told_by_its_change_not_its_arguments_again():
    from compaction.errors.scan import changed_arguments
    failed = ToolCall("replace", {"file_path": "a.tsx", "old_string": "{x && (", "new_string": "<Box>"}, "c1",
                      ToolKind.EDIT, path="a.tsx")
    retry = ToolCall("replace", {"file_path": "a.tsx", "old_string": "{y && (", "new_string": "<Box m={1}>"}, "c2",
                     ToolKind.EDIT, path="a.tsx")
    assert changed_arguments(failed, retry) == "`old_string: {y && (` (was {x && (), `new_string: <Box m={1}>` (was <Box>)"
    assert changed_arguments(failed, retry, "`{y && (` → `<Box m={1}>`") == ""


def test_a_script_written_again_is_told_by_what_the_rewrite_changed():
    """Not by the definitions both versions hold: the condition it fixed, among the prints it added."""
    first = ("import sys\n\ndef find(lines):\n    start = -1\n    for i, line in enumerate(lines):\n"
             "        if 'def save' in line and i > start:\n            return i\n    return -1\n\nsys.exit(find([]))\n")
    second = first.replace("        if 'def save' in line and i > start:\n",
                           "        print(f'line {i}')\n        if 'def save' in line and start != -1 and i > start:\n")
    t = build([
        ("user", "patch it"),
        ("shell", f"cat > patch.py <<'EOF'\n{first}EOF", "", 0),
        ("shell", "python patch.py", 'Traceback (most recent call last):\n  File "patch.py", line 10, in <module>\n'
                                     "    sys.exit(find([]))\nRuntimeError: Could not find save\n", 1),
        ("shell", f"cat > patch.py <<'EOF'\n{second}EOF", "", 0),
        ("shell", "python patch.py", "done", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_RuntimeError"]
    assert "→ `if 'def save' in line and start != -1 and i > start:`" in rec.solution
    assert "wrote `find`" not in rec.solution


def test_a_rewrite_is_diffed_with_its_own_file_not_a_namesake_in_another_folder():
    from compaction.errors.scan import earlier_content
    t = build([
        ("user", "write both"),
        ("shell", "cat > tools/run.py <<'EOF'\nprint('tools')\nEOF", "", 0),
        ("shell", "cat > app/run.py <<'EOF'\nprint('app')\nEOF", "", 0),
        ("shell", "cat > app/run.py <<'EOF'\nprint('app v2')\nEOF", "", 0),
    ])
    calls = [c for m in t.messages for c in m.tool_calls]
    assert earlier_content(t, "app/run.py", calls[2]) == ("print('app')",)
    assert earlier_content(t, "app/run.py", calls[1]) is None  # tools/run.py is another file


def test_a_changed_argument_is_said_unless_the_change_quotes_it_whole():
    from compaction.errors.scan import changed_arguments
    failed = ToolCall("str_replace_editor", {"command": "insert", "path": "a.py", "insert_line": 11, "new_str": "x"},
                      "c1", ToolKind.EDIT, path="a.py")
    retry = ToolCall("str_replace_editor", {"command": "insert", "path": "a.py", "insert_line": 12, "new_str": "x"},
                     "c2", ToolKind.EDIT, path="a.py")
    assert changed_arguments(failed, retry, "added `TIMEOUT = 120`") == "`insert_line: 12` (was 11)"


def test_an_append_or_another_file_of_the_same_command_is_no_earlier_content():
    from compaction.edits import same_file
    from compaction.errors.scan import earlier_content
    t = build([
        ("user", "write them"),
        ("shell", "cat > app/a.py <<'EOF'\nprint('a')\nEOF\ncat > app/b.py <<'EOF'\nprint('b')\nEOF", "", 0),
        ("shell", "cat >> app/a.py <<'EOF'\nprint('more')\nEOF", "", 0),
        ("shell", "cat > app/b.py <<'EOF'\nprint('b2')\nEOF", "", 0),
        ("shell", "cat > app/a.py <<'EOF'\nprint('a2')\nEOF", "", 0),
    ])
    calls = [c for m in t.messages for c in m.tool_calls]
    assert earlier_content(t, "app/b.py", calls[2]) == ("print('b')",)  # its own file's text, not a.py's
    assert earlier_content(t, "app/a.py", calls[3]) is None  # appended to since it was written
    assert same_file(".env", "/repo/.env") and same_file(".github/ci.yml", "/repo/.github/ci.yml")
    assert not same_file(".env", "/repo/env")


@pytest.mark.parametrize("said, kept, dropped", [
    # "I need to handle: 1." says nothing by itself (mini-requests told "— I need to handle: 1")
    ("I need to handle: 1. IPv6 literals 2. Punycode. The file does not exist because the name is misspelled.",
     "misspelled", "handle: 1"),
    # a cause that introduces code with a colon is still the cause
    ("The file does not exist because the module was renamed to main:", "renamed to main", None),
])
def test_a_sentence_that_only_opens_a_list_is_no_explanation(said, kept, dropped):
    t = build([
        ("user", "run it"),
        ("shell", "cat src/app/mian.py", "cat: src/app/mian.py: No such file or directory", 1),
        ("say", f"THOUGHT: {said}"),
        ("edit", "src/app/main.py"),
        ("shell", "python src/app/main.py", "hello", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_TOOL_FileNotFound"]
    assert kept in rec.solution and (dropped is None or dropped not in rec.solution)


def test_an_edit_that_broke_the_file_is_no_fix_the_next_edit_is():
    # pytest-5787: a splice left the file unparsable (the next run said SyntaxError in it); the edit
    # that ended the TypeError is the one after, not the first edit of the file
    t = build([
        ("user", "fix the app"),
        ("shell", "python app.py", tb("TypeError", 5), 1),
        ("edit", "/repo/app.py"),
        ("shell", "python app.py", '  File "/repo/app.py", line 7\n    def f(:\n         ^\nSyntaxError: invalid syntax\n', 1),
        ("edit", "/repo/app.py"),
        ("shell", "python app.py", "ok", 0),
    ])
    edits = [r.number for r in t.rounds for m in r.messages for c in m.tool_calls if c.kind is ToolKind.EDIT]
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_TypeError"]
    assert f"(r{edits[1]})" in rec.solution and f"(r{edits[0]})" not in rec.solution


def test_a_cause_naming_nothing_of_the_error_explains_something_else():
    # pytest-5787 gave "cause: This is because `pytest` captures stdout/stderr" (why a debug print showed
    # nothing) to a TypeError; the sentence that names the error's words is its cause
    t = build([
        ("user", "fix the app"),
        ("shell", "python app.py", tb("KeyError", 3), 1),
        ("say", "THOUGHT: The debug print shows nothing because output is captured. "
                "The KeyError is raised because the config lacks the port entry."),
        ("edit", "/repo/app.py"),
        ("shell", "python app.py", "ok", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_KeyError"]
    assert "config lacks the port entry" in rec.solution and "captured" not in rec.solution


def test_a_lead_in_to_code_is_no_cause():
    # mini-requests told "cause: So the logic should be:" (the line before the code it planned)
    t = build([
        ("user", "fix the app"),
        ("shell", "python app.py", tb("KeyError", 3), 1),
        ("say", "THOUGHT: So the KeyError logic should be:"),
        ("edit", "/repo/app.py"),
        ("shell", "python app.py", "ok", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_KeyError"]
    assert "should be" not in rec.solution


def test_a_file_put_back_from_git_ends_the_error_its_broken_edit_caused():
    # matplotlib-25311: a script cut offsetbox.py short (ImportError from legend.py, naming offsetbox.py);
    # `git checkout` put it back; django-13297 restored query.py then made its change again
    t = build([
        ("user", "fix it"),
        ("shell", "python repro.py", 'Traceback (most recent call last):\n  File "/repo/lib/legend.py", line 4, in <module>\n'
                                     "ImportError: cannot import name 'Box' from 'lib.box' (/repo/lib/box.py)\n", 1),
        ("shell", "git checkout lib/box.py", "Updated 1 path from the index", 0),
        ("edit", "/repo/lib/box.py"),
        ("shell", "python repro.py", "ok", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_ImportError"]
    assert "restored `lib/box.py` from git with `git checkout lib/box.py` (r2)" in rec.solution, rec.solution
    assert ", then edited it again (r" in rec.solution and "python repro.py` passed" in rec.solution
    # an error no edit caused (a wrong value) is not ended by putting a file back: the edit after is its fix
    t = build([
        ("user", "fix it"),
        ("shell", "python repro.py", tb("KeyError", 3), 1),
        ("shell", "git checkout app.py", "Updated 1 path from the index", 0),
        ("edit", "/repo/app.py"),
        ("shell", "python repro.py", "ok", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_KeyError"]
    assert "edited `/repo/app.py`" in rec.solution and "restored" not in rec.solution, rec.solution


def test_a_cause_that_opens_with_it_keeps_the_sentence_that_says_what_it_is():
    # mini-requests: "The failure `tests/…::test_redirecting_to_bad_url[…]` seems unrelated to my changes. It
    # fails because `httpbin` crashes with `ValueError: Port out of range`": "it" is that test, by its name
    t = build([
        ("user", "fix the app"),
        ("shell", "pytest tests", tb("ValueError", 3).replace("boom", "Port out of range 0-65535"), 1),
        ("say", "THOUGHT: The failure `tests/test_requests.py::TestURLs::test_redirecting_to_bad_url[http://x:-1]` "
                "seems unrelated to my changes. It fails because `httpbin` crashes with `ValueError: Port out of "
                "range 0-65535` when redirecting."),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_ValueError"]
    # the agent's guess, though the account after it sounds firm: its verdict ("seems unrelated to my changes") is
    # what a successor would act on, and the test never ran on the code before the change (reader review 59)
    assert "the agent's guess: The failure `test_redirecting_to_bad_url` seems unrelated to my changes. It fails " \
        "because" in rec.solution, rec.solution


def test_a_name_in_a_shortened_solution_is_kept_whole():
    from compaction.errors.shorten import fit

    text = ("cause: The failure `test_redirecting_to_bad_url` seems unrelated. It fails because `httpbin` crashes with "
            "`ValueError: Port out of range 0-65535 raised deep in the url parser of the standard library`")
    short = fit(text, 130, lambda clause: 1)
    assert "`test_redirecting_to_bad_url`" in short and len(short) <= 130, short


def test_the_same_program_run_on_the_same_file_otherwise_ends_an_error_no_edit_ended():
    # fastjson2-2775: `javac -cp <a jar never built>` failed ("package … does not exist"); the next line
    # compiled the same file against target/classes and only another error was left; the later edit of
    # the file fixed that other error, not this one
    t = build([
        ("user", "reproduce it"),
        ("shell", "javac -cp core/target/app.jar -d /home /home/Repro.java",
         "/home/Repro.java:1: error: package com.alibaba.fastjson2 does not exist\nimport com.alibaba.fastjson2.JSON;\n1 error", 1),
        ("shell", "javac -cp core/target/classes -d /home /home/Repro.java",
         "/home/Repro.java:33: error: reference to parseObject is ambiguous\n1 error", 1),
        ("edit", "/home/Repro.java"),
        ("shell", "javac -cp core/target/classes -d /home /home/Repro.java", "", 0),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_JAVA_PackageDoesNotExist"]
    assert rec.solution.startswith("then `javac -cp core/target/classes -d /home /home/Repro.java` no longer printed "
                                   "it (r2), rerun with `core/target/classes` (was `core/target/app.jar`)"), rec.solution


def test_a_fix_is_told_by_the_change_that_touches_the_errors_name():
    # matplotlib-25311: "no attribute 'get_draggable'" was ended by a rewrite whose first change was
    # `ann.draggable()` → `ann.draggable(True)`; the line that names `get_draggable` is the fix
    from compaction.errors.scan import key_change
    from compaction.transcripts._agent_tools import make_call

    before = ("import io", "ann.draggable()", "if not ann2.get_draggable():", "    raise SystemExit(1)", "print('ok')")
    after = ("import io", "ann.draggable(True)", "if ann2._draggable is None:", "    raise SystemExit(1)", "print('ok')")
    call = make_call("Write", {"file_path": "t.py", "content": "\n".join(after)}, "w")
    assert key_change(call, None, before) == "`ann.draggable()` → `ann.draggable(True)`"
    assert key_change(call, None, before, frozenset({"get_draggable"})) == \
        "`if not ann2.get_draggable():` → `if ann2._draggable is None:`"


def test_eslint_and_vite_reports_are_errors_with_their_file_and_line():
    from compaction.errors.classify import classify

    lint = ("/repo/pnpm-workspace.yaml\n"
            '   18:5  error  Catalog item "vite:build" is not used in any package.json   pnpm/yaml-no-unused-catalog-item\n'
            "   20:1  warning  Unexpected console statement  no-console\n\n✖ 1 problem (1 error, 0 warnings)\n")
    (hit,) = classify(lint)
    assert (hit.id, hit.path, hit.line, hit.symbol) == ("ERR_JS_LintError", "/repo/pnpm-workspace.yaml", 18,
                                                        "pnpm/yaml-no-unused-catalog-item")
    vite = ("20:13:42 [ERROR] [vite] ✗ Build failed in 4.06s\n[vite-plugin-svelte:compile-module] ../dist/hooks/a.svelte.js "
            "(2:12): /repo/dist/hooks/a.svelte.js:2:12 The $ name is reserved, and cannot be used for variables\n")
    (hit,) = classify(vite, tool_output=False)  # pasted by the user: still an error
    assert (hit.id, hit.path, hit.line) == ("ERR_JS_BuildFailed", "/repo/dist/hooks/a.svelte.js", 2)
    assert hit.detail == "The $ name is reserved, and cannot be used for variables"


def test_an_error_the_user_pasted_may_be_fixed_by_the_reply_of_its_own_round():
    # destyler: the user pasted the linter's report, and the reply of that round edited the file; "unresolved"
    # was wrong. An attempt in the session's last round, never checked, is told as such.
    lint = "/repo/app.js\n   3:1  error  Unexpected var, use let or const instead   no-var\n"
    t = build([
        ("user", "set up the app"),
        ("write", "/repo/app.js"),
        ("user", f"fix this please\n```\n{lint}```"),
        ("edit", "/repo/app.js"),
        ("shell", "npx eslint app.js", "", 0),
        ("user", "thanks, now add a test for the parser"),
        ("write", "/repo/test_app.js"),
    ])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_JS_LintError"]
    pasted = rec.occurrences[-1].round
    assert f"edited `/repo/app.js` (r{pasted})" in rec.solution and "never checked" not in rec.solution, rec.solution
    t = build([("user", "set up the app"), ("write", "/repo/app.js"),
               ("user", f"fix this please\n```\n{lint}```"), ("edit", "/repo/app.js")])
    (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_JS_LintError"]
    assert "tried, never checked (the session ends): edited `/repo/app.js`" in rec.solution, rec.solution


def test_a_rerun_whose_output_was_cut_or_sent_away_ends_nothing():
    # a run piped to `head` hides the error it may still raise; one sent to the background prints nothing
    frames = "".join(f'  File "/repo/m{i}.py", line {i}, in f{i}\n    g()\n' for i in range(12))
    boom = f"Traceback (most recent call last):\n{frames}KeyError: 'the configuration key is missing'\n"
    for later in ("python repro.py 2>&1 | head -6", "nohup python repro.py > run.log 2>&1 &"):
        t = build([
            ("user", "fix it"),
            ("shell", "python repro.py", boom, 1),
            ("shell", later, "Traceback (most recent call last):\n", 0),
            ("edit", "/repo/m11.py"),
            ("shell", "python repro.py", "ok", 0),
        ])
        (rec,) = [r for r in scan_transcript(t) if r.id == "ERR_PY_KeyError"]
        assert "edited `/repo/m11.py`" in rec.solution and "no longer printed" not in rec.solution, rec.solution


def test_a_failed_builds_fix_in_the_last_round_is_told_as_tried():
    # ERR_TOOL_NonZeroExit is a failed build or test run: an edit after it, never checked, is an attempt
    t = build([("user", "build it"), ("shell", "npm run build", "npm run build exited", 2), ("edit", "/repo/build.js")])
    recs = [r for r in scan_transcript(t) if r.id == "ERR_TOOL_NonZeroExit"]
    assert recs and all(r.solution.startswith("tried, never checked") for r in recs), recs


def test_a_key_change_is_told_by_its_code_not_by_the_comment_above_it():
    from compaction.errors.scan import key_change
    old = "record Dto(String n) {}\n\n// Mapper definition\n@Mapper\ninterface M {\n    P map(Dto d);\n}\n"
    new = "record Dto(String n) {}\n\n"
    call = ToolCall("str_replace_editor", {"command": "str_replace", "path": "/r/T.java", "old_str": old,
                                           "new_str": new}, "c1", ToolKind.EDIT, path="/r/T.java")
    assert key_change(call) == "removed `@Mapper`"
    both = ToolCall("Edit", {"file_path": "/r/a.js", "old_string": "// old way\nrun(a);",
                             "new_string": "// new way\nrun(a, b);"}, "c2", ToolKind.EDIT, path="/r/a.js")
    assert key_change(both) == "`run(a);` → `run(a, b);`"
