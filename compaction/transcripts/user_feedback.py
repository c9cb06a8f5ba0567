"""The user's own words where a harness wraps them: inside a tool's result when they rejected a call
(Claude Code: "…To tell you how to proceed, the user said:" and their words) or answered a completion
(Cline: a `<feedback>` block), and inside tags of the text it sends for them (Cline: `<task>`, a resumed
task's `<user_message>`; Antigravity: `<USER_REQUEST>`), beside its own notices (a resumption notice, a
todo-list recommendation, the local time).

Why after loading, for every format: those words are the user's next request. Left in a tool's output,
a successor reads a correction as a tool's report; left inside the harness's text, the request is
lost among notices, or counted as the harness's. So they become a user message of their own, and
the text around them stays where it was (the result's, or a harness message's). A piece already said
(the task sent again when a task resumes) is no new request.
"""

from __future__ import annotations

import re

from compaction.model import Message, Role

# The tags agents wrap the user's words in (Cline's task, message and feedback; Antigravity's request;
# Cursor's query), whatever their case.
_TAGGED = re.compile(r"<(task|user_message|user_request|user_query|feedback)>(.*?)</\1>\n?", re.S | re.I)  # no \s* around
# the group: on a long run of spaces that backtracks in cubic time; the words are stripped in Python
_TAGS_IN_RESULTS = frozenset({"user_message", "feedback"})  # a `<task>` in a result is the task sent again
_CLOSING_FENCE = re.compile(r"\n[`~]{3,}\s*\Z")
# The harness's sentence that hands over to the user's words, which run to the result's end.
_SAID = re.compile(r"(?:the user said|the user provided the following feedback):[ \t]*\n(.*\S)\s*\Z", re.S | re.I)


def words_apart(text: str, tags: frozenset[str] | None = None, *, result: bool = False) -> tuple[list[str], str]:
    """(the user's words `text` carries, `text` without them). `tags`: the tags read (all by default, in
    lower case); `result`: a tool's result, where the harness may also hand over to them in a sentence."""
    if "</" in text:
        found = [m for m in _TAGGED.finditer(text) if m.group(2).strip() and (tags is None or m.group(1).lower() in tags)]
        if found:
            rest = "".join(text[a:b] for a, b in _gaps(found, len(text))).strip()
            return [m.group(2).strip() for m in found], rest
    if result and ("user said:" in text or "following feedback:" in text):  # the pattern's words, found at C speed first
        m = _SAID.search(text)
        if m:
            words, fence = m.group(1), ""
            end = _CLOSING_FENCE.search(words)  # an export's closing fence after the words stays with the result
            if end:
                words, fence = words[: end.start()].rstrip(), end.group(0).strip()
            return [words], f"{text[: m.start(1)].strip()}\n{fence}".strip()
    return [], text


def _gaps(found: list[re.Match[str]], end: int) -> list[tuple[int, int]]:
    """The (start, end) spans of the text between the matches: what stays once their words are taken."""
    spans, at = [], 0
    for m in found:
        spans.append((at, m.start()))
        at = m.end()
    return [*spans, (at, end)]


def user_words_apart(messages: list[Message]) -> list[Message]:
    """`messages` with the user's words set apart as user messages (renumbered), or `messages` itself."""
    out: list[Message] = []
    asked: set[str] = set()  # what the user said already

    def said(words: list[str], like: Message) -> Message:
        new = [w for w in words if w not in asked]
        asked.update(new)
        return Message(0, Role.USER, "\n\n".join(new or words), timestamp=like.timestamp, line=like.line,
                       meta=like.meta if like.role is Role.USER else {}, harness=not new)

    changed = False
    for msg in messages:
        if msg.role is Role.USER:
            words, rest = words_apart(msg.text)
            if not words:
                out.append(msg)
                if not msg.harness:
                    asked.add(msg.text)
                continue
            out.append(said(words, msg))
            if rest:  # the harness's notices around them
                out.append(Message(0, Role.USER, rest, timestamp=msg.timestamp, line=msg.line, harness=True))
            changed = True
            continue
        out.append(msg)
        if msg.role is not Role.TOOL:
            continue
        words, msg.text = words_apart(msg.text, _TAGS_IN_RESULTS, result=True) if msg.text else ([], msg.text)
        for res in msg.tool_results:  # an export may put them before the result, in the message's text
            more, res.content = words_apart(res.content, _TAGS_IN_RESULTS, result=True)
            words += more
        if words:
            out.append(said(words, msg))
            changed = True
    if not changed:
        return messages
    for i, msg in enumerate(out):
        msg.index = i
    return out


def words_after(messages: list[Message], index: int | None) -> str:
    """The first line of the user's words right after the message at `index` (a rejected call's result,
    whose words this module set apart), whole; "" when no user message follows it."""
    after = messages[index + 1] if index is not None and index + 1 < len(messages) else None
    if after is None or after.role is not Role.USER or after.harness:
        return ""
    return after.text.strip().split("\n", 1)[0]
