"""The substring prefilters that spare a pattern's search must never hide a match: each branch of each
pattern, when it matches, holds one of the prefilter's words (a pattern edited without its words fails here)."""

from __future__ import annotations

import pytest

from compaction.history.sources import findings, rules, task
from compaction.literal_heads import holds

# One text per branch of each pattern (case varied where the pattern ignores case).
_ERROR_LINES = ["ValueError: bad", "Exception in thread", "FAILED tests/x.py", "FAIL: test_a", "error: no such file",
                "error[E0308]: mismatched", "AssertionError", "assert x == 1", "panic: runtime", "fatal: not a repo"]
_RESULT_LINES = ["3 passed", "1 failed", "OK", "SUCCESS", "Success", "success", "built successfully", "All tests ran",
                 "Done", "done", "Result: 4", "2 files changed", "1 file changed", "0 issues", "no errors",
                 "no problems"]
_SUMMARY_LINES = ["2 files changed, 3 insertions(+)", "1 file changed", "0 issues found", "no errors found",
                  "no problems found", "0 errors", "0 problems", "0 issues", "Successfully installed x",
                  "Successfully built y", "Task completed successfully", "Build succeeded", "Result: ok"]
_PASTE_LINES = ["ERROR in module", "Unhandled Exception", "a WARNING here", "test FAILED", "Failure", "fail",
                "FATAL crash", "kernel panic", "permission DENIED", "file Not Found", "Traceback (most recent)",
                "assertEqual", "ASSERTION"]
_PROTOCOL_LINES = ["Your response must", "each Response", "one response", "responses should", "Code block only",
                   "bash blocks", "separate block", "THOUGHT first", "one bash command", "one command",
                   "a single command", "Format your answer"]
_MODAL_LINES = ["You MUST run", "never push", "Always test", "do not edit", "Don't edit", "should pass", "only src",
                "avoid globals", "prefer tabs", "required field", "Require review", "ensure it", "make sure it"]


@pytest.mark.parametrize(("pattern", "words", "texts"), [
    (findings._ERROR_LINE_RE, findings._LINE_WORDS[findings._ERROR_LINE_RE], _ERROR_LINES),
    (findings._RESULT_LINE_RE, findings._LINE_WORDS[findings._RESULT_LINE_RE], _RESULT_LINES),
    (findings._SUMMARY_LINE_RE, findings._SUMMARY_WORDS, _SUMMARY_LINES),
])
def test_case_sensitive_words_hold_every_match(pattern, words, texts) -> None:
    for text in texts:
        m = pattern.search(text)
        assert m is not None, text
        assert any(w in m.group(0) for w in words), text


@pytest.mark.parametrize(("pattern", "words", "texts"), [
    (task._INFORMATIVE_RE, task._INFORMATIVE_WORDS, _PASTE_LINES),
    (rules._PROTOCOL_RE, rules._PROTOCOL_WORDS, _PROTOCOL_LINES),
    (rules._MODAL_RE, rules._MODAL_WORDS, _MODAL_LINES),
])
def test_lowercase_words_hold_every_match(pattern, words, texts) -> None:
    for text in texts:
        m = pattern.search(text)
        assert m is not None, text
        assert any(w in m.group(0).lower() for w in words), text


def test_prefiltered_search_agrees_with_the_pattern() -> None:
    lines = _PASTE_LINES + _PROTOCOL_LINES + _MODAL_LINES + ["plain prose line", "ǅungla — naïve faılure", ""]
    for line in lines:
        assert task._informative(line) == bool(task._INFORMATIVE_RE.search(line)), line
        assert holds(rules._PROTOCOL_RE, rules._PROTOCOL_WORDS, line) == bool(rules._PROTOCOL_RE.search(line))
        assert holds(rules._MODAL_RE, rules._MODAL_WORDS, line) == bool(rules._MODAL_RE.search(line))
    # a non-ASCII line is searched as it is: IGNORECASE folds 'ı' to 'i', which a lowercase check would miss
    assert task._informative("kernel faılure") == bool(task._INFORMATIVE_RE.search("kernel faılure"))


def test_decisive_and_summary_lines_unchanged_on_samples() -> None:
    out = "collecting\n" + "\n".join(_ERROR_LINES + _RESULT_LINES)
    assert findings.decisive_line(out, True) == "fatal: not a repo"
    assert findings.decisive_line(out, False) == "no problems"
    assert findings.decisive_line("plain\nlines only", True) == "lines only"
    assert findings.decisive_line("plain\nlines only", False) == ""
    assert findings.summary_line("x\n2 files changed, 3 insertions(+)\n") == "2 files changed, 3 insertions(+)"
    assert findings.summary_line("1 file was read, 2 errors seen") == ""


_DEFINITION_LINES = ["def f(x):", "  class C:", "export default async function* gen() {", "pub(crate) fn run() {",
                     "\tinterface Shape {", "struct Point {", "enum Kind {", "trait Draw {", "impl Foo {",
                     "type Alias = int", "module M", "actor Main", "primitive None_", "func (s *S) Do() {",
                     "static async def g():", "    public static void main(String[] args) {",
                     "private final int count(int a) {", "protected List<String> names() {",
                     "final Foo make() {", "override fun draw() {", "synchronized void run() {",
                     "abstract int size() {", "\u00a0def spaced():"]


@pytest.mark.parametrize("line", _DEFINITION_LINES)
def test_definition_heads_hold_every_definition(line: str) -> None:
    """`edits.definition`'s two-letter heads spare only lines neither pattern can match."""
    from compaction import edits
    assert edits._DEF_RE.match(line) or edits._METHOD_RE.match(line), line
    assert line.lstrip()[:2] in edits._DEF_HEADS
    assert edits.definition(line) is not None
