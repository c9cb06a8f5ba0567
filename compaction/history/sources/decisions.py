"""Key decisions and constraints: the agent's choices with their reasons, approaches it ruled out,
the user's explicit constraints and preferences. Harness and system-prompt rules are context, not
decisions (`history.harness`): they are left out, with one line saying how many."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import deque

from compaction.events import OFFER_RE, Event, EventKind, argument_strings, users_words
from compaction.history import harness
from compaction.history.condense import cut_at_clause
from compaction.history.condense import cut_at_word as _cut
from compaction.history.facts import WS_RE, Fact, is_test_path, relative_paths
from compaction.history.headings import h
from compaction.history.sections import Section
from compaction.history.sentences import prose, sentences_around
from compaction.history.sources import approach
from compaction.history.sources.current import NOTES_RE
from compaction.history.sources.findings import WIDE_RE, answer_to, informative
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role
from compaction.transcripts.path_spelling import file_name

ANSWER_CHARS = 260
SHORT_ANSWER_CHARS = 150
_WORD_RE = re.compile(r"\w+")
_NAMES_RE = re.compile(r"`[^`\n]+`|(?<![\w/-])[/-]*+\w[\w/-]*+\.[a-zA-Z]{1,5}\b|\b\w+\(\)")
# The decisions that constrain most (the user's preference with the answer taken, the plan, the path to
# the edit target) are chosen before the per-file change records: a tiny budget otherwise has no room
# left for any decision once the requests and changes are in.
AHEAD = 3.4
ANSWER_ASK_CHARS = 800  # a user message longer than this is a task or a paste, not a question with a preference

# A choice that gives its reason or its alternative weighs more than a bare "I'll do X".
_REASON_RE = re.compile(r"\b(?:because|since|so that|in order to|if (?:I|we) (?:want|need) to|to avoid|to keep|"
                        r"to preserve|instead of|rather than|over|as it|as this|which (?:keeps|avoids|preserves)|"
                        r"otherwise)\b", re.IGNORECASE)
_REASON_CJK_RE = re.compile("因为|因為|原因|所以|避免|以免|否则|否則|为了|為了")  # the same, said in Chinese
_RULED_OUT_RE = re.compile(r"\b(?:ruled? out|won't work|will not work|doesn't work|does not work|not (?:a )?viable|"
                           r"abandon|give up on|drop(?:ped)? (?:the|this) (?:idea|approach)|instead of|rather than)\b",
                           re.IGNORECASE)
# A diagnosis is a finding (its own section), not a choice, unless it also states what to do.
_DIAGNOSIS_RE = re.compile(r"\b(?:root cause|the (?:problem|issue|bug) is)\b", re.IGNORECASE)
_CHOICE_RE = re.compile(r"\b(?:I(?:'ll| will)|decid|chose|choose|prefer|the fix|approach|go with|should)\b",
                        re.IGNORECASE)


_FIRST_PERSON_CHOICE_RE = re.compile(
    r"\b(?:I(?:'ll| will|'m going to| am going to| chose| decided| opted| should|(?:'ve| have) (?:decided|chosen|opted)|"
    r"'m focusing on)|we(?:'ll| will| should)|let's)\s+[\w\"'`*]|\b(?:interested in|the right place|is relevant|not relevant)\b", re.IGNORECASE)
_CHOICE_REASON_RE = re.compile(r"\b(?:because|since|so that|instead of|rather than|which (?:pulls|keeps|avoids|gives|"
                               r"means|makes|lets)|to avoid|no need|without|as indicated by|according to|"
                               r"points? (?:to|at)|pointed (?:to|at)|so (?:I|we|let's)|following the (?:pattern|convention|layout|style) of)\b|, as\b(?! (?:well|long|soon|far|much|many|if|though|"
                               r"shown|described|mentioned|expected|requested|needed|follows|usual|before|a result)\b)"
                               # "stick to `Basic` and `Expr` as they are the core": a reason with no comma, not
                               # "keep it as it is (for now)"
                               r"|\bas (?:it|they|this|that|these|those)(?:'s|'re| is| are| already)\s+"
                               r"(?!(?:for|now|and|but|or|so|in|until|unless|done|written|shown|given|seen|known)\b|"
                               r"\w+ed\b)(?=[\w`])",  # "as it's done in", "as they are formatted in": how, not why
                               re.IGNORECASE)
_CHOICE_WORDS = ("i'll", "i will", "i'm going to", "i am going to", "i chose", "i decided", "i opted", "we'll",
                 "we will", "let's", "i should", "we should", "interested in", "the right place", "is relevant",
                 "not relevant", "i've decided", "i have decided", "i've chosen", "i have chosen", "i've opted",
                 "i'm focusing on")
_REASON_WORDS = ("because", "since", "so that", "instead of", "rather than", "which ", "to avoid", "no need",
                 "without", "as indicated by", "according to", "point", "so i ", "so we ", "so let's", ", as ",
                 " as it", " as they", " as this", " as that", " as these", " as those",
                 "should help", "will help", "this way", "that way")
# A rule about what the work may change (tests, configuration, minimal changes) binds a successor even
# when a harness states it: it is kept; the harness's procedural rules (one command per reply…) are not.
SCOPE_RE = re.compile(r"\b(?:do not|don't|never|must not|should not|no need to|not have to)\b[^.\n]{0,60}?"
                       r"\b(?:modify|change|edit|touch|delete|install)\b|\bminimal changes\b|\bnon-test files\b",
                       re.IGNORECASE)
MAX_SCOPE = 3  # scope rules kept from harness text (the rest are counted with the elided ones)
_MARKUP_RE = re.compile(r"</?[a-z](?=[\w-]*?-)[\w-]*+>")  # a client's tags (`<local-command-caveat>`), not prose
_SENTENCES_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|\n+")


# A review's verdict ("Based on these changes, the new field is critical and breaking"): the sentence
# that opens with a concluding phrase and judges (breaking, safe, needed…) is what the review decided.
CONCLUDED = "Concluded: "
_CONCLUSION_CUES = ("based on th", "in summary", "in conclusion", "overall,")  # few: each is a scan of every reply
_VERDICT_RE = re.compile(r"\b(?:breaking|critical|safe|unsafe|risky|harmless|correct|incorrect|necessary|needed|"
                         r"required|worth|recommend\w*|regress\w*|(?:in)?compatible|not (?:relevant|needed))\b",
                         re.IGNORECASE)


def _conclusions(text: str) -> list[str]:
    """The verdict sentences of one assistant text (`_CONCLUSION_CUES` then a judgement word)."""
    out = []
    for s in sentences_around(text, _CONCLUSION_CUES):
        if 25 <= len(s) <= 400 and not s.endswith(("?", ":")) and _VERDICT_RE.search(s):
            comma = s.find(", ", 0, 40)  # "Based on these changes, the field is breaking": the verdict is after the lead-in
            lead = s[:comma].lower() if comma > 0 else ""
            out.append(s[comma + 2:] if lead and any(lead.startswith(c.rstrip(",:")) for c in _CONCLUSION_CUES) else s)
    return out


# A recommendation ("Given you're dictating long pieces — **small.en** is the move", "I'd recommend X,
# since…"): what the agent advised taking, with its reason when it gives one in the sentence or the next.
RECOMMENDED = "Recommended: "
_RECOMMEND_CUES = ("recommend", "the move", "the way to go", "the right ", "best bet", "best option", "best choice",
                   "go with")
_RECOMMEND_RE = re.compile(r"\b(?:I(?:'d| would)(?: strongly)? (?:recommend|go with)|I (?:strongly )?recommend|my recommendation (?:is|would be)|"
                           r"(?:is|'s) (?:probably |likely |clearly )?the (?:move|way to go|right (?:call|choice|upgrade|"
                           r"option|approach|fit|tool)|best (?:option|choice|bet|fit|approach))|best bet is)\b",
                           re.IGNORECASE)
_UNSAID_RE = re.compile(r"^(?:This|That|It|These|Those|If)\b")  # names nothing on its own; a condition, no advice


def _recommendations(text: str) -> list[str]:
    """The recommendation sentences of one assistant text (not an offer, not a lead-in to a list, not
    one whose subject is a pronoun, not a condition, not one cut inside a code span), each with the next
    sentence when that is its reason."""
    out = []
    for s in sentences_around(text, _RECOMMEND_CUES):
        if not (20 <= len(s) <= 400) or s.endswith(("?", ":")) or _UNSAID_RE.match(s) or s.count("`") % 2 \
                or not _RECOMMEND_RE.search(s) or OFFER_RE.search(s):
            continue
        low = s.lower()
        why = None if "given " in low or any(map(low.__contains__, _REASON_WORDS)) else _reason_after(text, s)
        out.append(f"{s} {why}".replace("**", "") if why else s.replace("**", ""))
    return out


def _reasoned_choices(ctx: FactContext, traced: list[str] | None = None,
                      fuller: dict[str, str] | None = None) -> list[tuple[int, str]]:
    """The agent's choices that give their reason or alternative ("I'll swap to X, which pulls from…"),
    whatever verb they use: the events' decision phrases name only a few verbs; the verdicts of its
    reviews ("Concluded: …", with the advice they give on a condition); how it carries a choice out
    ("Approach: …", `approach.approaches`) or did ("Done: …" when bounded: only if, unless); and why
    it stopped on an ask ("Stopped: …", with the earlier guess it replaces). The texts that trace
    calls ("`X` calls `Y`") go to `traced`; a choice's fuller form (with what it achieves) to `fuller`."""
    out: list[tuple[int, str]] = []
    recent: deque[tuple[int, str, str]] = deque(maxlen=RECENT_TEXTS)  # a stop's earlier guess is in one of these
    laid_out: tuple[int, str] | None = None  # the agent's own options, waiting for what it said next
    for rnd in ctx.transcript.rounds:
        if laid_out is not None and rnd.number > laid_out[0] + OPTIONS_ANSWERED_WITHIN:
            laid_out = None
        for msg in rnd.messages:
            if msg.role is Role.USER and not msg.harness:
                laid_out = None  # the user answers them: the user's choice is told as such
            if msg.role is not Role.ASSISTANT or msg.harness:
                continue
            if laid_out is not None and msg.text.strip():  # what it went on to say is what it chose
                _tell_pick(out, laid_out, msg.text, rnd.number)
                laid_out = None
            for thought in msg.meta.get("thinking") or ():  # its reasoning: "I'll copy rather than move it, since…"
                if isinstance(thought, str) and thought.strip():
                    low = thought[:6000].lower()
                    out.extend((rnd.number, c) for c in _choices(thought, low, None, set()) if _PICKS_RE.search(c))
                    # options it laid out for itself there, and what it said of them next ("Option 2 seems cleanest")
                    if any(map(low.__contains__, _THOUGHT_OPTIONS_CUES)) \
                            and (options := approach.own_options(thought)) and options[1].strip():
                        _tell_pick(out, (rnd.number, options[0]), options[1], rnd.number)
            if not msg.text:
                continue
            lowered = msg.text[:6000].lower()  # plain substring checks first: most messages hold no choice
            if any(map(lowered.__contains__, approach.OPTIONS_CUES)) and (options := approach.own_options(msg.text)):
                laid_out = (rnd.number, options[0])
                if options[1].strip():  # it goes on in the same message
                    _tell_pick(out, laid_out, options[1], rnd.number)
                    laid_out = None
            if traced is not None and "` calls `" in lowered:  # one scan: "`X` calls `Y`" only
                traced.append(msg.text[:6000])
            text = None
            found: list[str] = []
            if any(map(lowered.__contains__, _CONCLUSION_CUES)):
                text = prose(msg.text, 6000)
                found = _conclusions(text)
                advice = _advice(text) if found else None
                if advice:
                    found[-1] = f"{found[-1].rstrip('.')}; {advice}"
                out.extend((rnd.number, f"{CONCLUDED}{s}") for s in found)
            if any(map(lowered.__contains__, _RECOMMEND_CUES)):
                text = text if text is not None else prose(msg.text, 6000)
                out.extend((rnd.number, f"{RECOMMENDED}{s}") for s in _recommendations(text)
                           if not any(c[:60] in s for c in found))  # a verdict that recommends is told once
            if "if i " in lowered or "if we " in lowered:
                text = text if text is not None else prose(msg.text, 6000)
                out.extend((rnd.number, f"{WEIGHED}{s}") for s in _weighed(text))
            merged: set[str] = set()  # choice sentences told with their approach
            how_cue, done_cue, stop_cue = approach.cued(msg.text, lowered)
            if how_cue:
                text = text if text is not None else prose(msg.text, 6000)
                for how, choice in approach.approaches(text):
                    if choice:
                        merged.add(_key(choice))
                    out.append((rnd.number, f"{choice} {APPROACH}{how}" if choice else f"{APPROACH}{how}"))
            if done_cue:
                text = text if text is not None else prose(msg.text, 6000)
                for s, full in approach.bounded_changes(text):
                    out.append((rnd.number, f"{DONE}{s}"))
                    if fuller is not None and full != s:
                        fuller[f"{DONE}{s}"] = f"{DONE}{full}"
            if stop_cue:
                text = text if text is not None else prose(msg.text, 6000)
                stops = approach.stops(text)
                if msg.tool_calls:  # "I cannot modify the test", then a call: a limit it works within, no stop
                    out.extend((rnd.number, f"{LIMIT}{s}") for s in stops)
                for s in stops if not msg.tool_calls else ():
                    guess = next(((r, g) for r, t, low in reversed(recent) if r < rnd.number
                                  and (g := approach.hedged_guess(t, low)) and approach.shares_term(s, t)), None)
                    told = f" (replaces r{guess[0]}'s guess: {guess[1]})" if guess else ""
                    out.append((rnd.number, f"{STOPPED}{s}{told}"))
            recent.append((rnd.number, msg.text, lowered))
            out.extend((rnd.number, c) for c in _choices(msg.text, lowered, text, merged))
    return out


OPTIONS_ANSWERED_WITHIN = 2  # rounds: what the agent says after that is no longer its pick among them
PICK_CHARS = 200
PICK_SENTENCES = 3  # "Checking for references to decide. None found. Deleting the file."


_THOUGHT_OPTIONS_CUES = (*approach.OPTIONS_CUES, "either:")
_PICKED = " — then (r"  # options laid out, then what the agent said of them


def _tell_pick(out: list[tuple[int, str]], laid_out: tuple[int, str], text: str, round_: int) -> None:
    """The options with what the agent said next about them: its first sentences, within PICK_CHARS."""
    said = ""
    for sentence in _SENTENCE_SPLIT_RE.split(" ".join(prose(text, 2 * PICK_CHARS).split()))[:PICK_SENTENCES]:
        if said and len(said) + len(sentence) > PICK_CHARS:
            break
        said = f"{said} {sentence}".strip()
    if said:
        out.append((laid_out[0], f"{WEIGHED}{laid_out[1]}{_PICKED}{round_}): “{_cut(said, PICK_CHARS)}”"))


_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!:])\s+(?=[A-Z`])")


# An alternative weighed and found wanting ("If I modify `TypedField` in `docfields.py`, it will affect all
# domains using it"): the consequence that rules a way out, which a "why not there" question asks.
WEIGHED = "Weighed: "
_WEIGHED_RE = re.compile(r"^If (?:I|we) (?:modify|change|edit|use|add|remove|move|put|replace|patch|touch|switch|"
                         r"implement|make|keep|delete|override|subclass)\b[^?!]{3,200}?, (?:it|this|that|then|I|we|"
                         r"the [\w`]+|[\w`.]+)\b[^?!]{0,60}?\b(?:will|would|might|could|may)\b[^?!]{5,220}[.!]$")
_DOWNSIDE_RE = re.compile(r"\b(?:affect|break|lose|side effects?|too (?:heavy|slow|broad)|not help|missing|conflict|"
                          r"regress|cannot|can't|fail)\w*|\b(?:won't|wouldn't|will not|would not)\b", re.IGNORECASE)
# a downside said not to happen ("it would not break anything", "no side effects", "without breaking callers")
_NEGATED_RE = re.compile(r"(?:\b(?:not|no longer|never|no|without)|n't)\s+(?:\w+\s+)?$", re.IGNORECASE)
_NOT_ONLY_RE = re.compile(r"\bnot only\s+(?:\w+\s+)?$", re.IGNORECASE)
_HARM_RE = re.compile(r"\s*(?:\w+\s+)?(?:affect|break|lose|fail|conflict|regress|hurt|change)", re.IGNORECASE)


def _downside(then: str) -> bool:
    """Whether a consequence names a downside that it does not deny: "it will affect all domains", "old
    configs won't load"; not "the tests will no longer fail", "it would not break anything"."""
    for m in _DOWNSIDE_RE.finditer(then):
        said = m.group(0).lower()
        if said in ("won't", "wouldn't", "will not", "would not"):
            if not _HARM_RE.match(then, m.end()):  # "won't load": a downside; "won't break": a denied one
                return True
        elif said.startswith(("not help", "cannot", "can't")) or _NOT_ONLY_RE.search(then[:m.start()]) \
                or not _NEGATED_RE.search(then[:m.start()]):
            return True
    return False


def _weighed(text: str) -> list[str]:
    """The sentences of `text` that weigh a way and name its downside in what follows the condition
    (`_WEIGHED_RE`; "it will affect all domains", not "the tests will no longer fail")."""
    return [s for s in sentences_around(text, ("if i ", "if we ")) if _WEIGHED_RE.match(s)
            and _downside(s[s.find(", ") + 2:])]


def _kind_weight(text: str) -> int:
    """A review's verdict, a recommendation, a stop's reason, how a choice is carried out: rare, and what
    a "why" or "how" question asks; a bare reasoned choice or an alternative weighed (0) less."""
    for prefix, weight in ((STOPPED, 8), (CONCLUDED, 6), (RECOMMENDED, 6), (LIMIT, 6), (DONE, 4)):
        if text.startswith(prefix):
            return weight
    if APPROACH in text:
        return 6 if approach.REWORK_RE.search(text) else 1
    return 0


def _choices(raw: str, lowered: str, text: str | None, merged: set[str]) -> list[str]:
    """The first-person choices of one text that give their reason or alternative, with the sentence
    before a switch ("So I'll swap to X") that says what was wrong with the old way. `text`: its prose
    when already made; `merged`: the keys of choices already told with their approach."""
    if not (any(map(lowered.__contains__, _CHOICE_WORDS)) and any(map(lowered.__contains__, _REASON_WORDS))):
        return []
    text = text if text is not None else prose(raw, 6000)
    out = []
    for s in sentences_around(text, _CHOICE_WORDS):
        if not (25 <= len(s) <= 400) or s.endswith(("?", ":")) or not _FIRST_PERSON_CHOICE_RE.search(s) \
                or _key(s) in merged or OFFER_RE.search(s):  # "If you'd rather…, I'll…" offers, it does not choose
            continue
        if _LOOK_STEP_RE.match(s) and not _CONTRAST_RE.search(s):  # "Let's open this file and navigate to line
            continue  # 293, according to …": a step; "I'll run it with `--fake` instead of …" chooses
        if _revised_after(text, s) is not None:
            continue
        low = s.lower()
        if any(map(low.__contains__, _REASON_WORDS)) and _CHOICE_REASON_RE.search(s):
            before = _premise(text, s) if _SWITCH_RE.search(s) else None
            out.append(f"{before} {s}" if before else s)
        elif len(s) <= 300 and _PICKS_RE.search(s) and (why := _reason_after(text, s)):
            out.append(f"{s} {why}")  # "I'm focusing on X. This should help avoid…": a pick, then its reason
    return out


# A way the agent weighs ("the correct fix would be to … and keep X") and drops in its next sentence ("Let me just
# replace both", "Actually, …", "Instead, …"): bastion r37's kept "Bastion v2 upgrades it", the next line replaced it
_HEDGED_RE = re.compile(r"(?i)\b(?:would|could|might|may|should)\b")
_REVISES_RE = re.compile(r"(?i)^\W*(?:(?:actually|instead|on second thought|wait|hmm|let me just|simpler|but then)\b|"
                         r"(?:no|rather),)")
# the turn names what it does ("Let me just …", "Actually, let me just …", "Instead, I'll …")
_ACTS_RE = re.compile(r"(?i)^\W*(?:(?:actually|ok(?:ay)?|no),?\s+)?(?:let me just|instead,?\s+(?:i'll|let me|i will))\b")


def _revised_after(text: str, sentence: str) -> str | None:
    """When a hedged choice is followed at once, in the same text, by sentences that turn from it: the last of
    them that says what the agent does instead ("Let me just replace it in both places"), else ""; None when
    nothing turns from it."""
    if not _HEDGED_RE.search(sentence):
        return None
    at = text.find(sentence)
    if at < 0:
        return None
    after = text[at + len(sentence):]
    if "\n\n" in after[:len(after) - len(after.lstrip())]:
        return None  # a new paragraph (a code block between): the agent went on, it did not turn at once
    after = after.lstrip()
    turns: list[str] = []
    while after and _REVISES_RE.match(after):
        m = re.search(r"(?<=[.!?])\s+|\n", after)
        turns.append((after[:m.start()] if m else after).strip())
        after = after[m.end():].lstrip() if m else ""
    if not turns:
        return None
    return turns[-1] if _ACTS_RE.match(turns[-1]) else ""


# A step of looking, said in the first person ("Let's open this file and navigate to the line that raises the
# error, which is line 293 according to the traceback"): where the agent goes next, no choice between ways
_LOOK_STEP_RE = re.compile(r"(?i)^(?:(?:now|first|next|then),?\s+)?(?:let's|let me|I'll|I will|we'll|we will)\s+(?:now\s+|first\s+)?"
                           r"(?:open|navigate|look|view|check|read|inspect|examine|see|search|find|scroll|go to|locate|"
                           r"explore|take a look|run|reproduce)\b")
_CONTRAST_RE = re.compile(r"(?i)\b(?:instead of|rather than|not the|over the)\b")
# Reasoning thinks aloud ("I should verify…", "I should clarify whether…"): a choice there says what it takes
# up, keeps or leaves, with a verb that says so (use, keep, switch, rather than…).
_PICKS_RE = re.compile(r"\b(?:use|using|go with|choose|chose|chosen|opted|decided (?:against|to|on)|focusing on|keep|switch|replace|"
                       r"prefer|stick (?:to|with)|avoid|skip|rather than|instead of|not going to|copy|move)\b", re.IGNORECASE)
APPROACH, DONE, STOPPED, LIMIT = "Approach: ", "Done: ", "Stopped: ", "Limit: "
REASONED_CHARS = 380  # a verdict with its advice, a choice with its steps: longer than a bare choice
_LIST_NUMBER_RE = re.compile(r"^\d+[.)]\s*")
RECENT_TEXTS = 6  # assistant texts looked back on for the guess a stop replaces
# The advice a review gives on a condition ("If X is still needed, it should be restored. Otherwise, …").
_ADVICE_RE = re.compile(r"^If\b[^?!]{5,200}?\b(?:should|must|need(?:s)? to|recommend|it's best|you can)\b[^?]*[.!]$")
ADVICE_CHARS = 260


def _advice(text: str) -> str | None:
    """The conditional advice of a review's text ("If X is still needed, it should be restored"); its
    "Otherwise" is implied. The sentence naming something (a code span, a path) is preferred."""
    if "If " not in text:
        return None
    found: list[str] = []
    for para in text.split("\n\n"):
        at = para.find("If ")
        if at < 0:
            continue
        flat = " ".join(para[at:].split())
        found += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`])", flat) if _ADVICE_RE.match(s)]
    found.sort(key=lambda s: _NAMES_RE.search(s) is None)
    return _cut(found[0], ADVICE_CHARS) if found else None


# A choice that replaces something ("I'll swap to X", "So I'll…") most often follows the sentence that
# says what was wrong with the old way ("`Math.random()` is a PRNG, deterministic after seeding"):
# that sentence is its reason.
_SWITCH_RE = re.compile(r"\b(?:swap|switch|replac|migrat|mov(?:e|ing) (?:to|away)|instead)\w*|^(?:So|Therefore|Thus|"
                        r"Hence|That's why)\b|, so (?:I|we)(?:'ll| will)\b")  # "X seems cleaner, so I'll…": from what precedes
_LAST_SENTENCE_RE = re.compile(r"(?:^|(?<=[.!?])\s)([A-Z`\"'(][^.!?]*(?:\.(?=\w)[^.!?]*)*[.!])\s*$")


def _in_paragraph(text: str, sentence: str) -> tuple[str, int] | None:
    """The paragraph of `text` holding `sentence`, its whitespace collapsed, and where the sentence opens in it."""
    head = sentence[:30]
    for para in text.split("\n\n"):
        flat = " ".join(para.split())
        at = flat.find(head)
        if at >= 0:
            return flat, at
    return None


def _premise(text: str, sentence: str) -> str | None:
    """The sentence right before `sentence` in its paragraph of `text`, when it states something
    (not a question, not a lead-in to a list); None when there is none."""
    found = _in_paragraph(text, sentence)
    m = _LAST_SENTENCE_RE.search(found[0][:found[1]].rstrip()) if found else None
    return m.group(1) if m and 20 <= len(m.group(1)) <= 250 else None


# A sentence that gives the reason for the choice just before it ("I should use `_parse_annotation`. It
# already handles `|` (BitOr)…", "I'll keep the cache. That way the second call is free."): its opening says so.
_REASON_AFTER_RE = re.compile(r"^(?:(?:It|This|That|They)(?: one)? (?:already|avoids?|keeps?|ensures?|preserves?|"
                              r"handles?|guarantees?|lets|allows|supports?|covers?|is (?:because|why|safer|simpler)|"
                              r"(?:should|will|would) (?:help|let|allow|avoid|keep))|"
                              r"(?:This|That) way|Because|Since|Otherwise|That's (?:because|why)|"
                              r"This is (?:because|why))\b")
REASON_AFTER_CHARS = 200
_NEXT_SENTENCE_RE = re.compile(r"([A-Z`\"'(][^.!?]*(?:\.(?=\w)[^.!?]*)*[.!])(?=\s|$)")


def _reason_after(text: str, sentence: str) -> str | None:
    """The sentence right after `sentence` in its paragraph of `text` when it opens as a reason for it."""
    found = _in_paragraph(text, sentence)
    if found is None:
        return None
    flat, at = found
    end = flat.find(sentence[-20:], at)
    m = _NEXT_SENTENCE_RE.match(flat[end + len(sentence[-20:]):].lstrip()) if end >= 0 else None
    if m and _REASON_AFTER_RE.match(m.group(1)) and len(m.group(1)) <= REASON_AFTER_CHARS:
        return m.group(1)
    return None


# A choice among candidates: the path a choice names, when a listing a few rounds before it (a file
# search, `ls`, `grep -l`) returned several files of that name, says which were passed over.
_CHOSEN_PATH_RE = re.compile(r"(?<![\w.~/-])[\w.~-]*+/(?:[\w.~-]*+/)*?([\w.-]+\.[A-Za-z]{1,5})\b")
LISTING_ROUNDS = 3  # rounds before the choice searched for the listing it chose from
LISTING_CHARS = 20000
MAX_PASSED_OVER = 3
MAX_CANDIDATE_CHECKS = 40  # choices checked for a listing: bounded work


def _passed_over(ctx: FactContext, number: int, text: str) -> str | None:
    """" (not a/x.py, b/x.py)" when the path `text` chose in round `number` was one of several files of
    its name a listing in that round or the few before it returned; None otherwise."""
    m = _CHOSEN_PATH_RE.search(text)
    if m is None:
        return None
    chosen, base = m.group(0).strip("./"), m.group(1)
    rounds = ctx.transcript.rounds
    for k in range(min(number, len(rounds)), max(0, number - LISTING_ROUNDS - 1), -1):
        for res in ctx.results_of(rounds[k - 1]).values():
            if res is None or res.content.find("/" + base, 0, LISTING_CHARS) < 0:
                continue
            found = [w.strip() for w in res.content[:LISTING_CHARS].splitlines()
                     if w.strip().endswith("/" + base) and " " not in w.strip()]
            others = [x for x in dict.fromkeys(found) if not x.strip("./").endswith(chosen) and not chosen.endswith(x.strip("./"))]
            if len(others) < 1 or len(found) < 2:
                continue
            same = min(len(x) for x in found)
            prefix = found[0][:same]
            for x in found[1:]:
                while not x.startswith(prefix):
                    prefix = prefix[:-1]
            cut = prefix.rfind("/") + 1
            names = [x[cut:] for x in others[:MAX_PASSED_OVER]]
            more = f" +{len(others) - MAX_PASSED_OVER}" if len(others) > MAX_PASSED_OVER else ""
            return f" (not {', '.join(names)}{more})"
    return None


# Why a place was chosen for a fix: what calls it ("`build_filter` calls `resolve_lookup_value`"), as
# the agent traced it: a change there covers every caller.
_CALL_RE = re.compile(r"`([\w.]+)(?:\(\))?` calls `([\w.]+)(?:\(\))?`", re.IGNORECASE)
MAX_CALLERS = 2


def _callers(traced: list[str]) -> dict[str, list[str]]:
    """Callee → the callers the agent named in its prose (`traced`), in order of mention (a few each)."""
    out: dict[str, list[str]] = {}
    for text in traced:
        at = text.find("` calls `")
        while at >= 0:  # the regex only around each "` calls `": a traced text is mostly other prose
            opening = text.rfind("`", max(0, at - 80), at)  # the caller's opening backtick
            m = _CALL_RE.match(text, opening, at + 90) if opening >= 0 else None
            at = text.find("` calls `", at + 9)
            if m is None:
                continue
            caller, callee = m.group(1), m.group(2)
            known = out.setdefault(callee, [])
            if caller != callee and caller not in known and len(known) < MAX_CALLERS:
                known.append(caller)
    return out


def _add_callers(traced: list[str], facts: list[Fact]) -> None:
    """The agent's choice of a function to change says what calls it, once per function."""
    if not traced or not any(f.prose and "`" in f.text for f in facts):
        return
    callers = _callers(traced)
    if not callers:
        return
    best: dict[str, Fact] = {}  # callee → the choice most likely shown that names it
    for f in facts:
        if not f.prose or "`" not in f.text:
            continue
        # The choice's subject is its first code name (`modify X to …`); a later one is what it acts on.
        span = next((x for x in _SPAN_RE.findall(f.text) if "/" not in x and not _PATHLIKE_RE.fullmatch(x)), None)
        name = span.removesuffix("()") if span else None
        if name and callers.get(name) and (name not in best or f.score > best[name].score):
            best[name] = f
    told: set[int] = set()
    for name, f in best.items():
        if id(f) not in told:  # one reason per choice
            told.add(id(f))
            f.text += f" (`{name}` is called by {', '.join(f'`{c}`' for c in callers[name])})"
            f.score += 2  # the choice now says why there


# The user's answer to the agent's question tool: `"Which emoji…?"="💡"` pairs, or the questions (lines
# ending in "?") then an `Answer: …` line.
_QA_PAIR_RE = re.compile(r'"([^"\n]{5,200}\?)"\s*=\s*"([^"\n]{1,200})"')
_ANSWER_LINE_RE = re.compile(r"(?im)^(?:[^\w\n]|_)*+answers?[ \t*_]*+[:=][ \t*_]*(.+)$")


def _user_choices(ctx: FactContext) -> list[Fact]:
    """The user's picks among the options the agent offered through a question tool: a decision the
    user made, with the question it answers."""
    out: list[Fact] = []
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            for res in msg.tool_results:
                content = res.content
                if content.find("nswer", 0, 6000) < 0 or content.find("?", 0, 6000) < 0:
                    continue
                pairs = _QA_PAIR_RE.findall(content[:6000])
                if not pairs:
                    m = _ANSWER_LINE_RE.search(content[:6000])
                    asked = [WS_RE.sub(" ", q.replace("*", "")).strip(" -")
                             for q in content[:m.start()].splitlines() if q.rstrip().rstrip("*").endswith("?")] if m else []
                    if not asked:
                        continue
                    pairs = [(" / ".join(asked), m.group(1).strip().replace("*", ""))]
                text = "; ".join(f"{q if len(q) <= 120 else q[:119] + '…'} → {a}" for q, a in pairs[:4])
                out.append(Fact(Section.DECISIONS, f"User chose: {text}", [rnd.number], score=47 + min(rnd.number, 500) / 1000,
                                priority=AHEAD))
    return out


# A later choice takes back what the code span right after these words names ("revert `X`", "undo
# `X`", "no longer use `X`"); "instead of `X`" is not one: it most often explains, not reverses.
_REVERSAL_RE = re.compile(r"\b(?:revert(?:ed|ing)?|undo|undid|roll(?:ed)? back|no longer (?:use|need)|"
                          r"(?:switch|go|went) back from|drop(?:ped)?|abandon(?:ed)?|"
                          # a limit found since ("I cannot blindly apply `idna` encoding to everything")
                          r"\bI can(?:not|'t|’t) (?:blindly |just |simply )?(?:use|apply))\b[^`.\n]{0,30}`([^`\n]{2,80})`",
                          re.IGNORECASE)
_ASKED_AFTER_RE = re.compile(r"[^.!?\n]*\?")  # the rest of the sentence is a question ("Why can't we use `x`?")
_SPAN_RE = re.compile(r"`([^`\n]{2,80})`")
_PATHLIKE_RE = re.compile(r"[\w.-]+\.[a-zA-Z]{1,5}")
MAX_REVERSAL_CHECKS = 400  # decisions compared for reversals: bounded work


def _mark_reversed(facts: list[Fact]) -> None:
    """An agent's choice whose code a later choice takes back ("revert `X`", "no longer use `X`") says so
    and weighs less: a successor must not act on it. Paths are not enough (two choices may edit one
    file); the identifier taken back must be one the earlier choice chose, not one it rejected."""
    agent = [f for f in facts[:MAX_REVERSAL_CHECKS] if f.prose and f.rounds]
    taken_back = [{m.group(1) for m in _REVERSAL_RE.finditer(f.text) if not _ASKED_AFTER_RE.match(f.text, m.end())}
                  for f in agent]
    for i, earlier in enumerate(agent):
        chosen = set(_SPAN_RE.findall(earlier.text)) - taken_back[i]
        chosen = {x for x in chosen if "/" not in x and not _PATHLIKE_RE.fullmatch(x)}
        if not chosen:
            continue
        for j in range(i + 1, len(agent)):
            later = agent[j]
            if later.rounds[0] > earlier.rounds[0] and chosen & taken_back[j]:
                what = later.text if len(later.text) <= 100 else later.text[:99] + "…"
                earlier.text = f"{earlier.text} (later reversed, r{later.rounds[0]}: {what})"
                earlier.score -= 6
                break


# A choice said as what the agent means to do ("I'll probably rename `_connect` to `connect`", "Probably exclude
# `_c1` from pickle too"): read alone, it is still to do. Not a guess ("Maybe `x` is…"), nor a choice to take
# something away or leave it out (what an edit adds cannot show that it was done).
_INTENDED_RE = re.compile(r"(?:(?:so|then|now|ok),? )?(?:I(?:'ll| will| should| need to| am going to|'m going to)|"
                          r"we (?:should|need to|will)|let'?s|probably)\b", re.IGNORECASE)
_UNDOING_RE = re.compile(r"\b(?:drop|remove|delete|avoid|never|don't|stop|get rid of|revert|undo|disable|skip|"
                         r"without|no longer)\b", re.IGNORECASE)  # (" not " already ends the choice: `_CHOICE_END_RE`)
_CHOSEN_SPAN_RE = re.compile(r"`([^`\n]{2,40})`")
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][\w.]*")
# Where the choice itself ends: its sentence, an alternative, a reason
_CHOICE_END_RE = re.compile(r"(?<=[.!?])\s|\s(?:instead of|rather than|not|because|since|so that)\s", re.IGNORECASE)
_ASIDE_RE = re.compile(r"\([^()]*\)")  # "(assuming `x` shifted)": what the choice rests on, not what it makes
_PLACEHOLDER_RE = re.compile(r"^<[^<>\n]*>$")  # a removed line the payload did not show (`<line(s) 165,186>`)
DONE_WITHIN = 10  # rounds after a choice in which the edit that carries it out is looked for
MAX_DONE_CHECKS = 100  # intended choices looked up (a session's decisions are far fewer)
MIN_CHOSEN = 3  # a chosen name this short (`x`, `0`) is in too many lines to tell anything


def _mark_done(facts: list[Fact], events: list[Event]) -> None:
    """A choice said as an intent that an edit soon after carried out says so ("… (done, r65)"): the code it
    names last before any alternative, reason or aside (`connect` of "rename `_connect` to `connect`"; a
    file it names says where) is added by an applied edit of that file (of a file not a test's when it names
    none), and no edit of that file in those rounds removed it (a move is no choice carried out)."""
    # (not a whole file written: all its names read as added, whether they were there before or not)
    edits = sorted((e for e in events if e.kind in (EventKind.EDIT, EventKind.WRITE) and e.hunks and e.path
                    and not (e.failed or e.whole)), key=lambda e: e.round)
    if not edits:
        return
    rounds = [e.round for e in edits]
    names = {file_name(e.path or "") for e in edits}
    lines: dict[int, tuple[str, str | None]] = {}  # id(edit) -> its added lines, its removed ones (None: not shown)

    def said(e: Event) -> tuple[str, str | None]:
        if id(e) not in lines:
            removed = [line for h in e.hunks for line in h.removed]
            lines[id(e)] = ("\n".join(line for h in e.hunks for line in h.added),
                            None if any(_PLACEHOLDER_RE.match(line) for line in removed) else "\n".join(removed))
        return lines[id(e)]

    checked = 0
    for f in facts:
        if not (f.prose and f.rounds and _INTENDED_RE.match(f.text)):
            continue
        head = _ASIDE_RE.sub("", _CHOICE_END_RE.split(f.text, 1)[0])
        if _UNDOING_RE.search(head):
            continue
        spans = _CHOSEN_SPAN_RE.findall(head)
        files = {file_name(x) for x in spans if file_name(x) in names}
        code = [x.strip() for x in spans if file_name(x) not in files]
        if not code or len(code[-1]) < (MIN_CHOSEN if _IDENTIFIER_RE.fullmatch(code[-1]) else 2) or code[-1].isdigit():
            continue
        chosen = code[-1]
        if _IDENTIFIER_RE.fullmatch(chosen):  # a method by its name (`Mixin.set_output`), other dotted names whole
            chosen = chosen.rsplit(".", 1)[-1] if chosen[:1].isupper() and "." in chosen else chosen
            found = re.compile(r"(?<![\w.])" + re.escape(chosen) + r"(?!\w)").search
        else:
            found = re.compile(re.escape(chosen)).search
        checked += 1
        if checked > MAX_DONE_CHECKS:
            break
        first = f.rounds[0]
        window = [e for e in edits[bisect_left(rounds, first):bisect_right(rounds, first + DONE_WITHIN)]
                  if (file_name(e.path or "") in files if files else not is_test_path(e.path or ""))]
        # (a plain substring test first: most edits of the window hold no such text)
        done = next((e for e in window if chosen in said(e)[0] and found(said(e)[0])), None)
        if done is not None and not any(e.path == done.path and ((gone := said(e)[1]) is None or (chosen in gone and found(gone)))
                                        for e in window):
            f.text = f"{f.text} (done, r{done.round})"


# A name a plan makes up (`preserve_dtypes` of "If I add `preserve_dtypes=False`, …"): the code span's leading
# identifier, a keyword argument's or a call's name
_MADE_NAME_RE = re.compile(r"[A-Za-z_]\w{3,}(?=\s*(?:=|\(|$))")
_PLAN_RE = re.compile(r"(?i)^(?:if (?:I|we)\b|assume\b|maybe\b|perhaps\b)")
MAX_NEVER_CHECKS = 20  # plans looked up in the whole session: bounded work
NEVER_WRITTEN_WEIGHT = 12  # a plan not carried out: below the choices that were (38-46), beside bare ones
# The agent saying it did what a plan named ("I added `preserve_dtypes`", "now accepts `x`")
_DID_RE = re.compile(r"(?i)\b(?:added|implemented|introduced|created|defined|wrote|renamed|now (?:has|takes|accepts))\b")


def _mark_never_written(facts: list[Fact], ctx: FactContext) -> None:
    """A plan of the agent's whose own new name no tool ever wrote or showed afterwards says so and weighs less:
    scikit-learn's "If I add `preserve_dtypes=False` (default), it should be backward compatible" read as the
    design, and the work went on to `dtypes="preserve"`. A name is the plan's own when nothing before it showed
    it (no output, no request: not the project's code); it was done when any later call or output holds it
    (an edit, a script that writes the file, a read of the result), or the agent later says it did it ("I added
    `x`"). Only when the work changed code after it, and only while every later change shows what it wrote: an
    export that kept an edit's label alone (Copilot Chat) could hide the name (code review 24)."""
    changes = [e for e in ctx.events if e.kind in (EventKind.EDIT, EventKind.WRITE) and e.path and not e.failed
               and not NOTES_RE.search(e.path)]
    if not changes:
        return
    plans: list[tuple[Fact, list[str], int]] = []  # (fact, the names it makes up, its round)
    for f in facts:
        if not (f.prose and f.rounds and (_INTENDED_RE.match(f.text) or _PLAN_RE.match(f.text))) \
                or "(done, r" in f.text or changes[-1].round < f.rounds[0]:
            continue
        if any(not e.hunks for e in changes if e.round >= f.rounds[0]):
            continue  # a later change whose text is unknown may hold the name
        head = _ASIDE_RE.sub("", _CHOICE_END_RE.split(f.text, 1)[0])
        names = [m.group(0) for span in _CHOSEN_SPAN_RE.findall(head) if (m := _MADE_NAME_RE.match(span.strip()))]
        if names:
            plans.append((f, names, f.rounds[0]))
            if len(plans) == MAX_NEVER_CHECKS:
                break
    shown = _shown_names(ctx, {(n, at) for _, names, at in plans for n in names}) if plans else set()
    for f, names, at in plans:
        made = next((n for n in names if (n, at) not in shown), None)
        if made is not None:
            note = f" (not done: no later call or output names `{made}`)"
            f.text += note
            f.full_text = f.full_text + note if f.full_text else None  # the fuller form the filler may show
            f.short = f.short + note if f.short else None
            f.score -= NEVER_WRITTEN_WEIGHT


def _spellings(name: str) -> list[str]:
    """The name, and its other case's spelling: a plan's `SchemaEditor` is carried out by `schema_editor()`,
    its `preserve_dtypes` would be `preserveDtypes` in another language's code."""
    parts = [p for p in re.split(r"_+|(?<=[a-z0-9])(?=[A-Z])", name) if p]
    if len(parts) < 2:
        return [name]
    snake = "_".join(p.lower() for p in parts)
    camel = parts[0].lower() + "".join(p.capitalize() for p in parts[1:])
    return list(dict.fromkeys([name, snake, camel, camel[0].upper() + camel[1:]]))


def _shown_names(ctx: FactContext, wanted: set[tuple[str, int]]) -> set[tuple[str, int]]:
    """Of the (name, plan's round) pairs, those whose name is not the plan's own or did not stay so: in a tool
    call or output anywhere, a user message up to the plan's round, or a later sentence of the agent's saying it
    did it. One pass over the session for all the plans' names (one alternation of all their spellings)."""
    of: dict[str, set[str]] = {}  # a spelling → the names it spells
    for name, _ in wanted:
        for sp in _spellings(name):
            of.setdefault(sp, set()).add(name)
    search = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(of, key=len, reverse=True))) + r")(?!\w)")

    def named(text: str) -> set[str]:  # the names a text holds
        return {n for m in search.finditer(text) for n in of[m.group(0)]} if text else set()

    shown: set[tuple[str, int]] = set()
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is Role.USER:
                shown |= {(n, at) for n in named(msg.text) for n2, at in wanted if n2 == n and rnd.number <= at}
            elif msg.role is Role.ASSISTANT and (said := named(msg.text)):
                did = {n for s in _SENTENCES_RE.split(msg.text) if _DID_RE.search(s) for n in named(s)}
                shown |= {(n, at) for n in said & did for n2, at in wanted if n2 == n and rnd.number > at}
            anywhere = set().union(*(named(res.content) for res in msg.tool_results),
                                   *(named(text) for call in msg.tool_calls for text in argument_strings(call.arguments)))
            shown |= {(n, at) for n, at in wanted if n in anywhere}
            if len(shown) == len(wanted):
                return shown
    return shown


def _key(text: str) -> str:
    """Near-identical choices share a key: their words, lower-cased, without punctuation or markup."""
    return " ".join(_WORD_RE.findall(text.lower()))[:120]


WEIGHED_BACK = 4  # rounds before a choice searched for the sentence that weighed it against another option
WEIGHED_CHARS = 120
_OR_RE = re.compile(r",? or (?:I could |we could |to |maybe |perhaps )?")


def _weighed_before(ctx: FactContext, round_: int, index: int, choice: str) -> tuple[int, str] | None:
    """The other option of the agent's sentence, a few rounds before a choice, that set the chosen thing against
    another named one ("A new file `x_transforms.py` might be appropriate, or I could add them to
    `y_transforms.py`"): the alternative a successor is asked about ("what else was considered?"), which the
    choice's own sentence ("creating `x_transforms.py` is the cleanest way") no longer names. (round, the other
    option's words) or None."""
    chosen = {n.strip("`") for n in _NAMES_RE.findall(choice)}
    if not chosen:
        return None
    for rnd in ctx.transcript.rounds[max(0, round_ - 1 - WEIGHED_BACK):round_][::-1]:
        for msg in reversed(rnd.messages):
            if msg.role is not Role.ASSISTANT or msg.harness or " or " not in msg.text[:6000] or msg.index >= index:
                continue  # (no " or ": no sentence of it sets two options side by side)
            for sentence in _SENTENCES_RE.split(msg.text[:6000]):
                parts = _OR_RE.split(sentence, maxsplit=1)
                if len(parts) != 2 or len(sentence) > 400 or sentence.rstrip().endswith("?"):
                    continue
                before, after = ({n.strip("`") for n in _NAMES_RE.findall(p)} for p in parts)
                # one side names what was chosen, the other something else: two options set side by side
                if before & chosen and after - chosen and not after & chosen:
                    return rnd.number, parts[1].strip()
                if after & chosen and before - chosen and not before & chosen:
                    return rnd.number, parts[0].strip()
    return None


def _named(text: str, reasoned: bool) -> int:
    """A choice that names what it constrains (a file, a code span, a call) weighs more; a bare one
    with no reason ("Add the import.") less: it constrains nothing a successor could act on."""
    if _NAMES_RE.search(text):
        return 4
    return 0 if reasoned else -6


def _answer(ctx: FactContext, number: int, msg: Message | None) -> str | None:
    """The agent's answer in round `number` to the user's message `msg` when it asks something
    ("do we need X? I don't think so"): its most informative sentences (`findings.answer_to`)."""
    if msg is None or msg.role is not Role.USER or "?" not in msg.text or len(msg.text) > ANSWER_ASK_CHARS \
            or not 2 <= number <= len(ctx.transcript.rounds):
        return None  # the task (round 1, or a long paste) asks many things: its round answers none of them
    replies = [m for m in ctx.transcript.rounds[number - 1].messages
               if m.role is Role.ASSISTANT and m.text and not m.harness]
    found = answer_to(msg.text, replies) if replies else None
    if not found:
        return None
    reply = found.split("”: ", 1)[-1]
    return reply if len(reply) <= ANSWER_CHARS else cut_at_clause(reply, ANSWER_CHARS)


def _short_answer(ctx: FactContext, number: int, answer: str) -> str:
    """The answer at tiny budgets: its most informative sentences within SHORT_ANSWER_CHARS (the
    settings, names and numbers a list under a lead-in holds), not its first words cut off."""
    if len(answer) <= SHORT_ANSWER_CHARS:
        return answer
    replies = [m.text for m in ctx.transcript.rounds[number - 1].messages
               if m.role is Role.ASSISTANT and m.text and not m.harness]
    short = informative(replies, SHORT_ANSWER_CHARS + 30) if replies else None
    return short if short and len(short) <= SHORT_ANSWER_CHARS + 60 else _cut(answer, SHORT_ANSWER_CHARS)


# A user's preference stated in a request without the events' constraint words ("Avoid unnecessary
# implementation logic—focus on scaffolding", "Keep all scaffolding modular", "prefer X"): a reason a
# successor must know for what the work left out.
_PREFERENCE_WORDS = ("avoid", "focus on", "keep ", "preserve", "prefer", "stick to", "instead of", "rather than",
                     "no need to")
# How binding a user's constraint reads: a prohibition rules out what a successor might do, a limit
# narrows it, a preservation keeps something; an "ensure/make sure" line is mostly one more ask (the
# task says it); a descriptive sentence that only holds "never" or "only" binds nothing.
_PROHIBITION_RE = re.compile(r"(?i)\b(?:do not|don't|never|must not|should not|shouldn't|avoid|without modifying|no need to)\b")
_LIMIT_RE = re.compile(r"(?i)\b(?:only|focus on|stick to|instead of|rather than|limit)\b")
_KEEP_RE = re.compile(r"(?i)\b(?:keep|preserve|prefer)\b")
_DIRECTIVE_RE = re.compile(r"(?i)^(?:[\d.)\s-]*)(?:please\s+|also,?\s+|and\s+)?(?:do not|don't|never|must|only|avoid|keep|"
                           r"ensure|make sure|focus|prefer|preserve|stick|no\b|without|always|use|leave|limit)\b"
                           r"|\b(?:you|we) (?:must|should|need to|have to)\b|\b(?:must|should) not\b|\bmust be\b")


def _constraint_score(text: str, first: bool) -> float:
    """A user constraint's weight: in the opening request most; a prohibition over a limit over a
    preservation over an ask; a sentence that is no directive (an issue's prose) least."""
    if not _DIRECTIVE_RE.search(text):
        return 36
    base = 55 if first else 45
    return base + (3 if _PROHIBITION_RE.search(text) else 2 if _LIMIT_RE.search(text) else 1 if _KEEP_RE.search(text)
                   else -3)


REQUEST_CHARS = 12000  # of a request read for options and preferences (its harness template left out)


def _requests(ctx: FactContext, said: list[str], detected: harness.HarnessText,
              by_index: dict[int, Message]) -> tuple[list[Fact], list[tuple[int, int, str]]]:
    """One pass over the user's requests: the alternatives one lays out with the concern it says
    applies to them all (`approach.proposed_options`), and (round, message index, sentence) of the
    preference sentences the events' constraints (`said`) do not already hold."""
    options: list[Fact] = []
    prefs: list[tuple[int, int, str]] = []
    known: set[str] | None = None  # the keys of `said`, made when a preference is first found
    for e in ctx.events:
        if e.kind is not EventKind.REQUEST or not e.text or e.message_index in detected.whole:
            continue
        raw = e.text
        spans = detected.template.get(e.message_index)
        msg = by_index.get(e.message_index)
        if spans and msg is not None and msg.text == raw:  # a harness's opening: the request inside it only
            raw = raw[spans[0][1]:spans[-1][0]]
        raw = users_words(raw)  # what they pasted (a log, a terminal screen) states no preference of theirs
        lowered = raw[:REQUEST_CHARS].lower()
        pref = ("avoid" in lowered or "focus on" in lowered or "keep " in lowered or "preserve" in lowered
                or "prefer" in lowered or "stick to" in lowered or "instead of" in lowered or "rather than" in lowered
                or "no need to" in lowered)  # _PREFERENCE_WORDS, chained: every request is tested
        concern = ("\n1" in lowered or "\n-" in lowered) and any(c in lowered for c in approach.CONCERN_CUES)
        if not (pref or concern):
            continue
        text = prose(raw, REQUEST_CHARS)
        found = approach.proposed_options(text, lowered) if concern else None
        if found:  # the options' openings only: the request says them whole, the concern is what this adds
            options.append(Fact(Section.DECISIONS, found[1], [e.round], score=57 + min(e.round, 500) / 1000))
        for s in sentences_around(text, _PREFERENCE_WORDS) if pref else ():
            if 15 <= len(s) <= 400 and not s.endswith("?") and _DIRECTIVE_RE.search(s) \
                    and _key(s) not in (known := known if known is not None else {_key(t) for t in said}):
                prefs.append((e.round, e.message_index, s))
    return options, prefs


@fact_source(Section.DECISIONS)
def decision_facts(ctx: FactContext) -> list[Fact]:
    seen: set[str] = set()
    detected = harness.detect(ctx.transcript)
    by_index = {m.index: m for m in ctx.transcript.messages}
    elided = 0
    scope = 0
    constraints = [(e.kind, e.round, e.message_index, e.text) for e in ctx.events
                   if e.kind in (EventKind.DECISION, EventKind.CONSTRAINT)]
    said = [t for k, _, _, t in constraints if k is EventKind.CONSTRAINT]  # `_key` reads words only
    facts, prefs = _requests(ctx, said, detected, by_index)
    told = " ".join(f.text for f in facts).replace("…", "")  # a constraint inside a proposed option is told with it
    constraints += [(EventKind.CONSTRAINT, r, i, s) for r, i, s in prefs]
    for kind, round_, index, raw in constraints:
        weighed: tuple[int, str] | None = None  # a choice's other option, said before it
        text = WS_RE.sub(" ", raw.strip()).lstrip("-*• ").strip()
        key = _key(text)
        # a wide character says about what a word does: "不要修改测试" (6) is a whole constraint
        size = len(text) if text.isascii() else len(text) + 2 * len(WIDE_RE.findall(text))
        if key in seen or size < 15 or text.endswith((":", "?", "？")) or text.startswith("|"):
            continue  # a table's row lists (options, settings), it chooses nothing
        seen.add(key)
        if kind is EventKind.CONSTRAINT and (detected.is_harness(by_index.get(index), raw.strip())
                                             or _MARKUP_RE.search(text)):  # markup a client injected, not the user
            if scope < MAX_SCOPE and SCOPE_RE.search(text) and not _MARKUP_RE.search(text):
                scope += 1
                # a binding limit of the task ("DO NOT MODIFY: Tests, configuration files"): chosen ahead of the
                # agent's own choices, or one harness's sessions keep it and another's lose it to room (requests,
                # matplotlib: reader review 59)
                facts.append(Fact(Section.DECISIONS, text if len(text) <= 300 else text[:297] + "…", [round_],
                                  score=48 + min(round_, 500) / 1000, priority=AHEAD))
                continue
            elided += 1
            continue
        if kind is EventKind.CONSTRAINT and told and _LIST_NUMBER_RE.sub("", text)[:30] in told:
            continue
        if kind is EventKind.DECISION and _DIAGNOSIS_RE.search(text) and not _CHOICE_RE.search(text):
            continue  # the findings timeline carries it
        answer = None
        if kind is EventKind.DECISION:
            said = by_index.get(index)
            turned = _revised_after(said.text, raw.strip()) if said is not None and said.text else None
            if turned is not None:  # weighed, then turned from in the next sentence: what it did instead, if said
                if not turned or _key(turned) in seen:
                    continue
                seen.add(_key(turned))
                text = turned
            why = _reason_after(said.text, raw.strip()) if said is not None and said.text else None
            text = f"{text} {why}" if why else text
            weighed = _weighed_before(ctx, round_, index, text)
            reasoned = why is not None or _REASON_RE.search(text) is not None or _CHOICE_REASON_RE.search(text) \
                is not None or (not text.isascii() and _REASON_CJK_RE.search(text) is not None)
            score = 30 + (8 if reasoned else 0) + (6 if _RULED_OUT_RE.search(text) else 0) + _named(text, reasoned)
        else:
            score = _constraint_score(text, round_ == 1)  # the user's own constraints and preferences
            answer = _answer(ctx, round_, by_index.get(index))
            score = max(score, 45) if answer else score  # a preference the agent's answer settled
        full = None
        if answer:  # the user asked, stating a preference: the agent's answer is the decision taken
            full = f"User: “{_cut(text, 160)}” → {answer}"
            text = f"User: “{_cut(text, 70)}” → {_short_answer(ctx, round_, answer)}"  # tiny budgets: the gist
        elif kind is EventKind.CONSTRAINT:
            text = f"User: {text}"  # whose reason it is: the user's, not the agent's
        text = _cut(text, 300)
        if weighed:  # the option it was chosen over, said before it
            text += f" (the other option, r{weighed[0]}: “{_cut(weighed[1], WEIGHED_CHARS)}”)"
        facts.append(Fact(Section.DECISIONS, text, [round_], score=score + min(round_, 500) / 1000,
                          prose=kind is EventKind.DECISION, priority=AHEAD if answer else None,
                          full_text=full if full != text else None))
    traced: list[str] = []
    fuller: dict[str, str] = {}
    for rnd, text in _reasoned_choices(ctx, traced, fuller):
        full = fuller.get(text)
        key = _key(text)
        if key not in seen:
            seen.add(key)
            kind = _kind_weight(text)
            # (options laid out and what came of them: as long as a choice with its steps)
            facts.append(Fact(Section.DECISIONS, _cut(text, REASONED_CHARS if kind or _PICKED in text else 300), [rnd],
                              score=38 + kind + _named(text, True) + min(rnd, 500) / 1000, prose=True,
                              full_text=_cut(full, REASONED_CHARS) if full else None))
    checked = 0
    for f in facts:
        if f.prose and f.rounds and checked < MAX_CANDIDATE_CHECKS and f.text.find("/") >= 0:
            checked += 1
            other = _passed_over(ctx, f.rounds[0], f.text)
            if other:
                f.text += other
                f.score += 3  # which of several candidates, and why: what a successor cannot re-derive
    _add_callers(traced, facts)
    _mark_done(facts, ctx.events)  # before a reversal's note: its words are no choice
    _mark_never_written(facts, ctx)
    _mark_reversed(facts)
    for f in facts:  # the project's own paths as the rest of the document shows them: relative
        f.text = relative_paths(f.text, ctx.cwd)
        f.full_text = relative_paths(f.full_text, ctx.cwd) if f.full_text else None
    facts.extend(_user_choices(ctx))
    if elided:
        note = h(ctx.lang, "harness_elided").format(n=elided)
        facts.append(Fact(Section.DECISIONS, note, [], score=5, short=None))
    return facts
