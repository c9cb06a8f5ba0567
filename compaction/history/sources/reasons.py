"""Why each change was made: the agent's own reason for an edit, found by where it writes it, not by
its wording. An agent states why right before the call (the same message, or the texts before it
since the user's request: a refused attempt's text, a plan a few steps back) or in its report right
after. Of that prose, the sentences that name what the edit touched (its identifiers, its file) and
say more than the edit itself (other names, numbers, a causal clause) are its reason: "Since
`OffsetBox` doesn't know about `DraggableOffsetBox`, it won't call `_connect` in `draw`." for a rename
of `_connect` written after a refused attempt.

Why by position and names rather than cue phrases ("because", "I'll"): an agent writing in Chinese,
or stating a reason without a cue word, still writes it beside the call and still names the code.
Cue words in two languages only weigh a sentence up; they never decide alone.

The edit's own text (its call's message, its report) comes first: an older text's sentence that only shares
the edit's names, without a cause, is an idea weighed before and gives way to it. In the own text, the agent's
list of what it changed ("主要改动：1. 移除了…") weighs above a guess it wrote before the edit, and a sentence of
code with hardly a word of prose reads with the next one pointing back at it ("`X.set_output` calls `super()…`.
I need to update it to accept `**kwargs`…").
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from compaction.events import OFFER_RE, Event, EventKind
from compaction.history.facts import Fact, display_path, letters, relative_paths
from compaction.history.flatten import unbold
from compaction.history.headings import h
from compaction.history.sections import Section
from compaction.history.sentences import BEFORE_WIDE_TEXT, WIDE_CLASS, prose
from compaction.history.sources.filelog import logs_of
from compaction.history.sources.final_diff import final_added, final_removed
from compaction.history.sources.registry import FactContext, fact_source
from compaction.memo import per_text
from compaction.model import Message, Role

NEAR = 2  # texts this close to the call may tie a sentence to it by one shared name; farther, by two
BEFORE = 10  # assistant texts before an edit's own read for its reason (a plan often precedes it by a few steps)
TEXT_CHARS = 6000  # of each text read
MAX_FILES = 8  # files given a reason (the most recently edited first): bounded work
EDITS_PER_FILE = 4  # a file's latest edits given a reason each, latest first
MAX_EDITS = 12  # edits given a reason in all: bounded work
MAX_SENTENCES = 2
BASE_SCORE = 40  # plus the reason's value: beside the agent's reasoned choices (38-46)
SHORT_CHARS = 150  # the one-line form: its best sentence
FULL_CHARS = 320  # with room: its two best sentences
MIN_CHARS, MAX_CHARS = 20, 400  # a sentence's length to be read as one
MIN_WORDS = 4  # of prose, outside its code names
MIN_VALUE = 3.5  # a name of the edit and a cause, or a name of it and two more: less says nothing of why
# Sentence ends in both scripts: a Latin stop needs a space after it (`a.b()` is a name, not an end).
# A full-width colon before a space ends a step's lead-in ("让我查看…： "): the call followed it.
# A Latin stop right before a wide character ends a sentence too ("…in Chinese.已在源头修正…": a thought in
# English, then the reply in Chinese, with no space between).
_SPLIT_RE = re.compile(r"[.!?](?:\s+|" + BEFORE_WIDE_TEXT + r")|[。！？]\s*|：\s+|\n+")
_SPAN_RE = re.compile(r"`([^`\n]{1,80})`")
# A name as code writes it: dotted, snake_case, camelCase, a call — outside code spans too.
_CODE_NAME_RE = re.compile(r"\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|\b_*[A-Za-z][\w$]*_[\w$]*|\b[a-z]+[A-Z][\w$]*"
                           r"|\b[A-Za-z_$][\w$]*(?=\()|[\w.-]+\.[A-Za-z]{1,5}\b")
# Its alternatives without a dot: a text with no dot before a name's first character cannot match the
# two others (a dotted name, a file name), and these scan it in a third of the time (the file-name one
# re-reads each word from every letter of it).
_UNDOTTED_NAME_RE = re.compile(r"\b_*[A-Za-z][\w$]*_[\w$]*|\b[a-z]+[A-Z][\w$]*|\b[A-Za-z_$][\w$]*(?=\()")
_DOTTED_RE = re.compile(r"\.[A-Za-z_$]")
_IDENT_RE = re.compile(r"[A-Za-z_$][\w$]*")
# What a sentence naming code or a number holds (a backtick, `_`, a call, a dot inside a word, a capital
# inside a word, a digit): one search, before the dearer reading of its names.
_CODE_HINT_RE = re.compile(r"[`_(\d]|\w\.\w|[a-z][A-Z]")
_ANY_SPAN_RE = re.compile(r"`[^`\n]*`")
_WORD_RE = re.compile(r"\b[^\W\d_]{2,}\b")
_CJK_RE = re.compile(WIDE_CLASS)
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\b")
# Words every language's code shares, which name nothing the edit is about.
_STOP = frozenset("self this none null true false return if else elif for while def class function const let var "
                  "import from not and or is in new the int str bool void public private static async await "
                  "end then do try except catch finally raise throw pass with as".split())
# A causal or contrastive clause, in the two languages the sessions are written in. A weight only.
_CAUSE_LATIN = (r"\b(?:because|since|so that|otherwise|which means|means that|implies|ensures?|in order to|"
                r"to avoid|instead of|rather than|would (?:be|work|break|fail|ensure)|(?:doesn't|does not|won't|"
                r"can't|cannot) (?:work|help|know)|only helps)")
_CAUSE_CJK = "因为|由于|所以|因此|为了|否则|导致|意味着|而不是|这样|以便|确保"
_CAUSE_RE = re.compile(f"{_CAUSE_LATIN}|{_CAUSE_CJK}", re.IGNORECASE)
# The same for lower-cased text, case-sensitive and in two searches (their matches cannot overlap: Latin
# words, CJK ones): a third of the time. Exact where the text holds none of the four characters
# IGNORECASE folds onto an ASCII letter that `str.lower` does not (`ſ`, `K`, `ı`, `İ`).
_CAUSE_LATIN_RE = re.compile(_CAUSE_LATIN)
_CAUSE_CJK_RE = re.compile(_CAUSE_CJK)
_FOLDS_RE = re.compile("[\u0130\u0131\u017f\u212a]")


def _causes(text: str, lowered: str) -> list[int]:
    """Where `_CAUSE_RE` matches in `text` (`lowered`: its lower case, when of the same length), in order."""
    if lowered is not text and len(lowered) == len(text) and _FOLDS_RE.search(text) is None:
        latin = [m.start() for m in _CAUSE_LATIN_RE.finditer(lowered)]
        cjk = [m.start() for m in _CAUSE_CJK_RE.finditer(lowered)]
        return sorted(latin + cjk) if cjk else latin
    return [m.start() for m in _CAUSE_RE.finditer(text)]


@dataclass(slots=True)
class Reason:
    """The agent's reason for one call's edits: the files it changed, the round of the edit and of
    the prose, its best sentence (`short`) and best two (`full`), and how telling it is."""

    paths: list[str]
    edited: int
    source: int
    score: float
    short: str
    full: str
    said: str = ""  # its best sentence whole, as the agent wrote it (`Fact.quote`)


def reasons(ctx: FactContext) -> list[Reason]:
    """Each kept file's latest edits' reasons, the most recently edited files first."""
    if not ctx.preset.code:
        return []
    edits = _kept_edits(ctx)
    if not edits:
        return []
    asked = sorted(e.message_index for e in ctx.events if e.kind is EventKind.REQUEST)
    found: dict[int, Reason] = {}  # the call's message -> its reason
    used: set[str] = set()  # sentences one edit's reason took: another's reason is something else
    for path, rank, events, fences in edits:
        e = events[0]
        if e.message_index in found:  # one call edited several files: one reason for them all
            found[e.message_index].paths.append(path)
            continue
        terms = _edit_terms(path, events)
        # Not past the user's request the edit answers: what came before it answered another one.
        # Nor past the next one: what follows it answers that one.
        i = bisect.bisect_right(asked, e.message_index)
        fences = (max(fences[0], asked[i - 1] if i else -1), min(fences[1], asked[i] if i < len(asked) else 1 << 30))
        got = _reason(_window(ctx, e.message_index, e.round, fences), terms, used) if terms else None
        if got is not None:
            short, full, score, source, said = got
            found[e.message_index] = Reason([path], e.round, source, score - rank, short, full, said)
    return list(found.values())


@fact_source(Section.DECISIONS)
def reason_facts(ctx: FactContext) -> list[Fact]:
    """For each kept file's latest edits, the agent's reason for it, one fact per reason (the files
    one reason covers named together)."""
    out: list[Fact] = []
    for r in reasons(ctx):
        shown = [_tail(display_path(p, ctx.cwd)) for p in dict.fromkeys(r.paths)]
        names = ", ".join(f"`{p}`" for p in shown)
        head = h(ctx.lang, "change_reason").format(files=names, n=r.edited)
        text = relative_paths(head + r.short, ctx.cwd)
        whole = relative_paths(head + r.full, ctx.cwd) if r.full != r.short else None
        out.append(Fact(Section.DECISIONS, text, [r.source], score=r.score, prose=True, full_text=whole,
                        quote=r.said or None))
    return out


PATH_PARTS = 2  # a file named by its last parts: the modified-files list has it whole


def _tail(path: str) -> str:
    """`test/tree.spec.ts` for `/Users/me/repo/packages/tree/test/tree.spec.ts`: enough to find it in
    the file list, for a fraction of the tokens."""
    return "/".join(path.split("/")[-PATH_PARTS:])


def _kept_edits(ctx: FactContext) -> list[tuple[str, int, list, tuple[int, int]]]:
    """(path, rank among its file's edits, the call's events, the message indexes bounding its
    prose) of each kept file's latest edits, the most recently edited files first. The bounds: the
    file's previous edit before it (its prose is that edit's reason) and its next one after it."""
    files = []
    final = final_added(ctx)
    removed = final_removed(ctx)
    for path, log in logs_of(ctx).items():
        kept = log.kept
        if not kept or log.deleted:
            continue
        submitted = _submitted_lines(final, path)
        put_back = _lines_of(final, path) - _lines_of(removed, path)  # added, and not moved from elsewhere
        # the lines the session's edits added that the final diff does not hold: a debug print, a probe
        unkept = [ln for ed in log.edits for h in ed.event.hunks if not h.fragment for ln in h.added
                  if len(ln.strip()) >= 8 and ln.strip() not in (submitted or "")] if submitted is not None else []
        calls: dict[tuple[int, int], list] = {}
        for e in kept:
            # (a path-less write the agent's own account named: that account is no reason for it)
            if e.kind in (EventKind.EDIT, EventKind.WRITE) and not (e.inferred and not e.hunks) \
                    and not _taken_out(e, submitted, put_back, unkept):
                calls.setdefault((e.round, e.message_index), []).append(e)
        if calls:
            files.append((max(calls), path, calls))
    files.sort(reverse=True)
    out = []
    for _, path, calls in files[:MAX_FILES]:
        order = sorted(calls)
        for rank, key in enumerate(reversed(order[-EDITS_PER_FILE:])):
            i = order.index(key)
            lo = order[i - 1][1] if i > 0 else -1
            hi = order[i + 1][1] if i + 1 < len(order) else 1 << 30
            out.append((path, rank, calls[key], (lo, hi)))
    out.sort(key=lambda x: x[1])  # every file's latest edit before any file's earlier ones (stable: recent files first)
    return out[:MAX_EDITS]


def _submitted_lines(final: dict[str, set[str]] | None, path: str) -> str | None:
    """The final diff's added lines of `path`, joined once for the file's edits (the diff names it from the
    repository's root, the session maybe by an absolute path); None when there is no final diff to judge by."""
    if final is None:
        return None
    return "\n".join(_lines_of(final, path))


def _lines_of(final: dict[str, set[str]] | None, path: str) -> set[str]:
    """`path`'s lines in one side of the final diff (empty when there is none)."""
    if final is None:
        return set()
    slashed = path.replace("\\", "/")
    return next((lines for name, lines in final.items() if slashed == name or slashed.endswith("/" + name)), set())


def _taken_out(event: Event, submitted: str | None, put_back: set[str] | frozenset[str] = frozenset(),
               unkept: list[str] | tuple[str, ...] = ()) -> bool:
    """An edit whose added lines the final diff holds none of: a debug print, a probe, an attempt a later
    edit replaced; or one that only deleted whole lines the final diff adds again (`put_back`: the diff's added
    lines of the file less those it also removes, which moved): a change taken out to run the tests without it,
    then put back; or a substitution inside a line an edit added that the final diff does not hold (`unkept`:
    django's `sed -i '1073s/type(value)/value/'` in a debug print deleted later). Its reason is no reason for
    what the session leaves behind."""
    if submitted is None or not event.hunks:
        return False
    # a substitution's piece ("value" for `type(value)`) is in any diff: too short to judge by
    added = {ln.strip() for hunk in event.hunks for ln in hunk.added if len(ln.strip()) >= (8 if hunk.fragment else 4)}
    if not added:
        if any(hunk.added for hunk in event.hunks):
            # it added something too short to judge by: by the line it changed, when an edit added that line
            # and the final diff holds it nowhere
            pieces = [hunk.removed[0].strip() for hunk in event.hunks if hunk.fragment and hunk.removed]
            return bool(pieces) and all(len(p) >= 6 and p not in submitted and any(p in ln for ln in unkept)
                                        for p in pieces)
        gone = {ln.strip() for hunk in event.hunks for ln in (*hunk.removed, hunk.deletes_matching or "")
                if len(ln.strip()) >= PUT_BACK_CHARS and not ln.startswith("<line(s) ")}
        return any(ln in put_back for ln in gone)
    return not any(ln in submitted for ln in added)  # a substitution's added text is a piece of a line


PUT_BACK_CHARS = 12  # a deleted line this long found again among the final diff's added lines was put back


SCAN_BACK, SCAN_AHEAD = 400, 100  # messages walked from an edit's call for its texts: bounded work


def _window(ctx: FactContext, index: int, round_: int, fences: tuple[int, int]
            ) -> list[tuple[tuple[int, int, str], int, bool]]:
    """The texts around the edit's call at message `index`, as ((message index, round, text), how
    many texts back, whether it is the call's own): its own text and up to BEFORE before it (not
    past `fences[0]`: the file's previous edit, the request it answers), and its report after it
    (before `fences[1]`): the next text in its round (an exporter's merged response), or a closing
    text that calls nothing (a step-wise agent's next text with a call plans its next step). Walked
    from the call, not listed for the whole session: a million-record session stays cheap."""
    lo, hi = fences
    msgs = ctx.transcript.messages
    at = bisect.bisect_right(msgs, index, key=lambda m: m.index)  # msgs[:at] are at or before the call
    out: list[tuple[tuple[int, int, str], int, bool]] = []
    j = at - 1
    while j >= max(0, at - SCAN_BACK) and len(out) < BEFORE and msgs[j].index > lo:
        if _is_request(msgs[j]):  # the request events are bounded on long sessions: the messages say it too
            break
        if _is_text(msgs[j]):
            rnd = _round_of(ctx, msgs[j].index)
            out.append(((msgs[j].index, rnd, msgs[j].text), len(out), not out and rnd == round_))
        j -= 1
    for m in msgs[at:at + SCAN_AHEAD]:
        if m.index >= hi or _is_request(m):
            break
        if _is_text(m):
            rnd = _round_of(ctx, m.index)
            if rnd == round_ or not m.tool_calls:
                out.append(((m.index, rnd, m.text), 0, True))
            break
    return out


def _is_request(msg: Message) -> bool:
    return msg.role is Role.USER and not msg.harness and bool(msg.text) and not msg.text.isspace()


def _is_text(msg: Message) -> bool:
    return msg.role is Role.ASSISTANT and bool(msg.text) and not msg.harness and not msg.text.isspace()


def _round_of(ctx: FactContext, index: int) -> int:
    """The number of the round holding message `index`."""
    rounds = ctx.transcript.rounds
    at = bisect.bisect_right(rounds, index, key=lambda r: r.messages[0].index)
    return rounds[at - 1].number if at else 0


def _code_names(text: str) -> re.Pattern[str]:
    """`_CODE_NAME_RE`, or where it cannot match a dotted name, its faster equal."""
    return _CODE_NAME_RE if _DOTTED_RE.search(text) else _UNDOTTED_NAME_RE


def _names(text: str) -> set[str]:
    """The code names a text holds (code spans and code-shaped words), lower-cased, each dotted name
    with its parts, leading underscores dropped (`_connect` and `connect` are one name to compare)."""
    if "`" in text:
        rest = _SPAN_RE.sub(" ", text)
        found = [m.group(1) for m in _SPAN_RE.finditer(text)] + _code_names(rest).findall(rest)
    else:  # no code span: the text is read whole
        found = _code_names(text).findall(text)
    out: set[str] = set()
    for name in found:
        if "/" in name:  # a path names its file: its folders say nothing of the change
            name = name.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        for ident in _IDENT_RE.findall(name):
            ident = ident.lower().lstrip("_$")
            if len(ident) >= 3 and ident not in _STOP:
                out.add(ident)
    return out


def _edit_terms(path: str, events: list) -> set[str]:
    """What an edit is about: the identifiers of the lines it removed and added, where it landed,
    and its file's name."""
    out: set[str] = set()
    stem = path.rsplit("/", 1)[-1]
    out.update(x.lower() for x in _IDENT_RE.findall(stem) if len(x) >= 3)
    # (an edit whose export kept only its text after it: that text, `Hunk.shown`)
    lines = [line[:300] for e in events for h in e.hunks
             for line in (*h.removed[:40], *(h.added or h.shown)[:40], h.context or "")]
    for ident in set(_IDENT_RE.findall("\n".join(lines))):
        ident = ident.lower().lstrip("_$")
        if len(ident) >= 3 and ident not in _STOP:
            out.add(ident)
    out.discard(stem.rsplit(".", 1)[-1].lower())  # `py`, `ts`: an extension names nothing
    return out


def _reason(window: list[tuple[tuple[int, int, str], int, bool]], terms: set[str], used: set[str]
            ) -> tuple[str, str, float, int, str] | None:
    """(best sentence, best two, score, round it came from, best sentence uncut) of the texts around an edit's call
    (`_window`), for the edit's names `terms`; sentences in `used` are another edit's reason."""
    scored: list[_Scored] = []
    searched = _searched(terms)  # once per edit, not once per text of its window
    for (_, rnd, text), distance, own in window:
        read = _read(text)
        values: dict[int, tuple[_Statement, float]] = {}
        for pos in read.candidates(searched, own, distance <= NEAR):
            said = read.statement(pos)
            if said is None or _said(said.text, used):
                continue
            value = _value(said, terms, own)
            values[pos] = said, value
            if value > 0:
                scored.append(_Scored(value - 0.4 * distance, rnd, pos, said.text, own, said.cause))
        if own:
            scored += _pairs(values, terms, used, rnd)
    scored = _own_first(scored)
    if not scored:
        return None
    scored.sort(key=lambda x: -x.value)
    best = scored[:MAX_SENTENCES]
    if len(best) > 1 and _repeats(best[1].text, best[0].text):
        used.add(best.pop().text)  # the first again (a quote pasted twice): said, and no other edit's reason
    if len(best) > 1 and best[1].value < best[0].value - 3:  # a far weaker second says little
        best = best[:1]
    best.sort(key=lambda x: (x.round, x.pos))  # in the order the agent wrote them
    used.update(x.text for x in best)
    short = _cut(scored[0].text, SHORT_CHARS)
    full = _cut(_joined([x.text for x in best]), FULL_CHARS)
    return short, full, BASE_SCORE + min(scored[0].value, 8), scored[0].round, scored[0].text


@dataclass(frozen=True, slots=True)
class _Scored:
    """A sentence (or two running on) found for an edit's reason: its value, where it was written, whether in
    the edit's own text (its call's message, its report) and whether it gives a cause."""

    value: float
    round: int
    pos: int
    text: str
    own: bool
    cause: bool


def _own_first(scored: list[_Scored]) -> list[_Scored]:
    """When the edit's own text gives a reason, an older text's sentence counts only if it gives a cause:
    one merely sharing the edit's names is about an idea weighed before (scikit-learn's r15 dict idea,
    "So if I do `selector.set_output(transform={…})`…", outranked the r19 edit's own "`FunctionTransformer.
    set_output` calls `super().set_output(transform=transform)`. I need to update it to accept `**kwargs`…")."""
    if not any(x.own for x in scored):
        return scored
    return [x for x in scored if x.own or x.cause]


def _said(text: str, used: set[str]) -> bool:
    """Another edit's reason took this sentence, or the same words (a quote the agent pasted again)."""
    return text in used or any(_repeats(text, u) for u in used)


def _repeats(second: str, first: str) -> bool:
    """The second sentence is the first again (a quote the agent pasted twice, "And: \"The `dtypes`…\"")."""
    a, b = _letters(second), _letters(first)
    return bool(a) and (a in b or b in a)


_letters = per_text(maxsize=4096)(letters)  # sentences compared whatever their quotes and spacing


# A sentence pointing back at what the one before it named ("I need to update it to accept `**kwargs`")
_REFERS_BACK_RE = re.compile(r"\b(?:it|them|this|that|these|those)\b|它|这个|该方法|该函数", re.IGNORECASE)


def _pairs(values: dict[int, tuple[_Statement, float]], terms: set[str], used: set[str], rnd: int
           ) -> list[_Scored]:
    """Two running sentences of the edit's own text read as one where neither says enough alone, the first
    is code with hardly a word of prose and the second points back at it: scikit-learn's
    "`FunctionTransformer.set_output` calls `super().set_output(transform=transform)`." (the names, one word of
    prose) then "I need to update it to accept `**kwargs` and pass them." (the plan, one name): together, why."""
    out: list[_Scored] = []
    for pos, (said, value) in values.items():
        before = values.get(pos - 1)
        if before is None or value > 0 or before[1] > 0 or not 0 < _words(before[0].text) < MIN_WORDS \
                or not _REFERS_BACK_RE.search(said.text):
            continue  # one says enough alone, the first is more than names (or a quoted line), the second stands alone
        both = _Statement(_joined([before[0].text, said.text]), before[0].names | said.names,
                          before[0].numbers + said.numbers, before[0].cause or said.cause,
                          before[0].account or said.account)
        if len(both.text) > MAX_CHARS or _said(both.text, used):
            continue
        joined = _value(both, terms, True, joined=True)
        if joined > 0:
            out.append(_Scored(joined, rnd, pos - 1, both.text, True, both.cause))
    return out


@dataclass(frozen=True, slots=True)
class _Statement:
    """A sentence of the agent's prose, read once: the windows of several edits share a text."""

    text: str
    names: frozenset[str]
    numbers: int
    cause: bool
    account: bool = False  # an item of the agent's list of what it changed ("主要改动：1. …", "Changes:")


class _Prose:
    """One assistant text, read for reasons: its sentences' bounds once, then only the sentences
    where an edit's names occur (a plain substring search), each analysed once (the windows of
    several edits share a text). Reading every sentence of every text cost several times more."""

    __slots__ = ("text", "lowered", "_ends", "said", "caused")

    def __init__(self, text: str) -> None:
        self.text = text
        lowered = text.lower()
        self.lowered = lowered if len(lowered) == len(text) else text  # offsets must match the text's
        self._ends: list[int] | None = None  # split on first need: most texts hold none of an edit's names
        self.said: dict[int, _Statement | None] = {}
        self.caused: list[int] | None = None

    @property
    def ends(self) -> list[int]:
        """Where each sentence ends (the last: the text's end)."""
        if self._ends is None:
            self._ends = [m.end() for m in _SPLIT_RE.finditer(self.text)] + [len(self.text)]
        return self._ends

    def candidates(self, searched: list[str], own: bool, near: bool) -> list[int]:
        """The sentences holding one of the `searched` names (`_searched`) in a text near the call;
        farther back, two of them (one alone is mostly a common word there: `text`, `value`); in the
        call's own text, also those with a cause."""
        hits: dict[int, int] = {}  # sentence -> terms found in it
        lowered = self.lowered
        for term in searched:
            at = lowered.find(term)
            if at < 0:  # most names are in none of the texts: no split, no counting
                continue
            ends = self.ends
            last = -1
            while at >= 0:
                i = bisect.bisect_right(ends, at)
                if i != last:
                    hits[i] = hits.get(i, 0) + 1
                    last = i
                at = lowered.find(term, at + len(term))
        found = {i for i, n in hits.items() if n >= 2 or near}
        if own:
            if self.caused is None:
                self.caused = [bisect.bisect_right(self.ends, at) for at in _causes(self.text, self.lowered)]
            found.update(self.caused)
        if not found:
            return []
        return sorted(i for i in found if i < len(self.ends))

    def statement(self, i: int) -> _Statement | None:
        """Sentence `i` analysed, or None when it cannot state a reason (too short or long, a
        question, a lead-in or an offer to the user, no code named and no number)."""
        if i in self.said:
            return self.said[i]
        s = _LIST_MARK_RE.sub("", " ".join(unbold(self._raw(i)).split())).strip()
        said = None
        if MIN_CHARS <= len(s) <= MAX_CHARS and not s.endswith(("?", "？", ":", "：")) and _CODE_HINT_RE.search(s) \
                and not OFFER_RE.search(s) and not _REPLY_PLAN_RE.match(s) and not _supposes(s):
            said = _Statement(s, frozenset(_names(s)), len(_NUMBER_RE.findall(s)), bool(_causes(s, s.lower())),
                              self.accounts(i))
        self.said[i] = said
        return said

    def _raw(self, i: int) -> str:
        """Sentence `i` as written, its separator after it."""
        return self.text[self.ends[i - 1] if i else 0:self.ends[i]]

    def _item(self, i: int) -> bool:
        """Sentence `i` is on a list item's line (its marker opens the line: "- ", "2. ")."""
        start = self.ends[i - 1] if i else 0
        line_start = self.text.rfind("\n", 0, start) + 1
        return _ITEM_LINE_RE.match(self.text, line_start, self.ends[i]) is not None

    def accounts(self, i: int) -> bool:
        """Sentence `i` is an item of a list the agent opened by saying it changed something ("已修复测试。
        主要改动：", "I simplified the test:", "Changes:"): its own account of the edit, not a guess it weighed
        ("这说明可能有两个问题：1. …" opens a list of hypotheses)."""
        if not self._item(i):
            return False
        for j in range(i - 1, max(-1, i - ACCOUNT_ITEMS), -1):
            raw = self._raw(j)
            if self._item(j) or _MARKER_ONLY_RE.match(raw):
                continue  # an earlier item of the list, or its marker split off ("1." ends at its stop)
            lead = unbold(raw.strip())
            return lead.endswith((":", "：")) and _CHANGED_RE.search(lead) is not None
        return False


# The agent planning its reply, not its work ("I'll explain the resolved error and summarize key changes…",
# a reasoning note before the answer): no reason for an edit
_REPLY_PLAN_RE = re.compile(r"(?:I(?:'ll| will| need to| should| want to)|Let me|Next,? I(?:'ll| will)?|Now I(?:'ll| will))"
                            r"\s+(?:\w+\s+){0,2}?(?:explain|summari[sz]e|mention|describe|outline|respond|reply|answer|"
                            r"write up|wrap up|report|recap|clarify to|tell the user|let the user)\b", re.IGNORECASE)
# The agent supposing, not saying why ("If I assume that X, then I don't need API changes", "Maybe the
# dict…", "But wait, …"): an option weighed (perhaps the one it then ruled out), no reason for the edit made
_SUPPOSING_RE = re.compile(r"(?:What if\b|Maybe\b|Perhaps\b|Or\b(?!\s+rather\b)|But wait\b|Wait\b|Hmm+\b|Alternatively\b)")
_IF_WE_RE = re.compile(r"(?:(?:So|And|But),? )?[Ii]f (?:I|we)\b")
# What an option the agent supposes would gain ("If I modify `Legend.draw` …, that would ensure …"): the reason
# for the option it took; one that gains nothing it names, or would break something, is an option weighed
_ACHIEVES_RE = re.compile(r"\b(?:ensur|fix|solv|resolv|handl|avoid|prevent|allow|guarantee|work|keep|preserv)\w*")
_FAILS_RE = re.compile(r"(?i)\b(?:break\w*|fail\w*|not|never|cannot|can't|won't|wouldn't|don't|doesn't|assum\w*|"
                       r"rewrit\w*|instead)\b")


def _supposes(sentence: str) -> bool:
    """The sentence supposes rather than says why: a "maybe", an "or", a "wait", or an "if I …" that gains
    nothing it names, or breaks something, or rests on an assumption."""
    if _SUPPOSING_RE.match(sentence):
        return True
    return _IF_WE_RE.match(sentence) is not None and (
        _ACHIEVES_RE.search(sentence) is None or _FAILS_RE.search(sentence) is not None)


_LIST_MARK_RE = re.compile(r"^(?:[-*•>#]+|\d+[.)])\s*")  # a list item's marker, not a number the sentence opens with
_ITEM_LINE_RE = re.compile(r"[ \t]*(?:[-*•]|\d+[.)])\s")  # a line a list item's marker opens
_MARKER_ONLY_RE = re.compile(r"\s*(?:[-*•]|\d+[.)])?\s*$")  # a marker split off as a sentence of its own, or nothing
ACCOUNT_ITEMS = 16  # sentences walked back from a list item to the lead-in opening its list: bounded work
ACCOUNT = 2.5  # an account item's weight: above a guess with a cause the same text weighed before the edit
# The lead-in of a list of what the agent changed, in the two languages the sessions are written in. A weight only.
_CHANGED_RE = re.compile(r"(?i)\b(?:chang|modif|updat|fix|edit|simplif|remov|add|replac|renam|rewr|refactor|adjust)\w*"
                         r"|\bwhat I did\b|改动|修改|更改|变更|改了|简化|修复|调整|更新|移除|添加|替换|重写")
SEARCHED_TERMS = 24  # an edit's names searched for in each text, the longest (most specific) first


def _searched(terms: set[str]) -> list[str]:
    """The edit's names worth a search: of four letters or more (`box`, `run` occur in any prose),
    the longest first, a bounded few."""
    # Ties by name: one order every run (a reversed sort keeps the order of equals).
    return sorted(sorted(t for t in terms if len(t) >= 4), key=len, reverse=True)[:SEARCHED_TERMS]


@per_text(maxsize=2048)
def _read(text: str) -> _Prose:
    """A message's text read for reasons: its prose (fenced code left out), `THOUGHT:` dropped."""
    return _Prose(prose(text, TEXT_CHARS))


def _value(said: _Statement, terms: set[str], own: bool, joined: bool = False) -> float:
    """How much a sentence says of why the edit was made: the names it shares with the edit (it is
    about this edit), the names, numbers and causal clause it adds (it says more than the edit). A
    sentence naming only what the edit changed restates it; one naming nothing of it is about
    something else (unless written with the call and giving a cause). `joined`: two sentences read as one
    (`_pairs`)."""
    shared = len(said.names & terms)
    if not shared and not own:
        return 0.0
    cause = said.cause
    novel = len(said.names - terms) + said.numbers
    # the agent's account of the edit in its own text (a list of what it changed, a plan running over two
    # sentences) says why with less: one name more than the edit's (a line number says where, not why)
    account = own and (said.account or joined) and len(said.names - terms) >= 1
    if not (shared or own and cause and novel) or not (cause or shared >= 2 and novel >= (1 if account else 2)):
        return 0.0  # about something else, or no more than a list of what changed
    value = 1.5 * min(shared, 2) + min(novel, 3) + (4.0 if cause else 0.0) + (ACCOUNT if own and said.account else 0.0)
    # Last, being the dearest: a command, a path list, a quoted output line is not a statement.
    return value if value >= MIN_VALUE and _words(said.text) >= MIN_WORDS else 0.0


@per_text(maxsize=4096)
def _words(sentence: str) -> int:
    """The sentence's words outside its code: Latin words of two letters or more, and a word per two
    characters of CJK text."""
    rest = _ANY_SPAN_RE.sub(" ", sentence)
    rest = _code_names(rest).sub(" ", rest)
    cjk = len(_CJK_RE.findall(rest))
    return len(_WORD_RE.findall(rest)) + cjk // 2


def _joined(sentences: list[str]) -> str:
    """Sentences one after another; one that ended at a line, not a stop (a list item), gets a `;`."""
    out = sentences[0]
    for s in sentences[1:]:
        out += (" " if out.endswith((".", "!", "。", "！", ")", "）")) else "; ") + s
    return out


def _cut(text: str, limit: int) -> str:
    """`condense.cut_at_word` without its trimming of the punctuation before the cut (a reason's clause
    keeps its comma): one character less than `limit`, then `…`."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"
