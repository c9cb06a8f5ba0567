"""Token accounting: offline seeding, the fast ranks cache, the model table."""

from __future__ import annotations

import pytest

from compaction import tokens


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokens._load_encoding.cache_clear()
    yield tmp_path
    tokens._load_encoding.cache_clear()


def test_seeded_offline_and_fast_cache_agree_with_tiktoken(fresh_cache):
    import tiktoken

    text = "def f(x):\n    return x ** 2  # 平方 ✓\n" * 50
    first = tokens.encoding("o200k_base")  # through tiktoken: seeds the cache, writes the marshal file
    assert (fresh_cache / "o200k_base.ranks.marshal").exists()
    tokens._load_encoding.cache_clear()
    second = tokens.encoding("o200k_base")  # from the marshal file
    reference = tiktoken.get_encoding("o200k_base")
    assert first.encode_ordinary(text) == second.encode_ordinary(text) == reference.encode_ordinary(text)


def test_damaged_fast_cache_is_rebuilt(fresh_cache):
    tokens.encoding("cl100k_base")
    (fresh_cache / "cl100k_base.ranks.marshal").write_bytes(b"\x00garbage")
    tokens._load_encoding.cache_clear()
    assert tokens.count("hello world", "cl100k_base") == 2


def test_count_many_and_messages():
    from compaction.model import Message, Role

    msgs = [Message(0, Role.USER, "fix the bug"), Message(1, Role.ASSISTANT, "done")]
    total = tokens.count_messages(msgs)
    assert total == sum(m.tokens for m in msgs) == tokens.count("fix the bug") + tokens.count("done")
    assert tokens.count_many(["a b", ""]) == [2, 0]


def test_context_windows():
    assert tokens.context_window("claude-sonnet-4-5-20250929") == 200_000
    assert tokens.context_window("openai/gpt-4o-mini") == 128_000
    assert tokens.context_window("gpt-4.1-mini") == 1_047_576
    assert tokens.context_window("unknown-model") == tokens.CONTEXT_WINDOWS[tokens.DEFAULT_MODEL]
    assert tokens.context_window("gpt-4o", override=50_000) == 50_000
    assert tokens.utilization(70_000, 100_000) == pytest.approx(0.7)


def test_loading_needs_no_network(fresh_cache, monkeypatch):
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert tokens.count("offline tokens", "o200k_base") > 0


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_buffer_counter_counts_like_encode_ordinary(name):
    texts = ["", "x", "<|endoftext|> is text here", "ünïcödé 漢字 😀\r\n\t  ", "def f():\n    return 1\n" * 500,
             "a" * 70_000, " ".join(str(i) for i in range(5000))]
    enc = tokens.encoding(name)
    if hasattr(getattr(enc, "_core_bpe", None), "encode_to_tiktoken_buffer"):
        assert tokens._counter(name).__name__ == "fast"  # the buffer encoder agreed with the probe
    assert [tokens._counter(name)(t) for t in texts] == [len(enc.encode_ordinary(t)) for t in texts]
    assert tokens.count_many(texts, name) == [len(enc.encode_ordinary(t)) for t in texts]


def test_counter_falls_back_without_the_buffer_encoder(monkeypatch):
    class Plain:  # a tiktoken without the private buffer API
        def encode_ordinary(self, text):
            return text.split()

    monkeypatch.setattr(tokens, "encoding", lambda enc=tokens.DEFAULT_ENCODING: Plain())
    tokens._counter.cache_clear()
    try:
        assert tokens._counter("o200k_base").__name__ == "plain"
        assert tokens._counter("o200k_base")("three plain words") == 3
    finally:
        tokens._counter.cache_clear()


_PARTS = ["## Goal", "### r12", "# x", "\n", "\n\n", " ", "  \n", "\t", "/", "//", "`", "```", ")", "-", "- item",
          "word", "Wörter", "漢字", "😀", "12345", "'s", ".\n", "\r\n", "#", "##", "#no-space", "x" * 700]


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_a_document_counted_by_its_sections_counts_like_the_encoder(name):
    """The memo counts a long Markdown document section by section (cut before each heading line):
    the sum must be the encoder's count of the whole, whatever precedes a heading."""
    import random

    enc = tokens.encoding(name)
    rng = random.Random(13)
    for _ in range(300):
        text = "".join(rng.choice(_PARTS) for _ in range(rng.randint(5, 60)))
        if "\n#" not in text or len(text) <= tokens._SECTIONED_MIN_CHARS:
            text = "x" * tokens._SECTIONED_MIN_CHARS + "\n## A\n" + text  # sectioned, whatever was drawn
        tokens.forget_recent_counts()
        assert tokens.count(text, name) == len(enc.encode_ordinary(text))
        assert tokens.count(text, name) == len(enc.encode_ordinary(text))  # from the memo, section by section


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_head_and_tail_ids_are_the_whole_encodings_ends(name):
    """The verbatim tail encodes only the ends of a long output it elides: they must be the ends of
    the whole text's encoding, wherever the text allows a cut (or nowhere)."""
    import random

    enc = tokens.encoding(name)
    rng = random.Random(14)
    for _ in range(120):
        text = "".join(rng.choice(_PARTS) for _ in range(rng.randint(50, 400)))
        ids = enc.encode_ordinary(text)
        for k in (1, 16, 100, 333, len(ids), len(ids) + 5):
            assert tokens.head_ids(text, k, name) == ids[:k]
            assert tokens.tail_ids(text, k, name) == ids[max(0, len(ids) - k):]
    assert tokens.head_ids("abc", 0, name) == [] == tokens.tail_ids("abc", 0, name)


def test_counted_exactly():
    assert tokens.counted_exactly("plain ascii") and tokens.counted_exactly("ünïcödé 漢字")
    assert not tokens.counted_exactly("lone \ud800 surrogate")
    assert not tokens.counted_exactly("x" * (tokens._PIECE_CHARS + 1))


def test_counting_meanwhile_gives_count_messages_figures(monkeypatch):
    """The worker thread's counts are the serial counts, and a failure in it reaches the caller."""
    from compaction.model import Message, Role

    texts = ["short one", "x = f(y)\n" * 2000, "漢字 " * 3000, ""] * 30
    serial = [Message(i, Role.USER, t) for i, t in enumerate(texts)]
    meanwhile = [Message(i, Role.USER, t) for i, t in enumerate(texts)]
    wait = tokens.count_messages_meanwhile(meanwhile)
    assert wait() == tokens.count_messages(serial) > 0
    assert [m.tokens for m in meanwhile] == [m.tokens for m in serial]

    def broken(text: str) -> int:
        raise ValueError("encoder failed")

    monkeypatch.setattr(tokens, "_counter", lambda enc: broken)
    wait = tokens.count_messages_meanwhile([Message(0, Role.USER, "y " * 20_000)])
    with pytest.raises(ValueError, match="encoder failed"):
        wait()


def test_a_session_is_counted_as_its_text():
    """Runs of short messages are counted as one text, joined by newlines; a long message and the
    last messages are counted alone and keep their count; counted messages are not counted again."""
    from compaction.model import Message, Role

    short = [f"step {i}: ran `pytest -q tests/test_{i}.py`, 3 passed." for i in range(200)]
    long = "def f(x):\n    return x\n" * 4000
    msgs = [Message(i, Role.ASSISTANT, t) for i, t in enumerate([*short[:100], long, *short[100:]])]
    total = tokens.count_messages(msgs)
    joined_head, joined_mid = "\n".join(short[:100]), "\n".join(short[100:200 - tokens._ALONE_AT_END])
    alone = [long, *short[200 - tokens._ALONE_AT_END:]]
    assert total == tokens.count(joined_head) + tokens.count(joined_mid) + sum(tokens.count(t) for t in alone)
    assert msgs[100].tokens == tokens.count(long) and msgs[-1].tokens == tokens.count(short[-1])
    assert msgs[0].tokens is None  # counted within its run
    per_message = sum(tokens.count(t) for t in [*short, long])
    assert abs(total - per_message) <= per_message * 0.02
    assert tokens.count_messages(msgs) == total  # the kept counts are reused, the runs counted the same


def test_counting_meanwhile_puts_the_switch_interval_back():
    """The short switch interval lasts while a worker counts; overlapping counts restore it once."""
    import sys

    from compaction.model import Message, Role

    before = sys.getswitchinterval()
    waits = [tokens.count_messages_meanwhile([Message(i, Role.USER, "x = 1\n" * 5000) for i in range(3)])
             for _ in range(3)]
    assert [w() for w in waits] == [waits[0]()] * 3
    assert sys.getswitchinterval() == before


def test_counting_meanwhile_then_runs_after_the_counts():
    """`then` runs on the worker once every message's count is made; its result (or its failure)
    reaches the caller through `Counting.then`, the total through the call."""
    from compaction.model import Message, Role

    msgs = [Message(i, Role.USER, "x = f(y)\n" * 50) for i in range(5)]
    counting = tokens.count_messages_meanwhile(msgs, then=lambda: [m.tokens for m in msgs])
    assert counting.then() == [tokens.count("x = f(y)\n" * 50)] * 5
    assert counting() == tokens.count_messages([Message(i, Role.USER, "x = f(y)\n" * 50) for i in range(5)])

    def broken() -> int:
        raise ValueError("then failed")

    counting = tokens.count_messages_meanwhile([Message(0, Role.USER, "y")], then=broken)
    assert counting() == 1
    with pytest.raises(ValueError, match="then failed"):
        counting.then()
    with pytest.raises(ValueError):
        tokens.count_messages_meanwhile([]).then()  # no work was given
