"""Context blocks and their compression (seed 003 §10.2–10.4, DESIGN.md §4).

A prompt is assembled from blocks (system prompt, task, history, error memory, tool results,
files, insights). `ContextCompressor.compress` keeps the best-scoring blocks under a token
target; a block that does not fit whole is trimmed (its weakest sentences dropped) or
summarized (extractively) at sentence boundaries, never cut mid-sentence, and the result names
every block it dropped or shortened. `prepare_context` splits a window by the budget table
(compaction.budget) and compresses each part into its share.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Any

from compaction import tokens as tok
from compaction.budget import BudgetShares, allocate
from compaction.lexical import BM25, tokenize
from compaction.model import Role, Transcript
from compaction.summarize import MARKER_RE, extractive, llm_summary

if TYPE_CHECKING:  # pragma: no cover
    from compaction.llm import LLMClient

MIN_TRIM_TOKENS = 24  # below this, a partial block is not worth its place


class ContextSource(StrEnum):
    SYSTEM = "system"
    TASK = "task"
    HISTORY = "history"
    ERROR_MEMORY = "error_memory"
    TOOL_RESULT = "tool_result"
    FILE = "file"
    INSIGHT = "insight"
    MEMORY = "memory"


class ContextPriority(IntEnum):
    """On a 0–100 scale so that the seed's rule weights (+30..+80) mean something."""

    CRITICAL = 100
    HIGH = 75
    MEDIUM = 50
    LOW = 25


class Strategy(StrEnum):
    PRIORITY_BASED = "priority_based"
    RELEVANCE_BASED = "relevance_based"
    FRESHNESS_BASED = "freshness_based"
    COMPOSITE = "composite"
    RULE_BASED = "rule_based"


# Which budget part (compaction.budget.PARTS) a block's source draws on.
SOURCE_PART = {
    ContextSource.SYSTEM: "system",
    ContextSource.TASK: "history",
    ContextSource.HISTORY: "history",
    ContextSource.INSIGHT: "history",
    ContextSource.MEMORY: "history",
    ContextSource.ERROR_MEMORY: "error_memory",
    ContextSource.TOOL_RESULT: "tool_results",
    ContextSource.FILE: "tool_results",
}

ERROR_RE = re.compile(r"\bERR_[A-Z]+_\w+|Traceback \(most recent call last\)|\b\w+(?:Error|Exception)\b")


@dataclass
class ContextBlock:
    """One piece of a prompt. `token_count` is computed when not given; `metadata` may hold
    `timestamp` (ISO 8601 or epoch seconds), `round`, `causal_chain` ([{cause, effect}]), `pinned`."""

    source: ContextSource
    priority: ContextPriority | int
    content: str
    token_count: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None

    def __post_init__(self) -> None:
        self.source = ContextSource(self.source)
        if isinstance(self.priority, str):
            self.priority = ContextPriority[self.priority.upper()]
        if self.token_count is None:
            self.token_count = tok.count(self.content)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "source": self.source.value, "priority": int(self.priority),
                "content": self.content, "token_count": self.token_count, "metadata": self.metadata}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ContextBlock:
        """From the JSON shape of `compaction blocks compress` (priority as a name or a number)."""
        prio = d.get("priority", "MEDIUM")
        if isinstance(prio, str):
            prio = ContextPriority[prio.upper()]
        return cls(source=ContextSource(str(d["source"]).lower()), priority=prio, content=str(d.get("content", "")),
                   token_count=d.get("token_count"), metadata=dict(d.get("metadata") or {}), id=d.get("id"))


@dataclass(frozen=True)
class CompositeWeights:
    priority: float = 0.4
    relevance: float = 0.4
    freshness: float = 0.2


@dataclass
class BlockOutcome:
    """What happened to one input block: kept | trimmed | summarized | dropped, and why."""

    index: int
    id: str | None
    source: str
    action: str
    score: float
    tokens_before: int
    tokens_after: int
    reason: str = ""


@dataclass
class CompressionResult:
    blocks: list[ContextBlock]  # the kept blocks (possibly shortened), in input order
    outcomes: list[BlockOutcome]  # one per input block, in input order
    strategy: str
    target_tokens: int
    tokens_before: int
    tokens_after: int

    @property
    def dropped(self) -> list[BlockOutcome]:
        return [o for o in self.outcomes if o.action == "dropped"]

    @property
    def shortened(self) -> list[BlockOutcome]:
        return [o for o in self.outcomes if o.action in ("trimmed", "summarized")]

    def order(self) -> list[int]:
        """Input indexes from the highest score to the lowest (the strategy's preference)."""
        return [o.index for o in sorted(self.outcomes, key=lambda o: (-o.score, o.index))]

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "target_tokens": self.target_tokens,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "blocks": [b.to_dict() for b in self.blocks],
            "outcomes": [o.__dict__ for o in self.outcomes],
        }


def causal_chain_weight(metadata: dict[str, Any]) -> int:
    """+30 for carrying a causal chain, +5 per `{cause, effect}` node up to +50: +30..+80 in all."""
    chain = metadata.get("causal_chain")
    if not isinstance(chain, list):
        return 0
    nodes = sum(1 for n in chain if isinstance(n, dict) and "cause" in n and "effect" in n)
    return 30 + min(5 * nodes, 50)


def block_time(block: ContextBlock, index: int) -> tuple[int, float]:
    """Sort key for freshness: (1, epoch seconds) from `timestamp`, else (0, round or index)."""
    ts = block.metadata.get("timestamp")
    if isinstance(ts, int | float):
        return (1, float(ts))
    if isinstance(ts, str) and ts:
        try:
            return (1, datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp())
        except ValueError:
            pass
    rnd = block.metadata.get("round")
    return (0, float(rnd) if isinstance(rnd, int | float) else float(index))


class ContextCompressor:
    """Scores blocks by a strategy and keeps them under a token target.

    `half_life_s` (timestamps) and `half_life_rounds` (rounds/positions) set how fast freshness
    decays, measured from the newest block, so results do not depend on the wall clock.
    """

    def __init__(self, weights: CompositeWeights | None = None, half_life_s: float = 3600.0,
                 half_life_rounds: float = 10.0, llm: LLMClient | None = None) -> None:
        self.llm = llm  # when set, blocks that must shrink below half are summarized by it (validated)
        self.notices: list[str] = []
        self.weights = weights or CompositeWeights()
        self.half_life_s = half_life_s
        self.half_life_rounds = half_life_rounds

    # -- scores on 0..100 (rule-based adds its bonuses on top)

    def relevance(self, blocks: Sequence[ContextBlock], query: str | None) -> list[float]:
        """BM25 of each block against the query (default: the TASK blocks' text), best = 100."""
        if not query:
            query = " ".join(b.content for b in blocks if b.source is ContextSource.TASK)
        q = tokenize(query or "")
        if not q or not blocks:
            return [0.0] * len(blocks)
        bm = BM25([tokenize(b.content) for b in blocks])
        scores = bm.scores(q)
        top = max(scores)
        return [100.0 * s / top if top > 0 else 0.0 for s in scores]

    def freshness(self, blocks: Sequence[ContextBlock]) -> list[float]:
        """100 for the newest block, halving every half-life of age before it."""
        keys = [block_time(b, i) for i, b in enumerate(blocks)]
        out = []
        newest_ts = max((k[1] for k in keys if k[0] == 1), default=None)
        newest_pos = max((k[1] for k in keys if k[0] == 0), default=None)
        for kind, t in keys:
            if kind == 1:
                age = (newest_ts - t) / self.half_life_s
            else:
                age = (newest_pos - t) / self.half_life_rounds
            out.append(100.0 * math.pow(0.5, max(0.0, age)))
        return out

    def rule_bonus(self, block: ContextBlock) -> tuple[float, bool, list[str]]:
        """Seed rules: causal chain +30..+80; markers +40 and pinned; the error-memory block +30 and pinned
        (never emptied); an error record +30; other error text +15; CRITICAL blocks pinned."""
        bonus, pinned, why = 0.0, bool(block.metadata.get("pinned")), []
        chain = causal_chain_weight(block.metadata)
        if chain:
            bonus += chain
            why.append(f"causal chain +{chain}")
        if MARKER_RE.search(block.content):
            bonus += 40
            pinned = True
            why.append("marker +40")
        if block.source is ContextSource.ERROR_MEMORY:
            bonus += 30
            pinned = True
            why.append("error memory +30")
        elif block.metadata.get("error_record"):
            bonus += 30
            why.append("error record +30")
        elif ERROR_RE.search(block.content):
            bonus += 15
            why.append("error information +15")
        if block.priority >= ContextPriority.CRITICAL:
            pinned = True
        return bonus, pinned, why

    def scores(self, blocks: Sequence[ContextBlock], strategy: Strategy | str,
               query: str | None = None) -> tuple[list[float], list[bool]]:
        """(score, pinned) per block for a strategy."""
        strategy = Strategy(strategy)
        n = len(blocks)
        prio = [float(b.priority) for b in blocks]
        pinned = [bool(b.metadata.get("pinned")) for b in blocks]
        if strategy is Strategy.PRIORITY_BASED:
            return prio, pinned
        if strategy is Strategy.RELEVANCE_BASED:
            return self.relevance(blocks, query), pinned
        if strategy is Strategy.FRESHNESS_BASED:
            return self.freshness(blocks), pinned
        if strategy is Strategy.COMPOSITE:
            w = self.weights
            total = (w.priority + w.relevance + w.freshness) or 1.0
            rel, fr = self.relevance(blocks, query), self.freshness(blocks)
            return [(w.priority * prio[i] + w.relevance * rel[i] + w.freshness * fr[i]) / total
                    for i in range(n)], pinned
        # RULE_BASED: priority plus the seed's rule weights
        out, pins = [], []
        for b in blocks:
            bonus, pin, _ = self.rule_bonus(b)
            out.append(float(b.priority) + bonus)
            pins.append(pin)
        return out, pins

    # -- compression

    def compress(self, blocks: Sequence[ContextBlock], compression_ratio: float | None = None,
                 target_tokens: int | None = None, strategy: Strategy | str = Strategy.COMPOSITE,
                 query: str | None = None) -> CompressionResult:
        """Keep blocks by score under `target_tokens` (or `compression_ratio` of the total, the share kept).

        Pinned blocks go first. A block that does not fit whole is trimmed (remaining room >= half
        of it: its weakest sentences go) or summarized (extractive, fact-preserving); if not even
        MIN_TRIM_TOKENS fit, it is dropped. Kept blocks stay in input order.
        """
        strategy = Strategy(strategy)
        blocks = list(blocks)
        before = sum(b.token_count or 0 for b in blocks)
        if target_tokens is None:
            ratio = 0.7 if compression_ratio is None else compression_ratio
            if not 0 <= ratio <= 1:
                raise ValueError(f"compression_ratio must be within 0..1, got {ratio}")
            target_tokens = int(before * ratio)
        if target_tokens < 0:
            raise ValueError(f"target_tokens must be >= 0, got {target_tokens}")
        scores, pinned = self.scores(blocks, strategy, query)
        order = sorted(range(len(blocks)), key=lambda i: (not pinned[i], -scores[i], -block_time(blocks[i], i)[1], i))
        room = target_tokens
        new: dict[int, ContextBlock] = {}
        outcomes: dict[int, BlockOutcome] = {}
        for i in order:
            b = blocks[i]
            n = b.token_count or 0
            common = dict(index=i, id=b.id, source=b.source.value, score=scores[i], tokens_before=n)
            if n <= room:
                new[i] = b
                room -= n
                outcomes[i] = BlockOutcome(action="kept", tokens_after=n, **common)
                continue
            if room >= MIN_TRIM_TOKENS:
                if self.llm is not None and room * 2 < n:
                    text, notice = llm_summary(self.llm, b.content, room, query)
                    if notice:
                        self.notices.append(notice)
                    if text and text.strip() and tok.count(text) <= room:
                        k = tok.count(text)
                        meta = dict(b.metadata, compressed_from=n, compression="summarized", llm=True)
                        new[i] = ContextBlock(b.source, b.priority, text, k, meta, b.id)
                        room -= k
                        outcomes[i] = BlockOutcome(action="summarized", tokens_after=k,
                                                   reason="abstractive summary (LLM), dropped facts restored", **common)
                        continue
                ex = extractive(b.content, room, query)
                if ex.text.strip() and ex.tokens <= room:
                    action = "trimmed" if ex.tokens * 2 >= n else "summarized"
                    meta = dict(b.metadata, compressed_from=n, compression=action,
                                kept_spans=[[u.start, u.end] for u in ex.kept])  # the mapping to the original
                    new[i] = ContextBlock(b.source, b.priority, ex.text, ex.tokens, meta, b.id)
                    room -= ex.tokens
                    outcomes[i] = BlockOutcome(action=action, tokens_after=ex.tokens,
                                               reason=f"{len(ex.dropped)} of {len(ex.kept) + len(ex.dropped)} "
                                                      "sentences dropped at sentence boundaries", **common)
                    continue
            reason = f"no room: {n} tokens, {room} left of {target_tokens}"
            if pinned[i]:
                reason = "pinned, but " + reason
            outcomes[i] = BlockOutcome(action="dropped", tokens_after=0, reason=reason, **common)
        kept = [new[i] for i in sorted(new)]
        return CompressionResult(kept, [outcomes[i] for i in range(len(blocks))], strategy.value, target_tokens,
                                 before, sum(b.token_count or 0 for b in kept))


def blocks_from_transcript(transcript: Transcript, error_memory: str | None = None) -> list[ContextBlock]:
    """One block per message of a loaded transcript (plus an error-memory block when given).

    System prompt: SYSTEM/CRITICAL; the first user request: TASK/CRITICAL; later user messages:
    HISTORY/HIGH; assistant turns: HISTORY/MEDIUM; tool results: TOOL_RESULT/LOW, or MEDIUM with
    `error_record` and a causal chain (command -> error line) when the result is an error.
    Metadata carries `round`, `message` and `timestamp` where the transcript has one.
    """
    out: list[ContextBlock] = []
    task_seen = False
    for rnd in transcript.rounds:
        calls: dict[str | None, str] = {}
        for msg in rnd.messages:
            meta: dict[str, Any] = {"round": rnd.number, "message": msg.index}
            if msg.timestamp:
                meta["timestamp"] = msg.timestamp
            bid = f"m{msg.index}"
            if msg.role is Role.SYSTEM:
                out.append(ContextBlock(ContextSource.SYSTEM, ContextPriority.CRITICAL, msg.text, None, meta, bid))
            elif msg.role is Role.USER and not msg.harness and msg.text.strip():
                source, prio = ((ContextSource.TASK, ContextPriority.CRITICAL) if not task_seen
                                else (ContextSource.HISTORY, ContextPriority.HIGH))
                task_seen = True
                out.append(ContextBlock(source, prio, msg.text, None, meta, bid))
            elif msg.role is Role.ASSISTANT:
                for call in msg.tool_calls:
                    calls[call.id] = call.command or call.path or call.name
                text = msg.full_text()
                if text.strip():
                    out.append(ContextBlock(ContextSource.HISTORY, ContextPriority.MEDIUM, text, None, meta, bid))
            if msg.role is not Role.ASSISTANT and (msg.tool_results or (msg.role is Role.TOOL and msg.text.strip())):
                results = msg.tool_results or []
                text = "\n".join(r.content for r in results) if results else msg.text
                if not text.strip():
                    continue
                failed = any(r.is_error or (r.exit_code not in (None, 0)) for r in results)
                m = ERROR_RE.search(text)
                if failed or m:
                    line_start = text.rfind("\n", 0, m.start()) + 1 if m else 0
                    effect = text[line_start:].split("\n", 1)[0][:160]
                    cause = next((calls[r.call_id] for r in results if r.call_id in calls), None) or \
                        next(iter(calls.values()), "tool call")
                    meta.update(error_record=True, causal_chain=[{"cause": cause[:160], "effect": effect}])
                    prio = ContextPriority.MEDIUM
                else:
                    prio = ContextPriority.LOW
                out.append(ContextBlock(ContextSource.TOOL_RESULT, prio, text, None, meta, bid + "r"))
    if error_memory and error_memory.strip():
        out.append(ContextBlock(ContextSource.ERROR_MEMORY, ContextPriority.HIGH, error_memory, None,
                                {"round": transcript.rounds[-1].number if transcript.rounds else 0}, "error_memory"))
    return out


@dataclass
class PreparedContext:
    """The blocks of one prompt, each budget part compressed into its share of the window."""

    blocks: list[ContextBlock]
    shares: BudgetShares
    budget: dict[str, int]  # tokens per part (output: reserved for the answer)
    used: dict[str, int]
    parts: dict[str, CompressionResult]
    utilization: float
    window: int

    @property
    def dropped(self) -> list[BlockOutcome]:
        return [o for r in self.parts.values() for o in r.dropped]

    def to_dict(self) -> dict[str, Any]:
        return {"window": self.window, "utilization": self.utilization, "shares": self.shares.percent(),
                "rules": list(self.shares.rules), "budget": self.budget, "used": self.used,
                "blocks": [b.to_dict() for b in self.blocks],
                "parts": {k: v.to_dict() for k, v in self.parts.items()}}


def prepare_context(blocks: Sequence[ContextBlock], window: int | None = None, model: str | None = None,
                    utilization: float | None = None, recent_errors: bool | None = None,
                    query: str | None = None, strategy: Strategy | str = Strategy.RULE_BASED,
                    compressor: ContextCompressor | None = None) -> PreparedContext:
    """Assemble a prompt under the budget table: each part's blocks compressed into its share.

    `utilization` defaults to the blocks' own tokens over the window; `recent_errors` defaults to
    whether any error-memory block has content (it decides whether error memory may drop to 5%).
    The output share is reserved (no block draws on it). Blocks come back in input order.
    """
    blocks = list(blocks)
    window = tok.context_window(model, window)
    total = sum(b.token_count or 0 for b in blocks)
    util = total / window if utilization is None else utilization
    if recent_errors is None:
        recent_errors = any(b.source is ContextSource.ERROR_MEMORY and b.content.strip() for b in blocks)
    shares = allocate(util, recent_errors)
    budget = shares.tokens(window)
    comp = compressor or ContextCompressor()
    by_part: dict[str, list[int]] = {}
    for i, b in enumerate(blocks):
        by_part.setdefault(SOURCE_PART[b.source], []).append(i)
    parts: dict[str, CompressionResult] = {}
    kept_ids: dict[int, ContextBlock] = {}
    for part, idx in by_part.items():
        res = comp.compress([blocks[i] for i in idx], target_tokens=budget[part], strategy=strategy, query=query)
        parts[part] = res
        for o, i in zip(res.outcomes, idx, strict=False):
            o.index = i
        kept_iter = iter(res.blocks)
        for o, i in zip(res.outcomes, idx, strict=False):
            if o.action != "dropped":
                kept_ids[i] = next(kept_iter)
    used = {p: (parts[p].tokens_after if p in parts else 0) for p in budget}
    return PreparedContext([kept_ids[i] for i in sorted(kept_ids)], shares, budget, used, parts, util, window)
