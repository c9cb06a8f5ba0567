"""The task and every later user message: the first request whole (the harness's boilerplate elided,
long pastes trimmed to their informative lines), then the later requests with their rounds; a short
assent ("yes please") carries what it accepts — the assistant's offer it answers."""

from __future__ import annotations

import re
from itertools import islice

from compaction.events import EventKind, is_follow_up_request
from compaction.history.facts import MIN_FACT_TOKENS, TIGHT_TARGET, WS_RE, Fact, clean_task, split_task, task_text
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role

_PASTE_LINES = 12  # a fenced block or an unfenced log run longer than this is trimmed
_TRIM_LEVELS = ((12, 4), (8, 3), (4, 2))  # (head, tail) lines a paste keeps, gentlest first
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
# Lines worth keeping from the middle of a paste: what failed and where.
_INFORMATIVE_RE = re.compile(r"(?:error|exception|warning)\b|\b(?:fail(?:ed|ure)?|fatal|panic|denied|not found|"
                             r"traceback|assert\w*)\b", re.IGNORECASE)
# Log/stack-shaped lines outside fences: timestamps, stack frames, deep indentation, table rows.
_LOGLINE_RE = re.compile(r"^(?:\s{4,}|\t|\s*at |\s*File \"|\s*\||\[?\d{2,4}[-:/]\d{2}[-:/T ]|\s*\d+\s*\|)")
_LOGRUN_RE = re.compile(r"(?:^(?:[ \t]{4,}|\t|[ \t]*at |[ \t]*File \"|[ \t]*\||\[?\d{2,4}[-:/]\d{2}[-:/T ]|[ \t]*\d+[ \t]*\|)"
                        rf"[^\n]*\n){{{_PASTE_LINES + 1},}}", re.MULTILINE)
_ASSENT_RE = re.compile(r"^\s*(?:(?:yes|yeah|yep|yup|sure|ok(?:ay)?|please|do it|go ahead|go for it|sounds good|"
                        r"great|perfect|lgtm|let'?s do (?:it|that)|that works|please do|好的?|可以|行|是的|对)[\s,.!]*)+"
                        r"(?:please|thanks?(?: you)?|那就这样)?[\s.!]*$", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]?")


def trim_pastes(text: str, head: int = 4, tail: int = 2) -> str:
    """The message with each long paste (a fenced block, a run of log or stack lines) cut to its
    `head` lines, its informative lines (errors, failures) and its `tail` lines, with a note of what
    was trimmed."""
    if text.count("\n") <= _PASTE_LINES or ("```" not in text and "~~~" not in text and not _LOGRUN_RE.search(text)):
        return text  # no fence and no long run of log lines: nothing to trim (one C-speed scan)
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if _FENCE_RE.match(lines[i]):  # a fenced block: from its opening fence to its closing one
            j = next((k for k in range(i + 1, len(lines)) if _FENCE_RE.match(lines[k])), len(lines) - 1)
            out.extend([lines[i], *_trim(lines[i + 1:j], "code", head, tail), lines[j]] if j > i else [lines[i]])
            i = j + 1
            continue
        j = i
        while j < len(lines) and _LOGLINE_RE.match(lines[j]):
            j += 1
        if j - i > _PASTE_LINES:
            out.extend(_trim(lines[i:j], "log", head, tail))
            i = j
        elif j > i:  # a short run stays as it is (and is not scanned again)
            out.extend(lines[i:j])
            i = j
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


# `name = value` and `key=value` in a trimmed paste: the field values a reproduction sets.
_ASSIGN_RE = re.compile(r"""(?<![\w=!<>])(?:\w+\.)*(\w+)\s*[:=](?![=])\s*('[^'\n]{0,60}'|"[^"\n]{0,60}"|-?[\w.]+)""")
_LITERAL_RE = re.compile(r"""^(?:'[^'(+]*'|"[^"(+]*"|-?\d[\w.]*|True|False|None|[\w.]*\d[\w.]*)$""")
_VALUES_CHARS = 200  # the digest of a trimmed paste's values stays one short line


def _values(lines: list[str]) -> str:
    """`BitsAllocated=32, PhotometricInterpretation='MONOCHROME2', dtype=np.float32`: the values set
    in the lines a trim removes (identifiers and numbers a successor may be asked about), in order,
    each name once, at most _VALUES_CHARS characters."""
    out: list[str] = []
    seen: set[str] = set()
    size = 0
    for ln in lines:
        if "=" not in ln and ":" not in ln:
            continue  # no assignment without its sign: the pattern, tried at every position, is spared
        for name, value in _ASSIGN_RE.findall(ln):
            if name in seen or name.isdigit() or not _LITERAL_RE.match(value):
                continue  # a value worth its tokens is a literal: a number, a string, a constant with a digit
            pair = f"{name}={value}"
            if size + len(pair) + 2 > _VALUES_CHARS:
                return ", ".join(out)
            seen.add(name)
            out.append(pair)
            size += len(pair) + 2
    return ", ".join(out)


def _trim(block: list[str], kind: str, head: int, tail: int) -> list[str]:
    if len(block) <= max(_PASTE_LINES, head + tail + 2):
        return block
    middle = block[head:len(block) - tail]
    kept = list(islice((ln for ln in middle if _INFORMATIVE_RE.search(ln)), 4))
    values = _values([ln for ln in middle if ln not in kept])
    note = f"[… {len(middle) - len(kept)} lines of pasted {kind} trimmed{'; values: ' + values if values else ''} …]"
    return [*block[:head], note, *kept, *block[len(block) - tail:]]


def accepted_offer(messages: list[Message], index: int) -> str | None:
    """What a short assent at message `index` accepts: the last question or offer of the assistant's
    latest text before it."""
    if not _ASSENT_RE.match(messages[index].text):
        return None
    for m in reversed(messages[:index]):
        if m.role is Role.USER and not m.harness:
            return None
        if m.role is Role.ASSISTANT and m.text.strip():
            sentences = [s.strip() for s in _SENTENCE_RE.findall(m.text) if len(s.strip()) > 8]
            if not sentences:
                return None
            asked = [s for s in sentences if s.endswith("?")]
            offer = asked[-1] if asked else sentences[-1]
            return WS_RE.sub(" ", offer)[:240]
    return None


# Words that make a sentence a constraint on the work (what must, must not, only, instead of).
_CONSTRAINT_RE = re.compile(r"\b(?:must|never|always|only|don'?t|do not|doesn'?t|without|avoid|instead|rather than|"
                            r"no|not|should|shouldn'?t|keep|make sure|ensure)\b|\w-first\b", re.IGNORECASE)
# A run of sentence characters and its closing marks, or the text's end (group 1). The run is taken
# whole (possessive): a line without a closing mark is then skipped in one step, where backtracking
# into it from each of its characters cost the square of its length.
_SENTENCES_RE = re.compile(r"[^.!?\n]++(?:[.!?]+|($))?")


def _sentences(text: str) -> list[str]:
    """The sentences that end with a mark or the text's end, stripped (a line that ends without one is none)."""
    return [s for m in _SENTENCES_RE.finditer(text)
            if (m.group(1) is not None or m.group(0)[-1] in ".!?") and (s := m.group(0).strip())]


def shorten_request(text: str, limit: int) -> str:
    """A user's request within `limit` characters: its opening sentence, then the sentences that
    constrain the work ("agent-first", "no hardcoded values"), in order, before any other; a
    head cut only when even those do not fit."""
    if len(text) <= limit:
        return text
    sentences = _sentences(text)
    if len(sentences) < 2:
        return text[: limit - 1] + "…"
    keep = [0]
    used = len(sentences[0])
    if used > limit - 1:
        return text[: limit - 1] + "…"
    constraining = {i for i in range(1, len(sentences)) if _CONSTRAINT_RE.search(sentences[i])}
    ranked = sorted(constraining) + [i for i in range(1, len(sentences)) if i not in constraining]
    for i in ranked:
        if used + len(sentences[i]) + 3 <= limit - 1:
            keep.append(i)
            used += len(sentences[i]) + 3
    out, prev = "", -1
    for i in sorted(keep):
        out += (" " if i == prev + 1 else " … ") + sentences[i] if out else sentences[i]
        prev = i
    return out + (" …" if prev < len(sentences) - 1 else "")


_TIGHT_REQUEST_CHARS = 100  # an older request's characters at a tight target
_WORK = frozenset({EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.MOVE, EventKind.COMMIT})


def _work_rounds(ctx: FactContext) -> list[int]:
    """The rounds that changed files or committed, in order (one pass over the events)."""
    return sorted({e.round for e in ctx.events if e.kind in _WORK})


@fact_source(Section.GOAL)
def task_facts(ctx: FactContext) -> list[Fact]:
    """The task, the current request and (at most target/MIN_FACT_TOKENS of) the requests in between:
    memory is bounded by what a summary can hold, not by the requests read (a session of 500,000
    requests would otherwise build 500,000 facts of which a few hundred can be shown)."""
    requests = [e for e in ctx.events if e.kind is EventKind.REQUEST and e.text.strip()]
    facts: list[Fact] = []
    if not requests:
        return facts
    task = requests[0]
    whole = task_text(task.text)
    forms: list[str] = []  # its pastes trimmed harder and harder: the request's prose stays whole longest
    request, rest = split_task(task.text)  # the harness's boilerplate is elided anyway: not trimmed
    hardest = trim_pastes(request, *_TRIM_LEVELS[-1])
    if hardest != request:
        for head, tail in _TRIM_LEVELS:
            trimmed = trim_pastes(request, head, tail) if (head, tail) != _TRIM_LEVELS[-1] else hardest
            form = task_text(trimmed + rest)
            if form != (forms[-1] if forms else whole):
                forms.append(form)
    facts.append(Fact(Section.GOAL, whole, [task.round], score=100, essential=True, task=True,
                      forms=tuple(forms)))
    # Slash commands (`/exit`, `/add f`, `/run x`) drive the tool, they are not requests.
    later = [r for r in requests[1:] if is_follow_up_request(r.text)]
    # Interactive sessions: every later request matters, the latest most (the current goal).
    room = None if ctx.target_tokens is None else ctx.target_tokens // MIN_FACT_TOKENS
    first = 0 if room is None else max(0, len(later) - room)
    messages = ctx.transcript.messages
    worked = _work_rounds(ctx)
    starts = [r.round for r in later[first:]] + [ctx.n_rounds + 1]
    # A tight budget shows an older request as its opening and constraint sentences; fill gives the
    # full text back once the other sections had their share.
    limit = _TIGHT_REQUEST_CHARS if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET else 160
    asked: dict[str, Fact] = {}  # a request sent again (a retry, a resend) is one line with its rounds
    for i, req in enumerate(later[first:], first):
        latest = i == len(later) - 1
        text = clean_task(trim_pastes(req.text, *_TRIM_LEVELS[-1]))
        offer = accepted_offer(messages, req.message_index) if 0 <= req.message_index < len(messages) else None
        if offer:
            text = f"{text} (accepting: “{offer}”)"
        key = " ".join(text.lower().split()).rstrip("?.! ")
        if not latest and key in asked:
            asked[key].rounds.append(req.round)
            continue
        if latest:
            facts.append(Fact(Section.GOAL, "Current request: " + text, [req.round], score=90, essential=True,
                              short="Current request: " + shorten_request(text, 160)))
        else:  # history: the completed actions carry what was done about it
            # A request that set work going (files changed, a commit) before the next one outranks a
            # question answered in chat: the findings carry those answers.
            led_to_work = any(req.round <= r < starts[i - first + 1] for r in worked)
            fact = Fact(Section.GOAL, "Then asked: " + shorten_request(text, limit),
                        [req.round], score=(15 if led_to_work else 10) + i * 0.01, priority=2.5,
                        full_text="Then asked: " + text if len(text) > limit else None)
            asked[key] = fact
            facts.append(fact)
    return facts
