"""Findings, round by round: the agent's own diagnoses and conclusions ("the problem is…", "this
means…", "X works, Y does not", "ruled out…") and each decisive command's outcome (exit status, test
counts, the line that says what happened), as a dated timeline.

When the timeline would not fit its share of the budget, older rounds merge into phases: seed 000's
hierarchical summarization done extractively — each level keeps 0.5, 0.4, then 0.25 of the findings
of the level before (the best-scored ones, in order) — and every phase line says how many findings
it stands for, so nothing is dropped silently.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from compaction.events import (
    Event,
    EventKind,
    is_test_command,
    parse_test_summary,
    results_of_calls,
    shell_reads,
    without_fences,
)
from compaction.history.condense import cut_at_clause
from compaction.history.facts import TIGHT_TARGET, WS_RE, Fact, cite, display_path, first_line
from compaction.history.headings import h
from compaction.history.lookups import PATH_LINE_RE, found_nothing_in, lookup_hits, lookup_text
from compaction.history.sections import Section
from compaction.history.sentences import BEFORE_WIDE_TEXT, THOUGHT_RE, WIDE_CLASS, prose, sentences_around, straight
from compaction.history.sources.blocks import referenced_blocks
from compaction.history.sources.missed_edits import belied
from compaction.history.sources.recaps import EDITED_AGAIN, recapped
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role, Round, ToolKind, ToolResult, Transcript
from compaction.shell import (
    STATUS_LINE_RE,
    found_nothing,
    printed_nothing,
    split_commands,
    went_wrong,
    without_heredoc_body,
)

LEVEL_RATIOS = (0.5, 0.4, 0.25)  # seed 000's hierarchical levels
SHARE = 0.15  # of the compaction target the timeline may fill before older rounds merge into phases
# At a tight target the phases (must-keep) would take the room the code the agent relied on and the
# other sections need: the timeline merges sooner, its singles then compete by value.
TIGHT_SHARE = 0.08
RECENT_SHARE = 0.3  # of the findings, the most recent stay one line each at every level
_PHASE_SIZE = 8  # findings per phase at level 0
# A user's question is asked when it closes the message: one inside a long brief (a step of its
# instructions: "Do you think the issue has been solved? Write tests…") is no question to answer.
_ASKED_TAIL = 500

# Diagnosis and conclusion phrasing, strongest first (its weight adds to the score).
_FINDING_PATTERNS: tuple[tuple[re.Pattern[str], int], ...] = tuple((re.compile(p, re.IGNORECASE), w) for p, w in (
    (r"\b(?:the )?root cause\b|\bthe (?:real |actual |underlying )?(?:problem|issue|bug|culprit) (?:is|was|here is|seems to be)\b", 30),
    (r"\bruled? out\b|\bis not the (?:cause|issue|problem)\b|\bisn't the (?:cause|issue|problem)\b|\bnot related to\b", 28),
    (r"\b(?:this|which|that|it) (?:means|confirms|explains|shows|proves)\b|\bturns out\b|\bconfirmed\b", 25),
    (r"\b(?:is|was|are) caused by\b|\bbecause\b|\bdue to\b|\bthe reason (?:is|was)\b"
     r"|\bas (?:indicated|shown|suggested) by\b|\baccording to the\b", 18),
    (r"\b(?:now )?(?:works|passes|pass|succeeds)\b(?! if)|\b(?:does not|doesn't|did not|didn't) (?:work|help|fix|pass)\b"
     r"|\bstill (?:fails|failing|broken)\b|\bfixed\b|\bresolved\b", 15),
    (r"\bI (?:found|see|notice|noticed|discovered|realized)\b|\bfound (?:that|the)\b|\bthe output shows\b", 10),
    # A failure stated with what the agent does about it: "the runner failed before X started, so I'm rerunning…"
    (r"\bfailed (?:before|because|with|due|on)\b[^.;]*?, so (?:i|we)\b", 14),
    # What a file read turned out to hold or lack: "is empty", "are placeholders", "the only complete schema"
    (r"\b(?:is|are|was|were) (?:(?:still |only |just )?(?:empty|a placeholder|placeholders|a stub|stubs))\b"
     r"|\bthe only (?:complete|defined|existing|implemented)\b"
     r"|\b(?:does|do|did) not (?:currently |yet )?(?:define|contain|declare|implement)\b|\bcontains? only\b", 21),
    # What a class turned out to be, against what was assumed: "`NDimArray` inherits from `object`, not `Basic`"
    (r"\b(?:inherits|derives) (?:directly )?from\b[^.;?]*?, not\b|\b(?:does not|doesn't|did not|didn't) "
     r"(?:inherit|derive)\b|\bis not a (?:subclass|subtype) of\b|\bisn't a (?:subclass|subtype) of\b", 22),
))
# The same patterns for lower-cased sentences (a case-insensitive search costs several times more), each
# with words one of which any match holds: a pattern runs only on a sentence holding one of its words.
_PATTERN_WORDS = (("cause", "problem", "issue", "bug", "culprit"), ("rule", "cause", "issue", "problem", "related"),
                  ("mean", "confirm", "explain", "show", "prove", "turns out"),
                  ("cause", "due to", "reason", "indicated", "shown", "suggested", "according"), ("work", "pass", "succeed", "help", "fix", "fail", "broken", "resolved"),
                  ("found", "i see", "notic", "discover", "realiz", "show"), ("failed",),
                  ("empty", "placeholder", "stub", "the only", "not define", "not contain", "contains only",
                   "not currently", "not yet", "not declare", "not implement", "contain only"),
                  ("inherit", "derive", "subclass", "subtype"))
# Words every finding pattern contains one of (the patterns' own words, one list): plain substring
# searches find the candidate sentences (a regex of alternatives is tried at every position of every
# assistant message, many times slower). A word holding another (`failed`, `fail`) finds nothing more.
_WORDS = dict.fromkeys(w for words in _PATTERN_WORDS for w in words)
_KEYWORDS = tuple(w for w in _WORDS if not any(k != w and k in w for k in _WORDS))
_LOWER_PATTERNS = tuple((re.compile(rx.pattern.lower()), w, words)
                        for (rx, w), words in zip(_FINDING_PATTERNS, _PATTERN_WORDS, strict=True))
_PLAN_START_RE = re.compile(r"^(?:let me|let's|i'll|i will|i need to|i should|now,? (?:let|i)|next,|first,|then,?|"
                            r"to (?:fix|do|check|verify)|we need to|i'm going to)\b", re.IGNORECASE)
# A sentence ends at `.!?` before a capital, at a full-width `。！？` (Chinese and Japanese need no space), or a line.
# A colon followed by a gap closes a sentence too: an exporter joins the prose around a tool call with
# spaces ("Let me read the config:  The file sets…").
# A Latin stop right before a wide character ends one too (an English thought, then the reply in Chinese).
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|(?<=[a-z)`][.!?])" + BEFORE_WIDE_TEXT
                          + r"|(?<=[。！？])\s*|(?<=：)\s+|(?<=:)\s{2,}|\n+")
# The same split for a text without `。！？` (its one branch that may match empty never does there), each
# branch opening on the whitespace it consumes: a pattern that opens with a character class is scanned for
# it in C, where one opening with a lookbehind is tried at every position (3-4 times slower).
_SENTENCE_WS_RE = re.compile(r"\s(?:(?<=[.!?]\s)\s*(?=[A-Z`\"'(])|(?<=：\s)\s*|(?<=:\s)\s+|(?<=\n)\n*)")
_CJK_STOPS = ("。", "！", "？")
WIDE_RE = re.compile("[\u2e81-\U0010ffff]")  # a character past U+2E80 (CJK and after)
# markup a reply is wrapped in (`<thinking>`, `<br/>`, `</answer>`), not a type's parameters, which follow the
# type's name (`Set<unknown>`, `Promise<T>`, `Item[]<T>`)
_TAG_RE = re.compile(r"(?<![\w$\]])<[A-Za-z][\w-]*(?:\s[^<>]*)?/?>|</[A-Za-z][\w-]*\s*>")
_ERROR_LINE_RE = re.compile(r"(?:Error|Exception\b|FAILED|FAIL:|error:|error\[|AssertionError|assert |panic|fatal)")
# A compiler's or linter's error at a place (`src/x.tsx:171:9 - error TS6133: …`, `a.rs:3:5: error[E0425]`, `x.c:4:
# error: …`): what went wrong, before the wrapper's and the tool's own lines printed after it. The place is a
# file's (a name with an extension), not a log line's time (`12:00:01 ERROR …`).
_LOCATED_ERROR_RE = re.compile(r"^[\w./\\-]*\w\.[A-Za-z]\w{0,7}[:(]\d+(?:[:,]\d+)?\)?:?\s*(?:-\s*)?(?:fatal )?error\b",
                               re.IGNORECASE)
# A build tool's error line at a file's line, behind its log tag (Maven's `[ERROR] src/x/JSON.java:[1299] (regexp)
# RegexpMultiline: Line has trailing whitespace`, `[ERROR] /x/A.java:[12,5] cannot find symbol`)
_TAGGED_AT_FILE_RE = re.compile(r"^\[(?:ERROR|FATAL)\]\s+[\w./\\-]*\w\.[A-Za-z]\w{0,7}:\[?\d+")
_WENT_WELL_RE = re.compile(r"\b(?:SUCCESS|Success|success|successfully|OK|Done|done|passed)\b")
_WENT_BADLY_RE = re.compile(r"\b(?:failed|FAILED|FAILURE|failure|error|errors)\b")
_RESULT_LINE_RE = re.compile(r"\b(?:passed|failed|OK|SUCCESS|Success|success|successfully|All tests|Done|done)\b|"
                             r"\bResult:|\b\d+ files? changed\b|\b(?:0|no) (?:issues|errors|problems)\b")
# One of which every match of each line pattern holds (none holds a newline: a match is within one line).
_LINE_WORDS = {_ERROR_LINE_RE: ("Error", "Exception", "FAILED", "FAIL:", "error:", "error[", "assert ", "panic", "fatal"),
               _RESULT_LINE_RE: ("passed", "failed", "OK", "SUCCESS", "uccess", "All tests", "Done", "done", "Result:",
                                 " file", " issues", " errors", " problems")}
# A succeeded command's closing summary worth saying even when the command is routine (a commit's
# "2 files changed, 393 insertions(+)", a linter's "0 issues", an installer's "Successfully installed").
_SUMMARY_LINE_RE = re.compile(r"\b\d+ files? changed\b|\b(?:0|no) (?:issues|errors|problems) found\b|"
                              r"\b0 (?:issues|errors|problems)\b|\bSuccessfully (?:installed|built|created|compiled|"
                              r"deployed|pushed|tagged)\b|\bcompleted successfully\b|\bBuild succeeded\b|\bResult: ")
# One of which every _SUMMARY_LINE_RE match holds (each branch's literal core): a few substring searches
# spare most outputs the pattern, whose branches open with `\b` and so are tried at every position
# (" file" or " errors" alone let an output of ordinary prose through).
_SUMMARY_WORDS = (" file changed", " files changed", " issues found", " errors found", " problems found", "0 issues",
                  "0 errors", "0 problems", "Successfully ", "completed successfully", "Build succeeded", "Result: ")
# What makes an answer's sentence informative: identifiers in backticks, numbers, reasons.
_INFORMATIVE_RE = re.compile(r"`[^`\n]{2,60}`|\b\d[\d.,:]*(?:[a-z]{1,2}\b|%|\b)|"  # a figure, with its unit (37.7s)
                             r"\b(?:because|so|means|instead|rather than|ruled out|"
                             r"the problem is|root cause|since|therefore|which)\b|^[A-Z][\w /()-]{1,30}: \S",
                             re.IGNORECASE)  # the last: a "Label: value" line of a list (Build command: blank)
_EMPHASIS_RE = re.compile(r"\*\*|__")
_BOLD_RE = re.compile(r"\*\*[^*\n]{2,40}\*\*")  # what the reply itself stressed counts as informative too
HEADING_STRESS = 2  # a heading of the reply stresses more than one bold span
# A link's address (`file:///C:/…/3f00f0a8-748a-…/plan.md`): its digits are an id's, no figure the reply gives.
_ADDRESS_RE = re.compile(r"\]\([^)\s]*\)|\b[a-z][a-z+.-]*://\S+")
_LIST_ITEM_RE = re.compile(r"(?:[-*•+]|\d+[.)])\s")
_LIST_NUMBER_RE = re.compile(r"\d{1,3}[.)]")
# A lead-in asking the user for material ("Please add the following files to the chat:", "I recommend you also
# add:", "Could you share …:"): the list under it names what the agent wants to see, not what it found
_WANTS_INPUT_RE = re.compile(r"(?i)\b(?:please|kindly|could you|can you|would you|"
                             r"(?:recommend|suggest) (?:that )?you(?: also)?)\s+(?:also\s+)?(?:add|provide|share|upload|"
                             r"paste|send|attach)\b|\bI(?:'d| would)? need (?:to see|you to)\b")
# ... of material for the agent to read: files, their contents, an output (not secrets for a repository's settings)
_MATERIAL_RE = re.compile(r"(?i)\b(?:to (?:the|this) chat|contents?|files?|director(?:y|ies)|folders?|logs?|output|code|"
                          r"snippets?|screenshots?|entrypoints?)\b")
_TITLE_PENALTY = 100  # a heading that states no result scores nothing: kept only when nothing else is
# A heading that states a result: a status mark, or a verdict word with a figure ("## 45 tests passed"), not a
# section's title ("Phase 1: Intent Capture", "## Failed approaches"); `#123 fixed it` is an issue, no heading.
_HEADING_RE = re.compile(r"#{1,6}\s")
_STATUS_MARK_RE = re.compile("[✅❌✓✗⚠]")
_VERDICT_WORD_RE = re.compile(r"\b(?:pass(?:ed|es)?|fail(?:ed|s|ing)?|succeeded|fixed|broken)\b", re.IGNORECASE)


def _verdict_heading(heading: str) -> bool:
    return _STATUS_MARK_RE.search(heading) is not None or (
        _VERDICT_WORD_RE.search(heading) is not None and any(c.isdigit() for c in heading))
TABLE_ROW_PENALTY = 2  # a table's row read without its header row: cells whose meaning is in the columns' names
_HOLDS_WEIGHT = 21  # the weight of what a file turned out to hold: only a statement naming the file or code counts
# A sentence that only says something was seen ("Wait, I see what happened.", "Now I see the issue."): what
# was seen follows it, if anywhere
_SEEN_ONLY_RE = re.compile(r"(?i)\bI (?:see|found|notice|understand|get|know) (?:now )?(?:what(?:'s| is)? "
                           r"(?:happening|happened|going on|wrong|the (?:issue|problem) is)|the (?:issue|problem|bug|"
                           r"cause|culprit)|it)(?: now)?\W*$")
ANSWER_CHARS = 360  # an answer's finding: its most informative sentences up to this length
REPORT_CHARS = 300  # a request's report: its most informative sentences up to this length (half in CJK)
REPORT_READ = 3000  # characters of the closing messages a report is chosen from
REPORT_SCORE = 58  # below an answer to a question (62): a report is what the agent says it did
REQUEST_HEAD_CHARS = 40
MAX_REPORTS = 40  # the latest requests' reports
_NOISE_LINE_RE = re.compile(r"-+|=+")  # fullmatch: a rule line says nothing (nor a status line, STATUS_LINE_RE)
# fullmatch: a build tool's advice after its failure (Maven's "[ERROR] [Help 1] http://…", "re-run Maven using the
# -X switch", Gradle's "Run with --stacktrace", npm's "A complete log of this run can be found in: …") or its
# log tag alone: printed after what went wrong, said by every failure, it is never the decisive line
_ADVICE_LINE_RE = re.compile(
    r"(?:\[?(?:ERROR|WARN(?:ING)?|INFO|FAILURE)\]?:?|npm (?:ERR!|error)|\*|>)?\s*(?:"
    r"\[Help \d+\](?:\s+\S+)?|To see the full stack trace\b.*|Re-run (?:Maven|Gradle|the build|with)\b.*"
    r"|For more information about the errors\b.*|Run with --(?:stacktrace|info|debug|scan)\b.*|Try:"
    r"|Get more help at\b.*|A complete log of this run can be found in:?.*|)", re.IGNORECASE)
# What a statement establishes: a backticked span, a number, a code-shaped name (snake_case, camelCase,
# dotted) or a path; a statement with none narrates.
SPECIFIC_RE = re.compile(r"`[^`\n]{2,80}`|\b\d[\d.,:]*\b|\b[A-Za-z_]+(?:_\w+|[a-z][A-Z]\w*|\.\w+\(?)|[\w.-]+/[\w./-]+")
# The agent's intent in the middle of a sentence ("…, so I'll look for…"): what it meant to do, not what it found.
_INTENT_RE = re.compile(r"\b(?:I'll|I will|I need to|I should|let me|I'm going to|we need to|we should)\b", re.IGNORECASE)
# What the agent means to do next ("I'll distill…", "I'm going to read…"): no part of a report on what was done
# (a constraint it states, "we should not call `init()` twice", is)
_PLANS_RE = re.compile(r"\b(?:I'll|I will|I'm going to|I am going to|let me)\b", re.IGNORECASE)
_WORD_RE = re.compile(r"[a-z_][a-z0-9_.]{3,}")
_FUNCTION_WORDS = frozenset("this that these those there their them then than they with from have been were will would "
                            "should could does which what when where while into also only just here means seems "
                            "still some more".split())
_SAME = 0.75  # of a statement's words an earlier one already held: it says that again
_COMPARED = 12  # earlier statements a new one is compared with (a restatement follows closely)
_SCRIPT_RUN_RE = re.compile(r"\b(?:python[0-9.]*|node|ruby|go run|cargo run|java|bash|sh)\s+(?!-m\b|-c\b)\S+\.\w+")


def _ascii_twin(rx: re.Pattern[str]) -> re.Pattern[str]:
    """`rx` for ASCII-only text, 2-5 times faster (no Unicode case folding or category lookup at every
    position) and with the same matches there: \\w, \\d, \\b and case folding agree on ASCII characters;
    `\\S` is spelled out, as Unicode's \\s also holds \\x1c-\\x1f (no pattern twinned uses \\s)."""
    if r"\s" in rx.pattern:
        raise ValueError("an ASCII twin of a pattern using \\s")
    return re.compile(rx.pattern.replace(r"\S", r"[^\s\x1c-\x1f]"), rx.flags & ~re.UNICODE | re.ASCII)


_INFORMATIVE_ASCII_RE = _ascii_twin(_INFORMATIVE_RE)
_INTENT_ASCII_RE = _ascii_twin(_INTENT_RE)
_LOWER_ASCII_PATTERNS = tuple((_ascii_twin(rx), w, words) for rx, w, words in _LOWER_PATTERNS)


@dataclass(slots=True)
class Finding:
    round: int
    text: str
    score: float
    outcome: bool = False  # a command's outcome, not a statement
    code: bool = False  # a block of code the session pointed at (`blocks`): shown whole, never cut


@fact_source(Section.FINDINGS)
def finding_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    findings = collect(ctx.transcript, ctx.events, pair=ctx.results_of)
    code = [Finding(b.round, f"`{display_path(b.path, ctx.cwd)}` L{b.lo}{f'-{b.hi}' if b.hi > b.lo else ''}: "
                    f"`{b.text}`" + (f"; then {b.uses}" if b.uses else ""), (72 if b.prose else 56) + min(b.lines, 8),
                    code=True)
            for b in referenced_blocks(ctx)]
    if code:  # the code the session pointed at competes with what the agent said about it, in round order
        findings = sorted(findings + code, key=lambda f: f.round)
    target = ctx.target_tokens or 4000
    # The reports stand apart from the timeline (its share sized for what the cues find): each competes
    # for the section's room by its value, so a session whose findings fill the timeline keeps them.
    told: dict[int, str] = {}
    for f in findings:
        if not (f.outcome or f.code):
            told[f.round] = f"{told.get(f.round, '')} {f.text}"
    reports = request_reports(ctx.transcript, told=told, lang=ctx.lang, recaps=recapped(ctx))
    facts = _disputed(ctx, timeline(findings, int(target * (TIGHT_SHARE if target < TIGHT_TARGET else SHARE)))
                      + [_single(r) for r in reports])
    for f in facts:  # a claim of changes made that a substitution never made belies (missed_edits.belied)
        if note := belied(ctx, f.rounds, f.text):
            _noted(f, note)
            f.short = f.short + note if f.short else None
    return facts


# The user's next words challenging what the agent just said ("how can you say things look up-to-date if you
# haven't checked the source code", "no, that's wrong")
_CHALLENGE_RE = re.compile(r"(?i)^\W*(?:(?:my )?(?:dude|man|mate)[,.!]?\s+)?(?:no[,.!]\s+(?:that'?s|it'?s|this is) (?:wrong|"
                           r"not)|wrong\b|that'?s (?:not (?:true|right|"
                           r"correct)|wrong|incorrect)|this is (?:wrong|not right)|how (?:can|could|do) you (?:say|claim|know)|"
                           r"you (?:haven'?t|didn'?t|did not|have not) (?:even )?(?:check|look|read|test|verif|run)\w*|"
                           r"why (?:did|would) you (?:say|claim|think)|not true\b|incorrect\b)")
DISPUTE_CHARS = 110


def _disputed(ctx: FactContext, facts: list[Fact]) -> list[Fact]:
    """A finding the user challenged in the very next request ("how can you say things look up-to-date
    if you haven't checked the source code") says so: told bare, the agent's claim reads as established."""
    asks = [(e.round, e.text) for e in ctx.events if e.kind is EventKind.REQUEST and e.text
            and _CHALLENGE_RE.match(e.text)]
    if not asks:
        return facts
    for f in facts:
        last = max(f.rounds, default=0)
        said = next((t for r, t in asks if r == last + 1), None)
        if said is None:
            continue
        said = " ".join(said.split())
        said = said if len(said) <= DISPUTE_CHARS else said[:DISPUTE_CHARS].rsplit(" ", 1)[0] + "…"
        _noted(f, f" — the user disputed it (r{last + 1}): “{said}”")
    return facts


def _noted(f: Fact, note: str) -> None:
    """`note` after the fact's words, before its closing citation when it ends on one."""
    last = max(f.rounds, default=0)
    f.text = f.text.removesuffix(f" (r{last})") + note + f" (r{last})" if f.text.endswith(f" (r{last})") \
        else f.text + note
    if f.full_text:
        f.full_text = f.full_text + note


def collect(transcript: Transcript, events: list[Event] | None = None,
            pair: Callable[[Round], dict[int, ToolResult | None]] | None = None) -> list[Finding]:
    """Every finding of the transcript in order: statements of the agent, outcomes of its commands.
    `events`: the transcript's events when the caller has them (their test counts are reused); `pair`:
    the compaction's shared call/result pairing of a round (`FactContext.results_of`), when there is one."""
    summaries = {(e.round, e.command): e.test_summary for e in events or () if e.kind is EventKind.COMMAND}
    out: list[Finding] = []
    seen: set[str] = set()
    said: list[set[str]] = []  # the words of the statements kept so far
    named: set[str] = set()  # the identifiers and values they named
    missed: tuple[int, str] | None = None  # the latest search that found nothing: (round, how it read)
    unplaced: int | None = None  # a search-again finding whose hits name no place ("1 matches"): its index in out
    for rnd in transcript.rounds:
        results = pair(rnd) if pair is not None else results_of_calls(rnd.messages)
        question = next((m.text for m in rnd.messages if m.role is Role.USER and not m.harness and m.text
                         and asks(m.text)), None)
        if question is not None:  # the user asked: the round's replies answer it
            replies = [m for m in rnd.messages if m.role is Role.ASSISTANT and m.text and not m.harness]
            answer = answer_to(question, replies) if replies else None
            if answer and answer.lower()[:100] not in seen:
                seen.add(answer.lower()[:100])
                out.append(Finding(rnd.number, answer, 62 + max(0, specificity(answer, named))))
        for msg in rnd.messages:
            if msg.role is Role.ASSISTANT and msg.text and not msg.harness and ", not " in msg.text:
                _correct(out, rnd.number, msg.text)
            if unplaced is not None and msg.role is Role.ASSISTANT and msg.text and not msg.harness:
                if rnd.number <= out[unplaced].round + 1 and (place := _placed(msg.text)):
                    out[unplaced] = Finding(out[unplaced].round, f"{out[unplaced].text} — “{place}”",
                                            out[unplaced].score, outcome=True)
                unplaced = None
            if msg.role is Role.ASSISTANT and not msg.harness and (msg.text or msg.meta.get("thinking")):
                for text, weight in _statements_with_thinking(msg):
                    key = text.lower()[:100]
                    if key not in seen:
                        seen.add(key)
                        bag = set(_WORD_RE.findall(text.lower())) - _FUNCTION_WORDS
                        if _repeats(bag, said):
                            continue
                        said.append(bag)
                        out.append(Finding(rnd.number, text, 40 + weight + specificity(text, named)))
            for call in msg.tool_calls:
                res = results.get(id(call))
                if call.kind == ToolKind.SHELL and call.command:
                    known = summaries.get((rnd.number, call.command.strip()), "?") if events is not None else "?"
                    found = outcome(call.command, res, known)
                    if found:
                        out.append(Finding(rnd.number, found[0], 40 + found[1], outcome=True))
                elif call.kind is ToolKind.SEARCH and res is not None and (lookup := lookup_text(call)):
                    before = len(out)
                    missed = _search_again(out, missed, rnd.number, lookup, res.content or "")
                    if len(out) > before and not PATH_LINE_RE.search((res.content or "")[:4000]):
                        unplaced = len(out) - 1  # the agent's next words say where the hits are
    return out


# The agent correcting itself: "that's dockerignore, not gitignore", "it is `b.py`, not `a.py`" — the name it had
# wrong (2) and the right one (1)
_CORRECTION_RE = re.compile(r"\b(?:that'?s|that is|it'?s|it is|this is|they'?re|was|were|is|are) (?:actually |really |in fact )?"
                            r"(?:the |a |an )?`?([\w./-]{3,60})`?(?: \w+)?, not (?:the |a |an )?`?([\w./-]{3,60})`?")
CORRECTION_ROUNDS = 12  # an earlier finding this close before it is the belief a correction takes back
CORRECTION_CHARS = 100  # of the clause that corrects it, told before it


def _correct(out: list[Finding], rnd: int, text: str) -> None:
    """An earlier finding that named what the agent now says was something else ("The gitignore has: *.json
    …", then "that's dockerignore, not gitignore") is told with the correction: a successor reading the
    first alone acts on a belief the session gave up."""
    for m in _CORRECTION_RE.finditer(without_fences(text)[:6000]):
        right, wrong = m.group(1).lower().rstrip("."), m.group(2).lower().rstrip(".")
        if right == wrong or len(wrong) < 3:
            continue
        said = cut_at_clause(" ".join(m.group(0).split()).rstrip("."), CORRECTION_CHARS)
        for i in range(len(out) - 1, -1, -1):  # back from the latest: the findings in order of round
            f = out[i]
            if f.round < rnd - CORRECTION_ROUNDS:
                break
            low = f.text.lower()
            if f.round >= rnd or wrong not in low or right in low or "corrects this: " in low:
                continue
            # first: a phase's line is cut at its end
            out[i] = Finding(f.round, f"(r{rnd} corrects this: “{said}”) {f.text}", f.score, f.outcome, f.code)


_PLACE_RE = re.compile(r"\b[Ll]ine \d+|[\w./-]+\.[A-Za-z]\w*:\d+")  # a file's line, not a host's port


def _placed(text: str) -> str | None:
    """The agent's first sentence that says where a search's hits are ("Line 24 of README.md has "Bastion
    v2"."), for a search tool that only counted them."""
    for sentence in _SENTENCE_END_RE.split(without_fences(text)[:1500]):
        if _PLACE_RE.search(sentence):
            return cut_at_clause(sentence.strip(), 160)
    return None


def _search_again(out: list[Finding], missed: tuple[int, str] | None, rnd: int, lookup: str,
                  output: str) -> tuple[int, str] | None:
    """A search tool's call: one that found nothing is remembered; the next one, within two rounds,
    that found something and looks for a term of it becomes a finding with it (“`grep Bastion V2` → nothing; `grep V2|v2` →
    README.md”): how the agent found what its first words missed. Returns what to remember."""
    if found_nothing_in(output):
        return rnd, lookup  # the latest miss: the search the next one corrects
    if missed and missed[0] >= rnd - 2 and _shared_terms(missed[1], lookup):
        out.append(Finding(rnd, f"{missed[1]} → nothing; then {lookup} → {lookup_hits(output, None)}", 48,
                           outcome=True))
    return None


def _shared_terms(first: str, then: str) -> bool:
    """Whether two searches look for the same thing: a term of two characters or more in both, past the
    tool's name (`grep Bastion V2`, `grep V2|v2`)."""
    def terms(lookup: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-z0-9_]{2,}", lookup)[1:]}
    return bool(terms(first) & terms(then))


def asks(text: str) -> bool:
    """The user's message closes on a question (`?` or a full-width `？`) the replies answer."""
    at = max(text.rfind("?"), text.rfind("？"))
    return at >= 0 and at >= len(text) - _ASKED_TAIL


def request_reports(transcript: Transcript, told: dict[int, str] | None = None,
                    lang: str = "en", recaps: dict[int, str] | None = None) -> list[Finding]:
    """What the agent reported back on each request of the user that was no question (a question's
    answer is `answer_to`'s): the most informative sentences of its closing messages, which say what it
    found and did ("now uses a `nodeElements` Map to cache the DOM elements…"), in whatever language
    it writes. For a request none of whose rounds holds a statement (`told`: the statements' text by
    round), or whose report names NEW_SPECIFICS things they do not: the cue phrases find an English
    agent's findings; the report stands in where they find none (the agent writes in another language,
    or states without a cue) and adds the results a closing report gives beside the diagnoses. Only
    where the user made several requests: a one-task session's closing report is the agent's findings
    and outcomes, told above."""
    # Read from the end, the latest requests first: a session of a million one-line requests gives
    # MAX_REPORTS reports, not a million (older ones would only merge into phases anyway).
    told = told or {}
    out: list[Finding] = []
    replies: list[tuple[int, str]] = []  # the latest request's replies, newest first
    read = 0  # their characters: report_of reads REPORT_READ of them, no more
    requests = 0
    for rnd in reversed(transcript.rounds):
        for m in reversed(rnd.messages):
            if m.role is Role.ASSISTANT and m.text and not m.harness:
                if read < REPORT_READ:
                    replies.append((rnd.number, m.text))
                    read += len(m.text)
            elif m.role is Role.USER and not m.harness and m.text.strip():
                requests += 1
                if replies and not asks(m.text):
                    span = [told[r] for r in range(rnd.number, replies[0][0] + 1) if r in told]
                    report = report_of([text for _, text in reversed(replies)])
                    if report and span and not _adds(report, " ".join(span)):
                        report = None
                    recap = " ".join(recaps[r] for r in range(rnd.number, replies[0][0] + 1) if r in recaps) \
                        if recaps else ""
                    # the agent's own account of its changes (recaps.py) says it already: the report waits until
                    # the other findings had their room (not dropped: the budget may not show the account); an
                    # account of a state edited since is no retelling of it
                    retold = bool(report and recap and EDITED_AGAIN not in recap and _retells(report, recap))
                    if report:
                        head = first_line(m.text, REQUEST_HEAD_CHARS)
                        out.append(Finding(replies[0][0], h(lang, "request_report").format(n=rnd.number, head=head) + report,
                                           REPORT_SCORE - (RETOLD_PENALTY if retold else 0) + specificity(report)))
                replies, read = [], 0
                if len(out) >= MAX_REPORTS:
                    break
        if len(out) >= MAX_REPORTS:
            break
    return out[::-1] if requests >= 2 else []


NEW_SPECIFICS = 3  # a report beside the request's own statements: it names this many things they do not


_CJK = WIDE_CLASS[1:-1]  # kana, CJK ideographs, hangul: the ranges inside the class
# a word of any alphabet (Latin, Cyrillic, Greek…), a name or a path, or a number; CJK runs apart
_WORD_UNIT_RE = re.compile(rf"(?:(?![{_CJK}])[^\W\d_])(?:(?![{_CJK}])[\w.:/-])*\w|\d[\d.,:%]*")
_CJK_RUN_RE = re.compile(rf"[{_CJK}]{{2,}}")
RETOLD_SHARE = 0.2  # a report with at most this share of its words new to a recap retells it
RETOLD_MIN_UNITS = 6  # a shorter report is not judged: too few words to say it only retells
RETOLD_PENALTY = 30  # a report its request's recap retells ranks below the other findings


def _units(text: str) -> set[str]:
    """A text's words: words of three letters or more in any alphabet, numbers, and each pair of
    neighbouring CJK characters (a report written in Chinese has no spaces to split at)."""
    out = {w.casefold() for w in _WORD_UNIT_RE.findall(text) if len(w) >= 3 or w[0].isdigit()}
    for run in _CJK_RUN_RE.findall(text):
        out.update(run[i:i + 2] for i in range(len(run) - 1))
    return out


def _retells(report: str, recap: str) -> bool:
    """Whether a report says little its request's recap does not: few of its words are new to it."""
    mine = _units(report)
    return len(mine) >= RETOLD_MIN_UNITS and len(mine - _units(recap)) <= len(mine) * RETOLD_SHARE


def _adds(report: str, said: str) -> bool:
    """Whether a report names things (figures, code, paths) its request's statements do not: the results
    a closing report gives ("3 steps in 37.7s") beside the diagnoses the rounds stated."""
    return sum(1 for x in set(SPECIFIC_RE.findall(report)) if x not in said) >= NEW_SPECIFICS


# A reply's own summary section ("### Summary:", "**Conclusion**", "## TL;DR", "## 总结"): a heading line
_SUMMARY_HEAD_RE = re.compile(r"(?im)^[ \t]*(?:#{1,6}[ \t]*|\*\*)[ \t]*(?:in[ \t]+)?(?:summary|conclusions?|tl;?[ \t]?dr|"
                              r"bottom[ \t]+line|总结|小结)\b[^\n]{0,40}$")
SUMMARY_MIN_CHARS = 80  # a summary section shorter says too little to stand for the reply


def _summary_section(text: str) -> str | None:
    """The reply's last summary section, to its end: the agent's own condensation of what the reply
    details (the schemas' fields listed one by one, then "the other files are placeholders")."""
    last = None
    for m in _SUMMARY_HEAD_RE.finditer(text):
        last = m
    if last is None:
        return None
    section = text[last.start():]
    return section if len(section.strip()) - len(last.group(0).strip()) >= SUMMARY_MIN_CHARS else None


def report_of(replies: list[str]) -> str | None:
    """The closing messages' most informative sentences: the agent's last words on a request (its
    summary of what it did and found) are read back from the end until about REPORT_READ characters.
    A closing reply with a summary section of its own: that section is the report."""
    if replies and (summary := _summary_section(replies[-1])) is not None:
        replies = [summary]
    chosen: list[str] = []
    size = 0
    for text in reversed(replies):
        chosen.append(text)
        size += len(text)
        if size >= REPORT_READ:
            break
    chosen.reverse()
    opening = chosen[-1][:400]  # CJK: a character says about what a word does (counted in C, not char by char)
    wide = 0 if opening.isascii() else len(WIDE_RE.findall(opening))
    return informative(chosen, REPORT_CHARS // 2 if wide > 100 else REPORT_CHARS, closing=True)


def specificity(text: str, named: set[str] | None = None) -> int:
    """How much a statement establishes, as a score's bonus: the identifiers, values and paths it is
    the first to name (up to three; `named`: those earlier statements named, updated); one that says
    what the agent means to do next narrates and loses to one that names what it found."""
    spans = set(SPECIFIC_RE.findall(text))
    new = spans - named if named is not None else spans
    if named is not None:
        named |= spans
    bare = not spans and len(text) < 60  # "This confirms the issue described.": says that, not what
    intent = (_INTENT_ASCII_RE if text.isascii() else _INTENT_RE).search(text)
    # "Maybe the issue is …", "The issue is likely in …": a guess, weighed below what was found
    guess = _GUESS_RE.match(text) is not None or _HEDGED_RE.search(text) is not None
    return 3 * min(len(new), 3) - (10 if intent else 0) - (8 if bare else 0) - (8 if guess else 0)


# A hedge inside the sentence: the verdict it gives is not yet one (`_GUESS_RE` reads its opening)
# (not a passive "could be reproduced", nor "a value that could be `None`": a condition, no hedge)
_HEDGED_RE = re.compile(r"\b(?:is|are|was|were) (?:most )?(?:likely|probably)\b|\b(?:it|that|this)'s (?:most )?(?:likely|probably)\b|"
                        r"\b(?:it|this|the (?:root )?(?:issue|problem|cause|bug|error|culprit)) (?:might|may|could) be\b"
                        r"(?! \w+(?:ed|en)\b)|\bseems? to\b|\bI (?:think|guess|suspect|believe)\b|\bpresumably\b", re.IGNORECASE)
_GUESS_RE = re.compile(r"(?:(?:But |And |Or |So ),?)?(?:Maybe|Perhaps|Possibly|Wait|Hmm+|I (?:think|guess|suspect)|"
                       r"It (?:might|may|could) (?:be|have)|Probably)\b", re.IGNORECASE)


def _repeats(bag: set[str], said: list[set[str]]) -> bool:
    """The statement's words were (mostly) said by one of the recent statements: the agent restating
    its diagnosis ("The issue is related to…" once a round) is one finding, kept at its first saying."""
    if len(bag) < 3:
        return False
    need = _SAME * len(bag)
    return any(len(prev) >= need and len(bag & prev) >= need for prev in said[-_COMPARED:])


def answer_to(question: str, replies: Message | list[Message]) -> str | None:
    """`Asked “…?”: <the replies' most informative sentences>` — what the user learnt from the agent.
    The sentences dense in specifics (backticked identifiers, numbers, reasons) win over the generic
    ones, the opening sentence gets a head start (it most often answers), and they keep their order."""
    asked = next((q.strip() for q in reversed(re.split(r"(?<=[.!?])\s+|(?<=[。！？])|\n+", question))
                  if q.strip().endswith(("?", "？"))),
                 None)  # the last question: the one the reply opens with, most often
    if not asked or len(asked) < 8:
        return None
    reply = informative([msg.text for msg in ([replies] if isinstance(replies, Message) else replies)], ANSWER_CHARS)
    if reply is None:
        return None
    asked = asked if len(asked) <= 100 else "…" + asked[-99:]
    return f"Asked “{asked}”: {reply}"


# A sentence of courtesy (an apology, thanks, agreeing): it says nothing a successor acts on.
# Matched at a sentence's start, followed by its end or a pause: "Got it working by…", "Thanks to the
# cache…" and "Understood the cause: …" say something.
_COURTESY_RE = re.compile(r"(?:(?:I(?:'m| am) (?:so |very |truly |really )?sorry|(?:my )?apologies|I apologi[sz]e|sorry)"
                          r"(?: for\b[^.!]*)?|(?:thanks?|thank you)\b(?! to\b)[^.!]*|"
                          r"you(?:'re| are) (?:absolutely |completely )?(?:right|correct)|got it|understood)"
                          r"(?=\s*(?:[,.!;:—–-]|$))", re.IGNORECASE)


def informative(texts: list[str], limit: int, closing: bool = False) -> str | None:
    """The texts' most informative sentences (backticked identifiers, numbers, reasons, bold) up to
    `limit` characters, in their order; the opening sentence gets a head start (it most often
    answers), or with `closing` the last third of them (a report closes on what was done). A sentence
    ending with a colon announces what follows (a tool call, a list) and says nothing itself. Shared
    by the answers to the user, the reports on requests and those of sub-agents."""
    sentences: list[str] = []
    stressed: list[int] = []  # each sentence's bold spans, counted before the markup goes
    titles: list[str] = []  # the section title each sentence sits under ("" when none)
    labels: list[str | None] = []  # a list item's bold label ("**Maybe/Option type:** …"), else None
    breaks: set[int] = set()  # sentence indexes a lead-in line comes before: where a new list may start
    for raw_text in texts:
        title, under = "", 0  # the section title met last, and how many sentences came under it
        text = straight(THOUGHT_RE.sub("", without_fences(raw_text[-4000:] if closing else raw_text[:4000])))
        text = _TAG_RE.sub(" ", text)  # markup the reply is wrapped in (thinking placeholders, XML tags)
        at_line_start: str | None = None  # the text's lines without emphasis, made when a `#` line is met
        wanted = False  # under a lead-in asking the user for material ("Please add these files to the chat:")
        numbered = False  # the piece before was a list item's bare number: this one is the item
        for raw in (_SENTENCE_RE if any(map(text.__contains__, _CJK_STOPS)) else _SENTENCE_WS_RE).split(text):
            marked = "**" in raw  # bold: most sentences have none, so neither pattern runs on them
            plain = _EMPHASIS_RE.sub("", raw) if marked or "__" in raw else raw  # "**Build command:**" reads plain
            x = (WS_RE.sub(" ", plain) if "  " in plain or "\t" in plain else plain).strip().lstrip("-*• ")
            # A heading: a `#` line at a line's start (indented, it is a comment in a code block); one that gives
            # a verdict ("### Colocate mode — ✅ 3 steps in 37.7s") is said, one that titles a section labels.
            titled = False
            if _HEADING_RE.match(x) is not None:
                at_line_start = at_line_start if at_line_start is not None else "\n" + _EMPHASIS_RE.sub("", text)
                if ("\n" + x[:40]) not in at_line_start:
                    continue
                titled = True
            heading = titled and _verdict_heading(x)
            x = x.lstrip("# ") if heading else x
            if titled:  # a title labels the lines under it; a verdict's heading ends the section before
                title, under = ("" if heading else x.lstrip("# ").rstrip(":：")), 0
            if _LIST_NUMBER_RE.fullmatch(x):
                numbered = True  # a list item's number the split left alone ("1." before "`src/index.ts` …")
                continue
            listed, numbered = numbered or _LIST_ITEM_RE.match(raw.lstrip()) is not None, False
            if x.endswith((":", "：")):  # an item's own lead-in ("1. **Schemas:**") stays under the ask
                if not listed:
                    breaks.add(len(sentences))  # a lead-in ("Disadvantages of `zod`:") opens a list of its own
                asks = _WANTS_INPUT_RE.search(x)
                wanted = (wanted and listed) or (asks is not None and (
                    _MATERIAL_RE.search(x) is not None or asks.group(0).lower().startswith(("recommend", "suggest"))))
            elif not listed:
                wanted = False
            elif wanted:  # an item of what the agent asks the user to add or share: no finding
                continue
            if len(x) >= 12 and not _PLAN_START_RE.match(x) and not x.endswith(("?", "？", ":", "：")) \
                    and not _COURTESY_RE.match(x) and not (closing and _PLANS_RE.search(x)):  # a report tells what was done
                sentences.append(x)
                label = _ITEM_LABEL_RE.match(raw.lstrip()) if listed and marked else None
                labels.append(label.group(1).strip().rstrip(":：") if label else None)
                # the title labels its list's items and the sentence right under it, not the prose after a list
                read_under = not titled and (under == 0 or listed)
                titles.append(title if read_under else "")
                under += 0 if titled else 1
                # a section's title ("### **Phase 1: Intent Capture (101 rule)**") labels what follows: the
                # lines under it say it, and it is kept only when nothing else is
                stressed.append(-_TITLE_PENALTY if titled and not heading else
                                (len(_BOLD_RE.findall(raw)) if marked else 0) + (HEADING_STRESS if heading else 0)
                                - (TABLE_ROW_PENALTY if x.startswith("|") else 0))
        if len(sentences) >= 40 and not closing:
            break
    if closing and len(sentences) > 40:  # a report closes on what was done: its last sentences count
        sentences, stressed, titles, labels = sentences[-40:], stressed[-40:], titles[-40:], labels[-40:]
    if not sentences:
        return None
    lead = range(len(sentences) - max(1, len(sentences) // 3), len(sentences)) if closing else range(1)
    score = [max(0, len((_INFORMATIVE_ASCII_RE if x.isascii() else _INFORMATIVE_RE).findall(
                     _ADDRESS_RE.sub(" ", x) if "://" in x else x)) + stressed[i]
                 + (2 if i in lead else 0)) for i, x in enumerate(sentences)]
    keep: list[int] = []
    size = 0
    labelled: set[str] = set()  # titles already paid for: the first line kept under a title says it
    for i in sorted(range(len(sentences)), key=lambda i: (-score[i], i)):
        n = min(len(sentences[i]), 200) + (len(titles[i]) + 2 if titles[i] and titles[i] not in labelled else 0)
        if keep and (size + n > limit or not score[i]):  # generic prose only when nothing else
            continue
        keep.append(i)
        labelled.add(titles[i])
        size += n + (2 if _unended(sentences[i]) else 1)  # the separator, with the stop an unended line gets
    shown, said = [], set()
    for i in sorted(keep):  # "Phase 2: Roadmap Creation: Engineering Manager — …": a list item read under its title
        label = f"{titles[i]}: " if titles[i] and titles[i] not in said else ""
        said.add(titles[i])
        shown.append(label + cut_at_clause(sentences[i], 200))
    reply = " ".join(s if k == len(shown) - 1 or not _unended(s) else s + ";" for k, s in enumerate(shown))
    outlined = _outlined(sentences, labels, titles, keep, limit, breaks)
    if outlined is not None:
        return outlined
    return reply if len(reply) <= limit else cut_at_clause(reply, limit)


def _words(text: str, limit: int) -> str:
    """`text`'s opening words within `limit` characters, "…" where it was cut; never inside a code span."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    head = head[:head.rfind(" ")] if " " in head else head
    if head.count("`") % 2:
        head = head[:head.rfind("`")]
    return head.rstrip(" ,;:(") + "…"


def _after_label(sentence: str, label: str) -> str:
    """A labelled item's text past its label ("Wrong count: Doc says …" → "Doc says …")."""
    if number := _LIST_NUMBER_RE.match(sentence):  # "2. Wrong count: …": the number the split left
        sentence = sentence[number.end():].lstrip()
    rest = sentence[len(label):] if sentence.startswith(label) else sentence
    return rest.lstrip(":：–—- ").strip()


# A list item's bold label: "-   **Maybe/Option type:** A dedicated type…", "1. **Schemas**: …"
_ITEM_LABEL_RE = re.compile(_LIST_ITEM_RE.pattern + r"\s*\*\*([^*\n]{2,60}?):?\*\*:?\s")
_SPAN_NAME_RE = re.compile(r"`([^`\n]{1,40})`")
OUTLINE_ITEMS = 3  # a list's labelled items, at least, for its outline to stand for it
OUTLINE_NAMES = 3  # of each item's code spans, named in the outline (fewer when it is long)
OUTLINE_CHARS = 240  # an outline longer is cut where its finding is shown: its last items would go


def _outlined(sentences: list[str], labels: list[str | None], titles: list[str], keep: list[int],
              limit: int, breaks: AbstractSet[int] = frozenset()) -> str | None:
    """A labelled list the kept sentences show only in part (the first items whole, the last ones gone:
    aider's five things the library misses read as two), as its outline: every item's label with what it
    says in brief (its figures in its opening words, else the first names it gives: "Maybe/Option type
    (`map`, `flatMap`)"), between the kept sentences before and after it (a report's verdict after its
    list stays). One list: the first run of labelled items under one title (`breaks`: where a lead-in line
    opens another list). None when that list is kept whole, has too few items, another list follows it, or
    its outline does not fit `limit` with something of each item's own (a bare label says little: the
    sentences the selection kept then stand)."""
    items = _one_list(labels, titles, breaks)
    if len(items) < OUTLINE_ITEMS or all(i in keep for i in items) or any(labels[items[-1] + 1:]):
        return None  # kept whole, too short, or one of several lists (advantages, then disadvantages): as chosen
    room = min(limit, OUTLINE_CHARS)
    before = [cut_at_clause(sentences[i], 200) for i in sorted(keep) if i < items[0]]
    # after it: the sentence right after the list when it judges (a verdict, a recommendation), else the first
    # one after it the selection kept; kept before the items' detail
    nxt = items[-1] + 1
    if not (nxt < len(sentences) and _VERDICT_RE.search(sentences[nxt])):
        nxt = next((i for i in sorted(keep) if i > items[-1]), None)
    after = cut_at_clause(sentences[nxt], VERDICT_CHARS) if nxt is not None else ""
    named = [list(dict.fromkeys(_SPAN_NAME_RE.findall(sentences[i]))) for i in items]
    bodies = [_after_label(sentences[i], labels[i] or "") for i in items]
    fits = room - (len(after) + 1 if after else 0)  # the verdict, when there is one, goes with the outline
    for most in range(OUTLINE_NAMES, 0, -1):  # less of each item until every item fits
        parts = []
        for i, names, body in zip(items, named, bodies, strict=True):
            if body and (_FIGURE_RE.search(body) or not names):  # "Unit tests — 212 passed, 4 failed…"
                parts.append(f"{labels[i]} — {_words(body, 16 * most + 8)}")
            elif names:  # what the item names ("Maybe/Option type (`map`, `flatMap`)")
                parts.append(f"{labels[i]} ({', '.join(f'`{n}`' for n in names[:most])})")
            else:
                parts.append(labels[i] or "")
        outline = "; ".join(parts).rstrip(".") + "."
        if len(outline) <= fits:
            shown = [outline, after] if after else [outline]
            whole = " ".join([*before, *shown])
            return whole if len(whole) <= room else " ".join(shown)
    return None


VERDICT_CHARS = 120  # of the sentence after a list, shown after its outline
_VERDICT_RE = re.compile(r"(?i)\b(?:recommend\w*|prefer\w*|suggest\w*|should|best|not ready|ready to|conclusion|"
                         r"therefore|overall|in short|so the)\b")
_FIGURE_RE = re.compile(r"\d")  # an item that states figures ("212 passed, 4 failed") says them in its words
ITEM_GAP = 3  # sentences between two labelled items of one list at most (an item's own second sentence)


def _one_list(labels: list[str | None], titles: list[str], breaks: AbstractSet[int] = frozenset()) -> list[int]:
    """The first run of labelled items under one title and one lead-in, no more than ITEM_GAP sentences
    apart: one list (a list of advantages and one of disadvantages are two)."""
    run: list[int] = []
    for i, label in enumerate(labels):
        if not label:
            continue
        if run and (i - run[-1] > ITEM_GAP or titles[i] != titles[run[0]]
                    or any(run[-1] < b <= i for b in breaks)):
            if len(run) >= OUTLINE_ITEMS:
                break
            run = []
        run.append(i)
    return run


def _unended(line: str) -> bool:
    """A line of words that ends without a stop ("Could not find file", "`b.md` — deleted"): run into the
    next kept line it would read as one sentence with it ("Could not find file `b.md` — deleted"), so it is
    ended apart. Not a line of code or one cut at a comma or a bracket (`if (x) {`), nor wide text."""
    return (line[-1:].isalnum() or line[-1:] in "`'\")") and not WIDE_RE.search(line)


_THOUGHT_WEIGHT = -6  # a conclusion the agent reached in its reasoning, not said to the user: weighs less
# Reasoning thinks aloud ("I see it now", "because I jumped the gun"): only its diagnoses and verdicts (a
# cause, a thing ruled out, what a result means) that name what they are about count as findings.
_THOUGHT_LEAST = 18


def _statements_with_thinking(msg: Message) -> list[tuple[str, int]]:
    """The message's statements, then its reasoning's (Gemini's thought parts, Claude's thinking
    blocks): what the agent weighed and ruled out is often said only there."""
    out = statements(msg.text) if msg.text else []
    for thought in msg.meta.get("thinking") or ():
        if isinstance(thought, str) and thought.strip():
            out += [(s, w + _THOUGHT_WEIGHT) for s, w in statements(_BOLD_HEAD_RE.sub("", thought))
                    if w >= _THOUGHT_LEAST and SPECIFIC_RE.search(s) and not _PLANS_RE.search(s)]  # its plans: none
    return out


_BOLD_HEAD_RE = re.compile(r"\*\*[^*\n]{3,80}\*\*\s*")  # a thought's title ("**Refining Persistence Strategy**")


def statements(text: str) -> list[tuple[str, int]]:
    """The diagnosis/conclusion sentences of one assistant text (code blocks excluded): the
    sentences around a keyword, weighed by the patterns (strongest first: the first that matches)."""
    out: list[tuple[str, int]] = []
    said = prose(text)
    for s in sentences_around(said, _KEYWORDS):
        if len(s) < 20 or len(s) > 400 or s.endswith(("?", ":")) or _PLAN_START_RE.match(s):
            continue
        low = s.lower()
        weight = _weight(low)
        if weight == _HOLDS_WEIGHT and not SPECIFIC_RE.search(s) or _SEEN_ONLY_RE.search(s):
            continue  # "The file is empty": which file it was is the finding; "I see what happened": what
        if weight:
            out.append((s.replace("**", "") if "**" in s else s, weight))  # a bold span cut by the sentence split
    low_said = said.lower()
    if any(w in low_said for w in _EUREKA_WORDS):
        for found, weight in _discoveries(said):  # in place of the statements it holds or that cry it, else after them
            held = [i for i, (s, _) in enumerate(out) if s in found or (found in s and _EUREKA_RE.match(s))]
            if held:
                out[held[0]] = (found, max(weight, out[held[0]][1]))
                out = [x for i, x in enumerate(out) if i not in held[1:]]
            else:
                out.append((found, weight))
    if any(_ANAPHOR_RE.match(s) for s, _ in out):
        # the paragraphs with each code block as a line of its own: code between two paragraphs parts them
        told, paragraphs = {s for s, _ in out}, _paragraphs(prose(text, code_mark="\n```\n"))
        out = [(_with_antecedent(s, paragraphs, told) if _ANAPHOR_RE.match(s) else s, w) for s, w in out]
    return out


# The agent's cry of discovery opening a sentence ("AHA!", "Found it.", "There it is:"): what it found is said
# right after, often in words no diagnosis pattern knows ("`SimpleLazyObject` pretends to be `str` so
# `isinstance` returns True"). Not "found it" inside a sentence ("I previously found it around line 1066").
_EUREKA_RE = re.compile(r"(?:^|(?<=[.!?]\s))[ \t]*(?:a+ha+|found it|there it is|bingo|eureka)(?:\s*!+|\.+|:|\s+[—–-]+)[ \t]*",
                        re.IGNORECASE | re.MULTILINE)
_EUREKA_WORDS = ("aha", "found it", "there it is", "bingo", "eureka")
EUREKA_WEIGHT = 30  # as strong as "the root cause is"
PLACE_WEIGHT = 21  # a discovery that only says where something is ("The tests are in `tests/x.py`")
EUREKA_CHARS = 300  # what it found: the sentences after the cry, up to this long
_TAKEN_BACK_RE = re.compile(r"(?:no|nope|actually|not quite)\b", re.IGNORECASE)  # ("Wait", "Hmm": `_GUESS_RE`)
_PLACE_SPAN_RE = re.compile(r"`?(?:[^`\s]*[/\\][^`\s]*|[\w.-]+\.[A-Za-z]\w{0,7}|\d[\d.,:]*)`?")


def _discoveries(said: str) -> list[tuple[str, int]]:
    """What each cry of discovery in the prose says was found, with its weight: the rest of its paragraph
    (the next one when the cry stands alone) up to the next cry or list item, its sentences up to a
    question, a plan, a colon, a doubt ("Wait, no…", "Maybe…") or EUREKA_CHARS, when it names something."""
    out: list[tuple[str, int]] = []
    for m in _EUREKA_RE.finditer(said):
        rest = said[m.end():].lstrip("\n")
        lines = rest.split("\n\n", 1)[0].split("\n")
        lines = lines[:next((i for i, ln in enumerate(lines) if i and _LIST_ITEM_RE.match(ln.lstrip())), len(lines))]
        paragraph = " ".join(" ".join(lines).split())
        if (cry := _EUREKA_RE.search(paragraph)) is not None:
            paragraph = paragraph[:cry.start()]
        taken = ""
        for sentence in _SENTENCE_RE.split(paragraph):
            if not sentence or sentence.endswith(("?", ":")) or _PLAN_START_RE.match(sentence) \
                    or len(taken) + len(sentence) > EUREKA_CHARS:
                break  # (a sentence that opens what follows it, a list or code, says nothing alone)
            if _TAKEN_BACK_RE.match(sentence) or _GUESS_RE.match(sentence) or _HEDGED_RE.search(sentence):
                break  # the agent doubting again: what it found ends there
            taken = f"{taken} {sentence}" if taken else sentence
        taken = taken.strip()
        specifics = SPECIFIC_RE.findall(taken)
        if len(taken) >= 20 and specifics:
            place = all(_PLACE_SPAN_RE.fullmatch(x) for x in specifics)
            out.append((taken, PLACE_WEIGHT if place else EUREKA_WEIGHT))
    return out


# A statement that points back ("This means…", "That explains why…"): alone it says what follows from
# something it does not say.
_ANAPHOR_RE = re.compile(r"(?:This|That|These|Which|It) (?:means|meant|shows|showed|confirms|confirmed|explains|"
                         r"explained|implies|proves|suggests|indicates|is because|was because|is why)\b")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_NOT_PROSE_LINE_RE = re.compile(r"\s*(?:#|\||>|```)")  # a heading, a table's row, a quote, a fence
ANTECEDENT_CHARS = 120


def _with_antecedent(statement: str, paragraphs: list[tuple[str, bool]], told: set[str]) -> str:
    """The statement with the sentence just before it in the same paragraph or list item, or closing the
    paragraph before when it opens its own (what "this" is: "`type(value)` printed SimpleLazyObject. This
    means…"), when that one is short, says something, plans nothing and is no statement told on its own
    already."""
    for k, (group, follows) in enumerate(paragraphs):  # (`_paragraphs` of the text, made once for all)
        at = group.find(statement)
        if at < 0:
            continue
        # opening its paragraph, it points back at the paragraph before (pytest: "… The `chain` attribute of
        # `ExceptionChainRepr` is ignored.", a blank line, "This explains why `xdist` only shows the last
        # exception."), not across a list, a heading or code
        before = group[:at].rstrip() if at > 0 else paragraphs[k - 1][0] if follows else ""
        prev = _SENTENCE_END_RE.split(before)[-1].strip() if before else ""
        if not 12 <= len(prev) <= ANTECEDENT_CHARS or prev.endswith(("?", ":")) or _PLAN_START_RE.match(prev) \
                or prev in told or prev.replace("**", "") in told or len(prev) + len(statement) > 400:
            return statement
        return f"{prev}{'' if prev.endswith(('.', '!')) else '.'} {statement}"
    return statement


def _paragraphs(said: str) -> list[tuple[str, bool]]:
    """The prose's paragraphs and list items, each on one line: a blank line, a list's marker, a heading, a
    table's row, a quote or a fence ends one (a single line break does not, in Markdown). Each with whether
    it is a paragraph after a paragraph with only blank lines between (what a statement opening it may point
    back at; a list item, a heading or code between breaks the thread)."""
    out: list[tuple[str, bool]] = []
    lines: list[str] = []
    item = follows = False  # the open group: a list item; a paragraph right after a paragraph
    prose_ended = False  # the last group closed was a paragraph, and only blank lines came since

    def close() -> None:
        nonlocal prose_ended
        if lines:
            out.append((" ".join(" ".join(lines).split()), follows))
            prose_ended = not item
            lines.clear()

    for line in said.split("\n"):
        if not line.strip():
            close()
            continue
        if _NOT_PROSE_LINE_RE.match(line):
            close()
            prose_ended = False
            continue
        marker = _LIST_ITEM_RE.match(line.lstrip())
        if marker:
            close()
            prose_ended = False
            item, follows = True, False
            lines.append(line.lstrip()[marker.end():])
            continue
        if not lines:
            item, follows = False, prose_ended
        lines.append(line)
    close()
    return out


def _weight(low: str) -> int:
    """The weight of the first (strongest) pattern matching the lower-cased sentence, 0 for none; a
    pattern is tried only on a sentence holding one of its words (plain loops: a generator and `any`
    per pattern cost more than the substring tests)."""
    for rx, weight, words in _LOWER_ASCII_PATTERNS if low.isascii() else _LOWER_PATTERNS:
        for word in words:
            if word in low:
                if rx.search(low):
                    return weight
                break
    return 0


def runs_script(command: str) -> bool:
    """The command runs a program file (`python repro.py`, `node check.js`): a check of its own."""
    return bool(_SCRIPT_RUN_RE.search(without_heredoc_body(command)))


def outcome(command: str, res: ToolResult | None, summary: str | None = "?") -> tuple[str, int] | None:
    """A command's outcome worth a timeline line — a test run's counts, a failure's decisive line, a
    script's last output line — and its weight; None for routine commands that succeeded. `summary`:
    the test counts when already parsed ("?": parse them here)."""
    if res is None:
        return None
    content = res.content or ""
    cmd = first_line(command, 100)
    failed = res.is_error or res.exit_code not in (None, 0)
    if failed and found_nothing(command, res.exit_code, res.exit_code == 1 and printed_nothing(content)):  # no match
        return f"`{cmd}` → nothing found", 8
    if summary == "?":
        summary = parse_test_summary(content) if content else None
    status = f"exit {res.exit_code}" if res.exit_code is not None else ("error" if res.is_error else "")
    is_script = runs_script(command)
    if not (summary or failed or is_script):  # a routine command that succeeded: its closing summary, if any
        if _prints_files(command):
            return None  # what it printed is a file's text: a "Result:" line in a report read is no outcome
        line = summary_line(content)
        return (f"`{cmd}` → {line}", 10) if line else None
    decisive = decisive_line(content, failed)
    if summary:
        return f"`{cmd}` → {summary}" + (f": {decisive}" if failed and decisive and decisive not in summary else ""), 22
    is_test = is_test_command(command)
    if failed and (decisive or status):
        return f"`{cmd}` → {status or 'failed'}" + (f": {decisive}" if decisive else ""), 20 if is_test else 16
    if is_script and decisive:
        return f"`{cmd}` → {decisive}", 12
    return None


def _prints_files(command: str) -> bool:
    """Every part of the command prints a file (`sed -n '1,80p' a.md`, `cat a && cat b`): nothing of its own."""
    parts = [p for p in split_commands(command) if not p.startswith("cd ")]  # where it runs is no output
    read = [path for part in parts for path in shell_reads(part)]
    return bool(parts) and all(shell_reads(part) for part in parts) \
        and not any(path.endswith((".log", ".out")) for path in read)  # a log is a run's output: it may say how it went


def decisive_line(output: str, failed: bool) -> str:
    """The output line that says what happened: for a failure, what the build tool said went wrong, else
    the first compiler's error at a file's line, else the last error/exception line; for a success, the
    last result line; else (a failure) the last non-empty line. Whole, at most 200 characters (else left out)."""
    wrong = went_wrong(output) if failed else None
    if wrong and (said := " ".join(output[wrong[0]:wrong[1]].split())) and len(said) <= 200:
        return said  # the build tool said what went wrong
    lines = [ln.strip() for ln in output[-8000:].strip().splitlines()[-60:] if ln.strip()]
    lines = [ln for ln in lines if not (_NOISE_LINE_RE.fullmatch(ln) or STATUS_LINE_RE.fullmatch(ln)
                                        or _ADVICE_LINE_RE.fullmatch(ln))]
    hit = next((ln for ln in lines if len(ln) <= 200 and (_LOCATED_ERROR_RE.match(ln) or _TAGGED_AT_FILE_RE.match(ln))),
               None) if failed and ("rror" in output or "ERROR" in output) else None
    joined = "\n".join(lines)  # a pattern none of whose words the lines hold is not tried line by line
    order = (_ERROR_LINE_RE, _RESULT_LINE_RE) if failed else (_RESULT_LINE_RE, _ERROR_LINE_RE)
    for rx in order:  # a failure: what went wrong first; a success: the result first
        if hit is None and any(map(joined.__contains__, _LINE_WORDS[rx])):
            # (a failed run's line that only says some part went well — Maven's "fastjson2-parent … SUCCESS" — is
            # not what happened)
            hit = next((ln for ln in reversed(lines) if rx.search(ln) and len(ln) <= 200
                        and not (failed and rx is _RESULT_LINE_RE and _WENT_WELL_RE.search(ln)
                                 and not _WENT_BADLY_RE.search(ln))), None)
    if hit is None and failed and lines and len(lines[-1]) <= 200:
        hit = lines[-1]
    return hit or ""


def summary_line(output: str) -> str:
    """A succeeded command's closing summary line (files changed, 0 issues, installed…), whole and
    at most 200 characters; "" when its output has none."""
    tail = output[-4000:]
    if not any(map(tail.__contains__, _SUMMARY_WORDS)) or not _SUMMARY_LINE_RE.search(tail):
        return ""
    for ln in reversed(output[-4000:].splitlines()):
        ln = ln.strip()
        if len(ln) <= 200 and _SUMMARY_LINE_RE.search(ln):
            return ln
    return ""


def hierarchical_levels(items: list[Finding], ratios: tuple[float, ...] = LEVEL_RATIOS) -> list[list[Finding]]:
    """Level 0 is every item; each next level keeps `ratio` of the one before (at least one item):
    the best-scored, in their original order."""
    levels = [list(items)]
    for ratio in ratios:
        prev = levels[-1]
        keep = max(1, math.ceil(len(prev) * ratio)) if prev else 0
        best = set(map(id, sorted(prev, key=lambda f: (-f.score, -f.round))[:keep]))
        levels.append([f for f in prev if id(f) in best])
    return levels


def _cost(text: str) -> int:
    return len(text) // 4 + 4  # an estimate: the engine counts the real tokens once, on the document


def timeline(findings: list[Finding], budget: int) -> list[Fact]:
    """One fact per finding when they fit `budget`; else the older ones merged into phases at the first
    hierarchical level that fits (the most recent stay one line each)."""
    if not findings:
        return []
    single = [_single(f) for f in findings]
    if sum(_cost(f.text) for f in single) <= budget:
        return single
    n_recent = max(1, int(len(findings) * RECENT_SHARE))
    older, recent = findings[:-n_recent], findings[-n_recent:]
    recent_facts = [_single(f) for f in recent]
    room = max(0, budget - sum(_cost(f.text) for f in recent_facts))
    phases = _phases(older)
    facts: list[Fact] = []
    while True:
        for level in range(1, len(LEVEL_RATIOS) + 1):
            facts = [_phase(group, hierarchical_levels(group)[level]) for group in phases]
            if sum(_cost(f.text) for f in facts) <= room:
                return facts + recent_facts
        if len(phases) == 1:
            return facts + recent_facts
        # Still over: neighbouring phases merge (each phase line costs its heading): fewer, longer phases.
        phases = [phases[i] + phases[i + 1] if i + 1 < len(phases) else phases[i] for i in range(0, len(phases), 2)]


def _phases(findings: list[Finding]) -> list[list[Finding]]:
    """Consecutive groups of about _PHASE_SIZE findings, never splitting a round."""
    n = max(1, math.ceil(len(findings) / _PHASE_SIZE))
    size = math.ceil(len(findings) / n)
    groups: list[list[Finding]] = [[]]
    for f in findings:
        if len(groups[-1]) >= size and groups[-1][-1].round != f.round:
            groups.append([])
        groups[-1].append(f)
    return [g for g in groups if g]


def _single(f: Finding) -> Fact:
    text = f.text if f.code else cut_at_clause(f.text, 300)
    return Fact(Section.FINDINGS, text, [f.round], score=f.score + f.round / 10000,
                short=first_line(text, 120) if len(text) > 120 and not f.code else None, prose=not f.code)


def _left_out(n: int) -> str:
    # not "main": the one kept may be what a later round corrected (bastion's "gitignore", r11: "dockerignore")
    return f"{n} other finding{'s' if n != 1 else ''} left out" if n else "its findings"


def _phase(group: list[Finding], kept: list[Finding]) -> Fact:
    """One phase line: its rounds, how many findings it stands for, the kept ones (with their round)."""
    # the span of rounds, not each round a finding came from: the kept ones cite their own
    rounds = list(range(min(f.round for f in group), max(f.round for f in group) + 1))
    label = cite(rounds)
    body = "; ".join(f"{f.text if f.code else cut_at_clause(f.text, 200)} (r{f.round})" for f in kept)
    # "1 of 8 findings" sent readers looking for the other seven: the line says they are left out
    text = f"Phase {label}, {_left_out(len(group) - len(kept))}: {body}"
    best = max(kept, key=lambda f: f.score)
    short = f"Phase {label}, {_left_out(len(group) - 1)}: {first_line(best.text, 100)} (r{best.round})"
    return Fact(Section.FINDINGS, text, rounds, score=max(f.score for f in kept) + 5, essential=True, short=short,
                prose=True)
