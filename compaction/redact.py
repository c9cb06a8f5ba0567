"""Secret redaction: API keys, tokens, private keys, passwords and connection strings -> `[REDACTED:<kind>]`.

Why here, at load time: `load_transcript(..., redact=True)` rewrites the in-memory transcript once
(never the file), so every output — summary, restore state, error memory, MCP/LSP replies, the store —
derives from redacted text and a secret is gone before anything is written.

Precision matters as much as recall: a coding transcript is full of commit ids, sha256 digests, UUIDs,
lock-file integrity hashes, long identifiers and paths. The rules, in order:
1. provider formats with a fixed prefix (OpenAI, Anthropic, AWS, GitHub, GitLab, Slack, Google, Stripe,
   JWT, PEM private keys) — near-zero false positives;
2. context rules: `scheme://user:PASS@host`, `Authorization: Bearer X`, `password=`/`SECRET_KEY=`/
   `--token X` assignments — only the value is replaced, and placeholders (`$VAR`, `<token>`, `***`,
   `os.environ[...]`, function calls) are left alone;
3. high-entropy tokens: >= 32 characters of the base64 alphabet with Shannon entropy >= 4 bits/char,
   all of upper case, lower case and digits, and frequent character-class switches (random text
   switches on ~60% of characters, CamelCase identifiers on ~15%). Hex-only strings are never taken
   by this rule: 40 hex is a commit, 64 a sha256 digest, 32 an md5; UUIDs, `sha512-…`/`h1:…`
   integrity hashes and path segments are skipped too. A hex secret is still caught by rule 2
   (`API_KEY=0123…`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REDACTED = "[REDACTED:{kind}]"

# --- 1. provider formats -------------------------------------------------------------------------------
_B64U = r"A-Za-z0-9_\-"


@dataclass(frozen=True)
class _Rule:
    kind: str
    rx: re.Pattern[str]
    needles: tuple[str, ...] = ()  # cheap substring prefilter: skip the regex unless one occurs
    group: int = 0  # the group replaced (0 = whole match)
    check: Callable[[str], bool] | None = None  # extra test on the replaced text


def _mixed(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


_PROVIDER_RULES: list[_Rule] = [
    _Rule("private_key", re.compile(
        r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,\-]*)", re.S),
        ("PRIVATE KEY",)),
    _Rule("anthropic_key", re.compile(rf"(?<![{_B64U}])sk-ant-[{_B64U}]{{20,}}"), ("sk-ant-",)),
    _Rule("openai_key", re.compile(
        rf"(?<![{_B64U}])sk-(?:proj|svcacct|admin|None)-[{_B64U}]{{20,}}|(?<![{_B64U}])sk-[A-Za-z0-9]{{32,}}"
        rf"(?:[{_B64U}]*)"), ("sk-",), check=_mixed),
    _Rule("aws_access_key_id", re.compile(
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA")),
    _Rule("aws_secret_key", re.compile(
        r"(?i)(?:aws.{0,20}secret|secret.?access.?key)[^\n]{0,40}?[\s:=\"'>]"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"), ("secret", "Secret", "SECRET"), group=1, check=_mixed),
    _Rule("github_token", re.compile(
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _Rule("gitlab_token", re.compile(
        rf"(?<![A-Za-z0-9_])gl(?:pat|dt|rt|ptt|cbt|soat|ffct|imt|oas|agent)-[{_B64U}]{{20,}}"),
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glffct-", "glimt-", "gloas-", "glagent-")),
    _Rule("slack_webhook", re.compile(
        r"https://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{8,}"),
        ("hooks.slack",)),
    _Rule("slack_token", re.compile(r"(?<![A-Za-z0-9])(?:xox[abposre]|xapp)-[A-Za-z0-9\-]{10,}"), ("xox", "xapp-")),
    _Rule("google_api_key", re.compile(rf"(?<![A-Za-z0-9])AIza[{_B64U}]{{35}}"), ("AIza",)),
    _Rule("google_oauth_secret", re.compile(rf"(?<![A-Za-z0-9])GOCSPX-[{_B64U}]{{20,}}"), ("GOCSPX-",)),
    _Rule("stripe_key", re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}|"
                                   r"(?<![A-Za-z0-9])whsec_[0-9A-Za-z]{20,}"),
          ("_live_", "_test_", "whsec_")),
    _Rule("jwt", re.compile(rf"(?<![{_B64U}])eyJ[{_B64U}]{{8,}}\.[{_B64U}]{{8,}}\.[{_B64U}]{{8,}}"), ("eyJ",)),
]

# --- 2. context rules ------------------------------------------------------------------------------------
_PLACEHOLDER = re.compile(
    r"""^(?:[\$%]\{?[\w.\-]*\}?|<[^>]*>|\{\{?[^}]*\}\}?|\*+|x+|X+|\.{3}|…|null|none|None|nil|true|false|True|False|
        undefined|changeme|password|passwd|secret|token|redacted|\[REDACTED.*|REDACTED.*|your[_\-].*|YOUR[_\-].*|
        example.*|dummy|test|xxx.*|\#.*|(?:test|fake|dummy|sample|example|mock|my)[_\-][\w\-]*)$""", re.X)


def _is_placeholder(value: str) -> bool:
    v = value.strip().strip("'\"`")
    return len(v) < 4 or bool(_PLACEHOLDER.match(v)) or v.startswith(("os.environ", "process.env", "ENV[",
                                                                      "getenv", "os.getenv", "settings."))


_URL_PASSWORD = re.compile(r"://[^\s:/@'\"<>]{0,256}:([^\s@/'\"<>]{1,256})@")  # scheme://user:PASS@host

_BEARER = re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/\-]{20,}=*)")
_AUTH_HEADER = re.compile(r"(?i)\b(?:authorization|x-api-key|api-key|x-auth-token|private-token)\"?\s*[:=]\s*\"?"
                          r"(?:basic\s+|bearer\s+|token\s+)?([A-Za-z0-9._~+/\-]{12,}=*)")

# key = value: the key names something secret; the value is a literal
_KEYWORDS = (r"(?=[acemprstACEMPRST])(?:pass(?:word|wd|phrase)|pwd|secret(?:[_\-]?key)?|token|api[_\-]?key|apikey|"
             r"access[_\-]?key|private[_\-]?key|master[_\-]?key|encryption[_\-]?key|credentials?|auth[_\-]?key|"
             r"signing[_\-]?key)")  # a trie behind a first-letter lookahead: 10x faster than a flat alternation
# Assignments are found from the keyword stems (str.find is C-fast) rather than by one big regex:
# JSON is full of `"key": "value"` pairs and a regex trying every keyword at every position is slow.
_STEMS = ("pass", "pwd", "secret", "token", "key", "credential")
_IDENT_BACK = re.compile(r"[A-Za-z0-9_.\-]{0,64}$")
_IDENT_FWD = re.compile(r"[A-Za-z0-9_.\-]*")
_TAIL_QUOTED = re.compile(r"""["']?[ \t]*(?::=|=>|=|:)[ \t]*(?P<q>["'`])(?P<value>[^"'`\n]{1,512})(?P=q)""")
_TAIL_EQ = re.compile(r"""=(?P<value>[^\s'"`;|&),]{1,512})""")  # PGPASSWORD=x psql, -e API_KEY=x
_TAIL_ENV = re.compile(r"""[ \t]*(?:=|:)[ \t]*(?P<value>[^\s'"`#,][^\s'"`,]{0,511})""")
_TAIL_FLAG = re.compile(r"""(?:=|[ \t]+)(?P<value>[^\s'"`;|&),\-][^\s'"`;|&),]{0,511})""")  # --token x
_NAME_WORDS = re.compile(rf"(?i)(?:{_KEYWORDS})$")


def _secret_name(name: str) -> bool:
    """`max_tokens`, `token_count`, `tokenizer` name no secret; `auth_token`, `DB_PASSWORD`, `SECRET_KEY` do."""
    n = name.lower().strip("-_.")
    if n in ("pwd", "oldpwd") or not _NAME_WORDS.search(n):
        return False
    return "csrf" not in n


def _code_like(value: str) -> bool:
    """A value that is an expression, not a literal: `request.POST`, `make_password(x)`, `self.token`."""
    return bool(re.search(r"[()\[\]{}]", value)) or bool(re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+", value))


def _literal_secret(value: str, *, strict: bool) -> bool:
    v = value.strip()
    if _is_placeholder(v) or _code_like(v) or " " in v:  # spaces: a label or a message, not a credential
        return False
    if strict:  # an unquoted word: accept only what looks generated (digits/symbols/mixed case) or long
        if v.startswith(("/", "./", "~/", "../")):
            return False
        if re.fullmatch(r"[a-z_]+|[A-Z_]+|[A-Za-z]+[a-z]+", v) and len(v) < 16:
            return False
    return True


# --- 3. entropy ------------------------------------------------------------------------------------------
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{32,1024}={0,2}(?![A-Za-z0-9+/_\-=])")
_DIGEST_PREFIX = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5|h1|blake2b?|integrity|etag|hash|digest|nonce|"
                            r"commit|revision|rev|sri)[-:= \"']{1,3}$")
_UUIDISH = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_LOWER_RUN = re.compile(r"[a-z]{3,}")
_DIGEST_TOKEN = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2b?)[-:_]")
_WORD_SEGMENT = re.compile(r"[a-z]{4,}|[A-Z][a-z]{3,}(?:[A-Z][a-z]+)*|\d+|[a-z]+(?:[A-Z][a-z]+)+")


def shannon_entropy(s: str) -> float:
    """Bits per character of `s` (0 for the empty string)."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _class(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3


def looks_random(token: str, *, min_len: int = 32, min_entropy: float = 4.0) -> bool:
    """True for a generated secret-like token; False for hex digests, UUIDs, identifiers and prose."""
    core = token.rstrip("=")
    if len(core) < min_len or _HEX.fullmatch(core) or _UUIDISH.search(core):
        return False
    alnum = [c for c in core if c.isalnum()]
    if len(alnum) < min_len * 3 // 4:
        return False
    if not (any(c.islower() for c in alnum) and any(c.isupper() for c in alnum) and any(c.isdigit() for c in alnum)):
        return False
    switches = sum(1 for a, b in zip(alnum, alnum[1:], strict=False) if _class(a) != _class(b))
    if switches / len(alnum) < 0.3:
        return False
    # CamelCase identifiers switch class often too, but are made of lowercase runs (words):
    # in random base62 about 15% of characters sit in a lowercase run of 3 or more, in identifiers 70%+
    if sum(len(r) for r in _LOWER_RUN.findall(core)) / len(alnum) >= 0.5:
        return False
    return shannon_entropy(core) >= min_entropy


def _entropy_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _CANDIDATE.finditer(text):
        tok, start = m.group(0), m.start()
        if _DIGEST_PREFIX.search(text, max(0, start - 12), start) or _DIGEST_TOKEN.match(tok):
            continue
        if "/" in tok and any(_WORD_SEGMENT.fullmatch(seg) for seg in tok.split("/")):
            # a path: judge its segments one by one (a commit hash in a URL is still hex)
            pos = start
            for seg in tok.split("/"):
                if looks_random(seg):
                    spans.append((pos, pos + len(seg)))
                pos += len(seg) + 1
            continue
        if looks_random(tok):
            spans.append((start, m.end()))
    return spans


# --- the API ---------------------------------------------------------------------------------------------
def _sub_group(rx: re.Pattern[str], text: str, kind: str, group: int | str, counts: Counter,
               accept: Callable[[re.Match[str]], bool]) -> str:
    return _sub_spans(text, [m.span(group) for m in rx.finditer(text) if accept(m)], kind, counts)


def _assignment_spans(text: str, low: str | None) -> list[tuple[int, int]]:
    """Value spans of `name = "literal"`, `NAME=value`, `--name value` where the name is a secret's."""
    if low is None:  # lower() changed the length (rare Unicode): offsets would not line up
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    seen: set[tuple[int, int]] = set()
    spans = []
    for stem in _STEMS:
        p = low.find(stem)
        while p != -1:
            end = _IDENT_FWD.match(text, p).end()
            # cheap first: most stems (`token_count`, `KeyError: 'key'`) are followed by no `=`/`:`
            if "=" not in text[end:end + 4] and ":" not in text[end:end + 4] and "--" not in text[max(0, p - 66):p]:
                p = low.find(stem, end)
                continue
            back = _IDENT_BACK.search(text, max(0, p - 64), p)
            start = back.start() if back else p
            p = low.find(stem, p + len(stem))
            if (start, end) in seen:
                continue
            seen.add((start, end))
            name = text[start:end]
            if not _secret_name(name):
                continue
            flag = name.startswith("--")
            m = _TAIL_QUOTED.match(text, end)
            strict = False
            if m is None:
                m, strict = (_TAIL_FLAG if flag else _TAIL_EQ).match(text, end), True
            if m is None and text[text.rfind("\n", 0, start) + 1:start].strip() in ("", "export", "-"):
                m = _TAIL_ENV.match(text, end)  # a .env / shell / YAML line: `KEY=value`, `KEY: value`
            if m is not None and _literal_secret(m.group("value"), strict=strict):
                spans.append(m.span("value"))
    return sorted(spans)


def _sub_spans(text: str, spans: list[tuple[int, int]], kind: str, counts: Counter) -> str:
    if not spans:
        return text
    out, last = [], 0
    for s, e in spans:
        if s < last:
            continue
        out.append(text[last:s])
        out.append(REDACTED.format(kind=kind))
        counts[kind] += 1
        last = e
    out.append(text[last:])
    return "".join(out)


def redact_text(text: str, counts: Counter | None = None, *, entropy: bool = True) -> str:
    """`text` with every secret replaced by `[REDACTED:<kind>]`; adds one per replacement to `counts`."""
    if counts is None:
        counts = Counter()
    if not text or len(text) < 8:
        return text
    for rule in _PROVIDER_RULES:
        if rule.needles and not any(n in text for n in rule.needles):
            continue
        check = rule.check
        text = _sub_group(rule.rx, text, rule.kind, rule.group, counts,
                          lambda m, g=rule.group, c=check: c is None or c(m.group(g)))
    if "://" in text:
        text = _sub_group(_URL_PASSWORD, text, "url_password", 1, counts, lambda m: not _is_placeholder(m.group(1)))
    low = text.lower()
    if any(h in low for h in ("authorization", "api-key", "auth-token", "private-token")):
        text = _sub_group(_AUTH_HEADER, text, "auth_header", 1, counts, lambda m: not _is_placeholder(m.group(1)))
    if "bearer" in low:
        text = _sub_group(_BEARER, text, "bearer_token", 1, counts,
                          lambda m: not _is_placeholder(m.group(1)) and _mixed(m.group(1)))
    if any(w in low for w in ("pass", "secret", "token", "key", "pwd", "credential")):
        text = _sub_spans(text, _assignment_spans(text, low if len(low) == len(text) else None), "password", counts)
    if entropy:
        text = _sub_spans(text, _entropy_spans(text), "high_entropy", counts)
    return text


def redact(text: str) -> tuple[str, dict[str, int]]:
    """(redacted text, count per kind)."""
    counts: Counter = Counter()
    return redact_text(text, counts), dict(counts)


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """Apply `fn` to every string inside dicts/lists, in place and iteratively (no recursion limit)."""
    if isinstance(value, str):
        return fn(value)
    stack = [value] if isinstance(value, (dict, list)) else []
    while stack:
        node = stack.pop()
        for key, item in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(item, str):
                node[key] = fn(item)
            elif isinstance(item, (dict, list)):
                stack.append(item)
    return value


def redact_value(value: Any, counts: Counter, seen: dict[str, str] | None = None) -> Any:
    """Strings anywhere inside dicts/lists redacted in place (keys kept); other values unchanged.

    Iterative, so a deeply nested argument object cannot exhaust the stack (found by fuzzing).
    `seen` maps strings already redacted elsewhere in the same record (a tool call's command, which
    is also its `command` argument) to their redacted form, so one secret is counted once.
    """

    def one(s: str) -> str:
        if seen is not None and s in seen:
            return seen[s]
        return redact_text(s, counts)

    return map_strings(value, one)


def redact_transcript(transcript: Any) -> dict[str, int]:
    """Rewrite a loaded Transcript's texts in memory (never the file); counts go to meta["redactions"].

    Message texts, tool call commands and argument values, tool results, and the session summaries
    some formats carry are covered; ids, paths and timestamps are structural and left alone.
    """
    counts: Counter = Counter()
    for msg in transcript.messages:
        if msg.text:
            msg.text = redact_text(msg.text, counts)
        for call in msg.tool_calls:
            seen: dict[str, str] = {}
            if call.command:
                original = call.command
                call.command = seen[original] = redact_text(original, counts)
            if call.arguments:
                call.arguments = redact_value(call.arguments, counts, seen)
        for res in msg.tool_results:
            if res.content:
                res.content = redact_text(res.content, counts)
    summaries = transcript.meta.get("summaries")
    if isinstance(summaries, list):
        transcript.meta["summaries"] = redact_value(summaries, counts)
    result = dict(sorted(counts.items()))
    transcript.meta["redactions"] = result
    return result


KINDS = ("private_key", "anthropic_key", "openai_key", "aws_access_key_id", "aws_secret_key", "github_token",
         "gitlab_token", "slack_webhook", "slack_token", "google_api_key", "google_oauth_secret", "stripe_key", "jwt",
         "url_password", "auth_header", "bearer_token", "password", "high_entropy")
