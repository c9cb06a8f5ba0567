"""An exporter's lines about a call are no output (the tail and the evidence leave them out), and the
failures of JavaScript's test runners (vitest, jest) become error records with their reason."""

from __future__ import annotations

from compaction.errors.advice import advise
from compaction.errors.classify import classify
from compaction.errors.scan import scan_transcript
from compaction.history.echo import echoes_call, output_of
from compaction.history.steering import Steering
from compaction.history.tail import TailRenderer
from compaction.model import Message, Role, ToolCall, ToolResult
from tests.unit.synthetic import transcript

READ = ToolCall("copilot_readFile", {"path": "/repo/src/tree.ts#200-200"}, "r1", "read", path="/repo/src/tree.ts#200-200")
ECHO = ("Tool use: **copilot_readFile** • 正在读取 [](file:///repo/src/tree.ts#200-200)，行 200 到 328\n\n\n"
        "读取 [](file:///repo/src/tree.ts#200-200)，行 200 到 328\n")


def test_a_result_of_lines_about_its_call_only_is_an_echo_and_a_search_hit_is_not():
    assert output_of(ToolResult(ECHO, "r1", "copilot_readFile"), READ) == ""
    assert output_of(ToolResult(ECHO + "export function renderNode(node) {}\n", "r1"), READ) \
        == "export function renderNode(node) {}"
    search = ToolCall("grep_search", {"query": "def parse_command", "path": "src"}, "s1", "search")
    assert not echoes_call("pkg/parser.py:12:def parse_command():", search)  # the pattern found is the output
    assert not echoes_call("src/paths.py:12: def resolve_path(p):", search)  # "path" and "src", apart
    assert echoes_call('  "query": "def parse_command",', search)


def test_a_failed_call_or_a_line_that_merely_holds_the_tools_name_is_output():
    bash = ToolCall("Bash", {"command": "pytest"}, "b1", "shell", command="pytest")
    failed = ToolResult("bash: pytest: command not found", "b1", exit_code=127)
    assert output_of(failed, bash) is failed.content
    read = ToolCall("read_file", {"absolute_path": "/repo/src/app.py"}, "r2", "read", path="/repo/src/app.py")
    missing = ToolResult("File not found: /repo/src/app.py", "r2", is_error=True)
    assert output_of(missing, read) is missing.content
    assert not echoes_call("class ReadError(Exception): pass", ToolCall("Read", {"path": "/x/y.py"}, "r3", "read"))


def test_the_verbatim_tail_leaves_out_a_result_that_only_echoes_its_call():
    t = transcript([Message(0, Role.USER, "why can't I select nodes?"),
                    Message(0, Role.ASSISTANT, "Reading the tree.", tool_calls=[READ]),
                    Message(0, Role.TOOL, tool_results=[ToolResult(ECHO, "r1", "copilot_readFile")]),
                    Message(0, Role.ASSISTANT, "`render` clears `innerHTML`, so the handlers are lost.")])
    text, _ = TailRenderer(t.rounds, True, Steering()).render(10_000)
    assert "→ copilot_readFile" in text and "正在读取" not in text
    assert "clears `innerHTML`" in text


VITEST = """ ❯  browser (chromium)  packages/tree/test/tree.spec.ts (39 tests | 6 failed) 180508ms
⎯⎯⎯⎯⎯⎯ Failed Tests 6 ⎯⎯⎯⎯⎯⎯

 FAIL   browser (chromium)  packages/tree/test/tree.spec.ts > tree > selection > should deselect in single mode
TimeoutError: locator.click: Timeout 29873ms exceeded.
Call log:
  - waiting for locator('[data-part="item"]')

 Test Files  1 failed (1)
      Tests  6 failed | 33 passed (39)
"""


def test_vitest_and_jest_failures_are_test_failures_with_their_reason():
    hits = classify(VITEST, tool_output=False)
    assert [h.id for h in hits] == ["ERR_LOGIC_TestFailed", "ERR_JS_TimeoutError"]
    assert hits[0].path == "packages/tree/test/tree.spec.ts"
    assert hits[0].detail == "tree > selection > should deselect in single mode: TimeoutError: locator.click: Timeout 29873ms exceeded."
    jest = "FAIL src/sum.test.js\n  ● sum › adds\n    expect(received).toBe(expected)\n\nTests:       1 failed, 3 passed, 4 total\n"
    assert [h.path for h in classify(jest)] == ["src/sum.test.js"]
    assert [h.detail for h in classify("Tests:       2 failed, 3 passed, 5 total\n")] == ["Tests:       2 failed, 3 passed, 5 total"]


def test_each_failed_test_keeps_its_own_reason_and_a_projects_label_may_have_no_parentheses():
    text = (" FAIL  src/a.test.ts > s > t1\nError: config file missing\n ❯ src/a.ts:3:9\n\n"
            " FAIL  src/b.test.ts > s > t2\nTypeError: x is not a function\n")
    details = [(h.id, h.detail) for h in classify(text)]
    assert details == [("ERR_LOGIC_TestFailed", "s > t1: Error: config file missing"),
                       ("ERR_JS_Error", "Error: config file missing"),
                       ("ERR_LOGIC_TestFailed", "s > t2: TypeError: x is not a function"),
                       ("ERR_JS_TypeError", "TypeError: x is not a function")]
    assert [h.path for h in classify(" FAIL   unit  src/a.test.ts > suite > adds\nTypeError: boom\n")][:1] == ["src/a.test.ts"]
    assert [h.detail for h in classify(" FAIL  src/a.test.ts > s > t1\n")] == ["s > t1"]


def test_a_javascript_tests_advice_names_no_pytest_command():
    failing = VITEST.replace("TimeoutError: locator.click: Timeout 29873ms exceeded.", "expected 2 to be 3")
    t = transcript([Message(0, Role.USER, "these fail:\n" + failing), Message(0, Role.ASSISTANT, "Fixing the test.")])
    rec = scan_transcript(t)[0]
    assert rec.id == "ERR_LOGIC_TestFailed"
    assert "pytest" not in advise(rec)
    assert "tree.spec.ts > tree > selection > should deselect in single mode" in advise(rec)
