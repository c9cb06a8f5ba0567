"""A test run's line in the completed actions names the tests it failed (the count alone does not say what
broke), not the ones its command already names, and not again while later runs fail the same ones."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources.completed import completed_facts
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Transcript
from tests.unit.synthetic import one_round, shell_rounds

NINE_FAILED = ("FAILED tests/test_requests.py::TestPreparingURLs::test_preparing_url[http://xn--n3h.net/-0]\n"
               "FAILED tests/test_requests.py::TestPreparingURLs::test_preparing_url[http://[1200::1]:12345/-1]\n"
               "FAILED tests/test_requests.py::TestRequests::test_unix_socket\n"
               "========= 3 failed, 276 passed in 12.31s =========\n")


def _completed(t: Transcript) -> list[str]:
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    return [f.text for f in completed_facts(ctx)]


def _lines(*commands: tuple[str, str]) -> list[str]:
    return _completed(shell_rounds("fix the url check", *commands))


def test_a_failing_run_names_the_tests_it_failed() -> None:
    (line,) = _lines(("pytest tests/test_requests.py", NINE_FAILED))
    assert "3 failed, 276 passed" in line
    assert "(failed: `test_preparing_url[http://xn--n3h.net/-0]`, `test_preparing_url[http://[1200::1]:12345/-1]` +1)" \
        in line, line


def test_the_test_the_command_names_is_not_named_again() -> None:
    out = "FAILED tests/test_domain_py.py::test_domain_py_xrefs - AssertionError\n===== 1 failed in 0.5s =====\n"
    (line,) = _lines(("pytest tests/test_domain_py.py::test_domain_py_xrefs", out))
    assert "1 failed" in line and "(failed:" not in line, line


def test_runs_failing_the_same_tests_name_them_once() -> None:
    two = NINE_FAILED.replace("FAILED tests/test_requests.py::TestRequests::test_unix_socket\n", "") \
        .replace("3 failed", "2 failed").replace("276 passed", "277 passed")
    fixed = "========= 279 passed in 11.0s =========\n"
    (line,) = _lines(("pytest tests/test_requests.py", NINE_FAILED), ("pytest tests/test_requests.py", two),
                     ("pytest tests/test_requests.py", fixed), ("pytest tests/test_requests.py", two))
    # r1 names its three, r2 its two (another set); r4 fails r2's two again after a pass: not named again
    assert line.count("`test_preparing_url[http://xn--n3h.net/-0]`") == 2, line
    assert "2 failed, 277 passed (r4)" in line, line


def test_the_same_counts_failing_another_test_are_another_result() -> None:
    a = "FAILED tests/test_x.py::test_alpha - assert 1 == 2\n===== 1 failed, 3 passed in 0.2s =====\n"
    b = a.replace("test_alpha", "test_beta")
    (line,) = _lines(("pytest tests/test_x.py", a), ("pytest tests/test_x.py", b))
    assert "again" not in line, line
    assert "(failed: `test_alpha`) (r1)" in line and "(failed: `test_beta`) (r2)" in line, line


def test_a_test_whose_name_is_part_of_the_file_run_is_still_named() -> None:
    out = "FAILED tests/test_parser.py::test_parse - ValueError\nERROR tests/test_parser.py::test_load\n" \
          "===== 1 failed, 1 error in 0.5s =====\n"
    (line,) = _lines(("pytest tests/test_parser.py", out))
    assert "(failed: `test_parse`; erroring: `test_load`)" in line, line
    (line,) = _lines(("pytest tests/test_parser.py -k test_parse", out))
    assert "(erroring: `test_load`)" in line and "failed: `test_parse`" not in line, line


def test_two_runs_of_one_round_each_name_their_own_failures() -> None:
    a = "FAILED tests/test_a.py::test_alpha - assert 1 == 2\n===== 1 failed, 3 passed in 0.2s =====\n"
    b = "FAILED tests/test_b.py::test_beta - KeyError\n===== 1 failed, 5 passed in 0.3s =====\n"
    lines = sorted(_completed(one_round("run both suites", ("pytest tests/test_a.py", a), ("pytest tests/test_b.py", b))))
    assert "`test_alpha`" in lines[0] and "test_beta" not in lines[0], lines
    assert "`test_beta`" in lines[1] and "test_alpha" not in lines[1], lines


def test_a_failed_tests_name_carries_what_the_user_asked_to_ignore() -> None:
    from compaction.history.steering import parse_instructions

    steering = parse_instructions("ignore xdist")
    assert steering.ignored("→ 2 failed (failed: `test_xdist_longrepr_to_str_issue_241`)")
    assert steering.ignored("installed pytest-xdist")
    assert not steering.ignored("ran `fixdist` on the wheel")
    for dunder in ("`pkg/__init__.py`", 'if __name__ == "__main__":', "`_init_cache`"):
        assert not parse_instructions("ignore init, ignore main").ignored(dunder), dunder


def test_two_runs_of_one_command_in_one_round_keep_their_own_failures() -> None:
    """`DB=sqlite pytest …` and `DB=postgres pytest …` are one command's runs (prefixes aside): each result keeps
    the tests it failed."""
    a = "FAILED tests/test_db.py::test_alpha - assert 1 == 2\n===== 1 failed, 3 passed in 0.2s =====\n"
    b = a.replace("test_alpha", "test_beta")
    text = " ".join(_completed(one_round("run it on both databases", ("DB=sqlite pytest tests/test_db.py", a),
                                         ("DB=postgres pytest tests/test_db.py", b))))
    assert "(failed: `test_alpha`)" in text and "(failed: `test_beta`)" in text, text


def test_a_result_the_last_of_several_runs_gave_is_cited_to_it() -> None:
    """bastion: `cargo test | tail -30` (r17, its output cut by the export) then `| tail -40` (r23, "15 passed"):
    one line "×2 → 15 passed (r17, r23)" read as both runs giving 15."""
    cut = "test battery_transfer_blocked_when_not_whitelisted ... ok\ntest battery_system_transfer_allowed ... ok\n"
    tail = "test no_error_check_passes ... ok\ntest result: ok. 15 passed; 0 failed; 0 ignored\n"
    (line,) = _lines(("cargo test 2>&1 | tail -30", cut), ("cargo test 2>&1 | tail -40", tail))
    assert "15 passed" in line and "(r2) (r1, r2)" in line, line
