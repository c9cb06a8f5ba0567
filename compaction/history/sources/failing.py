"""The tests a runner's output names as failed or erroring, by their names.

Why: "1 failed, 284 passed, 2 errors" after the last edit tells a successor that something is still
broken, not what; the names are what it reruns or judges (`test_redirecting_to_bad_url[…]`, pre-existing or
caused by the change). Read off the runners' own summary lines: pytest's `FAILED`/`ERROR` node ids,
unittest's `FAIL:`/`ERROR:` headers, `go test`'s `--- FAIL:`, cargo's `test x ... FAILED`.
"""

from __future__ import annotations

import re

Failing = tuple[tuple[str, ...], tuple[str, ...]]  # (failed, erroring) test names
_PYTEST_RE = re.compile(r"^(FAILED|ERROR) \S+?::(?:\w+::)*(\S+)", re.MULTILINE)  # the test, not its file and class
_UNITTEST_RE = re.compile(r"^(FAIL|ERROR): (\w+) \(", re.MULTILINE)
_GO_RE = re.compile(r"^\s*--- (FAIL): (\S+)", re.MULTILINE)
_CARGO_RE = re.compile(r"^test (\S+) \.\.\. (FAILED)$", re.MULTILINE)
SHOWN = 2  # names said per kind; the rest counted
NAME_CHARS = 60  # a parametrized id's parameters are cut past this


def failing_tests(output: str) -> tuple[list[str], list[str]]:
    """(failed, erroring) test names, each once, in the output's order."""
    failed: dict[str, None] = {}
    erroring: dict[str, None] = {}
    if "FAIL" not in output and "ERROR" not in output:
        return [], []
    for m in _PYTEST_RE.finditer(output):
        (failed if m.group(1) == "FAILED" else erroring).setdefault(m.group(2), None)
    for m in _UNITTEST_RE.finditer(output):
        (failed if m.group(1) == "FAIL" else erroring).setdefault(m.group(2), None)
    for m in _GO_RE.finditer(output):
        failed.setdefault(m.group(2), None)
    for m in _CARGO_RE.finditer(output):
        failed.setdefault(m.group(1), None)
    return list(failed), list(erroring)


def said(names: list[str]) -> str:
    """`a`, `b`, `c` +2: the first SHOWN names, each cut to NAME_CHARS."""
    shown = [f"`{n if len(n) <= NAME_CHARS else n[:NAME_CHARS - 1] + '…'}`" for n in names[:SHOWN]]
    return ", ".join(shown) + (f" +{len(names) - SHOWN}" if len(names) > SHOWN else "")


def failing_of(output: str, command: str = "") -> Failing:
    """(failed, erroring) of a run, without the tests its command itself names (`pytest t.py::test_x`,
    `-k test_x`: "1 failed" already says which)."""
    failed, erroring = failing_tests(output)
    if command and (failed or erroring):
        failed, erroring = ([n for n in names if not _named_by(command, n.split("[", 1)[0])]
                            for names in (failed, erroring))
    return tuple(failed), tuple(erroring)


def _named_by(command: str, test: str) -> bool:
    """The command selects the test by its own name (a node id, a `-k` expression): not its file's name, which
    holds it as a part (`tests/test_parser.py` runs `test_parse`, without naming it)."""
    return re.search(r"(?:::|-k\s*['\"]?)" + re.escape(test) + r"(?![\w])", command) is not None


def failing_said(failing: Failing) -> str:
    """" (failed: `a`, `b` +2; erroring: `c`)", "" when the run named none."""
    failed, erroring = failing
    parts = ([f"failed: {said(list(failed))}"] if failed else []) + ([f"erroring: {said(list(erroring))}"] if erroring else [])
    return f" ({'; '.join(parts)})" if parts else ""
