"""Baselines the engine must beat at the same token budget.

- `recent`: keep the most recent tokens (what a sliding window does);
- `head_tail`: half the budget from the start, half from the end;
- `tfidf`: the seed's plain TF-IDF sentence picker (seed 000 §1), reimplemented without sklearn:
  split on '. ', score each sentence by the sum of its L2-normalised TF-IDF weights (sklearn's
  defaults: lowercase, tokens of 2+ word characters, smooth idf), keep the best sentences in their
  original order while they fit.
All three return text whose token count (same tokenizer) is within the budget.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

from compaction import tokens

_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def _enc():
    return tokens.encoding()


def recent(text: str, budget: int) -> str:
    ids = _enc().encode_ordinary(text)
    if len(ids) <= budget:
        return text
    return _fit(_enc().decode(ids[-budget:]), budget, keep="end")


def head_tail(text: str, budget: int) -> str:
    ids = _enc().encode_ordinary(text)
    if len(ids) <= budget:
        return text
    half = budget // 2
    marker = "\n[…]\n"
    room = max(0, half - tokens.count(marker))
    out = _enc().decode(ids[:room]) + marker + _enc().decode(ids[-(budget - half):])
    return _fit(out, budget, keep="both")


def tfidf(text: str, budget: int) -> str:
    sentences = text.split(". ")
    if tokens.count(text) <= budget:
        return text
    docs = [Counter(_TOKEN.findall(s.lower())) for s in sentences]
    n = len(docs)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    idf = {t: math.log((1 + n) / (1 + c)) + 1.0 for t, c in df.items()}
    scores = []
    for d in docs:
        weights = [tf * idf[t] for t, tf in d.items()]
        norm = math.sqrt(sum(w * w for w in weights)) or 1.0
        scores.append(sum(weights) / norm)
    costs = tokens.count_many(sentences)
    chosen: list[int] = []
    used = 0
    for i in sorted(range(n), key=lambda i: -scores[i]):
        cost = costs[i] + 1  # the '. ' joiner
        if used + cost <= budget:
            chosen.append(i)
            used += cost
    out = ". ".join(sentences[i] for i in sorted(chosen))
    return _fit(out, budget, keep="start")


def _fit(text: str, budget: int, keep: str) -> str:
    """Decoding token slices can re-tokenise slightly longer; trim until within budget."""
    while tokens.count(text) > budget:
        ids = _enc().encode_ordinary(text)
        over = len(ids) - budget + 2
        if keep == "end":
            text = _enc().decode(ids[over:])
        else:
            text = _enc().decode(ids[:-over])
    return text


BASELINES: dict[str, Callable[[str, int], str]] = {"recent": recent, "head_tail": head_tail, "tfidf": tfidf}
