"""Hold the error-memory block to its token ceiling (seed §2.1: 10% of the context budget).

Above 80% of the ceiling, in this order: merge similar records (same family and same root cause),
then drop records not seen for more than 10 rounds until back under 80%: those whose solution does not
say what ended them first, oldest first within each kind (a record that teaches is the last to go). The block
is never emptied unless asked, and every merge and drop is reported. If it is still over the
ceiling after that, solution/avoidance texts are shortened (no record is lost for length alone).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from compaction import tokens
from compaction.errors.records import ErrorRecord, root_key
from compaction.errors.render import assemble_block, render_block, render_record
from compaction.errors.shorten import FIX_CLAUSE_RE, fit, split_clauses

SHARE = 0.10
HIGH_WATER = 0.80
STALE_ROUNDS = 10
SHORT_WIDTHS = (100, 80, 60, 45, 30)  # the widest that fits: each step keeps more words
AVOIDANCE_FACTOR = 0.7  # beside an `Error:` line, the advice keeps less than the solution
DETAIL_FACTOR = 1.6  # an `Error:` line keeps this much more than the solution and avoidance texts


@dataclass
class BudgetResult:
    records: list[ErrorRecord]
    markdown: str
    ceiling: int
    merged: dict[str, list[str]] = field(default_factory=dict)  # kept id -> ids folded into it
    dropped: list[str] = field(default_factory=list)
    shortened: int = 0  # the width texts were cut to, 0 when untouched
    dropped_lines: dict[str, str] = field(default_factory=dict)  # dropped id -> its identifying error line
    details: dict[str, str] = field(default_factory=dict)  # id -> its `Error:` line, as shown (with `detail`)
    texts: list[str] = field(default_factory=list)  # each record of `records`, rendered as in `markdown`

    @property
    def tokens(self) -> int:
        """The block's tokens, counted when asked: the engine places the block in its document and
        counts it there, so counting it here as well encoded it twice."""
        return tokens.count(self.markdown)

    @property
    def notes(self) -> list[str]:
        out = []
        if self.merged:
            out.append("merged similar errors: " + "; ".join(f"{k} <- {', '.join(v)}" for k, v in self.merged.items()))
        if self.dropped:
            said = [f"{i} ({self.dropped_lines[i]})" if self.dropped_lines.get(i) else i for i in self.dropped]
            out.append(f"dropped errors not seen for more than {STALE_ROUNDS} rounds: {', '.join(said)}")
        if self.shortened:
            out.append(f"texts cut to {self.shortened} chars to fit")
        return out


_ACCOUNT_PREFIXES = ("cause: ", "the agent's guess: ", "the user said: ")


def teaches(rec: ErrorRecord) -> bool:
    """Whether the record's solution says what ended the error (an edit, a command that then passed)."""
    return any(FIX_CLAUSE_RE.search(clause) for clause in split_clauses(rec.solution or "")
               if not clause.startswith(_ACCOUNT_PREFIXES))


def ceiling_for(context_window: int | None = None, ceiling: int | None = None, share: float = SHARE) -> int:
    """The block's ceiling: an explicit one, else `share` of the context window (model default)."""
    if ceiling:
        return int(ceiling)
    return int(share * (context_window or tokens.context_window()))


def merge_similar(records: list[ErrorRecord]) -> tuple[list[ErrorRecord], dict[str, list[str]]]:
    """Fold records that share family and root cause into the most frequent one (copies; the
    inputs are not changed). Order follows each group's first member."""
    keys = [root_key(rec) for rec in records]  # once a record: each blanks every occurrence's message
    groups: dict[str, list[ErrorRecord]] = {}
    for rec, key in zip(records, keys, strict=True):
        groups.setdefault(key, []).append(rec)
    out: list[ErrorRecord] = []
    merged: dict[str, list[str]] = {}
    done: set[str] = set()
    for rec, key in zip(records, keys, strict=True):
        if key in done:
            continue
        done.add(key)
        group = groups[key]
        if len(group) == 1:
            out.append(rec)
            continue
        primary = max(group, key=lambda r: (r.count, -group.index(r)))
        new = copy.deepcopy(primary)
        for other in group:
            if other is primary:
                continue
            new.merged.extend([other.id, *other.merged])
            for occ in other.occurrences:
                new.add(copy.deepcopy(occ))
        new.occurrences.sort(key=lambda o: (o.round, o.transcript))
        merged[new.id] = list(new.merged[len(primary.merged):])
        out.append(new)
    return out, merged


_EVIDENCE_LEAD_RE = re.compile(r"^[>#*\-\s]+")
_ERROR_LINE_RE = re.compile(r"(?i)error|errno|exception|denied|not found|failed|invalid|cannot|refused")
DROPPED_LINE_CHARS = 100


def identifying_line(rec: ErrorRecord, width: int = DROPPED_LINE_CHARS) -> str:
    """`r18: Error creating file /add: [Errno 30] Read-only file system: '/add'`: the line of the
    record's latest evidence that names the error, so a record the budget drops still says what
    failed, not only its id. Comment-safe (it is printed inside `<!-- -->`)."""
    for occ in reversed(rec.occurrences):
        lines = [_EVIDENCE_LEAD_RE.sub("", ln).strip() for ln in (occ.evidence or "").splitlines()]
        lines = [ln for ln in lines if ln]
        if not lines:
            continue
        line = next((ln for ln in lines if _ERROR_LINE_RE.search(ln)), lines[0])
        line = " ".join(line.replace("--", "—").split())
        if len(line) > width:
            line = line[: width - 1].rstrip() + "…"
        return f"r{occ.round}: {line}"
    return ""


_PATH_RE = re.compile(r"(?<![\w.~-])(?<![\w.~-]/)(?:[\w.~-]+/)+([\w.-]+\.\w+)")
_INFO_RE = re.compile(r"`[^`]+`|\b\w*\d\w*\b|\b\w+\.\w+\b|\b[a-z]+_\w+|\b[A-Z][a-z]+[A-Z]\w*|(?i:errno|error)")


def solution_info(clause: str) -> int:
    """How many identifiers, numbers, code spans and error words a clause holds."""
    return len(_INFO_RE.findall(clause))


def _shorten(text: str | None, width: int) -> str | None:
    """`text` within `width` characters keeping what identifies: paths become their file names, then
    `shorten.fit` (a change's shared words and long code's middles go before whole clauses, and the
    clauses with the most identifiers and numbers are kept before generic ones)."""
    if not text or len(text) <= width:
        return text
    return fit(_PATH_RE.sub(_file_name_unless_placed, text), width, solution_info)


PLACED = ("is at `", "call on `")  # a path that says where a missed file is: its folders are the point


def placed(m: re.Match[str]) -> bool:
    """Whether the path `m` matched says where a missed file is (it follows one of `PLACED`)."""
    return m.string[max(0, m.start() - 12):m.start()].rstrip("/").endswith(PLACED)


def _file_name_unless_placed(m: re.Match[str]) -> str:
    return m.group(0) if placed(m) else m.group(1)


def _elide(text: str, width: int) -> str:
    """`text` within `width` characters by eliding its middle: an error line's specifics are often at
    its end (`…missing from the dataset: PixelRepresentation`). A code span is never left open."""
    if len(text) <= width:
        return text
    lead = text.find(": ") + 2  # where it happened (`at `file:line`: `) stays, its path by file name
    if lead >= 2:
        text = _PATH_RE.sub(r"\1", text[:lead]) + text[lead:]
        lead = text.find(": ") + 2
        if len(text) <= width:
            return text
    lead = lead if 2 <= lead <= width * 0.6 else 0
    width -= lead
    head, tail = text[lead: lead + int(width * 0.55)], text[len(text) - int(width * 0.4):]
    space = head.rfind(" ")  # whole words: a name cut in two is neither found nor read
    head = head[:space] if space >= len(head) // 2 else head
    space = tail.find(" ")
    tail = tail[space + 1:] if 0 <= space <= len(tail) // 2 else tail
    if head.count("`") % 2:
        head = head[: head.rfind("`")]
    if tail.count("`") % 2:
        tail = tail[tail.find("`") + 1:]
    return f"{text[:lead]}{head.rstrip()}…{tail.lstrip()}"


def fit_budget(records: list[ErrorRecord], *, ceiling: int | None = None, context_window: int | None = None,
               current_round: int | None = None, lang: str = "en", protocol: bool = True,
               allow_empty: bool = False, detail: Callable[[ErrorRecord], str] | None = None) -> BudgetResult:
    """Apply the §2.1 budget rules and render the block. With `detail`, each record shown also says
    what failed and where (its `Error:` line, the hand-over document's form), within the same ceiling:
    a line too long is shortened with the texts."""
    limit = ceiling_for(context_window, ceiling)
    high = HIGH_WATER * limit
    frame = tokens.count(render_block([], lang, protocol=protocol))
    recs = list(records)
    details: dict[str, str] = {}

    def said(r: ErrorRecord) -> str | None:
        if detail is None:
            return None
        if r.id not in details:
            details[r.id] = detail(r)
        return details[r.id]

    rendered: dict[int, tuple[ErrorRecord, str]] = {}  # id(record) -> (the record, kept alive: its id stays its own)

    def text(r: ErrorRecord) -> str:
        """The record rendered once: it is counted, maybe counted again, then shown."""
        got = rendered.get(id(r))
        if got is None or got[0] is not r:
            got = rendered[id(r)] = (r, render_record(r, lang, said(r)))
        return got[1]

    def over(rs: list[ErrorRecord], bound: float) -> bool:
        """Whether the block of `rs` is over `bound` tokens. A token is at least one byte of UTF-8: a
        block whose bytes are within the bound is within it without being encoded."""
        texts = [text(r) for r in rs]
        if frame + sum(len(t.encode()) + 1 for t in texts) <= bound:
            return False
        return frame + sum(tokens.count(t) + 1 for t in texts) > bound

    result = BudgetResult(recs, "", limit)
    if recs and over(recs, high):
        recs, result.merged = merge_similar(recs)
        for kept in result.merged:  # a merged record's failure spans its aliases' occurrences too
            details.pop(kept, None)
        if over(recs, high):
            now = current_round if current_round is not None else max(r.last_round for r in recs)
            # Oldest first, but a record whose solution teaches (the edit that ended it, the command that then
            # passed) after those that only say it went unresolved or that the next call worked.
            stale = sorted((r for r in recs if now - r.last_round > STALE_ROUNDS),
                           key=lambda r: (teaches(r), r.last_round, r.count))
            costs = {id(r): tokens.count(text(r)) + 1 for r in recs}
            total = frame + sum(costs.values())
            for r in stale:
                if total <= high or (len(recs) == 1 and not allow_empty):
                    break
                recs = [x for x in recs if x is not r]
                total -= costs[id(r)]
                result.dropped.append(r.id)
                result.dropped_lines[r.id] = identifying_line(r)
        originals = recs
        full = {r.id: said(r) for r in recs} if detail is not None else {}
        for width in SHORT_WIDTHS:  # still over the ceiling: shorten texts, never lose a record for length
            if not over(recs, limit):
                break
            recs = [copy.copy(r) for r in originals]
            for r in recs:
                r.solution = _shorten(r.solution, width)
                # with an `Error:` line the record's substance is what failed and what ended it: the
                # generic advice gives way first
                r.avoidance = _shorten(r.avoidance, int(width * AVOIDANCE_FACTOR) if full.get(r.id) else width)
                if full.get(r.id):  # what failed is the record's substance: it keeps more than the advice
                    details[r.id] = _elide(full[r.id], int(width * DETAIL_FACTOR))
            result.shortened = width
    result.records = recs
    result.details = details
    result.texts = [text(r) for r in recs]
    result.markdown = assemble_block(result.texts, lang, protocol=protocol, notes=result.notes)
    if result.dropped_lines and tokens.count(result.markdown) > limit:  # the ceiling first: ids only
        result.dropped_lines = {}
        result.markdown = assemble_block(result.texts, lang, protocol=protocol, notes=result.notes)
    return result
