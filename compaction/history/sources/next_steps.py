"""Next steps: unfinished todos (the last state of each todo list item), todos written in the
assistant's text (open until a later message says they are done) and recently stated plans."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence

from compaction.errors.budget import teaches
from compaction.errors.records import ErrorRecord
from compaction.errors.scan import HEDGE_RE
from compaction.errors.shorten import cut
from compaction.events import REMAINING_WORK, Event, EventKind
from compaction.history.facts import WS_RE, Fact, split_task
from compaction.history.sections import Section
from compaction.history.sources.final_diff import final_echo
from compaction.history.sources.problems import describe
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role
from compaction.shell import program_of
from compaction.transcripts.path_spelling import file_name

_DONE = {"completed", "done", "complete", "finished"}
# A todo the agent wrote down for later (not "now I'll…", which the next round acts on). A TODO only as a marker
# (`_TODO_MARK_RE`): "let me update the TODO list" names the agent's list, not work left.
_LATER_RE = re.compile(r"\b(?:still need to|still have to|left to do|still to do|later|not yet|haven't yet|"
                       r"have not yet|follow[- ]up)\b", re.IGNORECASE)
# "The remaining failures", "the remaining services": work left when it names it, else narration of the moment
# ("then continue with the remaining work").
_REMAINING_RE = re.compile(r"\b(?:" + REMAINING_WORK + r")\b", re.IGNORECASE)
_DONE_WORDS_RE = re.compile(r"\b(?:done|completed?|finished|fixed|implemented|added|updated|resolved|works|"
                            r"passes|passing|verified|removed|cleaned up)\b", re.IGNORECASE)
_WORD_RE = re.compile(r"[a-z_][a-z0-9_]{3,}")
# A todo marked as one (`TODO: wire the parser`, a stub's `# TODO`), not "the TODO list" the agent keeps.
_TODO_MARK_RE = re.compile(r"\bTODO\s*[:(]|(?:#|//|--|/\*)\s*TODO\b")
_NAMES_WORK_RE = re.compile(r"`[^`\n]{2,80}`|\b\d+\b|\b[A-Za-z_]+(?:_\w+|[a-z][A-Z]\w*)|(?<![\w.-])[\w.-]++/[\w./-]+|\b\w{2,}\.[a-z]{1,4}\b")  # a file name (`app.py`), not "i.e"
_STOP = {"that", "this", "with", "from", "then", "still", "need", "have", "will", "should", "also", "remaining",
         "todo", "later", "left", "which", "into", "them", "they", "there", "these", "those", "what", "when"}


@fact_source(Section.NEXT)
def next_step_source(ctx: FactContext) -> list[Fact]:
    said = [(rnd.number, m.text) for rnd in ctx.transcript.rounds for m in rnd.messages
            if m.role is Role.ASSISTANT and m.text]
    # the harness took the agent's final diff (it submitted): the plans it stated before were done or dropped
    submitted = final_echo(ctx) is not None
    return (next_step_facts(ctx.events, ctx.n_rounds, said, submitted=submitted) + unrun_checks(ctx.events)
            + gave_up(said) + asks_not_done(ctx.events)
            + open_questions(said, ctx.records) + needs_from_user(ctx) + unfixed_errors(ctx))


def _reruns(rec: ErrorRecord, command: str) -> bool:
    """Whether a test run checks what the record failed on: it names the failing file, or runs the
    program whose run failed (a passing run of another program fixes nothing here)."""
    loc = rec.occurrences[-1].location
    name = file_name(loc.path or "")
    failed = program_of(loc.command or "")
    return bool(name and name in command) or bool(failed and program_of(command) == failed)


LATE_ROUNDS = 5  # an error this close to the session's end (or within its last tenth) is work left
UNFIXED_CHARS = 160
# A solution that says the error ended (a run that then passed or succeeded), or the agent's account that
# it is not the work's (a failure there before the change, in another part, of the environment).
_ENDED_RE = re.compile(r"\bthen .+ (?:passed|succeeded|no longer printed it) \(r\d+\)")
_NOT_OURS_RE = re.compile(r"(?i)\bunrelated\b|\bpre-?existing\b|\bbefore (?:my|the|our|these|this) change|"
                          r"\b(?:was|were) (?:already )?(?:failing|present|broken) before\b")
_ENVIRONMENT_RE = re.compile(r"site-packages|node_modules|/lib/python\d|[\\/]dist-packages[\\/]")


def _called_not_ours(ctx: FactContext, rec: ErrorRecord) -> bool:
    """The agent's words in the round of the error's last occurrence and the two after it call it older than
    its change or unrelated ("the 2 exceptions … were present before my changes")."""
    rounds = ctx.transcript.rounds[rec.last_round - 1:rec.last_round + 2]
    return any(m.role is Role.ASSISTANT and m.text and _NOT_OURS_RE.search(m.text[:4000])
               for rnd in rounds for m in rnd.messages)


def unfixed_errors(ctx: FactContext) -> list[Fact]:
    """The errors in the code the session's last rounds raised and nothing ended: no edit after them, no
    run of the command that then passed or succeeded, and no test run that passed later naming its file
    or running its program. Not a failure there before the session's first change (pre-existing), nor one
    the agent called unrelated or older than its change, nor one in installed packages (the environment's).
    The error memory lists them among the old ones; the next step is where a successor looks for the work
    left (a lint error in a test file the session wrote, never fixed). A tool's failures are not work left."""
    last = ctx.n_rounds
    late = last - max(LATE_ROUNDS, last // 10)
    # the first change to a file that was there (a reproduction script written first changes nothing yet)
    first_change = min((e.round for e in ctx.events if e.kind is EventKind.EDIT), default=None)
    passed = [(e.round, e.command or "") for e in ctx.events if e.kind is EventKind.COMMAND and e.test
              and not e.failed and e.exit_code in (None, 0)]
    out: list[Fact] = []
    for rec in ctx.records:
        solution = rec.solution or ""
        if rec.target_bug or rec.family == "TOOL" or rec.last_round < late or teaches(rec) \
                or _ENDED_RE.search(solution) or _NOT_OURS_RE.search(solution) \
                or first_change is None or rec.occurrences[0].round < first_change \
                or _ENVIRONMENT_RE.search(rec.occurrences[-1].location.path or "") or _called_not_ours(ctx, rec) \
                or any(r > rec.last_round and _reruns(rec, command) for r, command in passed):
            continue
        said = describe(rec, ctx.cwd)
        if said is None:
            continue
        where, _, line = said
        text = f"[no fix seen] {rec.id}{where} (r{rec.last_round}): {cut(line, UNFIXED_CHARS)}"
        out.append(Fact(Section.NEXT, text, [rec.last_round], score=68, error_id=rec.id))
    return out


# What only the user can give: an instruction the agent read says to ask (or remind) the user, or the
# agent asked the user for a value. Found from their literal words (str.find), read only in the
# prose documents the agent opened (a read or a command naming one) and in its own last messages.
_USER_WORDS = ("the user", "the User")
_ASK_USER_RE = re.compile(r"\b(?:ask|remind)\s+(?:the\s+)?user\b(?:[^.\n|]|\.(?=\S))*", re.IGNORECASE)
_FOR_RE = re.compile(r"\b(?:for|to)\s+(?:any\s+|their\s+|the\s+|a\s+)?(.+)", re.IGNORECASE)
_AGENT_ASKS_RE = re.compile(
    r"(?:please (?:provide|share|send|confirm|give|tell me)|(?:could|can) you (?:provide|share|send|confirm|give|"
    r"tell me)|i(?:'ll| will)? need (?:your|you to (?:provide|share|send|confirm|give))|what(?:'s| is) your)"
    r"\b[^.?!\n]{3,160}[.?!]?", re.IGNORECASE)
_DOC_NAME_RE = re.compile(r"[/\\\s\"']")  # what ends a path's last name
_AGENT_WORDS = ("?", "need", "provide", "share", "send", "confirm")
_LAST_SAID = 3  # the agent's last messages looked at for a question to the user
_PROSE_DOC_RE = re.compile(r"\.(?:md|mdc|txt|rst)\b", re.IGNORECASE)
_NEEDS = 5  # values listed
_NEED_CHARS = 44  # of one value's description


def needs_from_user(ctx: FactContext) -> list[Fact]:
    """The values the work needs from the user and the user has not given: what an instruction the
    agent read says to ask the user for (a form's fields, "ask the user for their wallet address") or
    what the agent asked the user, when no user message came after it. A successor must ask for them,
    not invent them."""
    msgs = ctx.transcript.messages
    last_user = next((m.index for m in reversed(msgs) if m.role is Role.USER and not m.harness and m.text.strip()), -1)
    needs: dict[str, str] = {}
    where: tuple[str, int] | None = None  # the first source: the line cites it
    # the prose documents (a skill, a guide) the agent read after it: their instructions to ask the user
    read = sorted({e.round for e in ctx.events if e.kind is EventKind.READ and e.path and e.message_index > last_user
                   and _PROSE_DOC_RE.search(e.path)})
    for rnd in (r for r in ctx.transcript.rounds if r.number in read):
        for msg in rnd.messages:
            if msg.index <= last_user:  # a round may hold the user's own command, then their answer
                continue
            for call in msg.tool_calls:
                named = (call.path or call.command or "")[:400]
                doc = _PROSE_DOC_RE.search(named)
                if not doc:
                    continue
                res = ctx.results_of(rnd).get(id(call))
                text = res.content if res is not None and not res.is_error else ""
                if not any(text.find(w) >= 0 for w in _USER_WORDS):
                    continue
                found = _user_values(text)
                for key, value in found:
                    needs.setdefault(key, value)
                if found and where is None:
                    where = (f"`{_DOC_NAME_RE.split(named[: doc.end()])[-1]}`", rnd.number)
    # the agent's question to the user closes its turn: its last messages after the user's
    for m in [m for m in msgs[-_LAST_SAID * 4:] if m.index > last_user and m.role is Role.ASSISTANT][-_LAST_SAID:]:
        if m.text and any(m.text.find(w) >= 0 for w in _AGENT_WORDS):
            asked = [q.group(0).strip() for q in _AGENT_ASKS_RE.finditer(m.text)]
            for q in asked:
                needs.setdefault(q.lower()[:40], _clip(q, 2 * _NEED_CHARS))
            if asked and where is None:
                rnd_no = next((r.number for r in reversed(ctx.transcript.rounds) if r.messages
                               and r.messages[0].index <= m.index), 1)
                where = ("the agent's question", rnd_no)
    if not needs or where is None:
        return []
    shown = "; ".join(list(needs.values())[:_NEEDS])
    return [Fact(Section.NEXT, f"[ask the user] not given yet ({where[0]}, r{where[1]}): {shown}", [where[1]],
                 score=64, pending=True)]


def _clip(text: str, limit: int = _NEED_CHARS) -> str:
    text = WS_RE.sub(" ", text.split(" (", 1)[0] if text.find(" (") > 8 else text).strip(" .:;-")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def _user_values(text: str) -> list[tuple[str, str]]:
    """(key, value described) for each line of an instruction that says to ask or remind the user: a
    table row by its field ("Wallet Address"), a sentence by what to ask for."""
    out: list[tuple[str, str]] = []
    asked: list[tuple[str, str]] = []  # said in a sentence: after a form's fields (which name them one by one)
    for line in text.splitlines():
        m = _ASK_USER_RE.search(line) if any(line.find(w) >= 0 for w in _USER_WORDS) else None
        if not m:
            continue
        what = _FOR_RE.search(m.group(0))
        obj = _clip(what.group(1)) if what else ""
        if line.lstrip().startswith("|"):  # a form's row: its first cell is the field
            field = next((c.strip(" *`") for c in line.split("|") if c.strip(" *`")), "")
            if not field:
                continue
            out.append((field.lower(), field))  # the field's name says what to ask for
        elif obj:
            asked.append((obj.lower(), obj))
    return out + asked


# A why-question ("why was it nested?"), found from its literal word (fast) up to its question mark.
_WHY_RE = re.compile(r"(?:[Ww]hy|[Hh]ow come) [^?.!\n]{3,160}\?")
_WHY_OPENERS = ("Why ", "why ", "How come ", "how come ")
# Words that give a reason, looked up with str.find in the lowercased message (a regex alternation
# scans long messages far slower).
_REASONS = ("because", "since ", "the reason", "due to", "that's why", "that is why", "caused by", "explains",
            "this means", "that means", "turns out", "the problem was", "the issue was", "which is why")
_REASON_SPAN = 200  # chars each side of a reason word: its sentence, near enough


_GENERIC_WHY = frozenset({"fail", "fails", "failed", "failing", "work", "works", "worked", "working", "happen",
                          "happens", "happened", "wrong", "error", "break", "breaks", "broke", "broken", "still",
                          # a verb says how, not what: the answer names the subject ("`value._wrapped` IS
                          # `SimpleLazyObject`" answers "Why did `params` contain `SimpleLazyObject`?")
                          "contain", "contains", "contained", "behave", "behaves", "behaved", "like", "become",
                          "becomes", "became", "return", "returns", "returned", "show", "shows", "showed"})
_QUESTIONS = 20  # the last why-questions weighed; each is checked against the messages after it


def _gives_reason(text: str, words: set[str], lowered: dict[int, str], j: int) -> bool:
    """`text` gives a reason (a reason word) near most of the question's words. The words are
    looked up first (C-speed `in`), the reason words only in a message that holds them."""
    low = lowered.get(j)
    if low is None:
        low = lowered[j] = text.lower()
    if sum(w in low for w in words) * 2 < len(words):
        return False
    for reason in _REASONS:
        at = low.find(reason)
        while at >= 0:
            near = _content(low[max(0, at - _REASON_SPAN): at + _REASON_SPAN])
            if len(words & near) * 2 >= len(words):
                return True
            at = low.find(reason, at + len(reason))
    return False


def open_questions(said: list[tuple[int, str]], records: Sequence[ErrorRecord] = ()) -> list[Fact]:
    """A why-question the agent asked itself and never answered (no reason given at or after it with
    the question's words): an explanation the session owes, which a successor should not take as
    settled because the fix around it worked. When the failure it asks about (an error record whose
    output holds its words) ended with an edit, that is said too: the question is owed, the failure is not
    (pytest's "Why does `cls(**reportdict)` behave like `type(**reportdict)`?" read as a live bug)."""
    asked: list[tuple[int, int, str, set[str]]] = []
    for i in range(len(said) // 2, len(said)):  # left open at the end: asked in the second half
        rnd, text = said[i]
        if text.find("?") < 0:
            continue
        for opener in _WHY_OPENERS:  # str.find to each opener, the pattern matched only there
            at = text.find(opener)
            while at >= 0:
                m = _WHY_RE.match(text, at)
                # a word of its own beyond failing: "Why did it fail?" names nothing a successor could look into
                if m and (words := _content(q := m.group(0)) - _GENERIC_WHY):
                    asked.append((i, rnd, q[0].upper() + q[1:], words, m.end()))
                at = text.find(opener, at + 4)
    if not asked:
        return []
    lowered: dict[int, str] = {}
    open_: list[tuple[int, str, set[str], str]] = []
    asked = asked[-_QUESTIONS:]
    for n, (i, rnd, sentence, words, end) in enumerate(reversed(asked)):
        if any(words <= kept or kept <= words for _, _, kept, _ in open_):
            continue  # the same question asked again (in other words): its last time counts
        if not any(words <= w or w <= words for *_, w, _ in asked[: len(asked) - 1 - n]):
            continue  # asked once: a passing thought; a question the agent comes back to is a real one
        if not any(_gives_reason(said[j][1], words, lowered, j) for j in range(i, len(said))):
            open_.append((rnd, sentence, words, _guess(said[i][1], end)))
    return [Fact(Section.NEXT, f"[open question] {sentence} (never answered{_ended(records, rnd, words)}"
                 + (f"; the agent's guess: “{guess}”" if guess else "") + ")", [rnd], score=44 + rnd / 10000)
            for rnd, sentence, words, guess in reversed(open_[:2])]


# A hedged answer the agent gave itself right after asking ("maybe it gets double wrapped?"): no reason given,
# but where it would look; a successor told only "never answered" starts from nothing (reader review 62).
_GUESS_SENTENCES = 5  # sentences after the question read for a guess
_GUESS_CHARS = 140


def _guess(text: str, end: int) -> str:
    """The last hedged sentence among the few that follow a question (`end`: where it ends), else ""."""
    after = _ASK_SPLIT_RE.split(text[end:end + 800].strip(), maxsplit=_GUESS_SENTENCES)[:_GUESS_SENTENCES]
    hedged = [" ".join(x.replace("`", "").split()) for x in after if HEDGE_RE.search(x) and "```" not in x]
    return cut(hedged[-1], _GUESS_CHARS) if hedged else ""


_FIXED_BY_RE = re.compile(r"^edited [^;]*?\(r(\d+)\)")  # a record's solution that is an edit: "edited `x` (r67): …"
ASKED_NEAR = 5  # rounds between a question and the failure it asks about


def _ended(records: Sequence[ErrorRecord], asked: int, words: set[str]) -> str:
    """"; the `ERR_X` it asks about did not come back after the edit of rN" when an error record seen near
    round `asked`, whose output holds two of the question's words, was ended by an edit; else ""."""
    wanted = words - _GENERIC_WHY
    for rec in records:
        near = [o for o in rec.occurrences if abs(o.round - asked) <= ASKED_NEAR]
        m = _FIXED_BY_RE.match(rec.solution or "")
        if not near or m is None or int(m.group(1)) < max(o.round for o in rec.occurrences):
            continue
        said = _content(" ".join(f"{o.evidence} {o.detail}" for o in near))
        if len(wanted & said) >= 2:
            return f"; the {rec.id} it asks about did not come back after the edit of r{m.group(1)}"
    return ""


# A sentence of a request that asks for something: a suggestion, a requirement, an expectation.
_ASK_RE = re.compile(r"\b(?:should|must|need(?:s|ed)? to|have to|I think|easiest|would (?:be|like)|could|expect\w*|"
                     r"please|make sure|ensure|add|instead|want)\b", re.IGNORECASE)
# The code a sentence names: `quoted`, snake_case, dotted.calls, calls().
_CODE_RE = re.compile(r"`([^`\n]{2,60})`|\b([A-Za-z]\w*_\w+|[A-Za-z]\w*(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*\(\))")
_TAG_RE = re.compile(r"</?[A-Za-z_][\w-]*>")  # <issue_description>: markup, not code
_ASK_SPLIT_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_CODE_WORD_RE = re.compile(r"[A-Za-z_]\w{2,}")


_COMMENT_LINE_RE = re.compile(r"^[ \t]*(?://|#|/\*|\* |--|;).*$", re.MULTILINE)
_ASK_CHARS = 12_000  # asks are the request's prose; a long paste after it holds none


def _asks(request: str) -> list[tuple[str, list[str]]]:
    """(sentence, the code it names) for each sentence of `request` that asks for something."""
    out: list[tuple[str, list[str]]] = []
    if request.find("`") < 0 and request.find("_") < 0 and request.find("()") < 0:
        return out  # names no code the way asks do (quoted, snake_case, a call)
    # Only the lines that name code are split into sentences (a request is mostly prose or paste).
    lines = [line for line in request.split("\n") if line.find("`") >= 0 or line.find("_") >= 0 or line.find("()") >= 0]
    for sentence in (s for line in lines for s in _ASK_SPLIT_RE.split(line)):
        if len(sentence) > 400 or sentence.count(" ") < 4 or (
                sentence.find("`") < 0 and sentence.find("_") < 0 and sentence.find("()") < 0) \
                or not _ASK_RE.search(sentence):
            continue
        names = [a or b for a, b in _CODE_RE.findall(_TAG_RE.sub(" ", sentence) if "<" in sentence else sentence)]
        names = [n for n in dict.fromkeys(names) if _CODE_WORD_RE.search(n)]
        if names:
            out.append((sentence, names))
    return out


# The agent's last word says it could not do the work ("Unable to make necessary changes to …")
_INSTEAD_RE = re.compile(r"\binstead\b", re.I)
_GAVE_UP_RE = re.compile(r"^(?:(?:Sorry|Unfortunately),?\s+)?(?:I\s+(?:was|am|'m)\s+unable to|Unable to|I\s+(?:could not|"
                         r"couldn't|cannot|can't|failed to|did not manage to|wasn't able to|was not able to))\s+"
                         r"(?:make|apply|complete|finish|fix|implement|resolve|solve|edit|modify|change)\b", re.I)


def gave_up(said: list[tuple[int, str]]) -> list[Fact]:
    """The session's last reply saying the agent could not do the work: the task itself is the first
    thing left, above any side request (a successor reading only the asks would think them the gap)."""
    if not said:
        return []
    rnd, text = said[-1]
    if _DONE_WORDS_RE.search(text) or _INSTEAD_RE.search(text):
        return []  # "I can't change the API, so I added an option instead. All tests pass.": done otherwise
    for sentence in _SENTENCE_RE.split(" ".join(text.split()))[:3]:
        if _GAVE_UP_RE.match(sentence.strip()):
            # its words are the "Last said" line's: here only where it leaves the work, cited from the
            # agent's first reply too (first among the steps left)
            return [Fact(Section.NEXT, "[not done] the task itself: the agent ended saying it could not do it",
                         [said[0][0], rnd], score=70, essential=True)]
    return []


def asks_not_done(events: list[Event]) -> list[Fact]:
    """The user's concrete asks (a sentence of the task or of the last request that asks for
    something and names code) whose code no later edit or command touched: the suggestions a
    successor still owes, said apart from the request so they do not read as done."""
    requests = [e for e in events if e.kind is EventKind.REQUEST and e.text.strip()]
    if not requests:
        return []
    facts: list[Fact] = []
    for req in requests[:1] + requests[1:][-1:]:
        asks = _asks(split_task(req.text[:_ASK_CHARS])[0])
        if not asks:
            continue  # the changes are joined only for a request that names code
        after = [e for e in events if (e.round, e.message_index) > (req.round, req.message_index) and not e.failed]
        # the lines the edits added, joined at C speed; a comment saying what to do does not do it
        added = "\n".join("\n".join(h.added) for e in after if e.kind in (EventKind.EDIT, EventKind.WRITE)
                           for h in e.hunks)
        done = " ".join(
            [_COMMENT_LINE_RE.sub("", added)]
            + [e.path or "" for e in after if e.kind in (EventKind.EDIT, EventKind.WRITE)]
            # a command that changed state or tested; a search for the name is not doing it
            + [e.command or "" for e in after if e.kind is EventKind.COMMAND and (e.state_changing or e.test)]).lower()
        for sentence, names in asks:
            missing = [n for n in names if not any(w in done for w in _CODE_WORD_RE.findall(n.lower()))]
            if not missing:
                continue
            said = WS_RE.sub(" ", sentence.strip().lstrip("-*0123456789.) "))
            said = said if len(said) <= 200 else said[:200].rsplit(" ", 1)[0] + "…"
            shown = ", ".join(f"`{n}`" for n in missing[:3])
            facts.append(Fact(Section.NEXT, f"[not done] {shown} (asked r{req.round}): {said}", [req.round],
                              score=62, short=f"[not done] {shown} (asked r{req.round})"))
    return facts[-4:]


# A written plan's checks: the list items under a heading about verifying or testing.
_CHECK_HEADING_RE = re.compile(r"^#{1,4}\s++.*\b(?:verif\w*|test\w*|check\w*|validat\w*|qa)\b", re.IGNORECASE)
_HEADING_RE = re.compile(r"^#{1,4}\s")
_ITEM_RE = re.compile(r"^\s*+(?:[-*+]|\d+[.)])\s++(?:\[[ xX]?\]\s*+)?(.*\S)")
_TICKED_RE = re.compile(r"`([^`\n]{3,120})`")
# A code name in backticks (`NoErrorCheck`, `Config.load`): what a check is about, not a command to run
# (a command has arguments, a path, or is a lower-case program name: `pytest`).
_IDENT_RE = re.compile(r"[A-Za-z_][\w.]*[A-Z][\w.]*")
_PLAN_FILE_RE = re.compile(r"\.(?:md|markdown|txt)$", re.IGNORECASE)


# The user reporting that they tried the work ("it works well", "tested it, all good")
_USER_CHECKED_RE = re.compile(r"(?i)(?<!n't think )(?<!not sure )\b(?:it|this|that|everything|all|the \w+)\s+"
                              r"(?:works|is working|runs)\b(?! (?:before|yet))|\bworks (?:well|great|fine|perfectly|now)\b|"
                              r"\b(?:tested|tried|verified) it\b(?! (?:and|but) it (?:fails|crashes|breaks))")
# …and then says it breaks: no report that it works ("It worked before your change, now it crashes")
_USER_FAILS_RE = re.compile(r"(?i)\b(?:crash\w*|fail\w*|broke\w*|breaks|error\w*|doesn't work|not work\w*)\b")


def unrun_checks(events: list[Event]) -> list[Fact]:
    """The checks a plan the agent wrote names as commands (`./app sync --silent`) that no command
    run after the plan was last written matches: a verification the plan promised and nobody did."""
    plans: dict[str, tuple[Event, list[str]]] = {}
    for e in events:
        if e.kind is EventKind.WRITE and e.path and _PLAN_FILE_RE.search(e.path) and e.hunks and e.whole:
            plans[e.path] = (e, list(e.hunks[0].added))
        elif e.kind is EventKind.EDIT and e.path in plans:
            plans[e.path] = (e, plans[e.path][1])  # edited later: its checks count from the last edit
    facts: list[Fact] = []
    for path, (last, lines) in plans.items():
        checks = _checks(lines)
        if not checks:
            continue
        after = [e for e in events if (e.round, e.message_index) > (last.round, last.message_index)]
        if any(e.kind is EventKind.REQUEST and _USER_CHECKED_RE.search(e.text or "") and not _USER_FAILS_RE.search(e.text or "")
               for e in after):
            continue  # the user tried it and said it works: the plan's checks are done by hand
        ran = [set(_words(e.command)) for e in after if e.kind is EventKind.COMMAND and e.command]
        missed = [item for item, command in checks
                  if (want := set(_words(command))) and not any(want <= have for have in ran)]
        if missed:
            shown = "; ".join(m if len(m) <= 90 else m[:90].rsplit(" ", 1)[0] + "…" for m in missed[:4])
            text = f"[not done] checks in the plan `{path.rsplit('/', 1)[-1]}` never run: {shown}"
            facts.append(Fact(Section.NEXT, text, [last.round], score=60))
    return facts[:4]


def _checks(lines: list[str]) -> list[tuple[str, str]]:
    """(item, its command) for each list item with a command under a verification heading."""
    out: list[tuple[str, str]] = []
    inside = False
    for line in lines:
        if _HEADING_RE.match(line):
            inside = bool(_CHECK_HEADING_RE.match(line))
            continue
        m = _ITEM_RE.match(line) if inside else None
        if m:
            ticked = [t for t in _TICKED_RE.findall(m.group(1)) if not _IDENT_RE.fullmatch(t)]
            if ticked:
                out.append((m.group(1), ticked[-1]))
    return out


def _words(command: str) -> list[str]:
    return [w.removeprefix("./") for w in command.split() if w not in ("&&", "|", ";")]


def _content(text: str) -> set[str]:
    return {w for w in _WORD_RE.findall(text.lower()) if w not in _STOP}


# `(?<=[.!?])\s+|\n+` with each branch opening on the whitespace it consumes: a pattern that opens with a
# character class is scanned for it in C, where one opening with a lookbehind is tried at every position.
_SENTENCE_RE = re.compile(r"\s(?:(?<=[.!?]\s)\s*|(?<=\n)\n*)")


def _done_sentences(text: str) -> list[set[str]]:
    """The content words of each sentence of `text` that holds a done-word."""
    if not _DONE_WORDS_RE.search(text):
        return []
    return [_content(sentence) for sentence in _SENTENCE_RE.split(text) if _DONE_WORDS_RE.search(sentence)]


_LABEL_RE = re.compile(r"^\W*\*\*([^*\n]{3,60})\*\*|^\W*`([^`\n]{3,60})`")  # a checklist item's bold or code label
_STEM_RE = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
STEM = 4  # letters a label word and a later text's word share ("stubs" and "stub")
LATER_CHARS = 70  # of the request or commit that took an item up, quoted


TAKEN_UP_ITEMS = 40  # open checklist items looked up in the later requests and commits, the first ones
# A later request that names an item to put it off ("Skip the release notes for now"): it stays pending
_PUT_OFF_RE = re.compile(r"(?i)\b(?:skip|don'?t|do not|not now|later|postpone|defer|leave (?:out|it)|no need|"
                         r"ignore|drop)\b")
MIN_LABEL_WORDS = 2  # a one-word label ("**Tests**") names too little to tell a later request took it up


def _later_words(events: list[Event]) -> list[tuple[int, frozenset[str], str]]:
    """(round, its words' stems, its first line) of each request and commit: read once for every item."""
    out: list[tuple[int, frozenset[str], str]] = []
    for e in events:
        if e.kind in (EventKind.REQUEST, EventKind.COMMIT) and e.text:
            first = WS_RE.sub(" ", e.text.strip().split("\n", 1)[0])
            out.append((e.round, frozenset(w.lower()[:STEM] for w in _STEM_RE.findall(e.text[:4000])), first))
    return out


def _taken_up_later(item: Event, later: list[tuple[int, frozenset[str], str]]) -> str:
    """An item of a checklist the agent wrote in prose (no todo tool ticks it) that a later request of
    the user's or a later commit names by every word of its label ("**DAG stubs**: only a placeholder"
    then "DAG scaffolding … Minimal DAG stub"): " — then r41: “…”", so the item reads as taken up since,
    not as untouched; whether that finished it is the reader's to judge. "" when none did."""
    m = _LABEL_RE.match(item.text)
    label = (m.group(1) or m.group(2)) if m else ""
    stems = {w.lower()[:STEM] for w in _STEM_RE.findall(label) if w.lower() not in _STOP}
    if len(stems) < MIN_LABEL_WORDS:
        return ""
    for rnd, words, first in later:
        if rnd > item.round and stems <= words and not _PUT_OFF_RE.search(first):
            first = first if len(first) <= LATER_CHARS else first[:LATER_CHARS].rsplit(" ", 1)[0] + "…"
            return f" — then r{rnd}: “{first}”"
    return ""


def _done_later(item: Event, said: list[tuple[int, str]], split: dict[int, list[set[str]]] | None = None) -> bool:
    """A later assistant sentence says it is done: done-words and most of the item's content words.
    `split`: each said text's done sentences by index, shared by the items of one compaction (every
    open item would otherwise split and search the same later messages again)."""
    words = _content(item.text)
    if not words:
        return False
    split = {} if split is None else split
    for i, (rnd, text) in enumerate(said):
        if rnd <= item.round:
            continue
        done = split.get(i)
        if done is None:
            done = split[i] = _done_sentences(text)
        if any(len(words & content) * 2 >= len(words) for content in done):
            return True
    return False


_HEADING_ONLY_RE = re.compile(r"^(?:#{1,6}\s+|\*\*)?([^\n]{3,40}?)(?:\*\*)?:?\s*$")
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+(\S.*)$")
HEADING_ITEMS = 4  # a stated plan's heading is told with this many of its items


def _with_items(e: Event, said: list[tuple[int, str]]) -> str:
    """A stated next step that is only a heading ("### Next steps") with the list under it in the
    agent's message ("### Next steps: Review the PR; Test the rules; …"). Why: the heading alone tells a
    successor nothing; the list is the plan."""
    m = _HEADING_ONLY_RE.match(e.text.strip())
    if m is None:
        return e.text
    head = e.text.strip()
    for rnd, text in said:
        if rnd != e.round or head not in text:
            continue
        lines = text[text.index(head) + len(head):].split("\n")[1:]
        items: list[str] = []
        for line in lines:
            item = _LIST_ITEM_RE.match(line)
            if item is None:
                if line.strip() or items:
                    break
                continue
            said_item = item.group(1).strip()
            items.append(said_item if len(said_item) <= 100 else said_item[:99] + "…")
        if items:
            more = f" (+{len(items) - HEADING_ITEMS})" if len(items) > HEADING_ITEMS else ""
            return f"{m.group(1).strip()}: " + "; ".join(items[:HEADING_ITEMS]) + more
    return e.text


def _bare_heading(text: str) -> bool:
    """A Markdown heading or a bold title alone: it names a step, it says none."""
    stripped = text.strip()
    if ":" in stripped.rstrip(":*# "):
        return False  # "**Next: run the migration on prod**" says its step
    return stripped.startswith(("#", "**")) and _HEADING_ONLY_RE.match(stripped) is not None


def _still_open(text: str) -> bool:
    """A todo written down for later: said so ("still need to", `TODO:`; not "the TODO list"), or
    work said to remain that it names (a file, a name in code, a number)."""
    if _LATER_RE.search(text) or _TODO_MARK_RE.search(text):
        return True
    return bool(_REMAINING_RE.search(text) and _NAMES_WORK_RE.search(text))


NEW_ASK_WORDS = 8  # a request this long asks something of its own ("go on", "yes please" do not)
# a go-ahead's opening ("Sounds good, …"): what follows it, not it, must ask something of its own
_GO_AHEAD_RE = re.compile(r"(?i)^\s*(?:yes|yep|yeah|ok(?:ay)?|sure|sounds good|great|perfect|go ahead|do it|please do|"
                          r"lgtm|looks good|agreed|go for it)\b[\s,.!:;-]*")


def next_step_facts(events: list[Event], last_round: int, said: list[tuple[int, str]] | None = None, *,
                    submitted: bool = False) -> list[Fact]:
    """The todos still open, the plans the agent stated and did not say it did, its latest stated plans.
    `submitted`: the session ended by submitting the work, so a plan stated before then is not open."""
    todos: OrderedDict[str, Event] = OrderedDict()
    stated: list[Event] = []
    # A todo tool (TodoWrite, update_plan, task_tracking…) sends the whole list each time: only its
    # last list counts, so items dropped from it are not left "pending" forever.
    last_list: dict[str, tuple[int, int]] = {}
    for e in events:
        if e.kind is EventKind.TODO and e.tool:
            last_list[e.tool] = max(last_list.get(e.tool, (0, -1)), (e.round, e.message_index))
    # A checklist written in prose before a todo tool's last list is that list's draft: the tool's
    # list is the plan since (Cline ticks its task_progress items; the prose list of r1 stays unticked).
    latest = max(last_list.values(), default=None)
    for e in events:
        if e.kind is not EventKind.TODO:
            continue
        if e.status == "next":
            stated.append(e)
        elif e.tool is None and latest is not None and (e.round, e.message_index) < latest:
            continue
        elif e.tool is None or (e.round, e.message_index) == last_list[e.tool]:
            todos[e.text.strip().lower()] = e
    facts: list[Fact] = []
    asks_and_commits = _later_words(events) if any(e.tool is None for e in todos.values()) else []
    for e in todos.values():
        status = str(e.status or "pending").lower()
        if status in _DONE:
            continue
        later = _taken_up_later(e, asks_and_commits) if e.tool is None and len(facts) < TAKEN_UP_ITEMS else ""
        if later:  # a later request or commit took it up: no longer simply pending, nor a must-keep
            facts.append(Fact(Section.NEXT, f"[taken up since] {e.text.strip()}{later}", [e.round], score=55))
            continue
        facts.append(Fact(Section.NEXT, f"[{status}] {e.text.strip()}", [e.round], score=70, essential=True))
    # Immediate plans ("now I'll…") older than five rounds were acted on or dropped; a todo written down
    # for later stays open until a later message says it is done.
    split: dict[int, list[set[str]]] = {}
    kept_open = [] if submitted else [e for e in stated if e.round <= last_round - 5 and _still_open(e.text)
                                      and not _done_later(e, said or [], split)]
    for e in kept_open[-6:]:
        text = WS_RE.sub(" ", e.text.strip())
        facts.append(Fact(Section.NEXT, f"[open] {text[:300]}", [e.round], score=40 + e.round / 10000,
                          short=f"[open] {text[:120]}"))
    # A next step the agent proposed is overtaken by a new ask of the user's after it (not a go-ahead):
    # "Review the PR; test the rules" (r13) is stale once the user asked for other work (r14).
    asks = [e.round for e in events if e.kind is EventKind.REQUEST and e.text
            and len(_GO_AHEAD_RE.sub("", e.text, count=1).split()) >= NEW_ASK_WORDS]
    recent = [e for e in stated if e.round > last_round - 5 and not any(r > e.round for r in asks)]
    seen: set[str] = set()
    for e in recent[-6:]:
        told = _with_items(e, said or [])
        if told is e.text and _bare_heading(told):
            continue  # "**Summarizing modifications and next steps**": a title, with no list under it
        text = WS_RE.sub(" ", told.strip())
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        facts.append(Fact(Section.NEXT, text[:300], [e.round], score=25 + e.round / 10000))
    return facts
