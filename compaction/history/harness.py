"""Harness and system-prompt instructions: context for the agent, not decisions of the session.

Detected by position and shape, never by a list of known phrases:
- position: a system message, a harness echo, or the part of the opening user message outside the
  request it wraps (a tagged block such as `<pr_description>…</pr_description>`, the body under a
  label line such as `ISSUE:`, else the text before the template's instructions begin);
- shape: an imperative written in capitals ("YOU CAN ONLY ENTER ONE COMMAND"), or a sentence the
  harness repeats across the session's user turns (templated reminders).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from compaction.history.facts import split_task
from compaction.model import Message, Role, Transcript

_OPEN_TAG_RE = re.compile(r"<([a-zA-Z_][\w-]*)>")
_LABEL_RE = re.compile(r"^[A-Z][A-Z ]{2,40}:\s*$", re.MULTILINE)
_WS_RE = re.compile(r"\s+")
MIN_REQUEST = 80  # characters: a shorter tagged body is a detail (a file name), not the request


@dataclass(slots=True)
class HarnessText:
    """What of a transcript's user-side text is the harness's: spans of messages and repeated sentences."""

    template: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # message index -> spans
    repeated: set[str] = field(default_factory=set)
    whole: set[int] = field(default_factory=set)  # message indexes entirely harness

    def is_harness(self, msg: Message | None, sentence: str) -> bool:
        if msg is None:
            return False
        if msg.index in self.whole or shouting(sentence) or norm(sentence) in self.repeated:
            return True
        spans = self.template.get(msg.index)
        if not spans:
            return False
        at = msg.text.find(sentence[:60])
        return at >= 0 and any(s <= at < e for s, e in spans)


def norm(text: str) -> str:
    """Whitespace runs made one space, the ends stripped, lower-cased (`str.split` splits on the
    whitespace `\\s` matches: the same text as a regex substitution, in one C pass)."""
    return " ".join(text.split()).lower()


def shouting(sentence: str) -> bool:
    """An imperative in capitals: a run of three all-caps words, or of two with one of five letters or
    more ("EXACTLY ONE", "YOU CAN ONLY ENTER"), or a whole sentence of four words or more in capitals
    (acronyms like `HTTP API` are short runs, a heading is short)."""
    words = re.findall(r"[A-Za-z][A-Za-z']*", sentence)
    if all(w.isupper() for w in words):
        return len(words) >= 4  # a whole sentence in capitals; a short one is a heading or a label
    run: list[str] = []
    for w in words + [""]:
        if len(w) >= 2 and w.isupper():
            run.append(w)
            continue
        if len(run) >= 3 or (len(run) == 2 and max(len(x) for x in run) >= 5):
            return True
        run = []
    return False


def request_span(text: str) -> tuple[int, int] | None:
    """Where the request sits inside a templated opening message, or None when the message is not
    templated (then all of it is the user's). The first substantial tagged block; else the body under the
    first label line (`ISSUE:`) up to the next label; else the text before the template's instructions."""
    for m in _OPEN_TAG_RE.finditer(text):  # the first substantial tagged block: the template wraps the request
        close = text.find(f"</{m.group(1)}>", m.end())
        if close >= 0 and len(text[m.end():close].strip()) >= MIN_REQUEST:
            return m.end(), close
    labels = list(_LABEL_RE.finditer(text))
    if len(labels) >= 2:
        return labels[0].end(), labels[1].start()
    request, rest = split_task(text)
    if rest:
        return 0, len(request)
    return None


def detect(transcript: Transcript) -> HarnessText:
    out = HarnessText()
    users = [m for m in transcript.messages if m.role is Role.USER and not m.harness and m.text]
    for m in transcript.messages:
        if m.role is Role.SYSTEM or (m.harness and m.role is Role.USER):
            out.whole.add(m.index)
    if users:
        first = users[0]
        span = request_span(first.text)
        if span is not None:
            start, end = span
            out.template[first.index] = [(0, start), (end, len(first.text))]
    counts: Counter[str] = Counter()
    for m in users if len(users) >= 3 else ():
        for sentence in {norm(s) for s in re.split(r"(?<=[.!?])\s+|\n+", m.text) if len(s.strip()) >= 25}:
            counts[sentence] += 1
    out.repeated = {s for s, n in counts.items() if n >= 3 and n * 2 >= len(users)}  # a template, not a plea
    return out
