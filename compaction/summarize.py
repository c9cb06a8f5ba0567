"""Summarization and distillation (seed 000 §1, §4), offline first, with an LLM when configured.

The extractive engine is a greedy *coverage* selector rather than the seed's "sum of TF-IDF
weights" picker: each sentence is worth the facts it adds that the summary does not hold yet
(file paths, error names, identifiers, numbers, markers, content words), per token it costs.
Coding transcripts repeat the same paths and errors hundreds of times; rewarding only new
facts keeps one mention of each instead of twenty of the most frequent one. Sentences are
whole units from `split_units`, which survives code fences, paths, lists and tracebacks, so
nothing is ever cut mid-sentence.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from compaction import tokens as tok
from compaction.lexical import BM25, STOPWORDS, tokenize
from compaction.llm import LLMFailure, TextModel, failure_notice, restore_facts, strip_fences

HIERARCHY_RATIOS = (0.5, 0.4, 0.25)  # each level keeps this share of the level before it
LOSSY_LEVELS = {"none": 1.0, "low": 0.7, "medium": 0.4, "high": 0.2}
SELECTIVE_THRESHOLD = 0.7
LONG_DOCUMENT_TOKENS = 4000  # above this, "auto" picks hierarchical
MAX_UNIT_CHARS = 4000  # longer units (minified blobs, giant log lines) are split at whitespace
LEAD_CHARS = 3000  # the opening of a text, where a transcript states its task
LEAD_WORD_BOOST = 8.0  # ... so its words weigh this much more wherever they recur

Method = Literal["auto", "extractive", "abstractive", "hierarchical"]
Level = Literal["none", "low", "medium", "high"]

# ---------------------------------------------------------------------------------------------
# Units: sentences, list items, code blocks, log lines


@dataclass(slots=True)
class Unit:
    """One indivisible piece of text: a sentence, a list item, a fenced code block or a line."""

    text: str
    start: int
    end: int
    kind: str  # sentence | item | code | heading | line | fragment
    para: int  # paragraph number, to choose the separator when joining

    def __str__(self) -> str:
        return self.text


_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|al|Mr|Mrs|Dr|No|Fig|approx|resp)\.|\b[A-Z]\.)$")
# a sentence's end: its closing quote or bracket (group 1) is the sentence's, the space after it the gap
_SENT_END = re.compile(r"(?<=[.!?])([\"')\]]?)\s+(?=[\"'(\[`]?[A-Z0-9@#])")
_CODEY = re.compile(r"[{};=<>]|^\s{4,}|^\t|\)\s*$|^\s*[$>]\s")


def _split_sentences(line: str, offset: int) -> list[tuple[str, int, int]]:
    """Split one prose line at sentence ends; never after abbreviations, inside paths or numbers."""
    out: list[tuple[str, int, int]] = []
    start = 0
    for m in _SENT_END.finditer(line):
        cut = m.end(1)  # after the sentence's closing quote or bracket: it is the sentence's, not the gap's
        head = line[start:cut].rstrip()
        if not head or _ABBREV.search(head) or len(head) < 3:
            continue
        out.append((line[start:cut], offset + start, offset + cut))
        start = m.end()
    if start < len(line):
        out.append((line[start:], offset + start, offset + len(line)))
    return [(t.rstrip(), s, s + len(t.rstrip())) for t, s, e in out if t.strip()]


def _chunks(text: str, start: int, limit: int = MAX_UNIT_CHARS) -> list[tuple[str, int, int]]:
    """Split an overlong unit at whitespace (it has no sentence boundaries to respect)."""
    out = []
    pos = 0
    while pos < len(text):
        end = min(len(text), pos + limit)
        if end < len(text):
            ws = text.rfind(" ", pos + limit // 2, end)
            if ws > pos:
                end = ws
        out.append((text[pos:end], start + pos, start + end))
        pos = end
    return out


def split_units(text: str) -> list[Unit]:
    """Units of `text` in order, with their character spans.

    Code fences are one unit each; list items, headings and log/code lines one unit per line;
    prose lines of one paragraph are joined and split at sentence ends (not after `e.g.`, in
    `foo.py`, `3.14` or `v1.2`). Units over MAX_UNIT_CHARS are cut at whitespace (kind fragment).
    """
    units: list[Unit] = []
    lines = text.splitlines(keepends=True)
    pos = 0
    para = 0
    i = 0
    prose: list[tuple[str, int]] = []  # (line without newline, start)

    def flush_prose() -> None:
        if not prose:
            return
        start = prose[0][1]
        end = prose[-1][1] + len(prose[-1][0])
        joined = text[start:end]
        for sent, s, e in _split_sentences(joined, start):
            add(sent, s, e, "sentence")
        prose.clear()

    def add(t: str, s: int, e: int, kind: str) -> None:
        if not t.strip():
            return
        if len(t) > MAX_UNIT_CHARS and kind != "code":
            for ct, cs, ce in _chunks(t, s):
                units.append(Unit(ct, cs, ce, "fragment", para))
        else:
            units.append(Unit(t, s, e, kind, para))

    while i < len(lines):
        raw = lines[i]
        line = raw.rstrip("\r\n")
        start = pos
        if _FENCE.match(line):
            flush_prose()
            fence = _FENCE.match(line).group(1)
            j = i + 1
            end = pos + len(raw)
            while j < len(lines):
                end += len(lines[j])
                if lines[j].strip().startswith(fence):
                    j += 1
                    break
                j += 1
            block = text[start:end].rstrip("\r\n")
            if len(block) > MAX_UNIT_CHARS * 2:  # a huge fenced dump: keep it line by line
                off = start
                for ln in block.splitlines(keepends=True):
                    add(ln.rstrip("\r\n"), off, off + len(ln.rstrip("\r\n")), "line")
                    off += len(ln)
            else:
                add(block, start, start + len(block), "code")
            para += 1
            pos = end
            i = j
            continue
        stripped = line.strip()
        if not stripped:
            flush_prose()
            para += 1
        elif _HEADING.match(line):
            flush_prose()
            para += 1
            add(line, start, start + len(line), "heading")
        elif _LIST.match(line):
            flush_prose()
            add(line, start, start + len(line), "item")
        elif _CODEY.search(line) or (prose == [] and _looks_like_log(stripped)):
            flush_prose()
            add(line, start, start + len(line), "line")
        else:
            if prose and not _continues(prose[-1][0], stripped):
                flush_prose()
            prose.append((line, start))
        pos += len(raw)
        i += 1
    flush_prose()
    return units


def _looks_like_log(line: str) -> bool:
    return bool(re.match(r"^(?:Traceback|File \"|[A-Z]\w*(?:Error|Exception|Warning)\b|FAILED|PASSED|ERROR|E\s|<\w+)", line))


def _continues(prev: str, cur: str) -> bool:
    """Whether `cur` continues the sentence of the wrapped prose line `prev`."""
    p = prev.rstrip()
    return bool(p) and p[-1] not in ".!?:;" and (cur[:1].islower() or p[-1] in ",(-")


def join_units(text: str, chosen: list[Unit]) -> str:
    """Join units in text order: original separators between neighbours, a newline across gaps."""
    chosen = sorted(chosen, key=lambda u: u.start)
    parts: list[str] = []
    prev: Unit | None = None
    for u in chosen:
        if prev is not None:
            between = text[prev.end : u.start]
            if not between.strip():
                parts.append(between or " ")
            elif prev.para == u.para and prev.kind == u.kind == "sentence":
                parts.append(" ")
            else:
                parts.append("\n")
        parts.append(u.text)
        prev = u
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Facts: what a summary must try to keep

PATH_RE = re.compile(
    r"(?<![\w/.~-])(?:~?/)?(?:[\w.-]+/)+[\w.-]*\w|(?<![\w/.-])[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|java|kt|c|h|cc|cpp|hpp|rs|go|rb|"
    r"php|cs|swift|pony|scala|md|rst|txt|toml|ini|cfg|json|yaml|yml|xml|sh|sql|html|css|lock)\b"
)
ERROR_ID_RE = re.compile(r"\bERR_[A-Z]+_\w+|\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Exit|Interrupt|Failure|Warning)\b")
IDENT_RE = re.compile(r"`[^`\n]{2,60}`|\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")
NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w.])")
MARKER_RE = re.compile(r"@(?:important|decision|warning|todo)\b", re.I)
ERROR_LINE_RE = re.compile(
    r"Traceback \(most recent call last\)|^[^\S\n]*[A-Z]\w*(?:Error|Exception)\b|\bFAILED\b|\berror[:\[]|\bERROR\b|No such file|not found|exit code [1-9]|returncode>[1-9]",
    re.I | re.M,
)

_WORD4 = re.compile(r"[A-Za-z]{4,}")
FACT_WEIGHTS = {"marker": 8.0, "error": 4.0, "path": 3.0, "ident": 1.2, "number": 0.4, "word": 0.25}


def unit_facts(text: str) -> dict[str, str]:
    """Facts a unit mentions: fact key -> kind (paths, error ids, identifiers, numbers, markers, words)."""
    facts: dict[str, str] = {}
    for m in MARKER_RE.finditer(text):
        facts[f"marker:{text[m.start():m.start() + 80]}"] = "marker"
    for m in ERROR_ID_RE.finditer(text):
        facts[m.group(0)] = "error"
    for m in PATH_RE.finditer(text):
        p = m.group(0).strip("./")
        if len(p) > 2 and not p.replace(".", "").isdigit():
            facts.setdefault(p, "path")
    for m in IDENT_RE.finditer(text):
        facts.setdefault(m.group(0).strip("`"), "ident")
    for m in NUMBER_RE.finditer(text):
        if len(m.group(0)) >= 2:
            facts.setdefault(m.group(0), "number")
    for lw in sorted({w.lower() for w in _WORD4.findall(text)} - STOPWORDS):  # sorted: deterministic sums
        facts.setdefault("w:" + lw, "word")
    return facts


def required_facts(text: str) -> list[str]:
    """Identifiers, paths, marker lines and todo lines in `text`: what an LLM rewrite must keep."""
    out: dict[str, None] = {}
    for line in text.splitlines():
        if MARKER_RE.search(line) or re.match(r"^\s*[-*]\s*\[ \]", line):
            out[line.strip()] = None
    for m in ERROR_ID_RE.finditer(text):
        out[m.group(0)] = None
    for m in PATH_RE.finditer(text):
        p = m.group(0).strip(".")
        if "/" in p or "." in p:
            out[p] = None
    for m in re.finditer(r"`([^`\n]{2,60})`", text):
        out[m.group(1)] = None
    return list(out)


# ---------------------------------------------------------------------------------------------
# Extractive


def count_units(texts: list[str]) -> list[int]:
    """Token counts of many short texts: a plain loop beats a thread pool for thousands of lines."""
    enc = tok.encoding()
    return [len(enc.encode_ordinary(t)) if t else 0 for t in texts]


@dataclass
class Extract:
    """An extractive result: the text, which units were kept and dropped, and token counts."""

    text: str
    tokens: int
    tokens_before: int
    kept: list[Unit] = field(default_factory=list)
    dropped: list[Unit] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.tokens / self.tokens_before if self.tokens_before else 1.0


def _unit_values(units: list[Unit], query: str | None) -> tuple[list[dict[str, float]], list[float]]:
    """Per unit: its facts with weights (for coverage) and a static bonus (error lines, markers, lead, query)."""
    raw = [unit_facts(u.text) for u in units]
    freq: Counter[str] = Counter()
    for f in raw:
        freq.update(f.keys())
    n = max(1, len(units))
    # Words of the lead (where a transcript states its task) count more wherever they recur.
    lead_end = units[0].start + LEAD_CHARS
    lead_words = {k for u, f in zip(units, raw, strict=True) if u.start < lead_end for k, kd in f.items() if kd == "word"}
    # A path mentioned in full also covers its shorter spellings (`/testbed/pkg/mod.py` covers `pkg/mod.py`),
    # so the unit with the most complete spelling is worth the most.
    by_base: dict[str, list[str]] = {}
    for key in freq:
        if "/" in key and not key.startswith(("w:", "marker:")):
            by_base.setdefault(key.rsplit("/", 1)[-1], []).append(key)
    suffixes: dict[str, list[str]] = {}
    for group in by_base.values():
        if len(group) > 1:
            for p in group:
                suffixes[p] = [q for q in group if q != p and p.endswith("/" + q)]
    weighted: list[dict[str, float]] = []
    for f in raw:
        w: dict[str, float] = {}
        for key, kind in f.items():
            base = FACT_WEIGHTS[kind]
            c = freq[key]
            if kind == "word":
                # a content word matters when the text keeps coming back to it, not when it is everywhere
                w[key] = base * math.log1p(c) * (1.0 if c < n * 0.3 else 0.3) * (LEAD_WORD_BOOST if key in lead_words else 1.0)
            else:
                w[key] = base * (1.0 + math.log1p(c))
                for q in suffixes.get(key, ()):
                    w.setdefault(q, FACT_WEIGHTS["path"] * (1.0 + math.log1p(freq[q])))
        weighted.append(w)
    bonus = [0.0] * len(units)
    prose_seen = 0
    for i, u in enumerate(units):
        if ERROR_LINE_RE.search(u.text):  # worth it once per distinct error line, not per repetition
            key = "errline:" + re.sub(r"\d+", "#", u.text.strip())[:80]
            weighted[i][key] = 3.0 if len(u.text.strip()) > 12 else 0.5
        if MARKER_RE.search(u.text):
            bonus[i] += 50.0
        if u.kind == "fragment":
            bonus[i] -= 2.0
        if u.kind in ("sentence", "item", "heading") and prose_seen < 3:
            bonus[i] += 6.0 - 1.5 * prose_seen  # the lead usually states the task
            prose_seen += 1
        elif u.kind in ("sentence", "item", "heading") and u.start < lead_end:
            bonus[i] += 3.0 * (1 - (u.start - units[0].start) / LEAD_CHARS)
    if query:
        q = tokenize(query)
        if q:
            bm = BM25([tokenize(u.text) for u in units])
            scores = bm.scores(q)
            top = max(scores, default=0.0)
            if top > 0:
                for i, s in enumerate(scores):
                    bonus[i] += 20.0 * s / top
    return weighted, bonus


def extractive(text: str, target_tokens: int, query: str | None = None) -> Extract:
    """Pick whole units under `target_tokens`, most new facts per token first; keep text order.

    Lazy greedy on a submodular gain: a unit's value only falls as facts get covered, so a
    stale heap entry is an upper bound and one recomputation decides.
    """
    before = tok.count(text)
    if before <= target_tokens:
        units = split_units(text)
        return Extract(text, before, before, units, [])
    units = split_units(text)
    if not units or target_tokens <= 0:
        return Extract("", 0, before, [], units)
    costs = count_units([u.text for u in units])
    facts, bonus = _unit_values(units, query)
    covered: set[str] = set()

    def value(i: int) -> float:
        gain = sum(w for k, w in facts[i].items() if k not in covered) + bonus[i]
        return gain / (max(costs[i], 1) ** 0.8)

    heap = [(-value(i), i) for i in range(len(units)) if costs[i] <= target_tokens]
    heapq.heapify(heap)
    chosen: list[int] = []
    used = 0
    while heap:
        negv, i = heapq.heappop(heap)
        if used + costs[i] > target_tokens:
            continue
        v = value(i)
        if heap and v < -heap[0][0] - 1e-12:
            heapq.heappush(heap, (-v, i))
            continue
        if v <= 0 and chosen:
            break
        chosen.append(i)
        used += costs[i] + 1  # +1: the separator
        covered.update(facts[i].keys())
        bonus[i] = 0.0
    kept = [units[i] for i in sorted(chosen)]
    out = join_units(text, kept)
    n = tok.count(out)
    while n > target_tokens and kept:  # joining can merge BPE tokens differently: settle exactly
        worst = min(kept, key=lambda u: len(unit_facts(u.text)) / max(1, len(u.text)))
        kept.remove(worst)
        out = join_units(text, kept)
        n = tok.count(out)
    kept_ids = {id(u) for u in kept}
    return Extract(out, n, before, kept, [u for u in units if id(u) not in kept_ids])


def importance(text: str, query: str | None = None) -> list[tuple[Unit, float]]:
    """Each unit with an importance in [0, 1] (its fact value per token, relative to the best)."""
    units = split_units(text)
    if not units:
        return []
    costs = count_units([u.text for u in units])
    facts, bonus = _unit_values(units, query)
    vals = [(sum(f.values()) + b) / (max(c, 1) ** 0.5) for f, b, c in zip(facts, bonus, costs, strict=False)]
    top = max(vals) or 1.0
    return [(u, max(0.0, v / top)) for u, v in zip(units, vals, strict=False)]


# ---------------------------------------------------------------------------------------------
# The seed's methods


@dataclass
class SummaryResult:
    text: str
    method: str
    tokens_before: int
    tokens_after: int
    notices: list[str] = field(default_factory=list)
    levels: dict[str, str] = field(default_factory=dict)


# --- the LLM's tasks, each validated against this offline engine ---------------------------------


def llm_summary(llm: TextModel, text: str, target_tokens: int, query: str | None = None
                ) -> tuple[str | None, str | None]:
    """Abstractive summary within `target_tokens`; facts the offline extract keeps are put back."""
    focus = f" Focus on: {query}." if query else ""
    try:
        out = llm.complete(
            f"Summarize in at most {max(1, int(target_tokens * 0.8))} tokens.{focus}\n\nText:\n{text}",
            system="You compress text for a coding assistant's context. Keep file paths, identifiers, error names, "
                   "commands, numbers, decisions and todos verbatim. Reply with the summary only.",
            max_tokens=max(16, target_tokens),
        )
    except LLMFailure as exc:
        return None, failure_notice("summary", str(exc))
    out = strip_fences(out)
    offline = extractive(text, target_tokens, query).text
    out, missing = restore_facts(out, required_facts(offline))
    if tok.count(out) > target_tokens:
        out = extractive(out, target_tokens, query).text
    notice = f"LLM summary: {len(missing)} dropped facts restored" if missing else None
    return out, notice


def llm_polish(llm: TextModel, markdown: str) -> tuple[str, str | None]:
    """Polish a compaction document's prose; every identifier, path, marker and todo line stays."""
    try:
        out = llm.complete(markdown, system=(
            "Improve the wording of this Markdown compaction document for a coding assistant. "
            "Keep every heading, file path, identifier, error id, command, marker (@important, "
            "@decision, @warning, @todo) and todo item verbatim. Reply with the document only."))
    except LLMFailure as exc:
        return markdown, failure_notice("polish", str(exc))
    out = strip_fences(out)
    headings = [ln for ln in markdown.splitlines() if ln.startswith("#")]
    if sum(1 for h in headings if h in out) < len(headings) / 2:
        return markdown, failure_notice("polish", "document structure lost")
    out, missing = restore_facts(out, required_facts(markdown))
    return out, (f"LLM polish: {len(missing)} dropped facts restored" if missing else None)


def llm_sentence_scores(llm: TextModel, sentences: list[str]) -> tuple[list[float] | None, str | None]:
    """Importance 0..1 per sentence (selective distillation)."""
    listing = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(sentences))
    try:
        data = llm.complete_json(listing, system=(
            "Rate the importance of each sentence for continuing the coding task on a scale of "
            "0-1. Reply with a JSON array of numbers, one per sentence."))
    except LLMFailure as exc:
        return None, failure_notice("sentence scoring", str(exc))
    if (not isinstance(data, list) or len(data) != len(sentences)
            or not all(isinstance(x, int | float) and 0 <= x <= 1 for x in data)):
        return None, failure_notice("sentence scoring", "expected one number in 0..1 per sentence")
    return [float(x) for x in data], None


def _reduce(text: str, target: int, query: str | None, llm: TextModel | None, notices: list[str]) -> str:
    """One reduction step: the LLM when configured (validated, falls back), else extractive."""
    if llm is not None:
        out, notice = llm_summary(llm, text, target, query=query)
        if notice:
            notices.append(notice)
        if out is not None and tok.count(out) <= target:
            return out
    return extractive(text, target, query).text


def hierarchical(text: str, levels: int = 3, ratios: tuple[float, ...] = HIERARCHY_RATIOS,
                 query: str | None = None, llm: TextModel | None = None) -> dict[str, str]:
    """`{'original', 'level_1', ...}`: each level keeps ratios[i] of the tokens of the level before."""
    out = {"original": text}
    current = text
    notices: list[str] = []
    for i, ratio in enumerate(ratios[:levels]):
        target = max(1, int(tok.count(current) * ratio))
        current = _reduce(current, target, query, llm, notices)
        out[f"level_{i + 1}"] = current
    return out


def progressive_distillation(text: str, target_tokens: int = 500, iterations: int = 3,
                             query: str | None = None, llm: TextModel | None = None) -> list[str]:
    """The text after each step; step i shrinks by (target/current)^(1/remaining)."""
    steps = [text]
    current, n = text, tok.count(text)
    notices: list[str] = []
    for i in range(iterations):
        if n <= target_tokens:
            break
        ratio = (target_tokens / n) ** (1 / (iterations - i))
        current = _reduce(current, max(1, int(n * ratio)), query, llm, notices)
        n = tok.count(current)
        steps.append(current)
    return steps


def selective_distillation(text: str, threshold: float = SELECTIVE_THRESHOLD, query: str | None = None,
                           llm: TextModel | None = None) -> str:
    """Keep units whose importance is >= threshold (from the LLM when configured, else our scores)."""
    scored = importance(text, query)
    if llm is not None and scored:
        llm_scores, _notice = llm_sentence_scores(llm, [u.text for u, _ in scored])
        if llm_scores is not None:
            scored = [(u, s) for (u, _), s in zip(scored, llm_scores, strict=False)]
    return join_units(text, [u for u, s in scored if s >= threshold or MARKER_RE.search(u.text)])


def lossy(text: str, level: Level = "medium", query: str | None = None, llm: TextModel | None = None) -> str:
    """Compress to the level's share of tokens: none 1.0, low 0.7, medium 0.4, high 0.2."""
    ratio = LOSSY_LEVELS[level]
    if ratio >= 1.0:
        return text
    return _reduce(text, max(1, int(tok.count(text) * ratio)), query, llm, [])


def fact_density(text: str) -> float:
    """Share of units that carry paths, error names, code, numbers or list structure."""
    units = split_units(text)
    if not units:
        return 0.0
    factual = 0
    for u in units:
        if u.kind in ("code", "line", "item", "fragment") or PATH_RE.search(u.text) or ERROR_ID_RE.search(u.text):
            factual += 1
    return factual / len(units)


def choose_method(text: str, llm_available: bool = False, n_tokens: int | None = None) -> str:
    """Seed 000 §1: long documents -> hierarchical, facts -> extractive, narrative -> abstractive (LLM)."""
    n = tok.count(text) if n_tokens is None else n_tokens
    if n > LONG_DOCUMENT_TOKENS:
        return "hierarchical"
    if fact_density(text) >= 0.3 or not llm_available:
        return "extractive"
    return "abstractive"


def summarize(text: str, target_tokens: int | None = None, ratio: float | None = None, method: Method = "auto",
              query: str | None = None, llm: TextModel | None = None,
              ratios: tuple[float, ...] | list[float] = HIERARCHY_RATIOS) -> SummaryResult:
    """Summarize to `target_tokens` (or `ratio` of the text) with the given or chosen method.

    Hierarchical runs levels until the text fits, then a last extractive pass to the target.
    Abstractive without an LLM falls back to extractive, with a notice.
    """
    before = tok.count(text)
    if target_tokens is None:
        target_tokens = max(1, int(before * (ratio if ratio is not None else 0.5)))
    notices: list[str] = []
    chosen = choose_method(text, llm is not None, before) if method == "auto" else method
    if before <= target_tokens:
        return SummaryResult(text, "none", before, before)
    levels: dict[str, str] = {}
    if chosen == "abstractive":
        if llm is None:
            notices.append("no LLM configured: abstractive summary replaced by extractive")
            out = extractive(text, target_tokens, query).text
        else:
            out = _reduce(text, target_tokens, query, llm, notices)
    elif chosen == "hierarchical":
        current = text
        for i, r in enumerate(ratios):
            n = tok.count(current)
            if n <= target_tokens:
                break
            nxt = max(target_tokens, int(n * r))
            current = _reduce(current, nxt, query, llm, notices)
            levels[f"level_{i + 1}"] = current
        out = current if tok.count(current) <= target_tokens else extractive(current, target_tokens, query).text
    else:
        out = extractive(text, target_tokens, query).text
    return SummaryResult(out, chosen, before, tok.count(out), notices, levels)
