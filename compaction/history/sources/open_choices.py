"""A choice the agent put to the user that the user never made: the session's last question of the
agent's asking what to do next ("Should we commit what we have, or continue with rpc.md?", "Want me to
update the schema index too?"), when no user message after it took it up (a plain "ok" to an either/or
question picks neither).

Why: it is the next step as the agent saw it, and it is the user's to decide; a successor that does
either one unasked oversteps, one that forgets it drops the thread. Asked again and again, it is the
thread the session kept coming back to.
"""

from __future__ import annotations

import re

from compaction.events import is_assent
from compaction.history.condense import cut_at_word
from compaction.history.facts import Fact, cite
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.history.sources.uncommitted import committed_elsewhere
from compaction.model import Message, Role

# A question to the user about what to do next: an offer or a choice between courses
_CHOICE_RE = re.compile(r"^(?:(?:So|Now|OK|Okay),? )?(?:Should (?:I|we)|Shall (?:I|we)|Want me to|Do you want (?:me|to)|"
                        r"Would you like(?: me)? to|Should I go ahead|Ready (?:for me )?to)\b[^?\n]{4,200}\?", re.IGNORECASE)
_WORD_RE = re.compile(r"[a-z][a-z0-9_.-]{2,}")
_SAME = 0.6  # of a question's words, the share another holds to be the same question asked again
LAST_SHARE = 0.25  # asked within the session's last quarter of messages: still the open thread
LAST_MESSAGES = 8  # … or within its last few (a short session's last quarter is a message or two)
SCORE = 58


@fact_source(Section.NEXT)
def open_choice_facts(ctx: FactContext) -> list[Fact]:
    messages = ctx.transcript.messages
    if not messages:
        return []
    asked = _questions(ctx)
    if not asked:
        return []
    index, rnd, question = asked[-1]
    if index < min(len(messages) * (1 - LAST_SHARE), len(messages) - LAST_MESSAGES):
        return []
    reply = _reply(messages, index, question)
    if reply is not None and not _sets_aside(reply, question):
        return []
    words = _words(question)
    again = [r for _, r, q in asked[:-1] if _same(words, _words(q))]
    rounds = sorted({*again, rnd})
    times = f", asked {len(rounds)} times" if len(rounds) > 1 else ""
    how = f"set aside: the user answered “{cut_at_word(' '.join(reply.split()), REPLY_CHARS)}”" if reply else "never answered"
    if _COMMIT_RE.search(question) and (since := [f for f in committed_elsewhere(ctx) if f.rounds[0] > rnd]):
        how += f"; since then committed outside the session (r{since[0].rounds[0]})"  # the commit part is moot
    return [Fact(Section.NEXT, f"[the user's to decide] “{question}” ({how}{times}) {cite(rounds)}", rounds,
                 score=SCORE + (4 if again else 0), pending=True)]


# A reply that puts the question off ("write a little poem instead", "later", "not now"): still open
_SET_ASIDE_RE = re.compile(r"(?i)\b(?:instead|later|not now|not yet|first|for now|hold off|wait)\b")
REPLY_CHARS = 80
_COMMIT_RE = re.compile(r"(?i)\bcommit")
_FIRST_SENTENCE_RE = re.compile(r"^.*?(?:[.!?](?=\s|$)|\n|$)")


def _sets_aside(reply: str, question: str) -> bool:
    """The reply's opening sentence puts the question off ("write a little poem instead"), and names no
    course the question offered ("commit first" picks one): a paste after it says nothing of it."""
    first = _FIRST_SENTENCE_RE.match(reply.strip())
    opening = first.group(0) if first else ""
    if not _SET_ASIDE_RE.search(opening):
        return False
    if " or " not in question:
        return True  # an offer put off ("not yet, I want to review the changes first")
    offered = _words(question) - _ASKING_WORDS  # a choice between courses: naming one picks it ("commit first")
    return not (offered & _words(opening))


_ASKING_WORDS = frozenset({"should", "shall", "want", "would", "like", "you", "ready", "what", "have", "the", "and",
                           "for", "now", "with", "this", "that", "continue", "next"})


def _questions(ctx: FactContext) -> list[tuple[int, int, str]]:
    """(message, round, question) of each choice the agent put to the user, in order."""
    out: list[tuple[int, int, str]] = []
    messages = ctx.transcript.messages
    for rnd in ctx.transcript.rounds:
        for m in rnd.messages:
            if m.role is not Role.ASSISTANT or m.harness or "?" not in m.text or m.tool_calls or not _ends_turn(messages, m):
                continue  # a question the agent goes on past (a call, more of its own words) is its own to answer
            line = _closing_line(m.text)  # put to the user where the reply closes (its options may follow)
            found = _CHOICE_RE.search(line.lstrip("*-> ").strip()) if line else None
            if found:
                out.append((m.index, rnd.number, found.group(0)))
    return out


_OPTION_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)]|[A-Za-z][.)])\s")  # a list item: one of the options offered


def _closing_line(text: str) -> str:
    """The reply's last line that is not one of a list of options after it (nor blank)."""
    for line in reversed(text.rstrip().splitlines()):
        if line.strip() and not _OPTION_RE.match(line):
            return line.strip()
    return ""


def _ends_turn(messages: list[Message], m: Message) -> bool:
    """The message is the agent's last before the user speaks (or the session ends)."""
    for after in messages[m.index + 1:]:
        if after.harness or after.role is Role.SYSTEM:
            continue
        return after.role is Role.USER
    return True


def _reply(messages: list[Message], index: int, question: str) -> str | None:
    """The user's next message when it took the question up, else None: any words of theirs but a bare
    assent, which answers an offer ("Want me to …?" — "yes") but picks no side of an either/or question."""
    for m in messages[index + 1:]:
        if m.role is Role.USER and not m.harness and m.text.strip():
            text = m.text.strip()
            if text.startswith("/"):
                continue  # a command to the tool (`/exit`): no answer
            bare = is_assent(text) or len(_words(text)) == 0
            return None if bare and " or " in question else text
    return None


def _words(text: str) -> set[str]:
    return set(_WORD_RE.findall(text.lower()))


def _same(a: set[str], b: set[str]) -> bool:
    return bool(a) and bool(b) and len(a & b) >= _SAME * min(len(a), len(b))
