"""The task and every later user message: the first request whole (the harness's boilerplate elided),
with shorter forms for a tight budget (long pastes trimmed to their informative lines, then the
request condensed to what a successor asks of it: `history.condense`), then the later requests with
their rounds, each one line at a tight budget; a short assent ("yes please") carries what it accepts
— the assistant's offer it answers."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from itertools import islice

from compaction.events import OFFER_RE, STAMPED_LINE_RE, Event, EventKind, is_assent, is_follow_up_request
from compaction.history.condense import (
    ERROR_NEAR,
    LOG_LINE_LEADS,
    ask_count,
    condense,
    cut_at_word,
    names_error_place,
    one_line,
    opening_error,
    paste_values,
    run_gist,
    telegraph,
)
from compaction.history.facts import MIN_FACT_TOKENS, TIGHT_TARGET, WS_RE, Fact, clean_task, split_task, task_text
from compaction.history.sections import Section
from compaction.history.sentences import straight
from compaction.history.sources.registry import FactContext, fact_source
from compaction.history.sources.request_outcome import ARROW_RE, session_outcomes, unanswered
from compaction.literal_heads import holds
from compaction.memo import per_text
from compaction.model import Message, Role

_PASTE_LINES = 12  # a fenced block or an unfenced log run longer than this is trimmed
LONG_PASTE_LINES = 15  # lines the gentlest trim takes out of the task's pastes that make them long
_TRIM_LEVELS = ((12, 4), (8, 3), (4, 2))  # (head, tail) lines a paste keeps, gentlest first
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
# Lines worth keeping from the middle of a paste: what failed and where.
_INFORMATIVE_RE = re.compile(r"(?:error|exception|warning)\b|\b(?:fail(?:ed|ure)?|fatal|panic|denied|not found|"
                             r"traceback|assert\w*)\b", re.IGNORECASE)
# One of which every match holds, lower-cased: an ASCII line (whose case folds within ASCII) holding none
# is passed over by plain substring checks; most lines of a paste hold none.
_INFORMATIVE_WORDS = ("error", "exception", "warning", "fail", "fatal", "panic", "denied", "not found", "traceback",
                      "assert")
# Log/stack-shaped lines outside fences (`condense.LOG_LINE_LEADS`, a terminal UI's frame among them: a
# screen pasted, not the user's words), or deeply indented ones.
_LOGLINE_RE = re.compile(rf"^(?:\s{{4,}}|{LOG_LINE_LEADS})")
_ANY_LOGLINE_RE = re.compile(_LOGLINE_RE.pattern, re.MULTILINE)  # a log-shaped line anywhere in a text
# A run of more than _PASTE_LINES such lines (each ending with its line break): found at the text's start,
# else by the line break before it (a pattern opening with `^` is tried at every position of the text,
# one opening with `\n` only at line breaks). Each line is matched atomically (`(?>…)`): taken whole or not
# at all, so a failed run never tries the other ways its lines' leading blanks could split between the
# alternatives (exponential on a paste of deeply indented lines: 80–90 s on one aider history).
_LOGRUN_HEAD = rf"(?:[ \t]{{4,}}|{LOG_LINE_LEADS})"
_LOGRUN_FIRST_RE = re.compile(rf"(?:(?>{_LOGRUN_HEAD}[^\n]*\n)){{{_PASTE_LINES + 1},}}")
_LOGRUN_LATER_RE = re.compile(rf"\n(?:(?>{_LOGRUN_HEAD}[^\n]*\n)){{{_PASTE_LINES + 1},}}")


def _has_log_run(text: str) -> bool:
    """Whether a run of log-shaped lines starts at one of the text's line starts."""
    return _LOGRUN_FIRST_RE.match(text) is not None or _LOGRUN_LATER_RE.search(text) is not None


# A line that warns (a deprecation, a warning's hint) rather than says what failed.
_WARNING_ONLY_RE = re.compile(r"\bwarn(?:ing|ings)?\b|Warning\b|deprecat", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]?")


def trim_pastes(text: str, head: int = 4, tail: int = 2) -> str:
    """The message with each long paste (a fenced block, a run of log or stack lines) cut to its
    `head` lines, its informative lines (errors, failures) and its `tail` lines, with a note of what
    was trimmed."""
    if text.count("\n") <= _PASTE_LINES or ("```" not in text and "~~~" not in text and not _has_log_run(text)
                                             and len(STAMPED_LINE_RE.findall(text)) <= _PASTE_LINES):
        return text  # no fence, no long run of log lines, no CI log: nothing to trim (C-speed scans)
    out: list[str] = []
    for kind, lines in _pieces(text):
        if kind == "code":  # its opening fence, its body, its closing fence (or last line)
            out.extend([lines[0], *_trim(lines[1:-1], "code", head, tail), lines[-1]] if len(lines) > 1 else lines)
        elif kind == "log" and len(lines) > _PASTE_LINES:
            out.extend(_trim(lines, "log", head, tail))
        else:  # prose, or a short run that stays as it is
            out.extend(lines)
    return "\n".join(out)


@per_text(maxsize=4)
def _pieces(text: str) -> tuple[tuple[str, list[str]], ...]:
    """The message's lines as its fenced blocks ("code": the fences with their body), its runs of log
    lines ("log", their stamps already gone where `trim_pastes` drops them) and its other lines
    ("text"), in order: the same at every trim level, so found once (the task is trimmed at three)."""
    lines = text.split("\n")
    # A pasted CI log stamps every line (`2025-09-25T22:44:30.0442684Z ##[error]…`): a quarter of its tokens,
    # none of them asked about. In a message with more than _PASTE_LINES stamped lines, each run of log lines
    # loses its stamps but the first log's first one and a later long log's (when each began); fenced blocks
    # stay as written. (A stamp opens a line and never holds a newline: its matches are the stamped lines.)
    many = len(STAMPED_LINE_RE.findall(text)) > _PASTE_LINES
    first_run = True  # no stamped run seen yet
    # A pasted CI log is one paste from its first stamped line to its last: its unstamped lines (a group's
    # name, a wrapped value) are part of it, not the user's words between runs.
    first_stamp = last_stamp = -1
    if many:
        stamped = [k for k, ln in enumerate(lines) if STAMPED_LINE_RE.match(ln)]
        first_stamp, last_stamp = stamped[0], stamped[-1]
    out: list[tuple[str, list[str]]] = []  # never changed once made: the memo hands them out again
    i = 0
    while i < len(lines):
        if _FENCE_RE.match(lines[i]):  # a fenced block: from its opening fence to its closing one
            j = next((k for k in range(i + 1, len(lines)) if _FENCE_RE.match(lines[k])), len(lines) - 1)
            out.append(("code", lines[i:j + 1] if j > i else [lines[i]]))
            i = j + 1
            continue
        j = i
        while j < len(lines) and (_LOGLINE_RE.match(lines[j])
                                  or first_stamp <= j < last_stamp and not _FENCE_RE.match(lines[j])):
            j += 1
        if j == i:
            out.append(("text", [lines[i]]))
            i += 1
            continue
        run = lines[i:j]
        if many:  # the first log keeps its first stamp, and so does any later long one
            stamped = any(STAMPED_LINE_RE.match(ln) for ln in run)
            run = _unstamped(run, keep_first=first_run or j - i > _PASTE_LINES)
            first_run = first_run and not stamped
        out.append(("log", run))
        i = j
    return tuple(out)


def _trim(block: list[str], kind: str, head: int, tail: int) -> list[str]:
    if len(block) <= max(_PASTE_LINES, head + tail + 2):
        return block
    middle = block[head:len(block) - tail]
    informative = [k for k, ln in enumerate(middle) if _informative(ln)]
    # where a failure points, on a line of no error word of its own (a bundler's "✗ Build failed", then
    # `…/Sinppets.svelte (1:9): …:1:9 Unexpected token`): kept with it, else the paste says only that it failed
    points = {j for k in informative if _FAILED_RE.search(middle[k])
              for j in range(k + 1, min(len(middle), k + ERROR_NEAR)) if names_error_place(middle[j])}
    informative = sorted({*informative, *points})
    # the lines that say what failed before those that only warn (a CI log's deprecation notices come
    # first, its "Type error: … is not a module" last): four of them, in their order
    warns = [k for k in informative if _WARNING_ONLY_RE.search(middle[k])]
    chosen = set(islice((*(k for k in informative if k not in warns), *warns), 4))
    kept = [middle[k] for k in informative if k in chosen]
    values = paste_values([ln for k, ln in enumerate(middle) if k not in chosen])
    note = f"[… {len(middle) - len(kept)} lines of pasted {kind} trimmed{'; values: ' + values if values else ''} …]"
    return [*block[:head], note, *kept, *block[len(block) - tail:]]


def _unstamped(run: list[str], *, keep_first: bool) -> list[str]:
    """A run of log lines without their stamps, but its first stamped line's when `keep_first`."""
    out: list[str] = []
    keep = keep_first
    for ln in run:
        if STAMPED_LINE_RE.match(ln):
            if not keep:
                ln = STAMPED_LINE_RE.sub("", ln, count=1)
            keep = False
        out.append(ln)
    return out


_FAILED_RE = re.compile(r"(?i)\bfail(?:ed|ure)?\b")


@per_text(maxsize=8192)
def _informative(line: str) -> bool:
    """A line worth keeping from a paste's middle: remembered, the task is trimmed at three levels."""
    return holds(_INFORMATIVE_RE, _INFORMATIVE_WORDS, line)


def accepted_offer(messages: list[Message], index: int) -> str | None:
    """What a short assent at message `index` accepts: the last question or offer of the assistant's
    latest text before it."""
    if not is_assent(messages[index].text):
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


def shorten_request(text: str, limit: int, prose: int | None = None) -> str:
    """A user's request in one line within `limit` characters: every ask in telegraphic form (its
    opening, list items, imperatives and constraints: "agent-first", "no hardcoded values") before any
    explanation, the longest asks cut first (`condense.telegraph`)."""
    if len(text) > limit and (error := opening_error(text)):
        # a log pasted as the whole request: what it stopped on, not its first line ("✗ Build failed") nor the
        # log's own advice read as asks ("please open an issue")
        return cut_at_word(f"`{error}` (a pasted log)", limit)
    if len(text) > limit and ask_count(text) == 0:
        # a paste: a test run by its counts and what failed (the passing tests' lines come first and say
        # nothing: tree-vanilla's pasted vitest runs read "✓ initial state (3) ✓ should render…"), else its
        # first lines and what it names
        return run_gist(text, limit) or one_line(text, limit)
    return telegraph(text, limit, prose)


_ASK_CHARS = {True: (25, 180), False: (25, 280)}  # tight or not: (characters each further ask adds, the most)


def request_room(text: str, limit: int, tight: bool) -> tuple[int, int]:
    """(characters a request's one-line form may take, its asks): `limit` for one ask, more for each
    further ask (an enumerated request keeps each item as a short clause), up to a bound."""
    asks = ask_count(text) if len(text) > limit else 1  # a request that fits is shown whole: one ask
    each, most = _ASK_CHARS[tight]
    return max(limit, min(most, limit + each * (asks - 1))), asks


_CONDENSED_CHARS = (1600, 1200, 900, 700, 540, 420, 320)  # the task's condensed forms (`condense`), longest first


_OPENING_CHARS = 170  # the request's opening kept verbatim in its condensed forms: what identifies it


def _condensed_forms(request: str, rest: str, whole: str, shortest: int) -> list[str]:
    """The request said in fewer and fewer characters, each form shorter than the last: its opening
    and its closing sentence verbatim, between them its best sentences (what is wrong, the user's
    ideas, the constraints, the acceptance; `condense`), its pastes and fillers gone; the harness's
    instructions after it as `task_text` shows them (their opening, their rules under Project rules)."""
    text = clean_task(request)
    out: list[str] = []
    for limit in _CONDENSED_CHARS:
        if limit >= min(shortest, len(text)) * 0.9:
            continue  # not shorter than what the request already is
        short = condense(text, limit, lead=_OPENING_CHARS, keep_last=True)
        # what task_text shows after the request (the harness's first step, the note), made once
        form = short + whole[len(text):] if whole.startswith(text) else task_text(short + "\n\n" + rest)
        if len(form) < (len(out[-1]) if out else shortest):
            out.append(form)
    return out


_TIGHT_REQUEST_CHARS = 120  # an older request's characters at a tight target
_WORK = frozenset({EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.MOVE, EventKind.COMMIT})


def _worked_between(worked: list[int], lo: int, hi: int) -> bool:
    """A round of `worked` (sorted) in [lo, hi): one bisection, not a scan of every work round per
    request (a long session has hundreds of both)."""
    k = bisect_left(worked, lo)
    return k < len(worked) and worked[k] < hi


def _work_rounds(ctx: FactContext) -> list[int]:
    """The rounds that changed files or committed, in order (one pass over the events)."""
    return sorted({e.round for e in ctx.events if e.kind in _WORK})


# A request that is one line of code or a prompt's line (`import { X } from './X';`, `> schemas/index.ts`): a
# paste that asks nothing, shown after the requests that ask. A quoted line of prose ("> please review X and
# clean up …") is the user's request all the same: a prompt's line is a few words at most
_CODE_LINE_RE = re.compile(r"\A\s*(?:import\b|from\s+\S+\s+import\b|export\b|const\b|let\b|def\b|class\b|\$\s)[^\n]*\Z"
                           r"|\A\s*>\s+\S+(?:[ \t]+\S+){0,2}\s*\Z|\A[^\n]*[;{]\s*\Z")


def _answered_at(ctx: FactContext, asked: int) -> int | None:
    """The round of the agent's reply the session ends on, when it came after the request (message
    `asked`) and no call followed it: the request was answered, and the next word is the user's. Why: a
    successor reading "Current request: write a poem" beside a poem written does it again."""
    for rnd in reversed(ctx.transcript.rounds):
        for m in reversed(rnd.messages):
            if m.harness or m.role is Role.SYSTEM or m.role is Role.USER and not is_follow_up_request(m.text):
                continue  # a quit command (`/exit`) after the reply asks nothing
            if m.index <= asked or m.role is not Role.ASSISTANT or m.tool_calls or not m.text.strip():
                return None
            return None if _answers_nothing(m.text) else rnd.number
    return None


def _answers_nothing(text: str) -> bool:
    """A last reply that answers nothing yet: an abort, a failure to do it, a plan of work to come, or only a
    question back (a report that closes on an offer or a question answers all the same)."""
    flat = straight(text.strip())
    tail = flat[-NO_ANSWER_TAIL:]
    if _ABORTED_RE.search(tail) or _GAVE_UP_RE.search(tail) or _GOES_ON_RE.search(tail):
        return True
    if flat.endswith("?"):
        cut = max(flat.rfind("\n"), flat.rfind(". "), flat.rfind("! "))
        return len(flat[:max(cut, 0)].strip()) < REPORT_BEFORE_QUESTION  # the question is all it says
    return False


_ABORTED_RE = re.compile(r"\[error\b|\b(?:was|were) aborted\b", re.IGNORECASE)
# "I couldn't get the tests to pass", "I was not able to …": at a sentence's start
_GAVE_UP_RE = re.compile(r"(?:^|[.!]\s+)I (?:could not|couldn't|can't|cannot|was (?:not able|unable)|am (?:not able|unable))\b")
# "Let me now look at the failing test.", "I'll run the suite next.": work to come, as the reply's last sentence
_GOES_ON_RE = re.compile(r"(?:^|[.!]\s+)(?:Let me|I'll|I will|I'm going to|Next,? I(?:'ll| will)?|Now I(?:'ll| will))\s+"
                         r"(?:now\s+)?(?:look|check|run|fix|investigate|try|read|examine|debug|update|search|continue|start|"
                         r"inspect|test|verify|add|write|implement|open|find|rerun|re-run)\b[^.!?]*[.:]?\W*$", re.IGNORECASE)
REPORT_BEFORE_QUESTION = 12  # characters of a reply before its closing question that make it more than the question
NO_ANSWER_TAIL = 400  # the reply's closing words: where it says it is done, asks back or goes on


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
    # A long paste (a system report's forty lines of versions) gives way first; a short reproduction stays whole.
    long_paste = bool(forms) and whole.count("\n") - forms[0].count("\n") >= LONG_PASTE_LINES
    # Condensed forms only for a request that may outgrow its share of the budget (at least 160 tokens,
    # about 0.15 of the target; 2.5 characters a token at worst): the others are never shortened, and
    # condensing costs a pass over the request's sentences.
    if ctx.target_tokens is None or len(forms[-1] if forms else whole) > max(400, ctx.target_tokens * 0.375):
        forms.extend(_condensed_forms(request, rest, whole, len(forms[-1] if forms else whole)))
    facts.append(Fact(Section.GOAL, whole, [task.round], score=100, essential=True, task=True,
                      forms=tuple(forms), long_paste=long_paste))
    # Slash commands (`/exit`, `/add f`, `/run x`) drive the tool, they are not requests; a bare "yes" to the
    # agent's question is one (what it accepted is the user's decision: "yes (accepting: “Should I add …?”)").
    messages = ctx.transcript.messages
    later = [r for r in requests[1:] if is_follow_up_request(r.text) or _answers_a_question(messages, r)]
    # Interactive sessions: every later request matters, the latest most (the current goal).
    room = None if ctx.target_tokens is None else ctx.target_tokens // MIN_FACT_TOKENS
    first = 0 if room is None else max(0, len(later) - room)
    worked = _work_rounds(ctx)
    starts = [r.round for r in later[first:]] + [ctx.n_rounds + 1]
    # A tight budget shows an older request as its opening and constraint sentences; fill gives the
    # full text back once the other sections had their share.
    tight = ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET
    limit = _TIGHT_REQUEST_CHARS if tight else 160
    asked: dict[str, Fact] = {}  # a request sent again (a retry, a resend) is one line with its rounds
    prev: tuple[Fact, set[str], str] | None = None  # the request before: a draft of the next when it holds it
    followed = _followed(later[first:])
    ran = _commands_by_round(ctx) if len(later) > first + 1 else {}  # an older request may be a typed command
    found = session_outcomes(ctx.events, ctx.transcript) if len(later) > first + 1 else None
    for i, req in enumerate(later[first:], first):
        latest = i == len(later) - 1
        text = clean_task(trim_pastes(req.text, *_TRIM_LEVELS[-1]))
        offer = accepted_offer(messages, req.message_index) if 0 <= req.message_index < len(messages) else None
        if offer:
            text = f"{text} (accepting: “{offer}”)"
            if latest and i > 0 and not accepted_offer(messages, later[i - 1].message_index):
                # the thread the offer answers: what the user wanted (the offer's "it" is theirs)
                began = later[i - 1]
                text += f" — on r{began.round}: “{one_line(clean_task(began.text), THREAD_CHARS)}”"
        key = " ".join(text.lower().split()).rstrip("?.! ")
        if not latest and key in asked:
            again = asked[key]
            again.rounds.append(req.round)
            if found is not None:  # what came of it: after its last sending
                _restate_outcome(again, unanswered(found, req.message_index))
            continue
        words = set(_WORDS_RE.findall(key))
        if (prev is not None and len(prev[1]) >= 6 and len(prev[1] - words) * 10 <= len(prev[1])
                and len(words - prev[1]) >= 3):
            # the request before said again and extended (an edited resend, not a sibling that differs
            # in a number): one line with both rounds
            facts.remove(prev[0])
            asked.pop(prev[2], None)
            rounds = prev[0].rounds
        else:
            rounds = []
        if latest:
            answered = _answered_at(ctx, req.message_index)
            # answered in its own round: the round the line cites says when ("(answered r44) (r44)" said it twice)
            note = "" if not answered else " (answered)" if answered == req.round else f" (answered r{answered})"
            text += note
            room, _ = request_room(text, 160, False)
            short = shorten_request(text, room, 160)
            short += note if note and not short.endswith(note) else ""
            # A tight budget shows the current request by its asks; its own words come back when
            # the other sections had their share (the filler gives a shown request's full text last).
            shown = short if tight and len(short) < len(text) * 0.8 else text
            facts.append(Fact(Section.GOAL, "Current request: " + shown, [*rounds, req.round], score=90,
                              essential=True, short="Current request: " + short if shown is text else None,
                              full_text="Current request: " + text if shown is not text else None,
                              asks_whole=shown is not text and _own_asks(text)))
        else:  # history: the completed actions carry what was done about it
            # A request that set work going (files changed, a commit) before the next one outranks a
            # question answered in chat: the findings carry those answers; one that asks more (its
            # list items, its imperatives) outranks one that asks less. A command line the user typed
            # for the tool to run asks nothing: the completed actions show it.
            led_to_work = _worked_between(worked, req.round, starts[i - first + 1])
            room, asks = request_room(text, limit, tight)
            typed = _is_typed_command(text, ran.get(req.round, ())) or _CODE_LINE_RE.search(text) is not None
            sets_work = followed[i - first] * 0.6 if asks else 0.0
            score = (15 if led_to_work else 10) + (-3 if typed else min(asks, 6) * 0.4 + sets_work) + i * 0.01
            shown = shorten_request(text, room, limit)
            # its opening ask alone, when the room left cannot hold the line: a request named beats one left out
            brief = _brief(text) if len(shown) > BRIEF_REQUEST_CHARS * 1.2 else None
            # a command line for the tool (`!npm run check`, `/find x`) asks the agent nothing
            became = unanswered(found, req.message_index) if found and not typed and not _TOOL_LINE_RE.match(text) else ""
            fact = Fact(Section.GOAL, "Then asked: " + shown + became,
                        [*rounds, req.round], score=score, priority=2.5,
                        short="Then asked: " + brief + became if brief else None,
                        full_text="Then asked: " + text + became if len(text) > room else None,
                        asks_whole=len(text) > room and _own_asks(text))
            asked[key] = fact
            facts.append(fact)
            prev = (fact, words, key)
            continue
        prev = None
    return facts


# a line the user typed for the tool (`!npm test`, `/add f`), not a path (`/Users/me/app/log.txt shows …`)
_TOOL_LINE_RE = re.compile(r"\s*(?:!\S|/[A-Za-z][\w-]*(?:\s|$))")


def _restate_outcome(fact: Fact, became: str) -> None:
    """A request sent again: what came of its last sending replaces what came of the first."""
    def restated(text: str | None) -> str | None:
        return None if text is None else ARROW_RE.sub("", text) + became
    fact.text = restated(fact.text) or fact.text
    fact.short, fact.full_text = restated(fact.short), restated(fact.full_text)


THREAD_CHARS = 160  # of the request an accepted offer answered, quoted beside the assent
BRIEF_REQUEST_CHARS = 70  # an older request's shortest form: its opening ask
# A sentence that asks politely ("Can keep the readme and get rid of the others please?", "请帮我…"): the ask
_POLITE_RE = re.compile(r"(?i)\bplease\b|请")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def _brief(text: str) -> str:
    """An older request's shortest form: its opening ask; when that opening is a question and a later sentence
    asks politely for the work, that sentence after a cut of the question (ai-playbook r11: "Do we really need
    all three of these files?" hid "Can keep the readme and get rid of the others please?")."""
    opening = shorten_request(text, BRIEF_REQUEST_CHARS, BRIEF_REQUEST_CHARS)
    parts = [" ".join(p.split()) for p in _SENTENCE_END_RE.split(text.strip()) if p.strip()]
    if len(parts) < 2 or not parts[0].endswith(("?", "？")):
        return opening
    ask = next((p for p in reversed(parts[1:]) if _POLITE_RE.search(p) and len(p) <= 2 * BRIEF_REQUEST_CHARS), None)
    if ask is None or ask in opening:
        return opening
    question = cut_at_word(parts[0], BRIEF_REQUEST_CHARS // 2)
    return f"{question} {ask}" if question.endswith("…") else f"{question} … {ask}"


def _answers_a_question(messages: list[Message], request: Event) -> bool:
    """A bare "yes" or "ok" to a question or offer the agent's reply closed on ("Should I add that
    clarification?"): a decision of the user's, though too short to be a request; not an "ok" after a
    reply that asked nothing."""
    if not 0 <= request.message_index < len(messages):
        return False
    offer = accepted_offer(messages, request.message_index)  # None unless the request is an assent
    return offer is not None and (offer.endswith("?") or OFFER_RE.search(offer) is not None)


_OWN_ASKS_CHARS = 1500  # a longer request is a brief or a paste: its asks are what its short form keeps


def _own_asks(text: str) -> bool:
    """Whether a request is the user's own words asking things (not a pasted log or code, already
    trimmed with a note, or a brief): its details are what a short form drops and the user checks."""
    if len(text) > _OWN_ASKS_CHARS or "[… " in text:
        return False
    if "```" in text or "~~~" in text or _ANY_LOGLINE_RE.search(text):  # else no piece is a paste: not split
        if sum(len(lines) for kind, lines in _pieces(text) if kind != "text") > 2:  # fenced, log or stack lines
            return False
    return ask_count(text) > 0


_WORDS_RE = re.compile(r"\w{3,}")
_TOPIC_RE = re.compile(r"[A-Za-z][\w.-]{4,}")  # a word long enough to name a topic (a module, an audit)
_FOLLOWERS = 6  # later requests looked at for a request's topic


def _followed(requests: list[Event]) -> list[int]:
    """For each request that opens a topic, how many of the next _FOLLOWERS requests (at most 3) come
    back to it (three of its long words): a request that set the work of later rounds ("audit X", then
    "continue the audit", "now audit the structure") is worth its asks even when old; a request that
    continues an earlier one's topic sets none (0)."""
    words = [{w.lower() for w in _TOPIC_RE.findall(r.text[:2000])} for r in requests]
    out = []
    for i, mine in enumerate(words):
        if any(len(mine & before) >= 3 and len(before - mine) * 10 > len(before)  # not a draft of it
               for before in words[max(0, i - _FOLLOWERS):i]):
            out.append(0)  # a continuation
        else:
            out.append(min(3, sum(1 for later in words[i + 1:i + 1 + _FOLLOWERS] if len(mine & later) >= 3)))
    return out


def _commands_by_round(ctx: FactContext) -> dict[int, list[str]]:
    """The shell commands run in each round (one pass over the events)."""
    out: dict[int, list[str]] = {}
    for e in ctx.events:
        if e.kind is EventKind.COMMAND and e.command:
            out.setdefault(e.round, []).append(e.command)
    return out


def _is_typed_command(text: str, commands: Sequence[str]) -> bool:
    """The request is a command line the tool then ran (aider's user typing `git push` in the chat):
    its first line is one of the round's commands, or one starts the other (8 characters at least)."""
    first = text.strip().lstrip("!$> ").split("\n", 1)[0].strip()
    for c in commands:
        c = c.strip()
        if first == c or (min(len(first), len(c)) >= 8 and (first.startswith(c) or c.startswith(first))):
            return True
    return False
