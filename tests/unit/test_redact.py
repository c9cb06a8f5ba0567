"""Secret redaction: every provider format by name, context rules, high entropy, and no false positives
on what coding transcripts are full of (commit ids, digests, UUIDs, paths, identifiers).

Keys are generated at run time from a seeded RNG so that no secret-shaped literal sits in the repo.
"""

from __future__ import annotations

import json
import os
import random
import string
from collections import Counter
from pathlib import Path

import pytest

from compaction.model import Message, Role, ToolCall, ToolResult, Transcript
from compaction.redact import KINDS, looks_random, redact, redact_transcript, shannon_entropy
from compaction.transcripts import load_transcript
from tests.conftest import real_transcripts

RNG = random.Random(20261130)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def rand(n: int, alphabet: str = ALNUM) -> str:
    """n random characters holding every character class (digit, upper, lower) the alphabet has."""
    classes = [f for f in (str.isdigit, str.isupper, str.islower) if any(f(c) for c in alphabet)]
    while True:
        s = "".join(RNG.choice(alphabet) for _ in range(n))
        if all(any(f(c) for c in s) for f in classes):
            return s


def b64url_json(obj: dict) -> str:
    import base64

    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


PEM = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(rand(64, B64) for _ in range(6)) + "\n" + rand(20, B64)
       + "==\n-----END RSA PRIVATE KEY-----")

# (name, kind, secret) — the secret must vanish and `[REDACTED:kind]` appear
SECRETS = [
    ("OpenAI legacy", "openai_key", "sk-" + rand(48)),
    ("OpenAI project", "openai_key", "sk-proj-" + rand(58, B64URL) + "T3BlbkFJ" + rand(58, B64URL)),
    ("OpenAI service account", "openai_key", "sk-svcacct-" + rand(64, B64URL)),
    ("Anthropic", "anthropic_key", "sk-ant-api03-" + rand(93, B64URL) + "AA"),
    ("Anthropic admin", "anthropic_key", "sk-ant-admin01-" + rand(80, B64URL)),
    ("AWS access key id", "aws_access_key_id", "AKIA" + rand(16, string.ascii_uppercase + string.digits)),
    ("AWS temporary key id", "aws_access_key_id", "ASIA" + rand(16, string.ascii_uppercase + string.digits)),
    ("GitHub classic PAT", "github_token", "ghp_" + rand(36)),
    ("GitHub OAuth", "github_token", "gho_" + rand(36)),
    ("GitHub app server", "github_token", "ghs_" + rand(36)),
    ("GitHub app user", "github_token", "ghu_" + rand(36)),
    ("GitHub fine-grained PAT", "github_token", "github_pat_" + rand(22) + "_" + rand(59)),
    ("GitLab PAT", "gitlab_token", "glpat-" + rand(20, B64URL)),
    ("Slack bot", "slack_token", "xoxb-" + "".join(RNG.choice(string.digits) for _ in range(12)) + "-"
     + "".join(RNG.choice(string.digits) for _ in range(13)) + "-" + rand(24)),
    ("Slack user", "slack_token", "xoxp-" + "".join(RNG.choice(string.digits) for _ in range(12)) + "-" + rand(32)),
    ("Slack webhook", "slack_webhook", "https://hooks.slack.com/services/T" + rand(8, string.ascii_uppercase)
     + "/B" + rand(8, string.ascii_uppercase) + "/" + rand(24)),
    ("Google API", "google_api_key", "AIza" + rand(35, B64URL)),
    ("Stripe live secret", "stripe_key", "sk_live_" + rand(24)),
    ("Stripe test secret", "stripe_key", "sk_test_" + rand(24)),
    ("Stripe restricted", "stripe_key", "rk_live_" + rand(24)),
    ("Stripe publishable", "stripe_key", "pk_test_" + rand(24)),
    ("JWT", "jwt", b64url_json({"alg": "HS256", "typ": "JWT"}) + "." + b64url_json({"sub": "1234567890", "iat": 1})
     + "." + rand(43, B64URL)),
    ("PEM private key", "private_key", PEM),
    ("PEM OpenSSH key", "private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rand(70, B64) + "\n"
     + "-----END OPENSSH PRIVATE KEY-----"),
]


@pytest.mark.parametrize(("name", "kind", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
@pytest.mark.parametrize("context", [
    "the key is {s} ok",
    'export TOKEN_VALUE="{s}"',
    '{{"auth": {{"credential": "{s}"}}}}',
    "curl -H 'X-Key: {s}' https://api.example.com",
    "{s}",
])
def test_provider_formats_are_redacted_by_name(name: str, kind: str, secret: str, context: str) -> None:
    text = context.format(s=secret)
    out, counts = redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out or "[REDACTED:password]" in out  # an assignment rule may win on quotes
    assert sum(counts.values()) >= 1
    # what surrounds the secret is kept
    before = context.split("{s}")[0].replace("{{", "{")
    assert out.startswith(before)


@pytest.mark.parametrize(("name", "kind", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_kind_and_count_in_prose(name: str, kind: str, secret: str) -> None:
    out, counts = redact(f"I pasted {secret} by mistake, and again: {secret}\n")
    assert counts == {kind: 2}
    assert out == f"I pasted [REDACTED:{kind}] by mistake, and again: [REDACTED:{kind}]\n"


def test_pem_key_truncated_without_end_line() -> None:
    body = "\n".join(rand(64, B64) for _ in range(4))
    out, counts = redact("cat id_rsa\n-----BEGIN PRIVATE KEY-----\n" + body)
    assert counts == {"private_key": 1} and body[:20] not in out and out.startswith("cat id_rsa\n")


def test_public_key_and_certificate_are_kept() -> None:
    text = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----"
    assert redact(text)[1].get("private_key") is None


def test_aws_secret_access_key_near_its_name() -> None:
    secret = rand(40, B64)
    for text in (f"aws_secret_access_key = {secret}", f"AWS_SECRET_ACCESS_KEY={secret}",
                 f'"SecretAccessKey": "{secret}"', f"export AWS_SECRET_ACCESS_KEY='{secret}'"):
        out, counts = redact(text)
        assert secret not in out, text
        assert counts.get("aws_secret_key", 0) + counts.get("password", 0) == 1, (text, counts)


def test_aws_credentials_file() -> None:
    key_id = "AKIA" + rand(16, string.ascii_uppercase + string.digits)
    secret = rand(40, B64)
    text = f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret}\nregion = eu-west-1\n"
    out, counts = redact(text)
    assert key_id not in out and secret not in out and "region = eu-west-1" in out
    assert counts["aws_access_key_id"] == 1


@pytest.mark.parametrize(("text", "secret", "kind"), [
    ("postgres://admin:{p}@db.internal:5432/app", "{p}", "url_password"),
    ("DATABASE_URL=mysql://root:{p}@localhost/x", "{p}", "url_password"),
    ("git clone https://user:{p}@github.com/o/r.git", "{p}", "url_password"),
    ("redis://:{p}@cache:6379/0", "{p}", "url_password"),
    ("mongodb+srv://app:{p}@cluster0.abcde.mongodb.net/db", "{p}", "url_password"),
    ("password={p}", "{p}", "password"),
    ("PASSWORD: {p}", "{p}", "password"),
    ("DB_PASSWORD={p}\nDEBUG=1", "{p}", "password"),
    ("SECRET_KEY={p}", "{p}", "password"),
    ("export GITHUB_TOKEN={p}", "{p}", "password"),
    ("  api_key: {p}", "{p}", "password"),
    ('{{"password": "{p}", "user": "bob"}}', "{p}", "password"),
    ("client_secret = '{p}'", "{p}", "password"),
    ("PGPASSWORD={p} psql -h db", "{p}", "password"),
    ("mysql --password={p} -u root", "{p}", "password"),
    ("tool login --token {p}", "{p}", "password"),
    ("Authorization: Bearer {p}", "{p}", "auth_header"),
    ("curl -H 'Authorization: token {p}' x", "{p}", "auth_header"),
    ("headers = {{'x-api-key': '{p}'}}", "{p}", "auth_header"),
    ("use bearer {p} for it", "{p}", "bearer_token"),
])
def test_context_rules_replace_only_the_value(text: str, secret: str, kind: str) -> None:
    p = "Zq7" + rand(17)
    src = text.format(p=p)
    out, counts = redact(src)
    assert p not in out
    assert f"[REDACTED:{kind}]" in out or "[REDACTED:password]" in out, (out, counts)
    assert out.replace("[REDACTED:" + kind + "]", "{p}").replace("[REDACTED:password]", "{p}") == \
        text.replace("{{", "{").replace("}}", "}")


@pytest.mark.parametrize("text", [
    # placeholders and references, not values
    "postgres://user:${DB_PASSWORD}@localhost/db",
    "postgres://user:<password>@localhost/db",
    "https://user:****@host/x",
    "password=$PASSWORD",
    "SECRET_KEY=os.environ['SECRET_KEY']",
    "api_key: ${{ secrets.API_KEY }}",
    "password = request.POST['password']",
    "password = make_password(raw)",
    "self.token = token",
    "token: str",
    "token: Optional[str] = None",
    "secret_key: SecretStr",
    "password=None",
    "max_tokens=4096",
    "num_tokens = count_tokens(text)",
    "PWD=/testbed",
    "OLDPWD=/home/user",
    "--password-file /run/secrets/db",
    "the password is wrong, reset the token before retrying",
    "csrf_token = get_token(request)",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    'password="test_password"',
    '{"password": "This field is required."}',
    "PASSWORD_HASHERS = ['django.contrib.auth.hashers.MD5PasswordHasher']",
])
def test_placeholders_and_code_are_not_redacted(text: str) -> None:
    out, counts = redact(text)
    assert counts == {} and out == text


NOT_SECRETS = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",  # git sha1
    "d12a71affd95403b036b2bdbd827349b77bfffb9",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # docker digest
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  file.tar.gz",
    "requests==2.31.0 --hash=sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f",
    '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="',
    "golang.org/x/text v0.3.7 h1:olpwvP2KacW1ZWvsR7uQhoyTYvKAupfQrRGBFM352Gk=",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "/usr/lib/python3.11/site-packages/django/contrib/auth/hashers.py",
    "src/components/UserProfileSettingsPanel/AvatarUploaderDialog.tsx",
    "tests/test_models.py::TestAutoFieldSubclassDefaultPrimaryKey::test_pk_2",
    "test_queryset_filter_with_simple_lazy_object_kwargs_returns_results_in_order",
    "ThisIsAVeryLongCamelCaseClassNameThatIsNotASecret2",
    "https://github.com/django/django/commit/3f786850e387550fdab836ed7e6dc881de23001b",
    "https://github.com/astropy/astropy/blob/main/astropy/io/ascii/tests/test_html.py",
    "git@github.com:owner/repository-name.git",
    "msg = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'",
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1a",
    "0123456789abcdef0123456789abcdef",  # md5
    "index 83db48f..bf0a8a3 100644",
    "task-1234567890-abcdefghijklmnopqrstuvwxyz",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_no_false_positives_on_hashes_uuids_paths_identifiers(text: str) -> None:
    out, counts = redact(text)
    assert counts == {} and out == text


def test_high_entropy_tokens_are_redacted() -> None:
    for n in (32, 40, 64, 100):
        tok = rand(n, B64URL)
        out, counts = redact(f"token {tok} end")
        assert tok not in out and counts == {"high_entropy": 1}, (n, out)


def test_entropy_helpers() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert abs(shannon_entropy("abcd") - 2.0) < 1e-9
    assert looks_random(rand(40))
    assert not looks_random("3f786850e387550fdab836ed7e6dc881de23001b")  # hex: a commit
    assert not looks_random("ThisIsAVeryLongCamelCaseIdentifierName")
    assert not looks_random(rand(20))  # too short to judge


def test_redaction_is_idempotent_and_marks_do_not_match_again() -> None:
    text = " ".join(s for _, _, s in SECRETS) + " password=" + rand(20)
    once, counts = redact(text)
    twice, again = redact(once)
    assert twice == once and again == {}
    assert sum(counts.values()) >= len(SECRETS)
    assert set(counts) <= set(KINDS)


def test_all_secret_kinds_are_declared() -> None:
    for _, kind, secret in SECRETS:
        assert kind in KINDS
        assert redact(secret)[1] == {kind: 1}, secret[:12]


def _transcript_with_secrets() -> tuple[Transcript, list[str]]:
    keys = ["sk-ant-api03-" + rand(90, B64URL), "ghp_" + rand(36), "AKIA" + rand(16, string.ascii_uppercase),
            "AIza" + rand(35, B64URL), "xoxb-1234567890-" + rand(24)]
    msgs = [
        Message(0, Role.USER, f"use this key {keys[0]} please"),
        Message(1, Role.ASSISTANT, "ok", tool_calls=[ToolCall(
            "Bash", {"command": f"gh auth login --with-token {keys[1]}", "env": {"AWS": keys[2]},
                     "list": [keys[3], 3, None]}, id="toolu_1", kind="shell",
            command=f"gh auth login --with-token {keys[1]}")]),
        Message(2, Role.TOOL, "", tool_results=[ToolResult(f"export SLACK={keys[4]}", call_id="toolu_1")]),
    ]
    t = Transcript(path="x.jsonl", format="test", messages=msgs, meta={"summaries": [f"title {keys[0]}"]})
    return t, keys


def test_redact_transcript_rewrites_texts_calls_results_and_counts() -> None:
    t, keys = _transcript_with_secrets()
    counts = redact_transcript(t)
    flat = json.dumps([[m.text, [(c.command, c.arguments) for c in m.tool_calls],
                        [r.content for r in m.tool_results]] for m in t.messages]) + json.dumps(t.meta)
    for k in keys:
        assert k not in flat
    assert t.meta["redactions"] == counts
    # the command sits in `command` and in `arguments["command"]`: one secret, counted once
    assert counts["anthropic_key"] == 2 and counts["github_token"] == 1 and counts["aws_access_key_id"] == 1
    assert t.messages[1].tool_calls[0].arguments["list"][1:] == [3, None]  # non-strings untouched
    assert t.messages[1].tool_calls[0].id == "toolu_1"


def _write_claude_session(path: Path, secret: str) -> None:
    base = {"sessionId": "s1", "cwd": "/work/app", "isSidechain": False, "userType": "external"}
    recs = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None,
         "message": {"role": "user", "content": f"deploy with OPENAI_API_KEY={secret}"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"echo {secret}"}}]}},
        {**base, "type": "user", "uuid": "u2", "parentUuid": "a1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": secret}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def test_load_transcript_redacts_by_default_and_never_touches_the_file(tmp_path: Path) -> None:
    secret = "sk-proj-" + rand(60, B64URL)
    path = tmp_path / "session.jsonl"
    _write_claude_session(path, secret)
    before = path.read_bytes()
    t = load_transcript(path)
    assert path.read_bytes() == before
    assert t.format == "claude-code"
    assert secret not in json.dumps([m.full_text() for m in t.messages])
    assert t.meta["redactions"] == {"openai_key": 3}
    raw = load_transcript(path, redact=False)
    assert secret in raw.messages[0].text and "redactions" not in raw.meta


def test_compaction_stats_count_redactions_and_outputs_are_clean(tmp_path: Path) -> None:
    from compaction.config import load_settings
    from compaction.history import compact

    secret = "ghp_" + rand(36)
    path = tmp_path / "session.jsonl"
    _write_claude_session(path, secret)
    result = compact(load_transcript(path), load_settings(None))
    assert result.stats.redactions == 3
    assert secret not in result.model_dump_json()
    off = compact(load_transcript(path, redact=False), load_settings(None, {"redactSecrets": False}))
    assert off.stats.redactions == 0


def test_cli_compact_output_has_no_secret_and_setting_turns_it_off(tmp_path: Path, capsys) -> None:
    from compaction.cli import main

    secret = "sk-ant-api03-" + rand(90, B64URL)
    path = tmp_path / "session.jsonl"
    _write_claude_session(path, secret)
    assert main(["compact", str(path), "--json", "--workspace", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert secret not in json.dumps(out) and out["stats"]["redactions"] == 3
    (tmp_path / ".compaction").mkdir(exist_ok=True)
    (tmp_path / ".compaction" / "config.json").write_text('{"redactSecrets": false}', encoding="utf-8")
    assert main(["compact", str(path), "--json", "--workspace", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stats"]["redactions"] == 3  # a workspace cannot turn redaction off (issue 15) ...
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "compaction" / "config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('{"redactSecrets": false}', encoding="utf-8")  # ... the user can
    assert main(["compact", str(path), "--json", "--workspace", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stats"]["redactions"] == 0


def test_real_transcripts_keep_their_ground_truth(shared_transcripts: Path) -> None:
    """Precision on real work: no ground-truth fact (modified files, task words) is touched, and
    redactions are rare (the only ones are test credentials in a Java web app's logs)."""
    truths = [json.loads(line) for line in (shared_transcripts / "GROUND_TRUTH.jsonl").read_text().splitlines()
              if line.strip()]
    for truth in truths:
        for value in truth.values():
            for s in value if isinstance(value, list) else [value]:
                if isinstance(s, str):
                    assert redact(s)[0] == s, s
    total = Counter()
    for path in real_transcripts():
        t = load_transcript(path)
        total.update(t.meta["redactions"])
    assert sum(total.values()) <= 10, total
    assert set(total) <= {"password"}, total
