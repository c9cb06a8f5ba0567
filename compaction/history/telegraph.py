"""Telegraphic rendering of the agent's prose: the same facts in fewer tokens.

An agent narrates ("Perfect! Now let me check…", "I'll modify `x.py` to…", "I can see that…"):
the openings, hedges and emoji carry no information a successor needs, yet at a 900-token budget
every one of them displaces a fact. Only the wording around the information goes: identifiers,
numbers, paths and code spans are never touched (a code span is set aside before any rewrite).
Applied to the agent's own words only (facts marked `prose`), never to the user's text, markers,
commands or code.
"""

from __future__ import annotations

import re

_CODE_RE = re.compile(r"`[^`\n]*`")
# Interjections that open a sentence ("Perfect!", "Great, ", "Excellent.", "OK so").
_INTERJECTION = r"(?:perfect|great|excellent|good|nice|awesome|ok(?:ay)?|alright|all right|sure|got it|done|" \
                r"wonderful|fantastic|understood|ah|hmm|oh|now|so|well|right|first|next|then|finally)"
# Not before a word it binds to: "Now that the fix is in", "So far the tests pass" are nonsense without it.
_INTERJ_RE = re.compile(rf"^(?:{_INTERJECTION})(?:\s*[!,.:;—–-]+\s*|\s+(?=[A-Z]|I\b|let\b|we\b)(?!(?:that|far)\b))",
                        re.IGNORECASE)
# First-person narration openings, reduced to the verb that follows ("Let me check X" → "Check X").
_NARRATION_RE = re.compile(
    r"^(?:THOUGHT:\s*)?(?:(?:now|next|then|so|first|finally),?\s+)?"
    r"(?:let me|let's|let us|i(?:'ll| will| am going to|'m going to| need to| should| want to| must| can now|'ll now"
    r"| will now| now need to)|we(?:'ll| will| need to| should| can now| must)|i'm|i am|we're|we are"
    r")\s+(?:(?:now|also|then|first|quickly|just|go ahead and|try to|proceed to)\s+)*",
    re.IGNORECASE,
)
# Hedges that only announce what follows ("I can see that the test fails" → "the test fails").
_HEDGE_RE = re.compile(
    r"^(?:i can see that|i see that|i can see|i see|i notice that|i noticed that|i found that|it (?:seems|appears|looks) "
    r"(?:like|that)|it seems|it appears|looks like|it looks like|as (?:we|you) can see,?|based on (?:this|the output|"
    r"that),?|in other words,?|basically,?|actually,?)\s+",
    re.IGNORECASE,
)
_EMOJI_RE = re.compile(" ?[\U0001F300-\U0001FAFF\U00002600-\U000027BF\U0001F000-\U0001F2FF\uFE0F\u200D]+")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_PROGRESSIVE = {"checking": "check", "looking": "look", "running": "run", "going": "go", "trying": "try"}


def telegraphic(text: str) -> str:
    """`text` with filler openings, hedges and emoji dropped, sentence by sentence; code spans,
    identifiers and numbers kept as they are. A sentence that is only filler goes whole."""
    if not text:
        return text
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    masked = _EMOJI_RE.sub("", _CODE_RE.sub(hold, text))
    lines = []
    for line in masked.split("\n"):
        lead = line[: len(line) - len(line.lstrip())]
        bullet = re.match(r"^(?:[-*•]\s+|\d+[.)]\s+)?", line.lstrip()).group(0)
        body = line.lstrip()[len(bullet):]
        parts = [_sentence(s) for s in _SENTENCE_RE.split(body)]
        lines.append(lead + bullet + " ".join(p for p in parts if p))
    out = "\n".join(lines)
    out = re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], out)
    return out if out.strip() else text


def _sentence(s: str) -> str:
    orig = s
    for _ in range(3):  # "Perfect! Now let me…": interjection, then narration, then a hedge
        before = s
        s = _INTERJ_RE.sub("", s, count=1)
        s = _NARRATION_RE.sub("", s, count=1)
        s = _HEDGE_RE.sub("", s, count=1)
        if s == before:
            break
    if s == orig:
        return s
    if not s.strip(" .!,:;") or not re.search(r"[\w\x00]", s):
        return ""  # only filler ("Perfect!", "Let me check.")... unless it held a code span
    word = re.match(r"^([a-z]+)\b", s)
    if word and word.group(1) in _PROGRESSIVE:
        s = _PROGRESSIVE[word.group(1)] + s[len(word.group(1)):]
    return s[0].upper() + s[1:] if s[0].islower() else s
