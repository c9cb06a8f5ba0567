"""The fast paths taken for speed give exactly what the general code gives: the boundary-free
lowercase twins of the sentence patterns, the unquoted chain split, whitespace word splitting, and
the token-count memo."""

from __future__ import annotations

import re
import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from compaction import events, shell, tokens

_PHRASES = ["I'll use", "instead of", "the root cause", "TODO", "next step", "must not", "don't", "only",
            "xinstead of", "_the fix is", "Now I will", "下一步", "rather than", "make sure", "never"]
_texts = st.lists(st.one_of(st.sampled_from(_PHRASES), st.text(alphabet="ab xI'_.\n-", max_size=12)),
                  max_size=30).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_lowercase_twins_find_what_the_patterns_find(text: str) -> None:
    lowered = text.lower()
    for pattern in (events._DECISION_RE, events._NEXT_RE, events._CONSTRAINT_RE):
        expected = [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in events._twin_matches(pattern, lowered)] == expected


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab &|;-./ \t", max_size=40))
def test_unquoted_chain_split_and_words(line: str) -> None:
    assert shell.split_commands(line) == _split_chain_char_by_char(line)
    assert shell.words(line) == shlex.split(line)


def test_quoted_chains_stay_whole() -> None:
    assert shell.split_commands('python -c "a; b" && pytest t.py') == ['python -c "a; b"', "pytest t.py"]
    assert shell.words("grep -n 'a b' f.py") == ["grep", "-n", "a b", "f.py"]
    assert shell.norm_command('cd /x && python -c "import idna; print(1)"') == "python -c idna"


def test_count_memo_answers_like_the_encoder() -> None:
    tokens.forget_recent_counts()
    text = "The memo must give the encoder's own count, twice. " * 40
    first = tokens.count(text)
    assert first == len(tokens.encoding().encode_ordinary(text))
    assert tokens.count(text) == first
    assert len(tokens._RECENT_COUNTS) == 1
    big = "x " * (tokens._RECENT_MAX_CHARS // 2 + 10)
    assert tokens.count(big) == len(tokens.encoding().encode_ordinary(big))
    assert len(tokens._RECENT_COUNTS) == 1  # large texts are not kept


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["`", "``", "```", "a", "\n", " b", "```py\n"]), max_size=16).map("".join))
def test_fences_removed_like_the_lazy_regex(text: str) -> None:
    assert events.without_fences(text) == re.sub(r"```.*?(?:```|$)", " ", text, flags=re.DOTALL)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", " ", "\t", "'", '"', "\\", "x y", "-c", "&&", ";"]), max_size=14).map("".join))
def test_words_split_like_shlex(segment: str) -> None:
    try:
        expected = shlex.split(segment)
    except ValueError:
        expected = segment.split()
    assert shell.words(segment) == expected


def _split_chain_char_by_char(line: str) -> list[str]:
    parts, buf, quote, i = [], [], "", 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == quote:
                quote = ""
            buf.append(ch)
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif line.startswith(("&&", "||"), i) or ch in ";|":
            parts.append("".join(buf))
            buf = []
            i += 2 if line.startswith(("&&", "||"), i) else 1
            continue
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "'", '"', "&", "|", ";", "&&", "x;y"]), max_size=16).map("".join))
def test_quoted_chain_split_like_the_character_scanner(line: str) -> None:
    assert shell.split_commands(line) == _split_chain_char_by_char(line)


def _split_commands_char_by_char(command: str) -> list[str]:
    # A heredoc's body is data, not commands (`without_heredoc_body` has tests of its own).
    line = shell.without_heredoc_body(command)
    parts: list[str] = []
    buf: list[str] = []
    quote = ""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote:
            buf.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < n:
                buf.append(line[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = ""
            i += 1
            continue
        if ch == "\\" and i + 1 < n:
            if line[i + 1] == "\n":
                i += 2
                buf.append(" ")
                continue
            buf.append(line[i:i + 2])
            i += 2
            continue
        if ch in "'\"":
            quote = ch
            buf.append(ch)
        elif ch in ";\n|" or (ch == "&" and line[i:i + 2] == "&&"):
            if ch == "&" or (ch == "|" and line[i:i + 2] == "||"):
                i += 1
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


@settings(max_examples=5000, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "'", '"', "\\", "\n", "&", "|", ";", "&&", "||", "<<", "x y"]),
                max_size=18).map("".join))
def test_split_commands_like_the_character_scanner(command: str) -> None:
    assert shell.split_commands(command) == _split_commands_char_by_char(command)


def test_adding_occurrences_is_linear_and_merges_by_round(monkeypatch) -> None:
    from compaction.errors.records import ErrorRecord, Occurrence

    calls = 0
    plain_key = Occurrence.key

    def counted(self):
        nonlocal calls
        calls += 1
        return plain_key.fget(self)

    monkeypatch.setattr(Occurrence, "key", property(counted))
    rec = ErrorRecord("ERR_PY_KeyError")
    for r in range(2000):
        assert rec.add(Occurrence(round=r, transcript="t", ts_codes=["A"]))
    assert not rec.add(Occurrence(round=7, transcript="t", signals=2, ts_codes=["B"]))
    assert calls < 3 * 2001  # one lookup per add (a scan of all occurrences made it ~2,000,000)
    assert len(rec.occurrences) == 2000 and rec.occurrences[7].signals == 3 and rec.occurrences[7].ts_codes == ["A", "B"]
    rec.occurrences = [Occurrence(round=1, transcript="u")]  # replaced behind the index's back
    assert not rec.add(Occurrence(round=1, transcript="u")) and rec.add(Occurrence(round=7, transcript="t"))
    assert [o.key for o in rec.occurrences] == [("u", 1), ("t", 7)]
