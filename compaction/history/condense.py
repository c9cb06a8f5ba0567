"""A user's request said in fewer characters, by extraction: its sentences ranked by what a successor
asks of a request, the best kept in their order.

What a successor asks: what was asked (the title, the first statement), what is wrong (observed vs
expected), what the user thinks and suggests, what must or must not be done (files, style, scope) and
when it is done (the tests to pass). What it never asks: the greeting, the thanks, the pasted code or
log beyond its first line, a sentence said twice. Sentences are found by structure (lines, list items,
sentence ends, fences, headings) and ranked by cue words (English and a few other languages: issue
texts come in many) and by their identifiers (`code`, paths, CamelCase, snake_case): never by a
session's terms. A list item inherits the cue of the sentence that introduces it ("Two possibilities
are:" → its items are suggestions); a heading ("**Expected behavior**") gives its cue to what follows
it and is not shown itself.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from compaction.events import TIMESTAMP_RE
from compaction.memo import per_text

_FENCE_RE = re.compile(r"^\s*(```|~~~)")
# A fence a user wraps a pasted document in (an issue's text): its lines are prose, its own fences pastes
_PROSE_FENCE_RE = re.compile(r"^\s*(```|~~~)\s*(?:md|markdown)\s*$", re.IGNORECASE)

# How a line of a log, a stack or a screen opens (a tab, a frame's `at`/`File "`, a table's `|`, a terminal
# UI's box drawing, a timestamp, a numbered source line): a run of such lines is a paste. One list, read by
# this module and by the task's paste trimming (sources/task.py), each adding its own deep-indentation rule.
LOG_LINE_LEADS = (r"\t|[ \t]*at |[ \t]*File \"|[ \t]*[|\u2500-\u257f]|\[?\d{2,4}[-:/]\d{2}[-:/T ]|"
                  r"[ \t]*\d+[ \t]*\|")
_LOGLINE_RE = re.compile(rf"^(?:\s{{4,}}\S|{LOG_LINE_LEADS})")
_BULLET_RE = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|[a-z][.)])\s+")
# A label over the work still to do ("Next Steps", "## TODO", "**Remaining tasks:**"): a pasted summary's
# or plan's items under it are what the user wants done now, whatever else the paste says.
_NEXT_WORK_LABEL = (r"(?:#{1,6}\s+|\*\*|__)?(?:next steps?|to[ -]?dos?|remaining(?: work| tasks| steps)?|"
                    r"action items|pending(?: tasks| work)?|what(?:'s| is)? left)")
_NEXT_WORK_RE = re.compile(rf"^\s*{_NEXT_WORK_LABEL}\s*(?:\*\*|__)?:?(?:\*\*|__)?\s*$", re.IGNORECASE)
# found anywhere in a text: spaces, not line breaks, around the label (a run of blank lines is not rescanned from
# every line start)
_NEXT_WORK_LINE_RE = re.compile(rf"^[^\S\n]*{_NEXT_WORK_LABEL}[^\S\n]*+(?:\*\*|__)?:?(?:\*\*|__)?[^\S\n]*+$",
                                re.IGNORECASE | re.MULTILINE)
_NEXT_WORK_LEAD = 60  # the opening kept verbatim when a "Next Steps" label says what is asked
_NEXT_WORK_SCORE = 30.0  # below the first statement's 100: above any other sentence's worth
_HEADING_RE = re.compile(r"^\s*+(?:#{1,6}\s++(.*\S)|\*\*([^*]{2,80})\*\*:?|__([^_]{2,80})__:?)\s*$")  # no lazy title: linear
# A sentence ends at . ! ? followed by a space (not inside `file.ts`), or at a CJK full stop.
_SENT_RE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])")
# The same split for a text without `。！？；` (whose branch matches empty), opening on the whitespace it
# consumes: a pattern that opens with a character class is scanned for it in C, where one opening with a
# lookbehind is tried at every position.
_SENT_WS_RE = re.compile(r"\s(?<=[.!?]\s)\s*(?=\S)")
_CJK_STOPS = ("。", "！", "？", "；")
_LINK_RE = re.compile(r"\[([^\]\n]{1,120})\]\((\S{1,400}?)\)")
_LONG_URL = 60  # a Markdown link's target longer than this is left out: its text says what it is
_WORD_RE = re.compile(r"\w+")
_LAST_CHARS = 240  # a request's closing sentence stays when at most this long
_MAX_UNITS = 400  # sentences ranked: a request longer than this is condensed from its beginning
_MAX_CHARS, _TAIL_CHARS = 40_000, 2_000  # of a longer request, its first and last characters are read
_STRIP = ".,;:!?()[]{}\"'<>*"


def _identifiers(sentence: str) -> int:
    """How many identifiers a sentence names: code spans, paths, dotted names, snake_case, CamelCase,
    calls (a split and string tests: a regex for these backtracks on every word)."""
    n = sentence.count("`") // 2
    for w in sentence.split():
        if w.endswith("()"):
            n += 1
            continue
        w = w.strip(_STRIP)
        if len(w) < 3 or "`" in w:
            continue
        if "_" in w or "/" in w or "." in w or _mixed_case(w):
            n += 1
    return n


def _mixed_case(w: str) -> bool:
    """An upper-case letter after the first and a lower-case one anywhere (CamelCase): of an ASCII word
    by a comparison with its case changed (in C), of another by its letters one by one."""
    if w.isascii():
        rest = w[1:]
        return rest != rest.lower() and w != w.upper()
    return any(c.isupper() for c in w[1:]) and any(c.islower() for c in w)


# Cue words by what a successor asks of a request (each kind counts once per sentence): what is wrong
# (observed vs expected), the user's ideas, the rules of the work, the ask itself, when it is done.
# Words (a trailing `*`: any word it starts), phrases, and the words of other languages (found as
# substrings: CJK has no spaces). Looked up by word, not by one regex per kind: a request is read once,
# but a long one has thousands of sentences.
_CUE_TABLE: dict[str, tuple[str, str, str]] = {
    "wrong": ("expect* actual actually instead should shouldn't shouldnt but however error exception fail* crash* "
              "wrong broken bug incorrect incorrectly doesn't doesnt isn't isnt cannot can't cant unable ignor* "
              "missing print* output* show shows got return returns raise raises throw throws problem* regression",
              "does not|is not|works in|work in|no longer|when i run|when you run|when running|when run",
              "期望|预期|应该|但是|却|错误|报错|失败|崩溃|实际|問題|エラー|erwartet|sollte|attendu|devrait|esperado|debería"),
    "idea": ("probably maybe perhaps likely suspect* hypothes* cause caused causes because suggest* propos* "
             "possibilit* option alternative* could would idea workaround approach solution",
             "i think|i believe|i guess|i suspect|i assume|due to|i'd like|it would be|fix it|fix this|fixes it|"
             "fixed it", "我认为|我觉得|可能|也许|建议|原因|或者|方案|vielleicht|peut-être|quizás"),
    "rule": ("must mustn't mustnt never always only don't dont avoid without keep ensure minimal preserve style "
             "constraint constraints non-* *-first",
             "do not|make sure|not modify|not change|not touch|not edit",
             "不要|只|必须|禁止|保持|确保|不能|muss|nicht|ne pas|no debe"),
    "done": ("test tests pass passes verif* reproduc* acceptance until",
             "done when|check that|make it work", "测试|通过|验证|复现|テスト"),
}
# An ask: a question, or a sentence that opens with a request or an imperative.
_ASK_RE = re.compile(
    r"(?:(?:can|could|would|will) you|please|let'?s|i (?:want|need|would like)|make|add|create|remove|"
    r"fix|change|update|implement|write|review|refactor|rename|move|delete|run|show|explain|check|scan|find)\b"
    r"|请|帮我|能不能|可以", re.IGNORECASE)
_QUESTION_ENDS = ("?", "？", "吗", "呢")
_TOKEN_RE = re.compile(r"[\w'’-]+")


def _cue_index() -> tuple[dict[str, set[str]], list[tuple[str, str]], list[tuple[str, str]],
                          list[tuple[str, str, str]], list[tuple[str, str]]]:
    words: dict[str, set[str]] = {}
    prefixes, suffixes, phrases, foreign = [], [], [], []
    for kind, (ws, ps, fs) in _CUE_TABLE.items():
        for w in ws.split():
            if w.endswith("*"):
                prefixes.append((w[:-1], kind))
            elif w.startswith("*"):
                suffixes.append((w[1:], kind))
            else:
                words.setdefault(w, set()).add(kind)
        phrases += [(p.split()[0], f" {p} ", kind) for p in ps.split("|")]
        foreign += [(f, kind) for f in fs.split("|")]
    return words, prefixes, suffixes, phrases, foreign


_CUE_WORDS, _CUE_PREFIXES, _CUE_SUFFIXES, _CUE_PHRASES, _CUE_FOREIGN = _cue_index()
# All the prefixes and suffixes at once: a word that starts (ends) with none, most words, is not tried one by one.
_ANY_PREFIX = tuple(p for p, _ in _CUE_PREFIXES)
_ANY_SUFFIX = tuple(x for x, _ in _CUE_SUFFIXES)
# The other languages' cue words of each kind as one pattern of literals: one search a kind, not one per word.
_FOREIGN_BY_KIND = tuple((kind, re.compile("|".join(re.escape(f) for f, k in _CUE_FOREIGN if k == kind)))
                         for kind in _CUE_TABLE)
# The phrases by their first word: a sentence tries only the phrases whose first word it holds.
_PHRASES_BY_FIRST: dict[str, list[tuple[str, str]]] = {}
for _first, _phrase, _kind in _CUE_PHRASES:
    _PHRASES_BY_FIRST.setdefault(_first, []).append((_phrase, _kind))


@per_text(maxsize=50_000)
def _word_kinds(word: str) -> frozenset[str]:
    """A word's kinds, found once per word (the vocabulary of a session repeats)."""
    found = set(_CUE_WORDS.get(word, ()))
    for part in word.split("-") if "-" in word else ():
        found |= _CUE_WORDS.get(part, set())
    if word.startswith(_ANY_PREFIX):
        found.update(k for p, k in _CUE_PREFIXES if word.startswith(p))
    if word.endswith(_ANY_SUFFIX):
        found.update(k for x, k in _CUE_SUFFIXES if word.endswith(x))
    return frozenset(found)


def _cue_classes(text: str) -> set[str]:
    """The kinds of question a sentence answers."""
    low = text.lower().replace("’", "'")
    tokens = _TOKEN_RE.findall(low)
    words = set(tokens)
    found: set[str] = set().union(*map(_word_kinds, words))  # one C-level union, no loop per word
    if len(found) < len(_CUE_TABLE):
        phrases = [(p, k) for first in words.intersection(_PHRASES_BY_FIRST) for p, k in _PHRASES_BY_FIRST[first]
                   if k not in found]
        if phrases:
            padded = f" {' '.join(tokens)} "
            found.update(k for p, k in phrases if p in padded)
    if not low.isascii():
        found.update(k for k, rx in _FOREIGN_BY_KIND if k not in found and rx.search(low))
    if text.rstrip().endswith(_QUESTION_ENDS) or _ASK_RE.match(text):
        found.add("ask")
    return found


# An ask is worth less than the other kinds: every request is one, its opening sentence says it already.
_WEIGHT = {"ask": 1.5}
_GREETING_RE = re.compile(
    r"^\W*(?:hi|hello|hey|dear|thanks?|thank you|thx|cheers|regards|best|greetings|good (?:morning|afternoon|evening)|"
    r"sorry|你好|您好|谢谢|感谢|こんにちは|ありがとう|hallo|danke|bonjour|merci|hola|gracias)\b[^.!?\n]{0,40}[.!?]?\W*$",
    re.IGNORECASE)


# `name = value` and `key=value` in a trimmed paste: the field values a reproduction sets.
_ASSIGN_RE = re.compile(r"""(?<![\w=!<>])(?:\w+\.)*(\w+)\s*[:=](?![=])\s*('[^'\n]{0,60}'|"[^"\n]{0,60}"|-?[\w.]+)""")
_LITERAL_RE = re.compile(r"""^(?:'[^'(+]*'|"[^"(+]*"|-?\d[\w.]*+|True|False|None|(?=[\w.]*?\d)[\w.]*+)$""")
_VALUES_CHARS = 200  # the digest of a trimmed paste's values stays one short line


def paste_values(lines: list[str]) -> str:
    """`BitsAllocated=32, PhotometricInterpretation='MONOCHROME2', dtype=np.float32`: the values set
    in the lines a trim removes (identifiers and numbers a successor may be asked about), in order,
    each name once, at most _VALUES_CHARS characters."""
    out: list[str] = []
    seen: set[str] = set()
    size = 0
    for ln in lines:
        if "=" not in ln and ":" not in ln:
            continue  # no assignment without its sign: the pattern, tried at every position, is spared
        for name, value in _assignments(ln):
            if name in seen or name.isdigit() or not _LITERAL_RE.match(value):
                continue  # a value worth its tokens is a literal: a number, a string, a constant with a digit
            pair = f"{name}={value}"
            if size + len(pair) + 2 > _VALUES_CHARS:
                return ", ".join(out)
            seen.add(name)
            out.append(pair)
            size += len(pair) + 2
    return ", ".join(out)


@per_text(maxsize=8192)
def _assignments(line: str) -> tuple[tuple[str, str], ...]:
    """The `name = value` pairs of a line holding `=` or `:`, found once (a paste is trimmed at several
    levels, each reading most of its lines again)."""
    if "-" in line:  # a timestamp's `25T22:44` is no value a successor is asked about
        line = TIMESTAMP_RE.sub(" ", line)
    return tuple(_ASSIGN_RE.findall(line))


# A reply's opening reaction ("aha, already nice.", "ok cool"): not what it asks.
_REACTION_RE = re.compile(r"^\W*(?:a+ha+|o+h+|ok(?:ay)?|cool|nice|wow|great|perfect|awesome|yes|yeah|no|hmm+|well|"
                          r"好的?|嗯|哦)\b", re.IGNORECASE)


@dataclass(slots=True)
class _Unit:
    text: str
    at: int  # position in the request
    score: float  # without its cues' part: that depends on what is kept already (`condense`)
    para: int  # the paragraph (block) it belongs to
    cues: frozenset[str] = frozenset()
    item: bool = False  # a list item
    paste: bool = False  # a pasted block (its ends and values)
    idents: int = 0  # identifiers it names (`_identifiers`)
    rule: bool = False  # its own words say what must or must not be done (not its list's lead-in)


def _delink(text: str) -> str:
    return _LINK_RE.sub(lambda m: m.group(1) if len(m.group(2)) > _LONG_URL else m.group(0), text)


def _paste_unit(block: list[str], kind: str, at: int, para: int) -> _Unit:
    """A pasted block as its first line, its size and the values it sets (`paste_values`). A paste
    that sets values is a reproduction (what a fix is checked against): worth what a test is."""
    filled = [ln.strip() for ln in block if ln.strip()]
    if not filled:
        return _Unit("", at, -5.0, para)
    values = paste_values(block)
    n = values.count("=")
    first, last = (ln if len(ln) <= 100 else ln[:99] + "…" for ln in (filled[0], filled[-1]))
    error = _log_error(filled)
    # A log that stopped on an error: that error, where it points (destyler's pasted docs build read as its exit
    # line and "values: mode="static"", the parse error in `Sinppets.svelte (1:9)` gone); a reproduction (it sets
    # values): its last line (the check) and its values; else its first line, and its last too when short.
    if error is not None:
        ends, n = [error], 0
    elif n >= 2:
        ends = [last]
    else:
        ends = [first, last] if len(filled) > 2 and len(filled[-1]) <= 100 else [first]
    more = len(filled) - len(ends)
    note = f" [{'+' if n < 2 else ''}{more} lines of {kind}{'; values: ' + values if n >= 2 else ''}]" if more else ""
    text = " … ".join(f"`{e}`" for e in ends) + note
    weight = 0.5 + 0.7 * (_ERROR_WEIGHT if error is not None else min(n, 5))  # a log's error: what is asked about
    return _Unit(text, at, weight, para, frozenset({"done"} if n >= 2 else ()), paste=True)


# A log's error line: a marked error, a failure verdict ("[ERROR] [vite] ✗ Build failed"), an exception line
_LOG_ERROR_RE = re.compile(r"\[ERROR\]|✗|^\s*(?:error|ERROR)\b[:\s]|^\s*\w*(?:Error|Exception)\b:")
# Where an error points: a file with its line (`use-actor.svelte.js (2:12)`, `app.ts:3:5`, `x.py", line 4`)
_ERROR_PLACE_RE = re.compile(r"[\w.-]+\.[A-Za-z]\w{0,5}(?:\s?\(\d+:\d+\)|:\d+:\d+\b|\", line \d+)")
ERROR_NEAR = 3  # lines from the first error line on looked at for where it points
_EXCEPTION_SAID_RE = re.compile(r"\w(?:Error|Exception)\b:\s*\S")  # an exception's class and its message
_IN_URL_RE = re.compile(r"https?://\S*$")  # a place inside a URL (a stack frame's): no file of the project
_PLACE_AGAIN_RE = re.compile(r"(?<=:)\s+(?:[\w-]+:)?/?[\w@.~-]*/[\w@./~-]*:\d+(?::\d+)?")
ERROR_LINE_CHARS = 80
_ERROR_WEIGHT = 3  # a log's error weighs as a reproduction's three values: the paste's substance


_FRAME_LEAD_RE = re.compile(r"^\s*(?:at\s|❯)")  # a stack frame's line: where a call was, not what failed


def names_error_place(line: str) -> bool:
    """Whether a log's line names a file with its line and column (`Sinppets.svelte (1:9): Unexpected token`,
    `app.ts:3:5`) outside a URL, and is no stack frame: where the failure before it points."""
    if _FRAME_LEAD_RE.match(line):
        return False
    return any(not _IN_URL_RE.search(line, 0, p.start()) and "line" not in p.group(0)
               for p in _ERROR_PLACE_RE.finditer(line))


def opening_error(text: str) -> str | None:
    """What a message that opens with a log's error line stopped on (`_log_error`): a log pasted as the whole
    request (destyler's r5, "✗ Build failed" then `use-snapshot.svelte.js (2:0): Imports of svelte/internal/* are
    forbidden`); None for a message of the user's own words first."""
    lines = [ln.strip() for ln in text.splitlines()[:400] if ln.strip()]
    return _log_error(lines) if lines and _LOG_ERROR_RE.search(lines[0]) else None


def _log_error(lines: list[str]) -> str | None:
    """What a pasted log stopped on: its first error line, or, when that line only says it failed (a bundler's
    "✗ Build failed"), the line after it that names where (a file with its line, not a URL's), from that file's
    name on, a path that only repeats the place left out; within ERROR_LINE_CHARS; None when no line reads as
    an error."""
    at = next((i for i, ln in enumerate(lines) if _LOG_ERROR_RE.search(ln)), None)
    if at is None:
        return None
    line = lines[at]
    said = _EXCEPTION_SAID_RE.search(line) is not None  # "ReferenceError: $state is not defined" says it all
    for ln in lines[at:at + (1 if said else ERROR_NEAR)]:
        m = next((p for p in _ERROR_PLACE_RE.finditer(ln) if not _IN_URL_RE.search(ln, 0, p.start())), None)
        if m:
            # "use-actor.svelte.js (2:12): /Users/…/use-actor.svelte.js:2:12 The $ name is reserved": its message
            line = _PLACE_AGAIN_RE.sub("", ln[m.start():])
            break
    line = line.replace("`", "'")  # quoted in a code span
    return line if len(line) <= ERROR_LINE_CHARS else line[:ERROR_LINE_CHARS - 1] + "…"


def _unwrapped(lines: list[str]) -> list[str]:
    """The request's lines without the Markdown fence it wraps a pasted document in (an issue's text
    under "```md", closed by the request's last line, its inner fences pairing up): the document's prose
    is read as the request's, its own fences as pastes. A Markdown fence that closes earlier (a README's
    example, the request going on after it) stays a paste."""
    start, fence = next(((i, m) for i, ln in enumerate(lines) if (m := _PROSE_FENCE_RE.match(ln))), (0, None))
    if fence is None:
        return lines
    end = next((i for i in range(len(lines) - 1, start, -1) if lines[i].strip()), None)
    if end is None or lines[end].strip() != fence.group(1) or not _paired(lines[start + 1:end]):
        return lines
    return lines[:start] + lines[start + 1:end]


def _paired(lines: list[str]) -> bool:
    """Whether the fences among `lines` pair up as opener and closer, as CommonMark reads them (a fence
    with an info string only opens, a closer is bare and uses the opener's marks): else one of them closes
    the Markdown fence early (a README's example, then a shell block) and the document is no prose."""
    opener = None
    for line in lines:
        m = _FENCE_RE.match(line)
        if m is None:
            continue
        info = line[m.end():].split(maxsplit=1)  # the info string's first word, none when bare
        if opener is None:
            opener = m.group(1)
        elif info or m.group(1) != opener:
            return False
        else:
            opener = None
    return opener is None


def units(text: str, start: bool = True) -> list[_Unit]:
    """The request's sentences, list items and pastes, scored, in order (`start`: `text` is where the
    request starts, its first statement is what was asked)."""
    lines = text.split("\n")
    if len(text) > _MAX_CHARS:  # a very long request: its beginning and its end are ranked
        head, tail = text[: _MAX_CHARS - _TAIL_CHARS].split("\n"), text[-_TAIL_CHARS:].split("\n")[1:]
        lines = [*head[:-1], "", *tail] if len(head) > 1 else lines[:1]
    else:  # whole: its fences can be paired (a middle left out may have held an opener)
        lines = _unwrapped(lines)
    out: list[_Unit] = []
    i = para = 0
    lead_cues: set[str] = set()  # the cues of the sentence that introduces a list
    heading_cues: set[str] = set()
    first_of_para = True
    title_due: bool | None = None  # an introducer line was seen: the next statement is the title
    next_work = False  # the lines are the items under a "Next Steps" label
    while i < len(lines):
        line = lines[i]
        if _FENCE_RE.match(line):
            j = next((k for k in range(i + 1, len(lines)) if _FENCE_RE.match(lines[k])), len(lines))
            if j > i + 1:
                out.append(_paste_unit(lines[i + 1:j], "code", len(out), para))
            i, first_of_para = j + 1, False
            continue
        if line.lstrip().startswith("/*"):  # a block comment pasted with its code: up to its end
            j = next((k for k in range(i, len(lines)) if "*/" in lines[k]), len(lines) - 1) + 1
            out.append(_paste_unit(lines[i:j], "code", len(out), para))
            i, first_of_para = j, False
            continue
        j = i
        while j < len(lines) and _LOGLINE_RE.match(lines[j]):
            j += 1
        if j - i >= 3:  # a run of log or stack lines (or indented code)
            out.append(_paste_unit(lines[i:j], "pasted", len(out), para))
            i, first_of_para = j, False
            continue
        i += 1
        stripped = line.strip()
        if not stripped:  # a list may follow its lead-in after a blank line: the lead's cues stay
            para, first_of_para = para + 1, True
            continue
        if _NEXT_WORK_RE.match(line):  # its items are the work asked for; it is not shown
            para, first_of_para, lead_cues, next_work = para + 1, True, set(), True
            continue
        head = _HEADING_RE.match(line)
        if head:  # a heading: its cue goes to what follows it, it is not shown (a "Next Steps" list ends)
            heading_cues = _cue_classes(next(g for g in head.groups() if g))
            para, first_of_para, lead_cues, next_work = para + 1, True, set(), False
            continue
        bullet = _BULLET_RE.match(line)
        body = _delink(stripped[len(bullet.group(0).strip()):].strip() if bullet else stripped)
        if not bullet:
            lead_cues, next_work = set(), False
        split = _SENT_RE.split if any(map(body.__contains__, _CJK_STOPS)) else _SENT_WS_RE.split
        for k, sentence in enumerate(_closed(s for s in split(body) if s.strip())):
            sentence = sentence.strip()
            if _GREETING_RE.match(sentence) or not _WORD_RE.search(sentence):
                continue  # a greeting, a thanks, a line of punctuation (`/**`, `---`)
            own = _cue_classes(sentence)
            cues = own | heading_cues | (lead_cues if bullet else set())
            idents = _identifiers(sentence)
            score = 1.0 + min(idents, 3) * 0.7 + (1.5 if bullet and lead_cues else 0.0)  # an item of a cued list
            if next_work:
                score, cues = score + _NEXT_WORK_SCORE, cues | {"ask"}
            reaction = not cues and _REACTION_RE.match(sentence) is not None
            if not out and start and not reaction:
                score += 100  # the first statement: what was asked (not a reaction to the last answer)
            elif reaction:
                score = 0.0
            elif first_of_para and k == 0 and (cues or idents):
                score += 0.5  # a topic sentence
            if not cues and sentence.endswith(":") and len(sentence) < 100 and idents == 0:
                score -= 2.5  # a bare introducer ("Here's the issue text:") says nothing on its own
            introducer = sentence.endswith(":") and len(sentence) < 100 and not bullet
            if title_due and not introducer:  # the statement a harness's "Here is the issue:" introduces
                score, title_due = score + 20, False
                for u in out[1:]:  # what came before it is the harness's preamble
                    u.score, u.cues = -5.0, frozenset()
            elif introducer and len(out) < 8 and title_due is None:
                title_due = True
            text_ = f"{bullet.group(0).strip()} {sentence}" if bullet and k == 0 else sentence
            out.append(_Unit(text_, len(out), score, para, frozenset(cues), bool(bullet), idents=idents,
                             rule="rule" in own))
            if not bullet and (sentence.endswith(":") or k == 0):
                lead_cues = own  # the sentence's own cues, found above (never changed in place)
            first_of_para = False
    for a, b in zip(out, out[1:], strict=False):  # a list's lead-in ("Two ideas:") is said by its items
        if b.item and not a.item:
            if a.text.endswith(":") or a.text[-1:].isalpha():
                a.score, a.cues = -5.0, frozenset()
    return out


@per_text(maxsize=4)
def _units_of(text: str, start: bool) -> list[_Unit]:
    """`units`, remembered: the task is condensed at several sizes (never mutated by `condense`)."""
    return units(text, start)


def _closed(sentences: Iterable[str]) -> Iterator[str]:
    """The sentences, one that opens a parenthesis joined with those after it up to the one that closes it:
    a stop inside it ends no sentence (aider's "… iterables.union.ts (an AI! comment in x.ts)" had read
    "… iterables.union.ts (AI!")."""
    held = ""
    for s in sentences:
        held = f"{held} {s}" if held else s
        if held.count("(") <= held.count(")") or len(held) > _PAREN_CHARS:
            yield held
            held = ""
    if held:
        yield held


_PAREN_CHARS = 400  # a parenthesis left open this long is a typo, not an aside: its sentences stand apart


def opening(text: str, chars: int) -> tuple[str, str]:
    """(the request's opening of at least `chars` characters, whole lines or up to a sentence's end,
    never into a fenced block; the rest)."""
    at = 0
    while at < min(chars, len(text)):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if _FENCE_RE.match(text[at:end]):
            break
        if end - at > chars - at + 200:  # a long line: up to the first sentence end past `chars`
            m = _SENT_RE.search(text, chars, end)
            end = m.start() if m else end
        at = end + 1
    at = min(at, len(text))
    return text[:at].rstrip(), text[at:]


@per_text(maxsize=4)
def _ranking(text: str, start: bool, last: bool) -> tuple[tuple[int, set[str]], ...]:
    """The units of `text` (`_units_of`) best first: the next is the best of what is left, a kind of
    question not yet answered worth more than a second answer to one that is (each kind gets its
    sentence before any gets two). A unit's worth only falls as others rank before it: a lazy greedy
    (a popped worth still the best is the best). Filler (no cue, no identifier, no title) is not ranked;
    the first statement (and with `last` the closing one) is kept anyway (`condense`) and answers its
    kinds from the start. Each with its words (`_said`)."""
    found = _units_of(text, start)
    covered: dict[str, int] = {}
    for u in [u for u in found if u.score >= 100] + (found[-1:] if last and not found[-1].paste else []):
        for c in u.cues:
            covered[c] = covered.get(c, 0) + 1

    def worth(u: _Unit) -> float:
        return u.score + _cue_worth(u.cues, covered) - len(u.text) / 200

    heap = [(-worth(u), u.at, i) for i, u in enumerate(found[:_MAX_UNITS]) if u.score < 100 and (u.cues or u.score > 1.0)]
    heapq.heapify(heap)
    order: list[tuple[int, set[str]]] = []
    while heap:
        _, at, i = heapq.heappop(heap)
        now = worth(found[i])
        if heap and now < -heap[0][0]:
            heapq.heappush(heap, (-now, at, i))  # worth less than when ranked: ranked again
            continue
        order.append((i, _words(found[i].text)))
        for c in found[i].cues:
            covered[c] = covered.get(c, 0) + 1
    return tuple(order)


def _cue_worth(cues: frozenset[str], covered: dict[str, int]) -> float:
    """A sentence's worth by the kinds of question it answers: its best kind whole (less when that
    kind is answered already), a second kind a third of that (one sentence naming a problem and a
    suggestion is not worth two)."""
    worth = sorted((_WEIGHT.get(c, 3.0) / (1 + covered.get(c, 0)) for c in cues), reverse=True)
    return sum(w if i == 0 else w / 3 for i, w in enumerate(worth))


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text) if len(w) > 3}


def _said(words: set[str], kept: list[set[str]]) -> bool:
    """A repeat: most of its words are one kept sentence's (the title said again in the body)."""
    return len(words) >= 4 and any(len(words - k) <= len(words) // 5 for k in kept)


def condense(text: str, limit: int, *, always: bool = False, lead: int = 0, keep_last: bool = False) -> str:
    """`text` within about `limit` characters: its best sentences (see the module's docstring) in
    their order, a gap marked `…`; a head cut only when even its first statement does not fit. A text
    within `limit` comes back as it is, unless `always` (then its fillers still go). `lead`: its
    opening of that many characters stays verbatim (`opening`: what identifies the request, as it was
    written); `keep_last`: its closing sentence stays too (where a request says what it wants done)."""
    if len(text) <= limit and not always:
        return text
    if (lead or keep_last) and _NEXT_WORK_LINE_RE.search(text):  # a pasted summary or plan: its "Next Steps"
        lead, keep_last = min(lead, _NEXT_WORK_LEAD), False  # items are the ask, not its opening or its end
    head, body = opening(text, lead) if lead else ("", text)
    head = head[:lead] + _delink(head[lead:])  # past what identifies it, a long link's target goes
    if len(head) >= limit or not body.strip():
        return head[: limit - 1] + "…" if len(head) >= limit else head
    found = _units_of(body, not head)
    if not found:
        return (head + " " + body)[: limit - 1] + "…"
    limit -= len(head)
    forced = [u for u in found if u.score >= 100]  # the first statement, unless it was a reaction
    if forced and len(forced[0].text) >= limit:
        return (head + " " if head else "") + forced[0].text[: limit - 1] + "…"
    last = found[-1]
    if (keep_last and not last.paste and last.score > -5.0 and last not in forced
            and len(last.text) <= min(_LAST_CHARS, limit - sum(len(u.text) + 2 for u in forced))):
        forced.append(last)
    kept = {u.at for u in forced}
    used = sum(len(u.text) + 2 for u in forced)
    said = [_words(u.text) for u in forced]
    for i, words in _ranking(body, not head, keep_last):  # best first; the same order whatever the limit
        u = found[i]
        if u.at in kept or used + len(u.text) + 2 > limit:
            continue
        if _said(words, said):
            continue
        kept.add(u.at)
        used += len(u.text) + 2
        said.append(words)
    if not kept:
        return head + " …" if head else " ".join(text.split())[: limit - 1] + "…"
    parts: list[str] = [head] if head else []
    prev = -1
    for u in found:
        if u.at in kept:
            if parts and u.at != prev + 1:
                parts.append("…")
            parts.append(u.text + "." if u.text[-1].isalnum() else u.text)
            prev = u.at
    if prev != found[-1].at:
        parts.append("…")
    return " ".join(parts)


# What a request says besides what it asks: politeness and quoting, not the verbs or the objects.
_FILLER_RE = re.compile(
    r"^\s*>\s*|\b(?:please|kindly|just|any|(?:can|could|would) you(?: please)?|i (?:want|need|would like|'d like) you to|"
    r"help(?: me)?(?= \w+ )|go ahead and)\s+|\s*\b(?:thanks|thank you)\b[^.!?\n]*[.!?]?",
    re.IGNORECASE)


def one_line(text: str, limit: int) -> str:
    """A request in one line of about `limit` characters (an older request at a tight budget): a
    longer one its best sentences (`condense`), so its verbs and identifiers stay, its politeness gone."""
    lines = [ln.strip().lstrip(">").strip() for ln in text.split("\n")]
    shown = [ln for ln in lines if ln and not _FENCE_RE.match(ln)]
    if not shown:
        return " ".join(text.split())[:limit]
    long = sum(map(len, shown)) > limit
    if long:
        shown = condense("\n".join(lines), limit, always=True).split("\n")
    flat = " ".join(ln + "." if ln[-1:].isalnum() and i < len(shown) - 1 else ln for i, ln in enumerate(shown))
    # A request that fits stays in the user's words; a condensed one loses its politeness too.
    return (" ".join(_FILLER_RE.sub("", flat).split()) or flat) if long else flat


# A test runner's line of a failure: vitest's `×`, `FAIL`, pytest's `FAILED`/`E   `, TAP's `not ok`, an error
_FAILURE_LINE_RE = re.compile(r"^(?:[×✗✘●]\s|FAIL(?:ED)?\b|not ok\b|E\s{2,}\S|[A-Z]\w*(?:Error|Exception)\b:)")
_COUNTS_RE = re.compile(r"\b\d+ (?:failed|failing|passed|errors?)\b", re.IGNORECASE)  # a run's counts
_DURATION_RE = re.compile(r"(?:\s+in)?\s+\d+(?:\.\d+)?m?s$")
_MARK_RE = re.compile(r"^(?:[×✗✘●]|FAIL(?:ED)?)\s+")
_RUN_GIST_FAILURES = 3
_RULE_ENDS_RE = re.compile(r"^[=_-]{3,}\s*|\s*[=_-]{3,}$")
_RUN_VERDICT_RE = re.compile(r"(?i)^tests? (?:failed|passed)\b")


def run_gist(text: str, limit: int) -> str | None:
    """A pasted test run in one line: its first line, the run's counts when another line holds them, and its
    first failures by name, each once (vitest's `× name` and its `FAIL file > suite > name` are one), with how
    many more; None when it shows no failure (not a run, or all passed: its first lines say so)."""
    lines = [_RULE_ENDS_RE.sub("", " ".join(ln.split())) for ln in text.splitlines()]  # "=== 1 failed ===": its words
    lines = [ln for ln in lines if ln and not ln.startswith(("```", "~~~")) and any(c.isalnum() for c in ln)]
    if not lines:
        return None
    failed: dict[str, None] = {}  # the failing tests by name, in order
    error = None  # the first error line: what the first failure said
    for ln in lines[1:]:
        if not _FAILURE_LINE_RE.match(ln):
            continue
        if not _MARK_RE.match(ln):
            error = error or ln
            continue
        name = _DURATION_RE.sub("", _MARK_RE.sub("", ln.rsplit(" > ", 1)[-1] if ln.startswith("FAIL") else ln))
        if not _RUN_VERDICT_RE.match(name):  # vitest's closing "× Tests failed." names no test
            failed.setdefault(name, None)
    if not failed and error is None:
        return None
    head = [_DURATION_RE.sub("", lines[0])]
    # the run's counts: its last line that holds some (pytest's and jest's come last, vitest's first)
    counts = next((ln for ln in reversed(lines) if _COUNTS_RE.search(ln)), None)
    if counts is not None and counts != lines[0]:
        head.append(_DURATION_RE.sub("", counts))
    told = [f"× {name}" for name in failed]
    more = [f"+{len(told) - _RUN_GIST_FAILURES} more"] if len(told) > _RUN_GIST_FAILURES else []
    return cut_at_word(" · ".join([*head, *told[:_RUN_GIST_FAILURES], *more, *([error] if error else [])]), limit)


# --- telegraphic form: every ask of a request, each one short clause ---------------------------------

# A role-play preamble ("You are auditing…", "Your job is…"): the frame of a request, not an ask.
_ROLE_RE = re.compile(r"^\W*(?:you are|you're|your (?:job|task|role|goal|mission) is|act as|as an? [\w -]{2,30},|"
                      r"imagine you|pretend)\b", re.IGNORECASE)
# Words a telegraphic ask goes without: articles, politeness, hedges.
_TELE_DROP_RE = re.compile(
    r"\b(?:please|kindly|just|(?:can|could|would) you(?: please)?|i (?:want|need|would like|'d like) you to|"
    r"help(?: me)?(?= \w+ )|go ahead and|the|an?|any|that (?:feels?|seems?|looks?))\s+", re.IGNORECASE)
# A line of code pasted without a fence: it ends like a statement, or opens with a keyword.
_CODE_LINE_RE = re.compile(r"[;{}(\[]\s*$|\s//\s|^\W*(?:import|export|from|def|class|const|let|var|function|return|"
                           r"async|await|public|private|package|#include|\*|/\*|//)\b|^\s*[}\])]")
_TELE_OPEN_RE = re.compile(r"^(?:make sure|also|and|then|now|so)\b,?\s*", re.IGNORECASE)  # an ask's connective
_ROLE_LEAD_RE = re.compile(r"^(?:you are|you're)\s+(?=\w+ing\b)", re.IGNORECASE)  # "You are auditing X": auditing X
# A sentence opening with one of these tells (a subject, a question word, a link): any other opening of a
# request's sentence is an imperative or a rule ("surface hardcoded values", "Bullet lists use -").
_TELLING = frozenset("i i'm i've i'd we we're we've it it's this that these those the a an there here my our his her "
                     "their its he she they what which who whom when where why how if as and but or so because since "
                     "then some more currently now today yesterday thanks".split())
_LABEL_FILLER = frozenset("please do the following follows as below these steps here are is this will".split())
_MIN_CAP = 56  # an ask cut shorter than this says too little: a whole ask goes instead
_ASK_CUES = frozenset({"ask", "rule", "done", "wrong", "idea"})


def _tele(text: str) -> str:
    """A sentence said telegraphically: its list marker, articles and politeness gone (never inside a
    `code span`), no closing full stop."""
    text = _BULLET_RE.sub("", text, count=1) if _BULLET_RE.match(text) else text
    text = _ROLE_LEAD_RE.sub("", text.lstrip("> "), count=1)
    parts = text.split("`")
    parts[::2] = [_TELE_DROP_RE.sub("", p) for p in parts[::2]]
    out = " ".join("`".join(parts).split())
    out = _TELE_OPEN_RE.sub(lambda m: "ensure" if m.group(0).lower().startswith("make") else "", out, count=1)
    return out.rstrip(".。 ") or text.strip()


def _rank(u: _Unit) -> int:
    """0 the request's opening statement, 1 an ask (a list item, an imperative, a constraint, an
    acceptance, a problem named, a suggestion, or a sentence that names code), 2 explanation prose, 3 a
    role-play preamble (one that is a task, "You are auditing X", is an ask: "auditing X"), 4 a paste
    or a line of code; -1 nothing worth showing."""
    if u.score <= -5 or u.score == 0.0 or not u.text:
        return -1
    if u.paste or _CODE_LINE_RE.search(u.text) or _code_marks(u.text) >= 4:
        return 4
    if _ROLE_RE.match(u.text) and not _ROLE_LEAD_RE.match(u.text):
        return 3  # a role ("You are an expert…"); a role that is a task ("You are auditing X") is an ask
    if u.score >= 100:
        return 0
    first = _TOKEN_RE.match(u.text.lstrip("> *_").lower())
    if u.item or u.cues & _ASK_CUES or u.idents or (first and first.group(0) not in _TELLING):
        return 1
    return 2


_CODE_MARKS = "(){}[];=<>$|\\"
# A Windows path (`packages\config\eslint\src\index.ts`, `C:\Users\me`): its separators are a path's, not
# code's marks. It opens a token and has a drive or ends in a file's extension; an escape (`id\tname`, `%s\n`,
# a regex's `a\.b`) has neither. Each token is tried once (no match starts inside another).
_WINDOWS_PATH_RE = re.compile(r"(?<![\w.\\-])(?:[A-Za-z]:\\(?:[\w.-]++\\?)*+|(?:\w[\w-]*+\\)++\w[\w.-]*?\.\w{1,6}\b)")


def _code_marks(text: str) -> int:
    """How many of code's punctuation marks a sentence holds outside `code spans` and Windows paths (a
    pasted line of code or shell has several; prose a parenthesis or two, whatever paths it names)."""
    plain = [_WINDOWS_PATH_RE.sub("_", part) if "\\" in part else part for part in text.split("`")[::2]]
    return sum(part.count(c) for part in plain for c in _CODE_MARKS)


def _labels(found: list[_Unit]) -> dict[int, str]:
    """The lead-ins of lists ("Objectives:", "Constraints:") by the position of their first item: a
    label that groups the asks after it, unless it says nothing ("Please do the following:")."""
    out: dict[int, str] = {}
    for a, b in zip(found, found[1:], strict=False):
        if b.item and not a.item and a.text.endswith(":") and len(a.text) <= 80:
            words = {w.lower() for w in _WORD_RE.findall(a.text)}
            if words - _LABEL_FILLER:
                out[b.at] = _tele(a.text.rstrip(":")) + ":"
    return out


@per_text(maxsize=4)
def _ranks(text: str) -> tuple[int, ...]:
    """`_rank` of each of `_units_of(text, True)`, found once (a request is counted, then shortened)."""
    return tuple(_rank(u) for u in _units_of(text, True))


def ask_count(text: str) -> int:
    """How many asks a request makes (`_rank` 0 or 1): its opening, its list items, its imperatives
    and constraints. A paste (lines of code or shell at least as many as the rest) makes none."""
    ranks = _ranks(text)
    asks, code = sum(1 for r in ranks if 0 <= r <= 1), ranks.count(4)
    return 0 if code >= asks + ranks.count(2) else asks


def telegraph(text: str, limit: int, prose: int | None = None) -> str:
    """A request in one line of about `limit` characters that keeps every ask before any explanation:
    each ask one telegraphic clause (`_tele`), joined by `;`, a list under its label; when even that is
    too long, the longest asks are cut to the same length (none below _MIN_CAP characters: the latest
    paste, then preamble and explanation, then the latest asks go first; the constraints stay longest).
    `prose`: the length within which explanation may stay (the room beyond it is the asks' only)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat  # it fits: the user's words
    found = _units_of(text, True)
    labels = _labels(found)
    by_at = {u.at: u for u in found}
    if found and found[0].at + 1 in labels:  # the request opens with a list's lead-in: it is what is asked
        by_at[found[0].at] = _Unit(labels.pop(found[0].at + 1).rstrip(":"), found[0].at, 100.0, found[0].para)
    # the opening, then the asks, each list its first item before any list its second, the constraints
    # (what must or must not be done, by their own words: not an item of "This will ensure:") before
    # the other asks, then explanation, preamble and pastes (their latest dropped first)
    nth: dict[int, int] = {}  # an item's place in its list (0: the first item, or not an item)
    for a, b in zip(found, found[1:], strict=False):
        nth[b.at] = nth.get(a.at, 0) + 1 if a.item and b.item else 0
    ranks = dict(zip((u.at for u in found), _ranks(text), strict=True))
    if found and by_at[found[0].at] is not found[0]:
        ranks[found[0].at] = 0  # the lead-in made the opening
    ranked = sorted(((r, at) for at, r in ranks.items() if r >= 0),
                    key=lambda p: (p[0], nth.get(p[1], 0), not by_at[p[1]].rule, p[1])
                    if p[0] <= 1 else (p[0], -p[1]))
    said = {at: _tele(by_at[at].text) for _, at in ranked}
    seen: set[str] = set()  # a sentence said again (a pasted twice, a repeated line) is one ask
    keep = [at for _, at in ranked if not (said[at].lower() in seen or seen.add(said[at].lower()))]
    if prose is not None and sum(len(said[at]) + 2 for at in keep) > prose:
        keep = [at for r, at in ranked if r <= 1] or keep[:1]  # room for the asks, not for the prose
    while keep:
        lens = [len(said[at]) + 2 for at in keep]
        room = limit - sum(len(labels[at]) + 1 for at in keep if at in labels)
        if sum(lens) <= room:
            cap = None
            break
        lo, hi = _MIN_CAP, max(lens)
        if sum(min(n, lo) for n in lens) > room:
            if len(keep) == 1:
                cap = room
                break
            keep.pop()  # the least worth: the latest paste, then explanation, then the least ask
            continue
        while lo < hi:  # the largest cut every ask can take
            mid = (lo + hi + 1) // 2
            if sum(min(n, mid) for n in lens) <= room:
                lo = mid
            else:
                hi = mid - 1
        cap = lo
        break
    if not keep:
        return cut_at_word(flat, limit)
    out, prev = "", -2
    for at in sorted(keep):
        s = said[at]
        if cap is not None and len(s) + 2 > cap:
            s = _shut(cut_at_word(s, cap - 2 if len(keep) > 1 else cap))  # a lone ask has no separator
        if out:  # a lead-in is followed by its own next item, else it ends like any ask
            out = out + " " if out.endswith(":") and at == prev + 1 and at not in labels else out.rstrip(":") + "; "
        out += f"{labels[at]} {s}" if at in labels else s
        prev = at
    return out.rstrip(":")  # a lead-in whose items were left out


def _shut(cut: str) -> str:
    """A cut clause that leaves a parenthesis open, cut before it instead, when what precedes it says
    enough: "… iterables.union.ts (AI!…" reads as "… iterables.union.ts…"."""
    at = cut.rfind("(")
    if at < 0 or cut.count("(") <= cut.count(")") or at < len(cut) // 2:
        return cut
    return cut[:at].rstrip(" ,;:") + "…"


def cut_at_word(text: str, n: int) -> str:
    """`text` within `n` characters, cut at a word's end when one is in its second half, marked `…`."""
    if len(text) <= n:
        return text
    head = text[: max(1, n - 1)]
    space = head.rfind(" ")
    return (head[:space] if space > n // 2 else head).rstrip(",;: ") + "…"


# Where a clause ends: a sentence's stop, a semicolon or a comma (Latin or wide), then a space or not; not
# the stop of a list's number ("5. "), of an abbreviation ("e.g. ", "vs. ") or of a decimal.
_CLAUSE_END_RE = re.compile(r"(?<!\b[eE]\.g)(?<!\b[iI]\.e)(?<!\bvs)(?<!\betc)(?<![\s(]\d)(?<![\s(]\d\d)[.;!?](?=\s)"
                            r"|[。；！？，、]|,(?=\s)")
CLAUSE_KEEPS = 0.8  # of the room: a clause ending sooner than this is cut at a word instead (less is lost)


def cut_at_clause(text: str, n: int) -> str:
    """Prose within `n` characters, cut where a sentence or clause ends when one is in the last part of
    the room (a reader gets whole statements: "…fed by hardware…" says half of one), else at a word's
    end; never inside a backticked name (`seeItemIsNotS…` names nothing)."""
    if len(text) <= n:
        return text
    head = text[: max(1, n - 1)]
    ticks = [m.start() for m in re.finditer("`", head)]
    def in_code(at: int) -> bool:
        return sum(1 for t in ticks if t < at) % 2 == 1
    ends = [m.end() for m in _CLAUSE_END_RE.finditer(head) if m.end() > n * CLAUSE_KEEPS and not in_code(m.start())]
    if ends:
        cut = head[:ends[-1]]
    else:
        space = head.rfind(" ")
        while space > n // 2 and in_code(space):  # a space inside a backticked span: the span's start instead
            space = head.rfind(" ", 0, head.rfind("`", 0, space))
        cut = head[:space] if space > n // 2 else head
    if cut.count("`") % 2:  # an opened backtick span: cut before it
        before = cut[:cut.rfind("`")].rstrip()
        cut = before if len(before) > n // 2 else cut
    return cut.rstrip(",;:，、 ") + "…"
