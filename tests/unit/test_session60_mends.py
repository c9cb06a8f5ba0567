"""Session 60's mends, each a general rule with the case that showed it."""

from __future__ import annotations

from compaction.history.sources.current import current_work
from compaction.model import Message, Role
from tests.unit.test_session59_mends import _context, _ran


def _last_said(msgs: list[Message]) -> str:
    return next(f.text for f in current_work(_context(msgs, "/repo")) if f.text.startswith("Last said"))


def test_a_check_claimed_with_no_tool_run_since_the_request_says_so() -> None:
    """Reader review 59: afi-core's last words "After scanning all provided files under `dist/`, no CommonJS usage
    was found" were quoted as a result, though nothing was searched after the request."""
    claim = "After scanning all provided files under `dist/`, no CommonJS usage was found."
    line = _last_said([Message(0, Role.USER, "fix the build"), *_ran(1, "npm run build", "ok"),
                       Message(0, Role.ASSISTANT, "Fixed."), Message(0, Role.USER, "scan dist/ for CommonJS usage"),
                       Message(0, Role.ASSISTANT, claim)])
    assert line.startswith("Last said (a check claimed with no tool run since the request): After scanning"), line
    searched = _last_said([Message(0, Role.USER, "scan dist/ for CommonJS usage"),
                           *_ran(1, "grep -rn 'require(' dist", ""), Message(0, Role.ASSISTANT, claim)])
    assert searched.startswith("Last said: After scanning"), searched
    told = _last_said([Message(0, Role.USER, "what does dist/ hold?"),
                       Message(0, Role.ASSISTANT, "The bundled ES modules of the library.")])
    assert told.startswith("Last said: The bundled"), told  # no check claimed
