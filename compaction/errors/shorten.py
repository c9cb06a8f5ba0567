"""A record's solution or advice within a width, keeping what a successor acts on.

Why: the error memory's texts are cut to fit (a clause budget in the document, less when the block is
over its ceiling), and a cut at the end loses what matters most: the new side of a change
(`` `A` →… ``), the command that then passed (`then…`). Here a text gives up, in this order: the words
both sides of a long change share, the middles of its long code, the agent's guess, its commands'
middles, the clauses that do not say what ended the error nor the cause it found before the fix (least
telling first), the end of that cause, its code down to a few words, the attempts that failed before the
fix, the check that followed, the cause itself, the options it advised (each cut alike), and only then
its end (a change it would leave without its new side goes whole). Paths are never elided.
"""

from __future__ import annotations

import re
from collections.abc import Callable

ELLIPSIS = "…"
ROOMY_SPAN = 40  # the first pass leaves a code span this long; a change's side no longer than it is kept whole
TIGHT_SPAN = 22  # the last pass, before clauses go
CONTEXT_WORDS = 1  # shared words kept on each side of what a change changed

_SPAN_RE = re.compile(r"`[^`\n]+`")
_PAIR_RE = re.compile(r"`([^`\n]+)` → `([^`\n]+)`")
_QUOTE_RE = re.compile(r"“[^“”\n]+”")
# A clause that says what ended the error: the edit (`edited x (r5)`, `an edit (r5)`, `re-read it with …, then
# edited it`, `restored x from git with …`), the command that then passed, an attempt never checked, the
# attempts that failed again before it and what ended an earlier failure (`its r27 failure ended with …`).
# Its account of the cause, a guess or the user's words are not.
FIX_CLAUSE_RE = re.compile(r"^(?:edited |an edit \(r\d+\)|re-read it with |restored |tried, never checked |tried before: |"
                           r"its r\d+ failure )"
                           r"|^then .* (?:passed|no longer printed it) \(r\d+\)$")
ADVISED = "advised (r"  # what the agent advised, where no edit followed: kept as long as a fix would be (no fix)
_CHECK_RE = re.compile(r"^then .* (?:passed|succeeded) \(r\d+\)$")  # the check after the fix, or the retry
_GUESS = "the agent's guess: "
# The agent's account of what was wrong, said just before its fix and cited by its round (`scan._diagnosed`:
# "cause: I have two `@classmethod` … (r64)"), outlives the attempts that failed before the fix: what caused it
# is what a successor is asked, and what keeps it from recurring. Its first reply's account (no round) goes with
# the other clauses that do not say what ended the error, as it did.
_CAUSE = "cause: "
_TRIED = "tried before: "
CAUSE_LEAST = 60  # a cause cut shorter than this (or than half of it) says too little: it goes whole
# A cause read off the calls and outputs themselves, not the agent's words (`errors.scan`'s `_shifted_lines`,
# `refusal_cause`, `_escaped_breaks`, `_margin_marked` word them so): kept as long as the fix is
_READ_CAUSE_RE = re.compile(r"^(?:cause: its line-addressed edits|its SEARCH held |the user's own edits of |"
                            r"its old text (?:had|was copied))")
# What a path never holds: code's brackets, operators, quotes, separators of a command line
_CODE_CHARS_RE = re.compile(r"[(){}\[\]=;,<>|&$\"'*?!]")
_EXTENSION_RE = re.compile(r"\.\w{1,8}$")
_ROOTED_RE = re.compile(r"(?:[A-Za-z]:)?[/\\~.]")


def _is_path(span: str) -> bool:
    """Whether a code span is a path (`src/app.py`, `README.md`, `~/.zshrc`, `C:\\repo\\x.tsx`, `/Users/me/My
    Projects/x.py`): never elided. No code characters; a separator or an extension; spaces only in a
    path that starts at a root (a folder name with a space), not in a command's words."""
    body = span[1:-1]
    if not body or _CODE_CHARS_RE.search(body) or body[0] == "-":
        return False
    separated = "/" in body or "\\" in body
    if " " in body:
        return separated and _ROOTED_RE.match(body) is not None and body.count(" ") <= 3
    return separated or _EXTENSION_RE.search(body) is not None


def fit(text: str, width: int, info: Callable[[str], int] = len) -> str:
    """`text` within `width` characters. Its clauses (`; `-separated, never inside code or a quote)
    keep their order; `info` ranks the clauses that may go (the least telling goes first). A path is
    never elided: a file cut in two is neither found nor read."""
    if len(text) <= width:
        return text
    clauses = [_compress_pairs(c) for c in split_clauses(text)]
    steps: tuple[Callable[[list[str], int], list[str]], ...] = (
        lambda cs, excess: _shrink(cs, excess, _content_spans, ROOMY_SPAN),
        lambda cs, excess: [_TRIED_WORDS_RE.sub("", c) if c.startswith(_TRIED) else c for c in cs],
        # the agent's guess gives way to what ended the error; with no fix, it is all the record says of the
        # failure (requests' "no fix seen after r48" alone read as an open bug of the work: pairwise check 59)
        lambda cs, excess: _drop(cs, width, lambda c: c.startswith(_GUESS), info) if _has_fix(cs) else cs,
        lambda cs, excess: _shrink(cs, excess, _command_spans, ROOMY_SPAN),
        lambda cs, excess: _drop(cs, width, lambda c: not (FIX_CLAUSE_RE.search(c) or _CHECK_RE.search(c)
                                                          or _READ_CAUSE_RE.search(c) or c.startswith(ADVISED)
                                                          or _said_cause(c)), info),
        lambda cs, excess: _drop(cs, width, lambda c: c.startswith(_TRIED), info) if _has_cause(cs) else cs,
        lambda cs, excess: [_cause_cut(c, excess) for c in cs],
        lambda cs, excess: _shrink(cs, excess, _content_spans, TIGHT_SPAN),
        lambda cs, excess: _shrink(cs, excess, _command_spans, TIGHT_SPAN),
        lambda cs, excess: _drop(cs, width, lambda c: c.startswith(_TRIED), info),
        lambda cs, excess: _drop(cs, width, lambda c: _CHECK_RE.search(c) is not None, info),
        lambda cs, excess: _drop(cs, width, _said_cause, info),
        lambda cs, excess: _options_shrunk(cs, excess),
    )
    for step in steps:
        if _length(clauses) <= width:
            break
        clauses = step(clauses, _length(clauses) - width)
    return _cut_whole_changes("; ".join(clauses), width)


# The agent's words for an attempt whose change is not known (" (“…”)"): the attempts and the rounds they failed
# again say the most of a clause that failed the same way three times; the words go before any whole clause
_TRIED_WORDS_RE = re.compile(r" \(“[^”]*”\)")


def _said_cause(clause: str) -> bool:
    """The agent's account of the cause said before its fix, cited by its round (not one read off the calls,
    `_READ_CAUSE_RE`: kept as the fix is)."""
    return clause.startswith(_CAUSE) and _CITED_RE.search(clause) is not None and not _READ_CAUSE_RE.search(clause)


def _has_fix(clauses: list[str]) -> bool:
    """Whether a clause says what ended the error (an edit, a passing run, an attempt)."""
    return any(FIX_CLAUSE_RE.search(c) or _CHECK_RE.search(c) for c in clauses)


def _has_cause(clauses: list[str]) -> bool:
    return any(_said_cause(c) for c in clauses)


_CITED_RE = re.compile(r" \(r\d+\)$")


def _cause_cut(clause: str, excess: int) -> str:
    """A cause clause `excess` characters shorter, its round kept (cut before it), when that keeps half of it
    and CAUSE_LEAST characters at least (a stub, "cause: This strategy should resolve issues caused by…", says
    nothing: the clause stays whole for the step that drops it)."""
    if not _said_cause(clause):
        return clause
    width = len(clause) - excess
    if width < max(CAUSE_LEAST, len(clause) // 2):
        return clause
    cited = _CITED_RE.search(clause)
    if cited is None:
        return cut(clause, width)
    return cut(clause[:cited.start()], width - len(cited.group())) + cited.group()


_PAIR_SAID_RE = re.compile(r"(?::\s*|\s+)?`[^`\n]+` → `[^`\n]+`")
_HALF_PAIR_RE = re.compile(r"(?::\s*|\s+)?`[^`\n]*` →\s*…$")  # a cut that left a change without its new side


def _cut_whole_changes(text: str, width: int) -> str:
    """`cut`, but a change the cut would leave without its new side (`` (r9): `… 'Columns',…ion',` →… ``) goes
    whole: half a change reads as nothing, while the file and round before it still say where the fix is."""
    for _ in range(3):
        out = cut(text, width)
        half = _HALF_PAIR_RE.search(out)
        pair = _PAIR_SAID_RE.match(text, half.start()) if half else None
        if pair is None:
            return out
        text = text[:pair.start()] + text[pair.end():]
    return cut(text, width)


def cut(text: str, width: int) -> str:
    """`text` within `width` characters, an ellipsis where it was cut: between words when one is near,
    never inside a code span."""
    if len(text) <= width:
        return text
    head = text[: max(0, width - 1)]
    if text[len(head): len(head) + 1].strip() and (space := head.rfind(" ")) >= width * 3 // 4:
        head = head[:space]  # whole words: a word cut in two is neither found nor read
    if head.count("`") % 2:  # never leave a code span open
        head = head[: head.rfind("`")]
    return head.rstrip(" ,;:") + ELLIPSIS


def split_clauses(text: str) -> list[str]:
    """The text's `; `-separated clauses; a `;` inside a code span or a “quote” separates nothing."""
    out: list[str] = []
    start = 0
    in_code = in_quote = False
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
        elif ch == "“" and not in_code:
            in_quote = True
        elif ch == "”" and not in_code:
            in_quote = False
        elif ch == ";" and not in_code and not in_quote and text.startswith("; ", i):
            out.append(text[start:i])
            start = i + 2
    out.append(text[start:])
    return [c for c in out if c.strip()]


def _length(clauses: list[str]) -> int:
    return sum(map(len, clauses)) + 2 * max(0, len(clauses) - 1)


def _compress_pairs(clause: str) -> str:
    """`` `A` → `B` `` with the words both sides share elided, one kept on each side of the change:
    `` `<Text color={x} marginTop={n > 0 ? 0 : 1}>` → `<Box marginTop={n > 0 ? 0 : 1}>` `` reads
    `` `<Text color={x} marginTop={n …` → `<Box marginTop={n …` ``. A change whose sides are short is read
    whole, and an assignment keeps the name it sets."""
    def compress(m: re.Match[str]) -> str:
        old, new = m.group(1).split(), m.group(2).split()
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        if head <= CONTEXT_WORDS and tail <= CONTEXT_WORDS or max(len(m.group(1)), len(m.group(2))) <= ROOMY_SPAN:
            return m.group(0)  # nothing shared to elide, or a short change read whole
        lead = max(0, head - CONTEXT_WORDS)
        if any(w.endswith("=") for w in old[:lead]):
            lead = 0  # what an assignment sets is named on its left: `MAX_RETRIES = 3` keeps its name
        trail = max(0, tail - CONTEXT_WORDS)

        def side(words: list[str]) -> str:
            kept = " ".join(words[lead: len(words) - trail]) or ELLIPSIS
            return (f"{ELLIPSIS} " if lead else "") + kept + (f" {ELLIPSIS}" if trail else "")

        return f"`{side(old)}` → `{side(new)}`"

    return _PAIR_RE.sub(compress, clause)


# A name alone (`test_redirecting_to_bad_url`, `Legend.draw`): cut in its middle, nobody could search for it
_NAME_SPAN_RE = re.compile(r"`[A-Za-z_][\w.:]{0,59}`")
_LOOKED_FIRST = ("re-read it with ", "restored ")  # a clause whose first command span is how, not what changed


def _content_spans(clause: str) -> list[re.Match[str]]:
    """The code a clause quotes as content (a change's sides, the lines added or removed), not the
    paths it names nor the commands it ran (a check's, the re-read's before the edit)."""
    if clause.startswith("then "):
        return []
    spans = [m for m in _SPAN_RE.finditer(clause) if not _is_path(m.group(0)) and not _NAME_SPAN_RE.fullmatch(m.group(0))]
    spans = spans[1:] if clause.startswith(_LOOKED_FIRST) else spans
    if "“" in clause:  # the agent's words an attempt is told by: shortened as a change's code is (whole)
        quotes = list(_QUOTE_RE.finditer(clause))
        spans = sorted([s for s in spans if not any(q.start() <= s.start() and s.end() <= q.end() for q in quotes)]
                       + quotes, key=lambda m: m.start())
    return spans


def _command_spans(clause: str) -> list[re.Match[str]]:
    """The commands a clause names: what then passed, what re-read the file."""
    if not clause.startswith(("then ", *_LOOKED_FIRST)):
        return []
    spans = [m for m in _SPAN_RE.finditer(clause) if not _is_path(m.group(0))]
    return spans if clause.startswith("then ") else spans[:1]


def _shrink(clauses: list[str], excess: int, spans: Callable[[str], list[re.Match[str]]], floor: int) -> list[str]:
    """The clauses with the spans `spans` picks elided to a common length (never below `floor`),
    the longest first, until `excess` characters are saved or none can be."""
    found = [spans(c) for c in clauses]
    lengths = sorted((len(m.group(0)) for ms in found for m in ms), reverse=True)
    if excess <= 0 or not lengths or lengths[0] <= floor:
        return clauses
    # the highest common length whose cuts save the excess (or the floor): from the longest spans down,
    # each level between two lengths saves linearly more
    limit, saved, i = lengths[0], 0, 0
    while limit > floor:
        while i < len(lengths) and lengths[i] >= limit:
            i += 1
        nxt = max(floor, lengths[i] if i < len(lengths) else floor)
        if saved + i * (limit - nxt) >= excess:
            limit -= -(-(excess - saved) // i)  # the fewest characters off each of the i longest
            break
        saved += i * (limit - nxt)
        limit = nxt
    return [_shrink_spans(c, ms, limit) if ms else c for c, ms in zip(clauses, found, strict=True)]


def _shrink_spans(clause: str, spans: list[re.Match[str]], limit: int) -> str:
    """The clause with each of `spans` longer than `limit` elided in its middle to `limit`."""
    out, last = [], 0
    for m in spans:
        span = m.group(0)
        out.append(clause[last:m.start()])
        out.append(_elide_span(span, limit) if len(span) > limit else span)
        last = m.end()
    out.append(clause[last:])
    return "".join(out)


def _elide_span(span: str, width: int) -> str:
    """A code span within `width`: its head kept at a word boundary, then its tail unless the span
    already ends elided (a change's shared words), its middle elided."""
    body = span[1:-1] if span[0] == "`" else span[1:-1].replace("`", "")  # a quote cut leaves no code span open
    room = max(4, width - 3)
    if body.endswith(f" {ELLIPSIS}"):
        head, tail = body[: room - 1], ""
    else:
        head, tail = body[: int(room * 0.7)], body[len(body) - int(room * 0.3):] if room >= 12 else ""
    space = head.rfind(" ")
    head = head[:space] if space >= len(head) * 3 // 4 else head  # a whole word when one ends near the cut
    space = tail.find(" ")
    tail = tail[space + 1:] if 0 <= space <= len(tail) // 4 else tail
    opens, closes = span[0], span[-1]  # a code span's backticks, or an account's quotes (“…”)
    return f"{opens}{head.rstrip()}{ELLIPSIS}{tail.lstrip()}{closes}"


OPTION_SEP = " · "  # between the options of one clause (what the agent advised): cut evenly, none dropped
OPTION_FLOOR = 24  # characters each option keeps at least: its opening names it


def _options_shrunk(clauses: list[str], excess: int) -> list[str]:
    """Each clause that lists options (`OPTION_SEP`) with its options cut to one length, the longest first,
    until `excess` characters are saved: a cut at the clause's end would keep the first option whole and
    lose the others (npm's "bump the version", the advice it preferred, after "publish with
    `--provenance=false`")."""
    out = []
    for clause in clauses:
        head, sep, rest = clause.partition(": ")
        options = rest.split(OPTION_SEP) if sep else []
        if excess <= 0 or len(options) < 2:
            out.append(clause)
            continue
        lengths = sorted(map(len, options), reverse=True)
        limit = lengths[0]
        while limit > OPTION_FLOOR and sum(max(0, n - limit) for n in lengths) < excess:
            limit -= 1
        cut_options = [cut(o, limit) for o in options]
        excess -= len(clause) - len(f"{head}{sep}{OPTION_SEP.join(cut_options)}")
        out.append(f"{head}{sep}{OPTION_SEP.join(cut_options)}")
    return out


def _drop(clauses: list[str], width: int, may_go: Callable[[str], bool],
          info: Callable[[str], int]) -> list[str]:
    """Clauses that may go are dropped, least telling and latest first, until the rest fit; one is
    always kept."""
    ranked = sorted((i for i, c in enumerate(clauses) if may_go(c)), key=lambda i: (info(clauses[i]), -i))
    gone: set[int] = set()
    length = _length(clauses)
    for i in ranked:
        if length <= width or len(gone) + 1 >= len(clauses):
            break
        gone.add(i)
        length -= len(clauses[i]) + 2  # the clause and its separator
    return [c for j, c in enumerate(clauses) if j not in gone]
