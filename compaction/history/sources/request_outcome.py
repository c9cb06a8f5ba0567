"""An older request that got nothing: given up, or no answer at all before the user wrote again, told on
its line ("Then asked: What is this repo doing? → no answer before r11"). Why: a successor reads a listed
request as handled; one the agent never answered is work still owed (reader reviews 58, 59 asked for each
request's status). A request answered or acted on says nothing more: its line would grow on every request of
an interactive session, and the room it takes is other facts'. Nor an aborted reply: the user stops the
agent to steer it, and the work most often goes on under the next message (pairwise check 60: pi-mono's
"→ aborted (r201)" of a request done at r204 after the user's correction)."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from compaction.events import Event, EventKind
from compaction.model import Role, Transcript

_CHANGES = frozenset({EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.MOVE, EventKind.COMMIT})
# "I couldn't get the tests to pass", "Unfortunately, I was unable to …": at a sentence's start
_GAVE_UP_RE = re.compile(r"(?:^|[.!]\s+)(?:(?:Sorry|Unfortunately),?\s+)?(?:I (?:could not|couldn't|can't|cannot|"
                         r"was (?:not able|unable)|am (?:not able|unable))|Unable to)\b")


ARROW_RE = re.compile(r" → (?:the agent could not|no answer before r\d+)(?: \(r\d+\))?\Z")  # a told outcome


@dataclass(frozen=True, slots=True)
class Outcomes:
    """The session's requests, file changes and replies by round, each sorted, read once for all requests."""

    requests: tuple[int, ...]  # the round of every user request, shown or not ("ok" too: the user wrote again)
    changes: tuple[int, ...]  # rounds that changed a file or committed
    reply_rounds: tuple[int, ...]  # each reply in the agent's own words: its round
    reply_texts: tuple[str, ...]


def session_outcomes(events: list[Event], transcript: Transcript) -> Outcomes:
    replies = [(rnd.number, m.text) for rnd in transcript.rounds for m in rnd.messages
               if m.role is Role.ASSISTANT and not m.harness and m.text.strip()]
    return Outcomes(tuple(sorted({e.round for e in events if e.kind is EventKind.REQUEST})),
                    tuple(sorted({e.round for e in events if e.kind in _CHANGES})),
                    tuple(r for r, _ in replies), tuple(t for _, t in replies))


def _span(rounds: tuple[int, ...], lo: int, hi: int) -> range:
    """The indexes of `rounds` (sorted) that lie in [lo, hi)."""
    return range(bisect_left(rounds, lo), bisect_left(rounds, hi))


def unanswered(found: Outcomes, asked: int) -> str:
    """The request of round `asked`, when nothing came of it before the user's next message, as a clause
    to follow it: "→ the agent could not (r9)", "→ no answer before r12"; else ""."""
    k = bisect_left(found.requests, asked + 1)
    if k == len(found.requests):
        return ""  # the last request: the current one, told where the work stopped
    until = found.requests[k]
    if _span(found.changes, asked, until):
        return ""
    replies = _span(found.reply_rounds, asked, until)
    if not replies:
        return f" → no answer before r{until}"
    last, text = found.reply_rounds[replies[-1]], found.reply_texts[replies[-1]]
    if _GAVE_UP_RE.search(text.strip()[-400:]):
        return " → the agent could not" + ("" if last == asked else f" (r{last})")
    return ""
