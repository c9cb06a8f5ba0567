"""Compressed memory (seed 000 §2, §3, §5, §8): key-value facts, gists, temporal and adaptive
compression, and the combined memory that retrieves under a token budget split 50/30/20.

Persisted in the workspace store (`memory_*` tables) so an MCP client can add memories in one
session and retrieve them in the next. Offline by default: facts come from patterns (errors,
paths, commands, markers, `key: value` lines), gists from a RAKE-style phrase extractor, scores
from BM25; with an LLM configured, facts and gists come from it, validated, falling back.
Originals are kept: compressed texts are derived, cached per level, and mapped to their item.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compaction import tokens as tok
from compaction.lexical import BM25, STOPWORDS, tokenize
from compaction.memory_config import MCPConfig
from compaction.store import ensure_schema, open_store, transaction
from compaction.summarize import ERROR_ID_RE, LOSSY_LEVELS, MARKER_RE, PATH_RE, extractive, summarize

if TYPE_CHECKING:  # pragma: no cover
    from compaction.llm import LLMClient

LEVEL_ORDER = ["none", "low", "medium", "high"]
DAY = 86400.0

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS memory_items (
        id INTEGER PRIMARY KEY, hash TEXT UNIQUE NOT NULL, text TEXT NOT NULL, terms TEXT NOT NULL,
        tokens INTEGER NOT NULL, created REAL NOT NULL, last_access REAL NOT NULL,
        access_count INTEGER NOT NULL DEFAULT 0, metadata TEXT NOT NULL DEFAULT '{}',
        compressed TEXT, compressed_level TEXT, compressed_tokens INTEGER)""",
    """CREATE TABLE IF NOT EXISTS memory_facts (
        id INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL, norm TEXT NOT NULL,
        created REAL NOT NULL, last_access REAL NOT NULL, hits INTEGER NOT NULL DEFAULT 0,
        sources TEXT NOT NULL DEFAULT '[]', UNIQUE(key, norm))""",
    """CREATE TABLE IF NOT EXISTS memory_gists (
        id INTEGER PRIMARY KEY, item_id INTEGER UNIQUE NOT NULL, phrases TEXT NOT NULL,
        original_length INTEGER NOT NULL, compressed_length INTEGER NOT NULL, created REAL NOT NULL)""",
]


def _now_default() -> float:
    return time.time()


# ---------------------------------------------------------------------------------------------
# Offline extraction

_KV_LINE = re.compile(r"^[^\S\n]*(?:[-*]\s+)?([A-Za-z][\w .()/-]{1,40}?)\s*:\s+(\S[^\n]{0,200})$", re.M)
_CMD_BLOCK = re.compile(r"^[^\S\n]*(```|~~~)(?:bash|sh|shell|console)(?>\s*\n)(.*?)^[^\S\n]*\1", re.S | re.M)
FACT_VALUE_CHARS = 200
_NOT_KEYS = {"thought", "note", "output", "error", "warning", "example", "description", "result", "step", "answer"}
FACTS_PER_TEXT = 24


def _norm_key(s: str) -> str:
    return re.sub(r"[^a-z0-9_./-]+", "_", s.strip().lower()).strip("_")


def _line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    line = text[start : end if end >= 0 else len(text)].strip()
    return line[:FACT_VALUE_CHARS]


def extract_facts(text: str, limit: int = FACTS_PER_TEXT) -> list[tuple[str, str]]:
    """Atomic facts with consistent keys: `marker:<kind>`, `error:<Name>`, `file:<path>`,
    `command:<program>`, and `<key>` from `key: value` lines; most important first, at most `limit`."""
    ranked: list[tuple[int, str, str]] = []
    for m in MARKER_RE.finditer(text):
        ranked.append((0, f"marker:{m.group(0)[1:].lower()}", _line_of(text, m.start())))
    for m in ERROR_ID_RE.finditer(text):
        ranked.append((1, f"error:{m.group(0)}", _line_of(text, m.start())))
    for m in _CMD_BLOCK.finditer(text):
        cmd = m.group(2).strip()
        if cmd:
            first = cmd.splitlines()[0]
            prog = first.split()[0] if first.split() else first
            ranked.append((2, f"command:{_norm_key(prog)}", first[:FACT_VALUE_CHARS]))
    for m in PATH_RE.finditer(text):
        p = m.group(0).strip("./")
        if len(p) > 3 and ("/" in p or "." in p) and not re.fullmatch(r"[\d.]+", p):
            ranked.append((3, f"file:{p}", _line_of(text, m.start())))
    for m in _KV_LINE.finditer(text):
        words = m.group(1).split()
        key = _norm_key(m.group(1))
        if (key and len(words) <= 3 and words[0].lower() not in STOPWORDS and key not in _NOT_KEYS
                and not key.startswith(("http", "file"))):
            ranked.append((4, key, m.group(2).strip()[:FACT_VALUE_CHARS]))
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []
    for _, key, value in sorted(ranked, key=lambda r: r[0]):
        ident = (key, value.lower())
        if ident in seen or not value:
            continue
        seen.add(ident)
        out.append((key, value))
        if len(out) >= limit:
            break
    return out


_PHRASE_SPLIT = re.compile(r"[,;:!?()\[\]{}<>\"'`|=]+|\.\s|\n")
_WORD_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]|[A-Za-z]")


def _is_fact_word(w: str) -> bool:
    return bool(ERROR_ID_RE.fullmatch(w) or PATH_RE.fullmatch(w) or "_" in w or re.search(r"[a-z][A-Z]", w))


def extract_gists(text: str, n: int = 10, min_words: int = 2, max_words: int = 5) -> list[str]:
    """Up to `n` key phrases of `min_words`..`max_words` words (RAKE-style: runs of content words,
    scored by word degree/frequency, with bonuses for error names, paths and identifiers)."""
    chunks: list[list[str]] = []
    for seg in _PHRASE_SPLIT.split(text[:200_000]):
        words = _WORD_RE.findall(seg)
        run: list[str] = []
        for i, w in enumerate(words):
            if w.lower() in STOPWORDS or len(w) < 2 or w.isdigit():
                if len(run) == 1 and _is_fact_word(run[0]) and i + 1 < len(words):
                    run.append(w)  # keep the stop word: "KeyError in" + next word reads as a phrase
                    continue
                if run:
                    chunks.append(run)
                run = []
            else:
                run.append(w)
        if run:
            chunks.append(run)
    freq: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    for c in chunks:
        for w in c:
            freq[w.lower()] += 1
            degree[w.lower()] += len(c) - 1
    cands: Counter[str] = Counter()
    score: dict[str, float] = {}
    for c in chunks:
        words = c[:max_words]
        if len(words) < min_words:
            continue
        while words and words[-1].lower() in STOPWORDS:
            words = words[:-1]
        if len(words) < min_words:
            continue
        phrase = " ".join(words)
        cands[phrase] += 1
        s = sum((degree[w.lower()] + freq[w.lower()]) / freq[w.lower()] for w in words)
        s += sum(3.0 for w in words if _is_fact_word(w))
        score[phrase] = s
    ranked = sorted(cands, key=lambda p: (-(score[p] * (1 + 0.5 * (cands[p] - 1))), p))
    out: list[str] = []
    seen_words: list[set[str]] = []
    for p in ranked:
        ws = {w.lower() for w in p.split()}
        if any(ws <= s for s in seen_words):
            continue
        out.append(p)
        seen_words.append(ws)
        if len(out) >= n:
            break
    if not out:  # a short text with no multi-word run: its first content words are its gist
        words = [w for w in _WORD_RE.findall(text[:2000]) if w.lower() not in STOPWORDS]
        if len(words) >= min_words:
            out.append(" ".join(words[:max_words]))
    return out


# ---------------------------------------------------------------------------------------------
# Records


@dataclass
class Fact:
    key: str
    value: str
    sources: list[dict[str, Any]] = field(default_factory=list)
    score: float = 0.0
    id: int | None = None

    def render(self) -> str:
        return f"- {self.key}: {self.value}"


@dataclass
class Gist:
    item_id: int
    phrases: list[str]
    original_length: int
    compressed_length: int
    score: float = 0.0

    def render(self) -> str:
        return f"- [{self.item_id}] " + "; ".join(self.phrases)


@dataclass
class MemoryItem:
    id: int
    text: str  # the compressed (or original) text returned
    level: str
    tokens: int
    original_tokens: int
    score: float
    metadata: dict[str, Any]
    age_days: float
    access_count: int
    trimmed: bool = False

    def render(self) -> str:
        where = ", ".join(f"{k}={v}" for k, v in self.metadata.items() if isinstance(v, str | int | float))
        head = f"[{self.id}{' ' + where if where else ''}; {self.level}]"
        return f"{head}\n{self.text}"


@dataclass
class MemoryContext:
    """What `retrieve` returns: the three memories' results, rendered, within `budget` tokens."""

    query: str
    budget: int
    temporal: list[MemoryItem]
    facts: list[Fact]
    gists: list[Gist]
    text: str
    tokens: int
    allocation: dict[str, int]

    @property
    def fill(self) -> float:
        return self.tokens / self.budget if self.budget else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "budget": self.budget, "tokens": self.tokens, "allocation": self.allocation,
                "temporal": [asdict(i) for i in self.temporal], "facts": [asdict(f) for f in self.facts],
                "gists": [asdict(g) for g in self.gists], "text": self.text}


@dataclass
class AddResult:
    item_id: int
    duplicate: bool
    facts_added: int
    facts_merged: int
    gist: list[str]


# ---------------------------------------------------------------------------------------------
# The memory


def level_by_age(age_days: float, cfg: MCPConfig) -> str:
    """Temporal compression: the first bucket whose `days` exceeds the age (< 1 none, < 7 low, ...)."""
    for bucket in cfg.temporal_compression.age_buckets:
        if age_days < bucket.days:
            return bucket.compression_level
    return cfg.temporal_compression.age_buckets[-1].compression_level


def level_by_access(count: int, cfg: MCPConfig) -> str:
    """Adaptive compression: > 10 accesses low, > 3 medium, else high."""
    a = cfg.adaptive_compression
    return "low" if count > a.low else "medium" if count > a.medium else "high"


def effective_level(age_days: float, access_count: int, cfg: MCPConfig) -> str:
    """The lighter of the temporal and adaptive levels: recent *or* frequently used content stays rich."""
    levels = []
    if cfg.temporal_compression.enabled:
        levels.append(level_by_age(age_days, cfg))
    if cfg.adaptive_compression.enabled:
        levels.append(level_by_access(access_count, cfg))
    if not levels:
        return "none"
    return min(levels, key=LEVEL_ORDER.index)


class CompressedMemory:
    """The combined memory of the seed's `CompressedMCP`: temporal items + key-value facts + gists."""

    def __init__(self, workspace: str | Path | None = None, conn: sqlite3.Connection | None = None,
                 config: MCPConfig | None = None, clock: Callable[[], float] = _now_default,
                 llm: LLMClient | None = None) -> None:
        if conn is None:
            if workspace is None:
                raise ValueError("CompressedMemory needs a workspace or a connection")
            conn = open_store(workspace)
            conn.row_factory = sqlite3.Row
        self.conn = conn
        self.config = config or MCPConfig()
        self.clock = clock
        self.llm = llm
        self.notices: list[str] = []
        ensure_schema(conn, SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> CompressedMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- adding

    def add(self, text: str, metadata: dict[str, Any] | None = None, timestamp: float | None = None) -> AddResult:
        """Store the original, extract facts and a gist from it. The same text twice is one item
        (its metadata is merged as extra provenance). Secrets are redacted before anything is stored:
        in the text, and in the metadata's keys and string values."""
        if not text or not text.strip():
            raise ValueError("memory text is empty")
        from compaction.redact import redact_json, redact_text

        text = redact_text(text)
        meta = redact_json(dict(metadata or {}))
        h = hashlib.sha256(text.encode("utf-8")).hexdigest()
        now = self.clock()
        created = now if timestamp is None else float(timestamp)
        row = self.conn.execute("SELECT id FROM memory_items WHERE hash=?", (h,)).fetchone()
        if row is not None:
            return AddResult(row[0], True, 0, 0, [])
        with transaction(self.conn):
            cur = self.conn.execute(
                "INSERT INTO memory_items(hash, text, terms, tokens, created, last_access, metadata) "
                "VALUES (?,?,?,?,?,?,?)",
                (h, text, " ".join(tokenize(text)), tok.count(text), created, created, json.dumps(meta)),
            )
        item_id = int(cur.lastrowid)
        added = merged = 0
        if self.config.key_value.enabled:
            added, merged = self._add_facts(text, item_id, meta, now)
        phrases: list[str] = []
        if self.config.gist_tokens.enabled:
            phrases = self._add_gist(text, item_id, now)
        return AddResult(item_id, False, added, merged, phrases)

    def _facts_for(self, text: str) -> list[tuple[str, str]]:
        if self.llm is not None:
            facts, notice = self.llm.extract_facts(text)
            if notice:
                self.notices.append(notice)
            if facts:
                return [(_norm_key(k), str(v)[:FACT_VALUE_CHARS]) for k, v in facts.items() if _norm_key(k)]
        return extract_facts(text)

    def _add_facts(self, text: str, item_id: int, meta: dict[str, Any], now: float) -> tuple[int, int]:
        source = {"item": item_id, **{k: v for k, v in meta.items() if isinstance(v, str | int | float)}}
        added = merged = 0
        facts = self._facts_for(text)  # may call the LLM: never while holding the store's write lock
        with transaction(self.conn):
            for key, value in facts:
                norm = re.sub(r"\s+", " ", value.strip().lower())
                row = self.conn.execute("SELECT id, sources FROM memory_facts WHERE key=? AND norm=?",
                                        (key, norm)).fetchone()
                if row is None:
                    self.conn.execute(
                        "INSERT INTO memory_facts(key, value, norm, created, last_access, sources) VALUES (?,?,?,?,?,?)",
                        (key, value, norm, now, now, json.dumps([source])))
                    added += 1
                else:
                    sources = json.loads(row[1])
                    if source not in sources:
                        sources.append(source)
                        self.conn.execute("UPDATE memory_facts SET sources=? WHERE id=?",
                                          (json.dumps(sources[-50:]), row[0]))
                    merged += 1
            over = self.conn.execute("SELECT COUNT(*) FROM memory_facts").fetchone()[0] - self.config.key_value.max_facts
            if over > 0:  # evict the least used, then the oldest
                self.conn.execute(
                    "DELETE FROM memory_facts WHERE id IN (SELECT id FROM memory_facts "
                    "ORDER BY hits ASC, last_access ASC, id ASC LIMIT ?)", (over,))
        return added, merged

    def _gist_for(self, text: str) -> list[str]:
        g = self.config.gist_tokens
        if self.llm is not None:
            phrases, notice = self.llm.gists(text, g.tokens_per_gist, g.min_words, g.max_words)
            if notice:
                self.notices.append(notice)
            if phrases:
                return phrases
        return extract_gists(text, g.tokens_per_gist, g.min_words, g.max_words)

    def _add_gist(self, text: str, item_id: int, now: float) -> list[str]:
        phrases = self._gist_for(text)
        if not phrases:
            return []
        with transaction(self.conn):
            self.conn.execute(
                "INSERT OR REPLACE INTO memory_gists(item_id, phrases, original_length, compressed_length, created) "
                "VALUES (?,?,?,?,?)",
                (item_id, json.dumps(phrases), tok.count(text), sum(tok.count_many(phrases)), now))
            over = self.conn.execute("SELECT COUNT(*) FROM memory_gists").fetchone()[0] - self.config.gist_tokens.max_gists
            if over > 0:
                self.conn.execute("DELETE FROM memory_gists WHERE id IN "
                                  "(SELECT id FROM memory_gists ORDER BY created ASC, id ASC LIMIT ?)", (over,))
        return phrases

    # -- the three memories

    def retrieve_facts(self, query: str, k: int | None = None) -> list[Fact]:
        """Top-k facts by BM25 of `key: value` against the query (only facts that match at all)."""
        k = k or self.config.key_value.k
        rows = self.conn.execute("SELECT id, key, value, sources FROM memory_facts").fetchall()
        q = tokenize(query)
        if not rows or not q:
            return []
        bm = BM25([tokenize(f"{r[1]} {r[2]}") for r in rows])
        scored = sorted(((s, r) for s, r in zip(bm.scores(q), rows, strict=False) if s > 0), key=lambda x: (-x[0], x[1][0]))[:k]
        out = [Fact(r[1], r[2], json.loads(r[3]), round(s, 4), r[0]) for s, r in scored]
        if out:
            now = self.clock()
            with transaction(self.conn):
                self.conn.executemany("UPDATE memory_facts SET hits=hits+1, last_access=? WHERE id=?",
                                      [(now, f.id) for f in out])
        return out

    def retrieve_gists(self, query: str, k: int | None = None) -> list[Gist]:
        k = k or self.config.gist_tokens.k
        rows = self.conn.execute(
            "SELECT item_id, phrases, original_length, compressed_length FROM memory_gists").fetchall()
        q = tokenize(query)
        if not rows or not q:
            return []
        bm = BM25([tokenize(" ".join(json.loads(r[1]))) for r in rows])
        scored = sorted(((s, r) for s, r in zip(bm.scores(q), rows, strict=False) if s > 0), key=lambda x: (-x[0], x[1][0]))[:k]
        return [Gist(r[0], json.loads(r[1]), r[2], r[3], round(s, 4)) for s, r in scored]

    def compressed_text(self, item_id: int, level: str) -> tuple[str, int]:
        """An item's text at a compression level, derived from the original and cached in the row."""
        row = self.conn.execute("SELECT text, tokens, compressed, compressed_level, compressed_tokens "
                                "FROM memory_items WHERE id=?", (item_id,)).fetchone()
        if row is None:
            raise KeyError(item_id)
        if level == "none":
            return row[0], row[1]
        if row[3] == level and row[2] is not None:
            return row[2], row[4]
        sc = self.config.summarization  # the configured method; the level sets the share kept
        target = max(1, int(row[1] * LOSSY_LEVELS[level]))
        text = summarize(row[0], target, method=sc.method, llm=self.llm,
                         ratios=sc.compression_ratios[: sc.levels]).text
        n = tok.count(text)
        with transaction(self.conn):
            self.conn.execute("UPDATE memory_items SET compressed=?, compressed_level=?, compressed_tokens=? WHERE id=?",
                              (text, level, n, item_id))
        return text, n

    def compress_by_age(self) -> dict[str, int]:
        """Recompute every item's compressed form for its current level; returns counts per level."""
        now = self.clock()
        counts: Counter[str] = Counter()
        for r in self.conn.execute("SELECT id, created, access_count FROM memory_items").fetchall():
            level = effective_level((now - r[1]) / DAY, r[2], self.config)
            self.compressed_text(r[0], level)
            counts[level] += 1
        return dict(counts)

    def retrieve_temporal(self, query: str, token_budget: int) -> list[MemoryItem]:
        """Items by BM25 (on the originals, so compression never hides a match), each at its level,
        greedily under the budget; the last one that does not fit is trimmed to the room left."""
        rows = self.conn.execute(
            "SELECT id, terms, tokens, created, access_count, metadata FROM memory_items").fetchall()
        q = tokenize(query)
        if not rows or not q or token_budget <= 0:
            return []
        bm = BM25([r[1].split() for r in rows])
        ranked = sorted(((s, r) for s, r in zip(bm.scores(q), rows, strict=False) if s > 0), key=lambda x: (-x[0], -x[1][3]))
        now = self.clock()
        out: list[MemoryItem] = []
        room = token_budget
        for s, r in ranked:
            if room < 16:
                break
            age = (now - r[3]) / DAY
            level = effective_level(age, r[4], self.config)
            text, n = self.compressed_text(r[0], level)
            overhead = 24  # the rendered header line and separators
            trimmed = False
            if n + overhead > room:
                if room - overhead < 24:
                    continue
                ex = extractive(text, room - overhead, query)
                if not ex.text.strip():
                    continue
                text, n, trimmed = ex.text, ex.tokens, True
            item = MemoryItem(r[0], text, level, n, r[2], round(s, 4), json.loads(r[5]), round(age, 3), r[4], trimmed)
            out.append(item)
            room -= tok.count(item.render()) + 2
        if out:
            with transaction(self.conn):
                self.conn.executemany("UPDATE memory_items SET access_count=access_count+1, last_access=? WHERE id=?",
                                      [(now, i.id) for i in out])
        return out

    # -- combined

    def retrieve(self, query: str, token_budget: int | None = None) -> MemoryContext:
        """The seed's combined retrieval: facts (30%), gists (20%), then temporal items in the rest
        (50% plus whatever facts and gists left unused). Never exceeds `token_budget`."""
        budget = token_budget or self.config.token_budget.max_compressed_tokens
        alloc = self.config.token_budget.allocation
        kv_budget, gist_budget = int(budget * alloc.key_value), int(budget * alloc.gist)
        facts = self._fit([f for f in self.retrieve_facts(query)], kv_budget, "## Facts") \
            if self.config.key_value.enabled else []
        gists = self._fit(self.retrieve_gists(query), gist_budget, "## Gists") if self.config.gist_tokens.enabled else []
        text_fg = self._render([], facts, gists)
        used = tok.count(text_fg) if text_fg else 0
        temporal_room = budget - used - 8  # the "## Memories" heading and separators
        temporal = self.retrieve_temporal(query, temporal_room)
        text = self._render(temporal, facts, gists)
        n = tok.count(text)
        while n > budget and temporal:  # settle exactly (BPE merges across joins)
            temporal.pop()
            text = self._render(temporal, facts, gists)
            n = tok.count(text)
        allocation = {"temporal": budget - kv_budget - gist_budget, "facts": kv_budget, "gists": gist_budget}
        return MemoryContext(query, budget, temporal, facts, gists, text, n, allocation)

    @staticmethod
    def _fit(records: list, budget: int, heading: str) -> list:
        out, used = [], tok.count(heading) + 2
        for r in records:
            n = tok.count(r.render()) + 1
            if used + n <= budget:
                out.append(r)
                used += n
        return out

    @staticmethod
    def _render(temporal: list[MemoryItem], facts: list[Fact], gists: list[Gist]) -> str:
        parts = []
        if facts:
            parts.append("## Facts\n" + "\n".join(f.render() for f in facts))
        if gists:
            parts.append("## Gists\n" + "\n".join(g.render() for g in gists))
        if temporal:
            parts.append("## Memories\n" + "\n\n".join(i.render() for i in temporal))
        return "\n\n".join(parts)

    def retrieval_agreement(self, query: str, k: int = 5, level: str | None = None) -> float:
        """Share of the top-k items for `query` that stay in the top-k when ranked by their compressed
        texts instead of the originals (seed 000 §7: test that compression keeps retrieval quality).
        `level` forces one compression level; default: each item's own (age and access count)."""
        rows = self.conn.execute("SELECT id, terms, created, access_count FROM memory_items ORDER BY id").fetchall()
        q = tokenize(query)
        if not rows or not q:
            return 1.0
        now = self.clock()

        def top(docs: list[list[str]]) -> set[int]:
            scores = BM25(docs).scores(q)
            ranked = sorted((i for i, sc in enumerate(scores) if sc > 0), key=lambda i: -scores[i])[:k]
            return {rows[i][0] for i in ranked}

        original = top([r[1].split() for r in rows])
        if not original:
            return 1.0
        compressed = []
        for r in rows:
            lvl = level or effective_level((now - r[2]) / DAY, r[3], self.config)
            compressed.append(tokenize(self.compressed_text(r[0], lvl)[0]))
        return len(original & top(compressed)) / len(original)

    def stats(self) -> dict[str, Any]:
        """Counts and compression ratios (monitoring, seed 000 §6)."""
        c = self.conn
        items, orig = c.execute("SELECT COUNT(*), COALESCE(SUM(tokens),0) FROM memory_items").fetchone()
        comp = c.execute("SELECT COALESCE(SUM(compressed_tokens),0), COALESCE(SUM(tokens),0) FROM memory_items "
                         "WHERE compressed IS NOT NULL").fetchone()
        g = c.execute("SELECT COUNT(*), COALESCE(SUM(original_length),0), COALESCE(SUM(compressed_length),0) "
                      "FROM memory_gists").fetchone()
        return {"items": items, "tokens": orig, "facts": c.execute("SELECT COUNT(*) FROM memory_facts").fetchone()[0],
                "gists": g[0], "gist_ratio": (g[2] / g[1]) if g[1] else None,
                "compressed_ratio": (comp[0] / comp[1]) if comp[1] else None}


def open_memory(workspace: str | Path, config: MCPConfig | None = None, llm: LLMClient | None = None,
                clock: Callable[[], float] = _now_default, use_llm: bool = True) -> CompressedMemory:
    """The workspace's memory with its configuration from `.compaction/config.json` (`mcp` key), and
    the LLM of its `llm` settings when enabled there (unless `use_llm` is false)."""
    if config is None:
        config = load_memory_config(workspace)
    if llm is None and use_llm:
        from compaction.config import load_settings
        from compaction.llm import LLMClient

        llm = LLMClient.from_settings(load_settings(workspace).llm)
    return CompressedMemory(workspace, config=config, llm=llm, clock=clock)


def load_memory_config(workspace: str | Path) -> MCPConfig:
    """Validate the `mcp` key of the user config under `.compaction/config.json`'s (whose user-only
    keys, such as `mcp.workspace`, are dropped); ConfigError names the file and the keys."""
    from pydantic import ValidationError

    from compaction.config import (
        ConfigError,
        config_path,
        deep_merge,
        format_validation_error,
        user_layer,
        workspace_layer,
    )

    path = config_path(workspace)
    user = user_layer()[0].get("mcp") or {}
    data = workspace_layer(workspace).get("mcp") or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: mcp: expected an object")
    data = deep_merge(user, data) if isinstance(user, dict) else data
    try:
        return MCPConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(f"{path} (mcp)", exc)) from None
