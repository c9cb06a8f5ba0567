"""Secret redaction: API keys, tokens, private keys, passwords and connection strings -> `[REDACTED:<kind>]`.

Why here, at load time: `load_transcript(..., redact=True)` rewrites the in-memory transcript once
(never the file), so every output — summary, restore state, error memory, MCP/LSP replies, the store —
derives from redacted text and a secret is gone before anything is written. What does not come from a
transcript is redacted where it enters: restore excerpts of workspace files and diagnostic messages
(restore.state), `errors add`/`resolve`/`ignore` texts, paths and symbols (compaction.errors.memory),
memory texts and metadata (compaction.memory, `redact_json`).

Precision matters as much as recall: a coding transcript is full of commit ids, sha256 digests, UUIDs,
lock-file integrity hashes, long identifiers and paths. The stages, in order:
1. `RULES`, ONE table of (kind, regex, needles, group, check): provider formats with a fixed prefix or
   shape (OpenAI, Anthropic, AWS, GitHub, GitLab, Slack, Discord, Google, Stripe, SendGrid, Twilio,
   Mailgun, npm, PyPI, Hugging Face, Azure, Shopify, Square, Telegram, DigitalOcean, Sentry, age, PEM/
   OpenSSH/PGP private keys, JWT, …) and context rows that replace only the credential of a construct
   (`scheme://user:PASS@host`, `curl -u user:PASS`, `Authorization:`/`Bearer`, docker `"auth"`, `.npmrc
   _authToken=`). A new kind is one row; `needles` (substrings a match must contain) are found for all
   rows in one trie pass, so only the rows that can match run.
2. Kubernetes `kind: Secret` manifests: every value under `data:`/`stringData:`.
3. Assignments to a secret-named key (`name = "v"`, `NAME=v`, `name: v`, `--name v`). THE RULE:
   a STRONG name (ends in password/passwd/passphrase/pwd, `…_pass`, secret, secret_key, token, api_key,
   access_key, private_key, master_key, encryption_key, credential(s), auth_key, signing_key) makes its
   value a secret — a word such as `supersecret` included — unless the value is
   - empty or shorter than 4 characters, or holds a space (a message, a label);
   - a reference: `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `{{ x }}`, `<…>`, `os.environ…`, `getenv(…)`,
     `process.env…`, `ENV[…]`, `settings.X`, `secrets.X`, `vault:`/`op://` paths, an environment
     variable's NAME (`"apiKey": "OLLAMA_API_KEY"`), the key's own name (an enum: `X = 'x'`);
   - a mask or a stock placeholder: `***`, `xxx…`, `...`, a value ending in `...`/`…` (`sk-ant-...`),
     `[REDACTED…]`, or one of the words in `_STOCK` (changeme, password, secret, token, none, null,
     true, false, example, dummy, test, string, required, …), or `your_…`/`my_…`/`test_…`/`fake_…`/
     `example_…`/`sample_…`/`placeholder_…`, `mypassword`/`yoursecret`…;
   - code: an unquoted call, subscript or attribute path (`request.POST['password']`, `self.token`);
     an unquoted identifier passed on (`f(password=password)`, `token = access_token`,
     `password=db_password`); a type (`password: SecretStr`); a `--flag METAVAR`; a path; `==1.2`.
   Counts and cursors are no secret names (`MAX_TOKEN`, `input_tokens`, `nextPageToken`), nor csrf ones.
   A WEAK name (any other `…_KEY`/`…Key`: `APP_KEY`, `DD_APP_KEY`, not `primary_key`, `cache_key`, …)
   makes a value a secret only when it looks generated: 16+ key characters with letters and digits.
4. High-entropy tokens: >= 32 characters of the base64 alphabet with Shannon entropy >= 4 bits/char,
   all of upper case, lower case and digits, and frequent character-class switches (random text
   switches on ~60% of characters, CamelCase identifiers on ~15%). Never taken by this rule, being
   public: hex strings (commits, digests), UUIDs, base58 strings of 32-44 characters (Solana/Bitcoin
   addresses and program ids), anything in a URL (registry hashes, redirect ids), inside a PUBLIC KEY
   / CERTIFICATE / PGP SIGNATURE block or after `ssh-ed25519`/`ssh-rsa`, `data:…;base64,` payloads,
   `sha256:`/`sha512-`/`h1:`/`integrity`/`signature` values, API object ids (`user_…`, `msg_…`,
   `toolu_…`, `"…_id": "…"`), and words joined to a digest (`node-cache-Linux-x64-npm-<sha256>`).
"""

from __future__ import annotations

import base64
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
    fold: bool = False  # needles are lower case, looked for in the lower-cased text


def _mixed(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


def _mixed_case(s: str) -> bool:
    return any(c.isupper() for c in s) and any(c.islower() for c in s)


def _not_port(s: str) -> bool:
    """`host:8080/path@x` is a port and a path, not `user:password@`."""
    return not re.match(r"\d{1,5}(?:/|$)", s) and "://" not in s


def _basic_pair(s: str) -> bool:
    """base64 of `user:password` (docker `auths`), not a word such as `"auth": "DefaultAzureCredential"`."""
    try:
        return b":" in base64.b64decode(s + "=" * (-len(s) % 4), validate=True)
    except ValueError:
        return False


def _hexish(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


# ONE table: (kind, regex, needles, group, check). A new kind is one row. Order matters only where two
# rows could take the same text: the more specific row first (a row's replacement is never re-matched).
RULES: list[_Rule] = [
    _Rule("private_key", re.compile(
        r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,\-]*)", re.S),
        ("PRIVATE KEY",)),
    _Rule("age_secret_key", re.compile(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"), ("AGE-SECRET-KEY-",)),
    _Rule("anthropic_key", re.compile(rf"(?<![{_B64U}])sk-ant-[{_B64U}]{{20,}}"), ("sk-ant-",)),
    _Rule("openrouter_key", re.compile(r"(?<![\w-])sk-or-v1-[0-9a-f]{64}"), ("sk-or-",)),
    _Rule("openai_key", re.compile(
        rf"(?<![{_B64U}])sk-(?:proj|svcacct|admin|None)-[{_B64U}]{{20,}}|(?<![{_B64U}])sk-[A-Za-z0-9]{{32,}}"
        rf"(?:[{_B64U}]*)"), ("sk-",), check=_mixed),
    _Rule("xai_key", re.compile(r"(?<![\w-])xai-[A-Za-z0-9]{70,}"), ("xai-",), check=_mixed),
    _Rule("groq_key", re.compile(r"(?<![\w-])gsk_[A-Za-z0-9]{48,}"), ("gsk_",), check=_mixed),
    _Rule("replicate_token", re.compile(r"(?<![\w-])r8_[A-Za-z0-9]{37}(?![\w-])"), ("r8_",), check=_mixed),
    _Rule("perplexity_key", re.compile(r"(?<![\w-])pplx-[A-Za-z0-9]{40,}"), ("pplx-",), check=_mixed),
    _Rule("huggingface_token", re.compile(r"(?<![\w-])hf_[A-Za-z0-9]{30,}"), ("hf_",), check=_mixed_case),
    _Rule("aws_access_key_id", re.compile(
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA")),
    _Rule("aws_secret_key", re.compile(
        r"(?i)(?:aws.{0,20}secret|secret.?access.?key)[^\n]{0,40}?[\s:=\"'>]"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"), ("secret", "Secret", "SECRET"), group=1, check=_mixed),
    _Rule("azure_storage_key", re.compile(r"(?i)(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})"),
          ("accountkey=", "accesskey="), group=1, fold=True),
    _Rule("github_token", re.compile(
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _Rule("gitlab_token", re.compile(
        rf"(?<![A-Za-z0-9_])gl(?:pat|dt|rt|ptt|cbt|soat|ffct|imt|oas|agent)-[{_B64U}]{{20,}}"),
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glffct-", "glimt-", "gloas-", "glagent-")),
    _Rule("grafana_token", re.compile(r"(?<![\w-])gl(?:sa|c)_[A-Za-z0-9_+/=\-]{32,}"), ("glsa_", "glc_"), check=_mixed),
    _Rule("slack_webhook", re.compile(
        r"https://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{8,}"),
        ("hooks.slack",)),
    _Rule("slack_token", re.compile(r"(?<![A-Za-z0-9])(?:xox[abposre]|xapp)-[A-Za-z0-9\-]{10,}"), ("xox", "xapp-")),
    # webhook URLs whose path is the credential (the entropy stage leaves URLs alone: it needs a row)
    _Rule("webhook_url", re.compile(
        r"https://(?:[\w\-]+\.webhook\.office\.com|outlook\.office(?:365)?\.com)/webhook(?:b2)?/[\w\-@/]{40,}"
        r"|https://hooks\.zapier\.com/hooks/catch/\d+/\w+/?|https://maker\.ifttt\.com/trigger/[\w\-]+/with/key/[\w\-]+"
        r"|https://[\w.\-]+/hooks/[a-z0-9]{26}(?![\w\-])"), ("webhook", "hooks.zapier", "ifttt", "/hooks/"), fold=True),
    _Rule("azure_sas_signature", re.compile(r"[?&]sig=([A-Za-z0-9%+/=_\-]{20,})"), ("sig=",), group=1),
    _Rule("discord_webhook", re.compile(r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w\-]{20,}"),
          ("discord",)),
    # the first part is the base64 of a numeric user id: it starts with the base64 of a digit 1-9
    _Rule("discord_token", re.compile(
        r"(?:M[Tjz]|N[DTjz]|O[DT])(?<![\w\-.]..)[A-Za-z0-9_\-]{21,26}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}"
        r"(?![\w\-])"), ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"), check=_mixed),
    _Rule("google_api_key", re.compile(rf"(?<![A-Za-z0-9])AIza[{_B64U}]{{35}}"), ("AIza",)),
    _Rule("google_oauth_secret", re.compile(rf"(?<![A-Za-z0-9])GOCSPX-[{_B64U}]{{20,}}"), ("GOCSPX-",)),
    _Rule("stripe_key", re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}|"
                                   r"(?<![A-Za-z0-9])whsec_[0-9A-Za-z]{20,}"),
          ("_live_", "_test_", "whsec_")),
    _Rule("sendgrid_key", re.compile(r"(?<![\w-])SG\.[\w\-]{16,32}\.[\w\-]{30,64}"), ("SG.",)),
    _Rule("twilio_sid", re.compile(r"(?:AC|SK)(?<![A-Za-z0-9]..)[0-9a-f]{32}(?![A-Za-z0-9])"), ("AC", "SK"),
          check=_hexish),
    _Rule("mailgun_key", re.compile(r"(?<![\w-])key-[0-9a-f]{32}(?![\w-])"), ("key-",)),
    _Rule("mailchimp_key", re.compile(r"(?<![\w-])[0-9a-f]{32}-us\d{1,2}(?![\w-])"), ("-us",)),
    _Rule("npm_token", re.compile(r"(?<![\w-])npm_[A-Za-z0-9]{36}(?![\w-])"), ("npm_",), check=_mixed),
    _Rule("pypi_token", re.compile(r"(?<![\w-])pypi-[A-Za-z0-9_\-]{50,}"), ("pypi-",)),
    _Rule("shopify_token", re.compile(r"(?<![\w-])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"), ("shpat_", "shpca_", "shppa_",
                                                                                          "shpss_")),
    _Rule("square_token", re.compile(r"(?<![\w-])(?:sq0(?:atp|csp|idp)-[\w\-]{22,43}|EAAA[\w\-]{56,64})(?![\w-])"),
          ("sq0", "EAAA"), check=_mixed),
    _Rule("telegram_bot_token", re.compile(r"(?<![\d:])\d{8,10}:AA[\w\-]{33}(?![\w-])"), (":AA",)),
    _Rule("digitalocean_token", re.compile(r"(?<![\w-])do[opr]_v1_[a-f0-9]{64}"), ("_v1_",)),
    _Rule("databricks_token", re.compile(r"(?<![\w-])dapi[a-f0-9]{32}(?:-\d)?(?![\w-])"), ("dapi",), check=_hexish),
    _Rule("atlassian_token", re.compile(r"(?<![\w-])ATATT3[A-Za-z0-9_\-=]{100,}"), ("ATATT3",)),
    _Rule("postman_key", re.compile(r"(?<![\w-])PMAK-[a-f0-9]{24}-[a-f0-9]{34}"), ("PMAK-",)),
    _Rule("newrelic_key", re.compile(r"(?<![\w-])NR(?:AK|II|JS)-[A-Z0-9]{27}(?![\w-])"), ("NRAK-", "NRII-", "NRJS-")),
    _Rule("supabase_token", re.compile(r"(?<![\w-])sb(?:p|_secret)_[a-f0-9A-Za-z_\-]{32,}"), ("sbp_", "sb_secret_"),
          check=_mixed),
    _Rule("linear_key", re.compile(r"(?<![\w-])lin_(?:api|oauth)_[A-Za-z0-9]{32,}"), ("lin_api_", "lin_oauth_")),
    _Rule("notion_token", re.compile(r"(?<![\w-])(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})(?![\w-])"),
          ("ntn_", "secret_"), check=_mixed),
    _Rule("doppler_token", re.compile(r"(?<![\w-])dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_\-]{40,}"), ("dp.",)),
    _Rule("pulumi_token", re.compile(r"(?<![\w-])pul-[a-f0-9]{40}(?![\w-])"), ("pul-",)),
    _Rule("terraform_token", re.compile(r"(?<![\w-])[a-z0-9]{14}\.atlasv1\.[\w\-]{60,}"), (".atlasv1.",)),
    _Rule("sentry_token", re.compile(r"(?<![\w-])sntry[us]_[A-Za-z0-9+/=_\-]{40,}"), ("sntry",)),
    _Rule("jwt", re.compile(rf"(?<![{_B64U}])eyJ[{_B64U}]{{8,}}\.[{_B64U}]{{8,}}\.[{_B64U}]{{8,}}"), ("eyJ",)),
    # --- context rules: only the credential part of a recognisable construct -------------------------------
    _Rule("dsn_key", re.compile(r"://([0-9a-f]{32}(?::[0-9a-f]{32})?)@"), ("://",), group=1),
    _Rule("url_password", re.compile(r"://[^\s:/@'\"<>]{0,256}:([^\s@'\"<>]{1,256})@"), ("://",), group=1,
          check=lambda v: _not_port(v) and not _is_placeholder(v)),
    _Rule("basic_auth", re.compile(r"\bcurl\b[^\n]*?\s(?:-u|--user)[ =]?[\"']?[^\s:\"'@]*:([^\s\"']+)"),
          ("curl",), group=1, check=lambda v: not _is_placeholder(v)),
    _Rule("auth_header", re.compile(
        r"(?i)\b(?:authorization|x-api-key|api-key|x-auth-token|private-token|x-shopify-access-token)\"?\s*[:=]\s*\"?"
        r"(?:basic\s+|bearer\s+|token\s+)?([A-Za-z0-9._~+/\-]{12,}=*)"),
          ("authorization", "api-key", "auth-token", "private-token", "access-token"), group=1,
          check=lambda v: not _is_placeholder(v), fold=True),
    _Rule("bearer_token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/\-]{20,}=*)"), ("bearer",), group=1,
          check=lambda v: not _is_placeholder(v) and _mixed(v), fold=True),
    _Rule("docker_auth", re.compile(r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{12,}={0,2})\""), ('"auth"',), group=1,
          check=_basic_pair),
    _Rule("npmrc_auth", re.compile(r"_(?:authToken|auth|password)[ \t]*=[ \t]*([^\s'\"]{8,})"),
          ("_auth", "_password"), group=1, check=lambda v: not _is_placeholder(v)),
]

def _trie_pattern(words: set[str]) -> str:
    """A regex matching any of `words`, as a trie: one branch per character, not one per word."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


# Which rules can match a text: every needle found in ONE pass of a trie regex, instead of one substring
# search per needle per rule (which made the table's cost grow with its rows). The pass consumes what it
# matches, so a needle that starts inside a match is recovered from the matched word itself (substring) or,
# if it could run past the match's end (a suffix of one needle is a prefix of another), looked up directly.
_NEEDLES = {n for rule in RULES if not rule.fold for n in rule.needles}
_NEEDLE_SCAN = re.compile(_trie_pattern(_NEEDLES))
_NEEDLE_INSIDE = {w: {n for n in _NEEDLES if n in w} for w in _NEEDLES}
_NEEDLE_STRADDLE = {w: {n for n in _NEEDLES if n != w and any(n.startswith(w[i:]) for i in range(1, len(w)))}
                    for w in _NEEDLES}


_ALWAYS = tuple(i for i, rule in enumerate(RULES) if not rule.needles)
_FOLDED = tuple((i, rule.needles) for i, rule in enumerate(RULES) if rule.fold)
_BY_NEEDLE: dict[str, tuple[int, ...]] = {
    n: tuple(i for i, rule in enumerate(RULES) if not rule.fold and n in rule.needles) for n in _NEEDLES}


def _rules_for(text: str, low: str) -> list[_Rule]:
    """The rows whose needles occur in `text` (or that have none), in table order."""
    idx = set(_ALWAYS)
    for n in _needles_in(text):
        idx.update(_BY_NEEDLE[n])
    idx.update(i for i, needles in _FOLDED if any(n in low for n in needles))
    return [RULES[i] for i in sorted(idx)]


def _needles_in(text: str) -> set[str]:
    found: set[str] = set()
    for w in set(_NEEDLE_SCAN.findall(text)):
        found |= _NEEDLE_INSIDE[w]
        found |= {n for n in _NEEDLE_STRADDLE[w] - found if n in text}
    return found


# --- 2. context rules ------------------------------------------------------------------------------------
# key = value: the key names something secret. The rule (documented in the module docstring):
# a STRONG name (`password`, `DB_PASS`, `secret`, `token`, `api_key`, `SECRET_KEY`, `credentials`…) makes
# any literal value a secret — `supersecret` included — unless the value is a placeholder, a reference
# or code (see `_not_a_literal`). A WEAK name (`APP_KEY`, `hmacKey`, `DD_APP_KEY`: any other `…_key`)
# makes a value a secret only when it looks generated (16+ key characters holding letters and digits).
_KEYWORDS = (r"(?=[acemprstACEMPRST])(?:pass(?:word|wd|phrase)|pwd|secret(?:[_\-]?key)?|token|api[_\-]?key|apikey|"
             r"access[_\-]?key|private[_\-]?key|master[_\-]?key|encryption[_\-]?key|credentials?|auth[_\-]?key|"
             r"signing[_\-]?key)")  # a trie behind a first-letter lookahead: 10x faster than a flat alternation
# Assignments are found from the keyword stems (str.find is C-fast) rather than by one big regex:
# JSON is full of `"key": "value"` pairs and a regex trying every keyword at every position is slow.
_STEMS = ("pass", "pwd", "secret", "token", "key", "credential")
_IDENT_BACK = re.compile(r"[A-Za-z0-9_.\-]{0,64}\Z")  # \Z: `$` would stop before a newline
_IDENT_FWD = re.compile(r"[A-Za-z0-9_.\-]*")
_TAIL_QUOTED = re.compile(r"""["']?[ \t]*(?::=|=>|=|:)[ \t]*(?P<q>["'`])(?P<value>[^"'`\n]{1,512})(?P=q)""")
_VCHAR = r"""(?:\\(?![nrt\\])|[^\s'"`;|&),\\])"""  # a value character; `\n` escapes end it (JSON in text)
_TAIL_EQ = re.compile(rf"""=(?P<value>{_VCHAR}{{1,512}})""")  # PGPASSWORD=x psql, -e API_KEY=x
_TAIL_ENV = re.compile(r"""[ \t]*(?P<sep>=|:)[ \t]*(?P<value>[^\s'"`#,\\](?:\\(?![nrt\\])|[^\s'"`,\\]){0,511})""")
_TAIL_FLAG = re.compile(r"""(?:=|[ \t]+)(?P<value>[^\s'"`;|&),\-][^\s'"`;|&),]{0,511})""")  # --token x
_NAME_WORDS = re.compile(rf"(?i)(?:{_KEYWORDS})$")
_PASS_NAME = re.compile(r"(?:[_\-.]|(?<=[a-z]))(?:pass|PASS|Pass)$")  # DB_PASS, db-pass, dbPass; not bypass
_WEAK_NAME = re.compile(r"(?:[_\-.]|(?<=[a-z0-9]))(?:key|KEY|Key)$")  # APP_KEY, hmacKey; not `key`, `monkey`
_NOT_SECRET_KEYS = re.compile(r"(?i)(?:public|cache|sort|primary|foreign|partition|idempotency|dedup|routing|object|"
                              r"bucket|lookup|row|group|index|hash|unique|composite|map|dict|react|hot|shortcut|"
                              r"field|column|table|attr|prop|meta|storage|state|query|option|config|label|i18n|"
                              r"translation|message|locale|id|name|type|sign|register|foreign)[_\-.]?key$")


# `MAX_TOKEN=4096` (a count), `nextPageToken` (a pagination cursor): no secret
_COUNT_NAME = re.compile(r"(?:^|[_\-.])(?:max|min|num|n|count|total|len|limit|input|output|prompt|completion|"
                         r"cached|reasoning|page|continuation|cursor)[_\-.]?tokens?$|(?:page|continuation)tokens?$")


def _secret_name(name: str) -> str | None:
    """'strong', 'weak' or None: `max_tokens`, `token_count`, `tokenizer` name no secret; `auth_token`,
    `DB_PASSWORD`, `SECRET_KEY` a strong one; `APP_KEY` a weak one."""
    n = name.strip("-_.\"'")
    low = n.lower()
    if low in ("pwd", "oldpwd") or "csrf" in low or "xsrf" in low or _COUNT_NAME.search(low):
        return None
    if _NAME_WORDS.search(low) or _PASS_NAME.search(n):
        return "strong"
    if _WEAK_NAME.search(n) and not _NOT_SECRET_KEYS.search(n):
        return "weak"
    return None


def secret_name(name: str) -> bool:
    """Whether a setting's name says its value is a secret (`DB_PASSWORD`, `api_key`; not `max_tokens`)."""
    return _secret_name(name) is not None


_REFERENCE = re.compile(r"""^(?:[\$%]\{?[\w.\-:?]*\}?|\$\(.*\)|%[\w]+%|<[^>]*>|\{\{?[^}]*\}\}?|\[[A-Z_\- ]+\])$""")
_MASK = re.compile(r"^(?:\*+|x{3,}.*|X{3,}.*|\.{3,}|…|•+|-+|_+|\[REDACTED.*|REDACTED.*)$")
# Stock placeholders, compared case-insensitively with `-`/`_` removed: words nobody uses as a real value
_STOCK = frozenset({
    "none", "null", "nil", "undefined", "true", "false", "empty", "unset", "notset", "missing", "required", "optional",
    "changeme", "changeit", "password", "passwd", "secret", "token", "apikey", "key", "redacted", "hidden", "masked",
    "placeholder", "dummy", "test", "example", "sample", "string", "str", "int", "integer", "number", "bool",
    "boolean", "bytes", "text", "object", "any", "value", "yourpassword", "yourtoken", "yoursecret", "yourapikey",
    "secretstr", "secretbytes", "sensitive", "omitted", "default", "invalid", "expired", "wrong", "incorrect",
    "flag", "option", "argument", "param", "parameter", "variable", "field", "header", "here", "file"})
_PLACEHOLDER_PREFIX = re.compile(r"(?i)^(?:your|my|test|fake|dummy|sample|example|mock|placeholder|insert|enter|"
                                 r"replace|put)[_\-. ]|^(?:your|my)(?:pass|secret|token|api|key)")  # `mypassword`
_REF_PREFIX = ("os.environ", "process.env", "ENV[", "getenv", "os.getenv", "settings.", "secrets.", "env(",
               "Deno.env", "System.getenv", "config.", "import.meta.env", "vault:", "op://", "arn:aws:secretsmanager")


def _is_placeholder(value: str) -> bool:
    """A value that stands for a secret without being one: a reference, a mask or a stock word."""
    v = value.strip().strip("'\"`")
    if len(v) < 4 or _REFERENCE.match(v) or _MASK.match(v) or v.startswith(_REF_PREFIX):
        return True
    return v.replace("-", "").replace("_", "").lower() in _STOCK or bool(_PLACEHOLDER_PREFIX.match(v))


_CALL = re.compile(r"^[A-Za-z_][\w.]*\(.*\)$|^[A-Za-z_][\w.]*\[.*\]$")
_ATTR_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_TYPE_NAME = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]*)*(?:\[.*)?|[a-z]+\[.*\]|(?:str|int|bytes|bool|float)(?:\s*\|.*)?")
_GENERATED = re.compile(r"[A-Za-z0-9+/=_\-.:]{16,}")


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _squash(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _not_a_literal(value: str, *, quoted: bool, name: str, sep: str, after: str) -> bool:
    """Why a value given to a secret-named key is not a secret: a placeholder, a reference, code, a type
    annotation, a variable passed on, a path or a message."""
    v = value.strip()
    if _is_placeholder(v) or " " in v or v.startswith("="):  # a label or a message; `tiktoken==0.13`
        return True
    if _squash(v) == _squash(name) or v.endswith(("...", "…")) or _ENV_NAME.fullmatch(v):
        return True  # `X = 'x'` (an enum), `sk-ant-...` (elided), `"apiKey": "OLLAMA_API_KEY"` (a variable's name)
    if quoted:  # a string literal: only a whole call/subscript expression inside quotes is code
        return bool(_CALL.match(v))
    if re.search(r"[()\[\]{}]", v) or _ATTR_PATH.fullmatch(v) or v.startswith(("/", "./", "~/", "../")):
        return True  # `request.POST[...]`, `make_password(raw)`, `self.token`, a file
    if _IDENT.fullmatch(v):
        if after[:1] in (",", ")") or sep == "kw":  # `login(password=password, …)`: a variable passed on
            return True
        words = re.sub(r"[^a-z]", "", name.lower())
        if (_code_variable(v) and any(w in v.lower() for w in ("pass", "secret", "token", "key", "cred", "pwd"))) \
                or v.lower() in words:
            return True  # `password=db_password`, `token: accessToken` (not `supersecret`: one word is a value)
        if sep == ":" and _TYPE_NAME.fullmatch(v):
            return True  # `password: SecretStr`, `token: Optional[str]`
        if sep == "flag" and v.isupper():
            return True  # `--token TOKEN`: a metavar
    return False


def _code_variable(value: str) -> bool:
    """`x = access_token`, `x = authToken`: a snake/camel identifier after ` = ` is a variable of code;
    an ini file's `password = hunter2` (one lower-case word, or with digits/symbols) is a value."""
    return bool(_IDENT.fullmatch(value)) and ("_" in value or any(c.isupper() for c in value[1:]))


def _literal_secret(value: str, *, quoted: bool, name: str, strength: str, sep: str = "=", after: str = "") -> bool:
    if _not_a_literal(value, quoted=quoted, name=name, sep=sep, after=after):
        return False
    if strength == "weak":
        v = value.strip()
        return bool(_GENERATED.fullmatch(v)) and _mixed(v)
    return True


# --- 3. entropy ------------------------------------------------------------------------------------------
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{32,1024}={0,2}(?![A-Za-z0-9+/_\-=])")
_DIGEST_PREFIX = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5|h1|blake2b?|integrity|etag|hash|digest|nonce|"
                            r"commit|revision|rev|sri|signature|encrypted_content|encrypted)[-:= \"']{1,3}\Z")
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


_NAMED_PART = re.compile(r"[A-Za-z][a-z]+|[A-Za-z0-9]{1,8}|[0-9a-f]{7,}|[0-9A-F]{7,}")


def looks_random(token: str, *, min_len: int = 32, min_entropy: float = 4.0) -> bool:
    """True for a generated secret-like token; False for hex digests, UUIDs, identifiers and prose."""
    core = token.rstrip("=")
    if len(core) < min_len or _HEX.fullmatch(core) or _UUIDISH.search(core):
        return False
    if all(_NAMED_PART.fullmatch(part) for part in re.split(r"[-_]", core) if part):
        return False  # `node-cache-Linux-x64-npm-<sha256>`: words, short tags and a digest, joined
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


# Public material that looks random and is no secret: the entropy rule never looks inside it.
_PUBLIC_BLOCK = re.compile(r"-----BEGIN (?:[A-Z0-9 ]*PUBLIC KEY(?: BLOCK)?|[A-Z0-9 ]*CERTIFICATE(?: REQUEST)?|X509 CRL|"
                           r"PGP SIGNATURE|PGP MESSAGE|SSH SIGNATURE|DH PARAMETERS)-----.*?"
                           r"(?:-----END [A-Z0-9 ]+-----|\Z)", re.S)
_PUBLIC_PREFIX = re.compile(r"(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)"
                            r"@openssh\.com)[ \t]+\Z|base64,\Z")
_SSH_BLOB = re.compile(r"AAAA[BCE][0-9]")  # an SSH public key's wire format starts with its length
_BASE58 = re.compile(r"[1-9A-HJ-NP-Za-km-z]{32,44}")  # Solana/Bitcoin addresses and program ids


_ID_PREFIX = re.compile(r"(?:user|org|sess|req|msg|toolu|srvtoolu|call|run|asst|thread|file|batch|evt|cus|sub|"
                        r"acct|resp|chatcmpl|span|trace|conv|item|rs|fc|ctx|msgbatch|vs|ftjob|upload)[_\-]")
_ID_CONTEXT = re.compile(r"""(?i)(?:\b|_)ids?["']?\s*[:=]\s*["']?\Z""")  # `"user_id": "…"`: an id, not a secret


def _in_url(text: str, start: int) -> bool:
    """True when `start` sits in a URL (after `scheme://` with no space or quote between)."""
    p = text.rfind("://", max(0, start - 2048), start)
    if p == -1:
        return False
    return not any(c in text[p + 3:start] for c in " \t\n\"'<>()[]{}`")


def _public_ranges(text: str) -> list[tuple[int, int]]:
    if "-----BEGIN" not in text:
        return []
    return [m.span() for m in _PUBLIC_BLOCK.finditer(text)]


def _entropy_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    public = _public_ranges(text)
    for m in _CANDIDATE.finditer(text):
        tok, start = m.group(0), m.start()
        if _DIGEST_PREFIX.search(text, max(0, start - 24), start) or _DIGEST_TOKEN.match(tok) \
                or _ID_PREFIX.match(tok) or _ID_CONTEXT.search(text, max(0, start - 12), start):
            continue
        if _in_url(text, start) or (text[start - 1:start] == "." and "/" in tok):
            continue  # a URL (or `host.tld/path`): redirect ids, slugs, registry hashes (webhook URLs have rows)
        if _PUBLIC_PREFIX.search(text, max(0, start - 40), start) or _SSH_BLOB.match(tok) or _BASE58.fullmatch(tok):
            continue
        if public and any(a <= start < b for a, b in public):
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
@dataclass(frozen=True)
class Finding:
    """One replacement, for audits (bench/redaction_false_positives.py): the value and 60 characters each side."""
    kind: str
    value: str
    before: str
    after: str


def _sub_group(rx: re.Pattern[str], text: str, kind: str, group: int | str, counts: Counter,
               accept: Callable[[re.Match[str]], bool], found: list[Finding] | None = None) -> str:
    return _sub_spans(text, [m.span(group) for m in rx.finditer(text) if accept(m)], kind, counts, found)


_ENV_STYLE = re.compile(r"[A-Z][A-Z0-9_]{2,}")  # `DB_PASSWORD`, `TOKEN`: an environment variable's name
_LINE_LEAD = re.compile(r"[\s>#\-*/;|]*(?:(?:export|set|setenv|ENV|ARG|declare|local|readonly)\s+)?\Z")


def _line_start(text: str, start: int) -> bool:
    """Only markup (`> `, `# `, `- `, `// `) or a shell/Dockerfile keyword before the name on its line."""
    return bool(_LINE_LEAD.match(text, text.rfind("\n", 0, start) + 1, start))


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
            strength = _secret_name(name)
            if strength is None:
                continue
            m, quoted, sep = _TAIL_QUOTED.match(text, end), True, "="
            if m is None:
                flag = name.startswith("--")
                m, quoted, sep = (_TAIL_FLAG if flag else _TAIL_EQ).match(text, end), False, "flag" if flag else "="
                if m is not None and sep == "=" and text[max(0, start - 2):start].rstrip(" ")[-1:] in ("(", ","):
                    sep = "kw"  # `f(a, password=x)`: a keyword argument, not a `.env` line
            if m is None and (_ENV_STYLE.fullmatch(name) or _line_start(text, start)):
                # a .env / shell / YAML / ini line (`KEY=value`, `key: value`), or an env-style NAME anywhere
                m = _TAIL_ENV.match(text, end)
                if m is not None:
                    sep = m.group("sep")
                    if sep == "=" and text[end:m.start("sep")] and _code_variable(m.group("value")):
                        continue  # `token = access_token` in code: a variable, not a value
            if m is not None and _literal_secret(m.group("value"), quoted=quoted, name=name, strength=strength,
                                                 sep=sep, after=text[m.end():m.end() + 1]):
                spans.append(m.span("value"))
    return sorted(spans)


_K8S_KIND = re.compile(r"""(?m)^[>\s]*["']?kind["']?\s*:\s*["']?Secret\b""")
_K8S_DATA_YAML = re.compile(r"(?m)^(?P<ind>[> \t]*)(?:data|stringData):[ \t]*\n(?P<body>(?:(?P=ind)[ \t]+\S.*(?:\n|\Z))+)")
_K8S_ENTRY_YAML = re.compile(r"(?m)^[> \t]*[ \t][\w.\-]++:[ \t]*+[|>]?[-+]?[ \t]*+(?P<value>\S[^\n]*)$")
_K8S_DATA_JSON = re.compile(r'"(?:data|stringData)"\s*:\s*\{(?P<body>[^{}]*)\}')
_K8S_ENTRY_JSON = re.compile(r'"[\w.\-]+"\s*:\s*"(?P<value>[^"]*)"')


def _k8s_secret_spans(text: str) -> list[tuple[int, int]]:
    """The values under `data:`/`stringData:` of a Kubernetes Secret (base64 of anything, named anything)."""
    if "Secret" not in text or not _K8S_KIND.search(text):
        return []
    spans = []
    for block, entry in ((_K8S_DATA_YAML, _K8S_ENTRY_YAML), (_K8S_DATA_JSON, _K8S_ENTRY_JSON)):
        for m in block.finditer(text):
            base = m.start("body")
            for e in entry.finditer(m.group("body")):
                if e.group("value") and not _is_placeholder(e.group("value")):
                    spans.append((base + e.start("value"), base + e.end("value")))
    return sorted(spans)


def _sub_spans(text: str, spans: list[tuple[int, int]], kind: str, counts: Counter,
               found: list[Finding] | None = None) -> str:
    if not spans:
        return text
    out, last = [], 0
    for s, e in spans:
        if s < last:
            continue
        if found is not None:
            found.append(Finding(kind, text[s:e], text[max(0, s - 60):s], text[e:e + 60]))
        out.append(text[last:s])
        out.append(REDACTED.format(kind=kind))
        counts[kind] += 1
        last = e
    out.append(text[last:])
    return "".join(out)


def redact_text(text: str, counts: Counter | None = None, *, entropy: bool = True,
                found: list[Finding] | None = None) -> str:
    """`text` with every secret replaced by `[REDACTED:<kind>]`; adds one per replacement to `counts`
    (and, given `found`, one `Finding` per replacement to it)."""
    if counts is None:
        counts = Counter()
    if not text or len(text) < 8:
        return text
    low = text.lower()
    for rule in _rules_for(text, low):
        check = rule.check
        new = _sub_group(rule.rx, text, rule.kind, rule.group, counts,
                         lambda m, g=rule.group, c=check: c is None or c(m.group(g)), found)
        if new is not text:
            text, low = new, new.lower()
    new = _sub_spans(text, _k8s_secret_spans(text), "k8s_secret", counts, found)
    if new is not text:
        text, low = new, new.lower()
    if any(w in low for w in ("pass", "secret", "token", "key", "pwd", "credential")):
        text = _sub_spans(text, _assignment_spans(text, low if len(low) == len(text) else None), "password", counts,
                          found)
    if entropy:
        text = _sub_spans(text, _entropy_spans(text), "high_entropy", counts, found)
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


def _redact_pair(key: str, redacted_key: str, value: str) -> str:
    """A metadata value redacted with its key as context: `{"DB_PASSWORD": "hunter2"}` holds a secret that
    neither string shows alone (`--meta DB_PASSWORD=hunter2` arrives split exactly like this)."""
    alone = redact_text(value)
    if alone != value:
        return alone
    joined = redact_text(f"{key}={value}")
    if joined == f"{redacted_key}={value}":
        return value
    head = redacted_key + "="
    return joined[len(head):] if joined.startswith(head) else REDACTED.format(kind="password")


def redact_json(value: Any) -> Any:
    """A copy of a JSON-like value with every string redacted, dict keys included (metadata a caller
    supplies may name a secret in a key as easily as in a value). Iterative, like `map_strings`."""

    def one(v: Any) -> Any:
        if isinstance(v, str):
            return redact_text(v)
        if isinstance(v, dict):
            copy: dict = {}
            stack.append((v, copy))
            return copy
        if isinstance(v, (list, tuple)):
            items: list = []
            stack.append((v, items))
            return items
        return v

    stack: list[tuple[Any, Any]] = []
    root = one(value)
    while stack:
        src, dst = stack.pop()
        if isinstance(src, dict):
            for k, v in src.items():
                key = redact_text(k) if isinstance(k, str) else k
                dst[key] = _redact_pair(k, key, v) if isinstance(k, str) and isinstance(v, str) else one(v)
        else:
            dst.extend(one(v) for v in src)
    return root


def redact_value(value: Any, counts: Counter, seen: dict[str, str] | None = None) -> Any:
    """Strings anywhere inside dicts/lists redacted in place (keys kept); other values unchanged.

    Iterative, so a deeply nested argument object cannot exhaust the stack (found by fuzzing).
    `seen` maps strings already redacted elsewhere in the same record (a tool call's command, which
    is also its `command` argument) to their redacted form, so one secret is counted once.
    """

    def one(s: str) -> str:
        if seen is None:
            return redact_text(s, counts)
        if s not in seen:
            seen[s] = redact_text(s, counts)
        return seen[s]

    return map_strings(value, one)


def redact_transcript(transcript: Any) -> dict[str, int]:
    """Rewrite a loaded Transcript's texts in memory (never the file); counts go to meta["redactions"].

    Message texts and metadata, tool call commands, paths and argument values, tool results, and the
    session summaries some formats carry are covered; ids and timestamps are structural and left alone.
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
            if call.path:  # also an argument, normally: counted once through `seen`
                call.path = seen[call.path] if call.path in seen else redact_text(call.path, counts)
        if msg.meta:  # reasoning text some formats carry beside the message
            msg.meta = redact_value(msg.meta, counts)
        for res in msg.tool_results:
            if res.content:
                res.content = redact_text(res.content, counts)
    summaries = transcript.meta.get("summaries")
    if isinstance(summaries, list):
        transcript.meta["summaries"] = redact_value(summaries, counts)
    result = dict(sorted(counts.items()))
    transcript.meta["redactions"] = result
    return result


KINDS = (*dict.fromkeys(rule.kind for rule in RULES), "k8s_secret", "password", "high_entropy")
