"""An older request that got nothing at all before the user wrote again, told on its line ("Then asked:
What is this repo doing? → no answer before r11": the API failed each time). Why: a successor reads a listed
request as handled; one the agent never answered is work still owed (reader reviews 58, 59 asked for each
request's status). A request answered, acted on or worked at (a call the agent made) says nothing more: its
line would grow on every request of an interactive session, and the room it takes is other facts'. Nor an
aborted reply, nor one that says it could not: the user stops the agent to steer it, and the work most often
goes on under the next message (pairwise check 60: pi-mono's "→ aborted (r201)" of a request done at r204;
code review 25: "I couldn't find any other callers" is an answer)."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from compaction.events import Event, EventKind
from compaction.model import Role, Transcript

_CHANGES = frozenset({EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.MOVE, EventKind.COMMIT})


ARROW_RE = re.compile(r" → no answer before r\d+\Z")  # a told outcome


@dataclass(frozen=True, slots=True)
class Outcomes:
    """The session's requests and the agent's doings by message, each sorted, read once for all requests: by
    message, not by round (two requests with nothing between them share a round)."""

    requests: tuple[int, ...]  # the message index of every user request, shown or not ("ok" too: the user wrote again)
    rounds: tuple[int, ...]  # each request's round, beside it
    active: tuple[int, ...]  # messages with a word or a call of the agent's, or a file change or commit


def session_outcomes(events: list[Event], transcript: Transcript) -> Outcomes:
    acted = {m.index for m in transcript.messages
             if m.role is Role.ASSISTANT and not m.harness and (m.text.strip() or m.tool_calls)}
    acted |= {e.message_index for e in events if e.kind in _CHANGES}
    asked = sorted({(e.message_index, e.round) for e in events if e.kind is EventKind.REQUEST})
    return Outcomes(tuple(i for i, _ in asked), tuple(r for _, r in asked), tuple(sorted(acted)))


def unanswered(found: Outcomes, asked: int) -> str:
    """The request of message `asked`, when the agent did nothing at all before the user's next message, as a
    clause to follow it: "→ no answer before r12"; else ""."""
    k = bisect_left(found.requests, asked + 1)
    if k == len(found.requests):
        return ""  # the last request: the current one, told where the work stopped
    until = found.requests[k]
    at = bisect_left(found.active, asked)
    if at < len(found.active) and found.active[at] < until:
        return ""
    if k > 0 and found.requests[k - 1] == asked and found.rounds[k - 1] == found.rounds[k]:
        return ""  # two messages of the user's in one turn ("stop!", then "just write a poem"): one ask, answered after
    return f" → no answer before r{found.rounds[k]}"
