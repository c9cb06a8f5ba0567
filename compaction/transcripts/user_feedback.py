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

Tags are the harness's only where one wraps the user's words (`reads_tags`) and only as it writes them:
an element standing on its own lines, outside fenced code, not in a file's text a read returned.
Elsewhere a `<task>` is quoted (a user pasting a prompt, a file holding a `<feedback>` element).
The "…the user said:" sentence is Claude Code's own, after a rejected call: read in every format.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from compaction.model import Message, Role, ToolKind, ToolResult, Transcript
from compaction.transcripts._agent_tools import kind_of
from compaction.transcripts._fences import outside_fences

# The tags agents wrap the user's words in (Cline's task, message and feedback; Antigravity's request;
# Cursor's query), whatever their case: an opening tag at a line's start, a closing one at a line's end.
_TAG_NAMES = r"(task|user_message|user_request|user_query|feedback)"
_OPENING = re.compile(rf"^<{_TAG_NAMES}>", re.M | re.I)
_CLOSING = re.compile(rf"</{_TAG_NAMES}>[ \t\r]*$", re.I)
_TAGS_IN_RESULTS = frozenset({"user_message", "feedback"})  # a `<task>` in a result is the task sent again
_NO_TAGS: frozenset[str] = frozenset()
# The formats whose harness wraps the user's words in tags: Cline exports, Antigravity and Cursor agent
# logs all reach the generic reader; Cursor's own export. (Cline's histories and SpecStory: `reads_tags`.)
_WRAPPING_FORMATS = frozenset({"generic-json", "generic-jsonl", "generic-markdown", "cursor-export"})
_CLOSING_FENCE = re.compile(r"\n[`~]{3,}\s*\Z")
# The harness's sentence that hands over to the user's words, which run to the result's end.
_SAID = re.compile(r"(?:the user said|the user provided the following feedback):[ \t]*\n(.*\S)\s*\Z", re.S | re.I)


def reads_tags(transcript: Transcript) -> bool:
    """Whether `transcript`'s format is one whose harness wraps the user's words in tags: elsewhere (Claude
    Code, Codex, a plain Anthropic list) a tag in a message is the user's or a file's, never a wrapper."""
    if transcript.format == "anthropic":
        return transcript.meta.get("dialect") == "cline"
    if transcript.format == "specstory":
        return transcript.meta.get("agent") == "cursor"
    return transcript.format in _WRAPPING_FORMATS


def words_apart(text: str, tags: frozenset[str] | None = None, *, result: bool = False) -> tuple[list[str], str]:
    """(the user's words `text` carries, `text` without them). `tags`: the tags read (all by default, in
    lower case); `result`: a tool's result, where the harness may also hand over to them in a sentence."""
    found = _elements(text, tags) if tags is None or tags else []
    if found:
        rest = "".join(text[a:b] for a, b in _gaps(found, len(text))).strip()
        return [words.strip() for _, _, words in found], rest
    if result and ("user said:" in text or "following feedback:" in text):  # the pattern's words, found at C speed first
        m = _SAID.search(text)
        if m:
            words, fence = m.group(1), ""
            end = _CLOSING_FENCE.search(words)  # an export's closing fence after the words stays with the result
            if end:
                words, fence = words[: end.start()].rstrip(), end.group(0).strip()
            return [words], f"{text[: m.start(1)].strip()}\n{fence}".strip()
    return [], text


def _elements(text: str, tags: frozenset[str] | None) -> list[tuple[int, int, str]]:
    """(start, end, words) of each tagged element as a harness writes it: the opening tag at a line's
    start, the closing one ending a line, both outside fenced code (a quoted tag is no wrapper)."""
    if "</" not in text or not _OPENING.search(text):  # most texts leave here, at C speed
        return []
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    outside = list(outside_fences(lines))
    closings = [(i, m.group(1).lower(), starts[i] + m.start()) for i, line in outside if (m := _CLOSING.search(line))]
    found: list[tuple[int, int, str]] = []
    at = 0  # where the next element may start: elements do not overlap
    for i, line in outside:
        m = _OPENING.match(line)
        if not m or starts[i] < at or (tags is not None and m.group(1).lower() not in tags):
            continue
        name, open_end = m.group(1).lower(), starts[i] + m.end()
        k = bisect_left(closings, (i, "", open_end))
        close = next((c for c in closings[k:] if c[1] == name and c[2] >= open_end), None)
        if close is None:
            continue
        end = close[2] + len(name) + 3
        end += text.startswith("\n", end)
        at = end
        if text[open_end:close[2]].strip():
            found.append((starts[i], end, text[open_end:close[2]]))
    return found


def _gaps(found: list[tuple[int, int, str]], end: int) -> list[tuple[int, int]]:
    """The (start, end) spans of the text between the elements: what stays once their words are taken."""
    spans, at = [], 0
    for start, stop, _ in found:
        spans.append((at, start))
        at = stop
    return [*spans, (at, end)]


def user_words_apart(messages: list[Message], *, tagged: bool = False) -> list[Message]:
    """`messages` with the user's words set apart as user messages (renumbered), or `messages` itself.
    `tagged`: the harness wraps the user's words in tags (`reads_tags`); else only its sentence is read.

    Words found in a tool's result wait until the run of tool messages it is in ends: one turn's calls
    may be answered in several, and a user message between them would cut that turn's round in two.
    Each carries `meta["answers"]`, the index of the tool message it came from (`words_after`)."""
    out: list[Message] = []
    asked: set[str] = set()  # what the user said already
    held: list[Message] = []  # words from results, until the run of tool messages ends
    answered: list[tuple[Message, Message]] = []  # (words, the tool message they came from)
    kinds: dict[str, str] = {}  # call id -> kind, to tell a file read's output

    def said(words: list[str], like: Message) -> Message:
        new = [w for w in words if w not in asked]
        asked.update(new)
        return Message(0, Role.USER, "\n\n".join(new or words), timestamp=like.timestamp, line=like.line,
                       meta=like.meta if like.role is Role.USER else {}, harness=not new)

    changed = False
    for msg in messages:
        if msg.role is not Role.TOOL and held:
            out += held
            held.clear()
        if msg.role is Role.USER:
            words, rest = words_apart(msg.text) if tagged else ([], msg.text)
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
        kinds.update((c.id, c.kind) for c in msg.tool_calls if c.id)
        words = _result_words(msg, tagged, kinds) if msg.role is Role.TOOL else []
        if words:
            held.append(said(words, msg))
            answered.append((held[-1], msg))
            changed = True
    out += held
    if not changed:
        return messages
    for i, msg in enumerate(out):
        msg.index = i
    for words, source in answered:
        words.meta = {"answers": source.index}
    return out


def _result_words(msg: Message, tagged: bool, kinds: dict[str, str]) -> list[str]:
    """The user's words a tool message carries, taken out of it: in its text (an export may put them
    before the result) and in each result, but never a tag in a file's text that a read returned."""
    tags = _TAGS_IN_RESULTS if tagged else _NO_TAGS
    words, msg.text = words_apart(msg.text, tags, result=True) if msg.text else ([], msg.text)
    for res in msg.tool_results:
        more, res.content = words_apart(res.content, _NO_TAGS if _file_text(res, kinds) else tags, result=True)
        words += more
    return words


def _file_text(res: ToolResult, kinds: dict[str, str]) -> bool:
    """Whether a result is a file's text: a read's that did not fail (a refused read holds the harness's
    words instead, and the user's feedback with them)."""
    return (kinds.get(res.call_id or "") or kind_of(res.name or "")) == ToolKind.READ and not res.is_error


def words_after(messages: list[Message], index: int | None) -> str:
    """The first line of the user's words set apart from the tool message at `index` (a rejected call's
    result), whole: the user message that `answers` it after its run of tool messages, or a user message
    right after it; "" when none."""
    if index is None:
        return ""
    for k, after in enumerate(messages[index + 1:]):
        source = after.meta.get("answers", index if k == 0 else None)
        if after.role is Role.USER and not after.harness and source == index:
            return after.text.strip().split("\n", 1)[0]
        if after.role is not Role.TOOL and "answers" not in after.meta:
            return ""
    return ""
