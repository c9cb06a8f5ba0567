"""Lexical scoring of our own: a tokenizer that understands code and paths, BM25 and TF-IDF.

Why not scikit-learn: a few dozen lines do the job, stay offline, need no numpy, and let the
tokenizer keep `django/db/models/sql/query.py`, `ERR_PY_KeyError` and `getAttr` whole *and* split
into their parts, so a query for `query.py` or `KeyError` still matches.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers him his how i if in into is it its itself just let me more most my no nor not now of off
    on once only or other our ours out over own same she should so some such than that the their theirs them
    then there these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours also may might must shall us via per""".split()
)

# A "word" may contain path and identifier punctuation; trailing sentence punctuation is stripped.
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./\\:@#+-]*[A-Za-z0-9_]|[A-Za-z0-9_]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PARTS = re.compile(r"[/\\._:@#+-]+")


def _camel_parts(word: str) -> list[str]:
    return _CAMEL.findall(word)


def tokenize(text: str, keep_stopwords: bool = False) -> list[str]:
    """Lower-cased terms: each compound word whole, then its path/identifier parts and camelCase pieces.

    `ERR_PY_KeyError` -> err_py_keyerror, err, py, keyerror, key, error;
    `src/app/main.py` -> src/app/main.py, src, app, main.py, main, py.
    """
    out: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        low = word.lower()
        if not keep_stopwords and low in STOPWORDS:
            continue
        out.append(low)
        pieces = [p for p in _PARTS.split(word) if p]
        if "/" in word or "\\" in word:
            base = re.split(r"[/\\]", word)[-1]
            if base and base.lower() != low:
                out.append(base.lower())
        sub: list[str] = []
        for piece in pieces if len(pieces) > 1 else [word]:
            if len(pieces) > 1:
                sub.append(piece.lower())
            camel = _camel_parts(piece)
            if len(camel) > 1:
                sub.extend(c.lower() for c in camel)
        out.extend(s for s in sub if s != low and (keep_stopwords or s not in STOPWORDS))
    return out


class BM25:
    """Okapi BM25 over pre-tokenized documents (k1=1.5, b=0.75 by default)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.len = [len(d) for d in docs]
        self.n = len(docs)
        self.avgdl = (sum(self.len) / self.n) if self.n else 0.0
        df: Counter[str] = Counter()
        for counts in self.tf:
            df.update(counts.keys())
        self.idf = {t: math.log(1 + (self.n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def score(self, query: Iterable[str], i: int) -> float:
        tf, dl = self.tf[i], self.len[i]
        norm = self.k1 * (1 - self.b + self.b * (dl / self.avgdl if self.avgdl else 0.0))
        total = 0.0
        for term in set(query):
            f = tf.get(term)
            if f:
                total += self.idf.get(term, 0.0) * f * (self.k1 + 1) / (f + norm)
        return total

    def scores(self, query: Iterable[str]) -> list[float]:
        q = list(query)
        return [self.score(q, i) for i in range(self.n)]


class TfIdf:
    """TF-IDF weights (smoothed idf, like scikit-learn's default) and cosine similarity, no numpy."""

    def __init__(self, docs: Sequence[Sequence[str]]) -> None:
        self.n = len(docs)
        df: Counter[str] = Counter()
        for d in docs:
            df.update(set(d))
        self.idf = {t: math.log((1 + self.n) / (1 + f)) + 1 for t, f in df.items()}
        self.vectors = [self.vector(d) for d in docs]

    def vector(self, doc: Sequence[str]) -> dict[str, float]:
        """L2-normalised tf-idf vector; unknown terms get the highest idf."""
        counts = Counter(doc)
        top = math.log(1 + self.n) + 1
        vec = {t: c * self.idf.get(t, top) for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        return {t: v / norm for t, v in vec.items()} if norm else {}

    @staticmethod
    def cosine(a: dict[str, float], b: dict[str, float]) -> float:
        if len(a) > len(b):
            a, b = b, a
        return sum(v * b.get(t, 0.0) for t, v in a.items())

    def sums(self) -> list[float]:
        """The seed's sentence score: the sum of a sentence's tf-idf weights."""
        return [sum(v.values()) for v in self.vectors]


def normalise(scores: Sequence[float], top: float = 100.0) -> list[float]:
    """Scale scores so the best is `top` (all zeros stay zeros)."""
    best = max(scores, default=0.0)
    return [top * s / best for s in scores] if best > 0 else [0.0 for _ in scores]


def holds_word(text: str, word: str, joiners: str = "") -> bool:
    """Whether `word` occurs in `text` with no word character (nor one of `joiners`) on either side:
    `(?<!\\w)word(?!\\w)` without compiling a pattern per word (needles vary per session, so a
    pattern per needle misses re's cache and costs a compile each time)."""
    if not word:
        return False
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if not (start and _joins(text[start - 1], joiners)) and not (end < len(text) and _joins(text[end], joiners)):
            return True
        start = text.find(word, start + 1)
    return False


def _joins(ch: str, joiners: str) -> bool:
    return ch.isalnum() or ch == "_" or ch in joiners
