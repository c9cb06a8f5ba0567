"""How a choice is carried out and why the agent stopped: text helpers for the decisions source.

Why: a successor asked "how was X removed" or "why did it stop retrying" needs the agent's own words
for the pattern it applied ("map each iterable to a promise, `Promise.all`, then fill the set") and
the conclusion that ended its attempts ("the section does not exist in the file; therefore I
cannot…"), not the choice's first sentence alone nor an earlier guess it later disproved. And when
a request proposes alternatives, the concern the proposer says applies to them all ("both raise
questions about duplicated options") is the decision's context. Each helper reads one text it is
given (a message's prose, already without code) and returns extractive text or None; plain
substring checks come before any regex, since most texts hold none of these.
"""

from __future__ import annotations

import re

from compaction.events import without_fences
from compaction.history.condense import cut_at_word

STEP_CHARS = 90  # one step of an approach, cut at a word
MAX_STEPS = 3
APPROACH_CHARS = 420

# What opens the description of how a choice is carried out ("The approach will be to…", "This
# involves:", "The changes will involve:"), found by a lower-cased substring first.
APPROACH_CUES = ("approach", "involve")


CUE_CHARS = 2000


def cued(text: str, lowered: str) -> tuple[bool, bool, bool]:
    """Whether a text (`lowered`: its lower-case form) may hold an approach, a bounded change, a stop:
    a few bounded `find`s, chained (this runs on every assistant message). An approach or a change
    report opens a reply: its first CUE_CHARS are searched."""
    return (lowered.find("approach", 0, CUE_CHARS) >= 0 or lowered.find("involve", 0, CUE_CHARS) >= 0,
            lowered.find("been ", 0, CUE_CHARS) >= 0 and _BOUNDED_RE.search(lowered, 0, CUE_CHARS) is not None,
            text.find("I can", 0, 2 * CUE_CHARS) >= 0 or lowered.find("unable to", 0, 2 * CUE_CHARS) >= 0)


_LEAD_RE = re.compile(r"(?i)\b(?:the approach (?:will be|is|here is)|this (?:involves|will involve)|the changes? will "
                      r"involve|the idea is|the plan is to|this will be done by|i(?:'ll| will) do this by|"
                      r"by doing the following)\b")
_NAMED_LEAD_RE = re.compile(r"^The approach (?:will be|is|here is) (?:to )?")  # the label says it
# The sentences after the lead-in that go on with its steps ("Then, …", "Finally, …").
_STEP_RE = re.compile(r"^(?:Then|Next|After that|Afterwards|Finally|Lastly|Second(?:ly)?|Third(?:ly)?)\b,?\s*")
_ITEM_RE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.+)$")
# Steps that only tidy up (remove the instruction comment, update imports) say nothing about the approach.
_CHORE_RE = re.compile(r"(?i)^(?:remov\w*|delet\w*)\b.{0,160}\bcomments?\W*$|^(?:updat\w*|add\w*|import\w*)\b[^.]{0,20}\b"
                       r"(?:imports?|statements?)\b")
# A choice that reworks code (refactor, replace, convert…): its approach is the pattern applied, which the
# change records do not say; an approach to adding something the change records mostly show.
REWORK_RE = re.compile(r"(?i)\b(?:refactor|rewrit|restructur|replac|convert|switch|migrat|avoid|fix|reorder|"
                       r"simplif|reorganiz|optimi[sz])\w*")
_CHORE_TAIL_RE = re.compile(r",? and (?:then )?(?:remove|delete) the [^.]{0,30}comment\.?$")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])")
_CHOICE_HEAD_RE = re.compile(r"(?i)\b(?:I(?:'ll| will|'m going to| am going to)|we(?:'ll| will| need to)|let's)\s+\w+")


def _sentences(para: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END_RE.split(" ".join(para.split())) if s.strip()]


def approaches(text: str) -> list[tuple[str, str | None]]:
    """(approach, the choice sentence it carries out or None) for each approach lead-in of `text`
    (prose without code, found to hold a cue by `cued`): the lead-in sentence and the steps after it
    (the items of a list under "This involves:", or the sentences opening with Then/Finally), the
    choice being the sentence right before the lead-in when it says what the agent will do."""
    out: list[tuple[str, str | None]] = []
    paras = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    for i, para in enumerate(paras):
        m = _LEAD_RE.search(para) if "pproach" in para or "nvolve" in para else None  # APPROACH_CUES, any case
        if m is None:
            continue
        before = para[:m.start()]
        start = max(before.rfind(". "), before.rfind("\n"))
        head_text = before[:start + 1] if start >= 0 else ""
        lead_para = para[start + 1:] if start >= 0 else para
        lines = lead_para.strip().splitlines()
        lead = " ".join(lines[0].split())
        items = [_ITEM_RE.match(ln) for ln in lines[1:]]
        steps = [x.group(1).strip() for x in items if x]
        if not steps and lead.rstrip().endswith(":") and i + 1 < len(paras):  # the list is the next paragraph
            steps = [x.group(1).strip() for x in map(_ITEM_RE.match, paras[i + 1].splitlines()) if x]
        if steps:
            body = "; ".join(cut_at_word(s.rstrip("."), STEP_CHARS) for s in steps if not _CHORE_RE.search(s))
            approach = cut_at_word(body, APPROACH_CHARS) or None  # the label says what the lead-in ("This involves:") said
        else:
            sents = _sentences(lead_para)
            chosen = [sents[0]] + [s for s in sents[1:MAX_STEPS + 2] if _STEP_RE.match(s)][:MAX_STEPS - 1]
            approach = " ".join(cut_at_word(s, 2 * STEP_CHARS) for s in chosen if not _CHORE_RE.search(_STEP_RE.sub("", s)))
        if not approach or len(approach) < 30:
            continue
        approach = _NAMED_LEAD_RE.sub("", approach, count=1)
        # The choice it carries out: the sentence before the lead-in, in its paragraph or the one before.
        prior = _sentences(head_text) or (_sentences(paras[i - 1]) if i > 0 else [])
        choice = prior[-1] if prior and _CHOICE_HEAD_RE.search(prior[-1]) and not prior[-1].endswith("?") else None
        if choice:  # "…, and then remove the "AI" comment": a chore, not the choice
            choice = _CHORE_TAIL_RE.sub(".", choice)
        out.append((cut_at_word(approach, APPROACH_CHARS), choice))
    return out


# A change the agent reports as made in a bounded way ("updated to include X only if Y", "…conditionally…"):
# how it was done, with the sentence after it when that says what it achieves ("This should allow…").
DONE_CUES = ("been ",)  # "has been updated to" (what `cued` looks for)
_DONE_RE = re.compile(r"(?i)\b(?:has|have|was|were) been (?:updated|changed|modified|refactored|rewritten|adjusted) to\b")
_BOUNDED_RE = re.compile(r"(?i)\b(?:only (?:if|when)|conditionally|unless|instead of|rather than|except)\b")
_EFFECT_RE = re.compile(r"^(?:This|That|It) (?:should|will|would|ensures?|allows?|means|way|keeps?|prevents?|avoids?)\b"
                        r"|^(?:That way|So that)\b")


def bounded_changes(text: str) -> list[tuple[str, str]]:
    """(sentence, sentence with what it achieves) for each sentence of `text` reporting a change made
    in a bounded way; the second adds the sentence after it when that says what the change achieves."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        if "been " not in para or not _DONE_RE.search(para):
            continue
        sents = _sentences(para)
        for k, s in enumerate(sents):
            if _DONE_RE.search(s) and _BOUNDED_RE.search(s) and 30 <= len(s) <= 400:
                effect = sents[k + 1] if k + 1 < len(sents) and _EFFECT_RE.match(sents[k + 1]) else ""
                out.append((cut_at_word(s, APPROACH_CHARS), cut_at_word(f"{s} {effect}".strip(), APPROACH_CHARS)))
    return out


# The agent giving up on an ask ("Therefore, I cannot provide a block for a non-existent section."),
# with what it concluded just before: why it stopped.
STOP_CUES = ("I cannot", "I can't", "unable to")  # a stop is said in the first person (`cued`)
_STOP_RE = re.compile(r"^(?:(?:Therefore|Thus|Hence|So|As a result|Because of this|For this reason),?\s+)?I (?:cannot|"
                      r"can't|can not|am unable to|'m unable to|won't be able to|will not be able to)\b")
PREMISE_CHARS = 320
_NEGATION_RE = re.compile(r"(?i)\b(?:not|no|never|missing|absent|doesn't|isn't|aren't|can't|cannot|without)\b")


def stops(text: str) -> list[str]:
    """"<premise> <stop>" for each sentence of `text` in which the agent says it cannot go on with
    an ask, the premise being the one or two sentences before it in its paragraph (or the paragraph
    before) that state what it found."""
    out: list[str] = []
    paras = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    for i, para in enumerate(paras):
        if not any(cue in para for cue in STOP_CUES):
            continue  # a stop is said in the first person
        sents = _sentences(para)
        for k, s in enumerate(sents):
            if not _STOP_RE.match(s) or s.endswith("?") or len(s) > 300:
                continue
            prior = sents[:k] or (_sentences(paras[i - 1]) if i > 0 else [])
            prior = [p for p in prior[-2:] if not p.endswith(("?", ":")) and len(p) <= PREMISE_CHARS]
            # what it found missing or wrong, else the sentence right before
            premise = next((p for p in prior if _NEGATION_RE.search(p)), prior[-1] if prior else None)
            if premise:
                out.append(f"{premise} {s}")
    return out


# A guess the agent hedged ("failed, likely because the spacing…"): what a later conclusion replaces.
HEDGE_CUES = ("likely because", "probably because", "possibly because", "likely due to", "probably due to",
              "presumably because", "i suspect", "might be because", "may be because", "perhaps because")
GUESS_CHARS = 80
_QUOTED_RE = re.compile(r"`([^`\n]{3,80})`|\"([^\"\n]{3,80})\"")


def hedged_guess(text: str, lowered: str) -> str | None:
    """The clause of `text` that states a hedged cause ("because the spacing of the markers…"), or None."""
    for cue in HEDGE_CUES:
        at = lowered.find(cue)
        if at >= 0:
            end = len(text)
            for b in (". ", ".\n", "\n"):
                k = text.find(b, at)
                if 0 <= k < end:
                    end = k
            return cut_at_word(" ".join(text[at:end].split()), GUESS_CHARS)
    return None


def shares_term(a: str, b: str) -> bool:
    """True when texts `a` and `b` quote a common name (a code span or a quoted phrase)."""
    names = {x or y for x, y in _QUOTED_RE.findall(a)}
    return any(n in b for n in names)


# Alternatives a request (or the agent) lays out, then the concern said to apply to them all.
# Each opens a line (a paragraph after the list): "\nboth suggestions…".
CONCERN_CUES = ("\nboth ", "\neither ", "\nall of these", "\nall these", "\neach of these", "\nneither ",
                "\nin all cases", "\nin both cases", "\nthese two", "\nthese three")
_OPTIONS_LEAD_RE = re.compile(r"(?i)\b(?:possibilit(?:y|ies)|options|approaches|alternatives|suggestions|ways|"
                              r"solutions|ideas|choices|fixes)\b[^\n]{0,60}(?::|\bare|\binclude)\s*$"
                              r"|\b(?:need|have|want|could|can|would) to either:\s*$")  # "I would need to either:"
_CONCERN_RE = re.compile(r"(?i)^(?:both|either|all (?:of )?(?:these|them|the above|three|four)|each of (?:these|them)|"
                         r"neither|none of (?:these|them)|in (?:both|all|either) cases?|these (?:two|three|"
                         r"approaches|options|suggestions))\b")
# the lead-in's words (`_OPTIONS_LEAD_RE`), as lower-case substrings: a cheap check before the lines are read
OPTIONS_CUES = ("possibilit", "option", "approach", "alternative", "suggestion", "ways", "solution", "ideas",
                "choices", "fixes")
OPTION_CHARS = 80
MAX_OPTIONS = 4


def _option_lists(lines: list[str]) -> list[tuple[list[str], int, int]]:
    """Each list of two to four alternatives under a lead-in line ("Options:", "Two possibilities which
    spring to mind are"): (its items, the index of the first non-blank line after it, of its lead-in)."""
    out: list[tuple[list[str], int, int]] = []
    for i, line in enumerate(lines):
        if not _OPTIONS_LEAD_RE.search(line.strip()):
            continue
        items: list[str] = []
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or _ITEM_RE.match(lines[j])) and len(items) <= MAX_OPTIONS:
            m = _ITEM_RE.match(lines[j])
            if m:
                items.append(m.group(1).strip())
            elif items and j + 1 < len(lines) and not _ITEM_RE.match(lines[j + 1]):
                break  # a blank line after the list
            j += 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if 2 <= len(items) <= MAX_OPTIONS:
            out.append((items, j, i))
    return out


# Options put to the user (its answer is the choice, told as the user's), wherever the text says so
_OFFERED_RE = re.compile(r"(?i)\b(?:let me know|which (?:one|of these|do you|would you)|(?:do|would) you (?:like|want|"
                         r"prefer)|you prefer|want me to|shall I|should I|your call|up to you)\b")
_PAST_ITEM_RE = re.compile(r"^(?:\*\*)?\w+(?<!e)ed\b")  # "Pinned `lodash`": a fix applied, not an option


def own_options(text: str) -> tuple[str, str] | None:
    """The alternatives the agent lays out for itself ("Options: - Delete the file if unused - Implement a
    minimal API route"), their openings on one line, and the text after the list (where it says what it
    did about them). Not options it offers the user, nor fixes already applied (past-tense items), nor a
    list inside a code block."""
    if text.rstrip().endswith("?") or _OFFERED_RE.search(text):
        return None
    lines = without_fences(text.replace("\r", "")).splitlines()
    found = _option_lists(lines)
    if not found:
        return None
    items, after, lead = found[0]
    if sum(bool(_PAST_ITEM_RE.match(x)) for x in items) * 2 > len(items):
        return None
    listed = "; ".join(f"{k}) {cut_at_word(x.rstrip('.'), OPTION_CHARS)}" for k, x in enumerate(items, 1))
    # what they are options for: the lead-in's sentence before the one that says "Options:"
    # ("`route.ts` is empty, causing the error. Options:"); none when the lead-in is one sentence
    said = _sentences(lines[lead])
    context = said[-2] if len(said) >= 2 else ""
    if said and said[-1].rstrip().endswith("either:"):  # "To get the ID there, I would need to either:": its own
        context = said[-1].rstrip()[:-len("either:")].rstrip(" ,")
    if len(context) >= 12:
        listed = f"{cut_at_word(context.rstrip('.:'), 2 * OPTION_CHARS)}: {listed}"
    return listed, "\n".join(lines[after:])


def proposed_options(text: str, lowered: str) -> tuple[str, str] | None:
    """("Proposed: 1) …; 2) … — <the concern that applies to them all>", the same with the options'
    openings only) when `text` lists two to four alternatives under a lead-in ("Two possibilities
    which spring to mind are") and the next paragraph says what applies to them all ("both
    suggestions raise questions…"); else None. The short form leaves the options to the request."""
    if not any(c in lowered for c in CONCERN_CUES):
        return None
    lines = text.replace("\r", "").splitlines()
    for items, j, _ in _option_lists(lines):
        if j >= len(lines):
            continue
        concern = _sentences(lines[j])[0] if _sentences(lines[j]) else ""
        if not _CONCERN_RE.match(concern):
            continue
        concern = cut_at_word(concern, 2 * OPTION_CHARS)
        forms = ["; ".join(f"{k}) {cut_at_word(x.rstrip('.'), n)}" for k, x in enumerate(items, 1)) for n in (OPTION_CHARS, 40)]
        return f"Proposed: {forms[0]} — {concern}", f"Proposed: {forms[1]} — {concern}"
    return None
