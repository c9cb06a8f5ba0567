"""Fake secrets of every kind a user expects caught, built at run time in each format's real shape.

Nothing secret-shaped is committed (GitHub push protection would flag it): each value is made
from a seeded RNG, with the format's prefix, alphabet, length and checksum where it has one
(GitHub's CRC32 tail). `distinct` holds the parts that must appear in no output:
the random body of each part (SendGrid's two parts, Discord's three, a URL's password…).
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
import zlib
from dataclasses import dataclass

RNG = random.Random(20261201)
DIGITS = string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
ALNUM = string.ascii_letters + DIGITS
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
BASE62 = DIGITS + UPPER + LOWER


def rand(n: int, alphabet: str = ALNUM) -> str:
    """n random characters that hold every character class (digit, upper, lower) the alphabet has."""
    classes = [f for f in (str.isdigit, str.isupper, str.islower) if any(f(c) for c in alphabet)]
    while True:
        s = "".join(RNG.choice(alphabet) for _ in range(n))
        if all(any(f(c) for c in s) for f in classes):
            return s


def word() -> str:
    """A password a person picks: a pronounceable lower-case word (`supersecret` style)."""
    syl = ["ka", "lo", "mer", "tis", "van", "dor", "pel", "qui", "zen", "rah", "sul", "bex"]
    return "".join(RNG.choice(syl) for _ in range(5))


def _base62(n: int, width: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = BASE62[r] + out
    return out.rjust(width, "0")


def github_token(prefix: str) -> str:
    """`ghp_` + 30 random + 6 base62 CRC32 of the random part (GitHub's checksum)."""
    body = rand(30)
    return f"{prefix}_{body}{_base62(zlib.crc32(body.encode()), 6)}"


def pem(label: str, lines: int = 6) -> tuple[str, str]:
    body = "\n".join(rand(64, B64) for _ in range(lines))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----", body.splitlines()[2]


def b64url_json(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


@dataclass(frozen=True)
class SecretCase:
    name: str
    text: str  # the secret in the context a user pastes or a tool prints
    distinct: tuple[str, ...]  # parts that must not survive anywhere


def _case(name: str, text: str, *distinct: str) -> SecretCase:
    for d in distinct:
        assert d in text and len(d) >= 8, (name, d)
    return SecretCase(name, text, distinct)


def build(seed: int = 20261201) -> list[SecretCase]:
    """Every kind once; the same seed gives the same corpus, another seed other secrets of the same kinds."""
    RNG.seed(seed)
    cases: list[SecretCase] = []
    add = cases.append

    s = "sk-" + rand(48)
    add(_case("openai_legacy", f"OPENAI key {s} works", s[3:]))
    s = "sk-proj-" + rand(74, B64URL) + "T3BlbkFJ" + rand(74, B64URL)
    add(_case("openai_project", f"client = OpenAI(api_key='{s}')", s[8:40]))
    s = "sk-ant-api03-" + rand(93, B64URL) + "AA"
    add(_case("anthropic", f"ANTHROPIC_API_KEY={s}", s[13:50]))
    kid, sec = "AKIA" + rand(16, UPPER + DIGITS), rand(40, B64)
    add(_case("aws_access_key_id", f"aws_access_key_id = {kid}", kid[4:]))
    add(_case("aws_secret_access_key", f"aws_secret_access_key = {sec}", sec))
    s = github_token("ghp")
    add(_case("github_classic", f"git push https://x-access-token:{s}@github.com/o/r", s[4:]))
    s = "github_pat_" + rand(22) + "_" + rand(59)
    add(_case("github_fine_grained", f"gh auth login --with-token <<< {s}", s[11:]))
    s = "glpat-" + rand(20, B64URL)
    add(_case("gitlab", f"GITLAB_TOKEN: {s}", s[6:]))
    s = "xoxb-" + rand(12, DIGITS) + "-" + rand(13, DIGITS) + "-" + rand(24)
    add(_case("slack_bot", f"slack = WebClient(token='{s}')", s[-24:]))
    s = "https://hooks.slack.com/services/T" + rand(8, UPPER + DIGITS) + "/B" + rand(8, UPPER + DIGITS) + "/" + rand(24)
    add(_case("slack_webhook", f"curl -X POST {s} -d '{{}}'", s[-24:]))
    s = "AIza" + rand(35, B64URL)
    add(_case("google_api_key", f"const firebaseConfig = {{ apiKey: \"{s}\" }}", s[4:]))
    s = "GOCSPX-" + rand(28, B64URL)
    add(_case("google_oauth_secret", f'"client_secret": "{s}"', s[7:]))
    s = "sk_live_" + rand(24)
    add(_case("stripe_live", f"stripe.api_key = \"{s}\"", s[8:]))
    s = "whsec_" + rand(32)
    add(_case("stripe_webhook", f"STRIPE_WEBHOOK_SECRET={s}", s[6:]))
    sig = rand(43, B64URL)
    s = b64url_json({"alg": "HS256", "typ": "JWT"}) + "." + b64url_json({"sub": rand(10, DIGITS)}) + "." + sig
    add(_case("jwt", f"cookie: session={s}", sig))
    block, line = pem("RSA PRIVATE KEY")
    add(_case("rsa_private_key", f"cat id_rsa\n{block}\n", line))
    block, line = pem("OPENSSH PRIVATE KEY")
    add(_case("openssh_private_key", block, line))
    block, line = pem("PGP PRIVATE KEY BLOCK")
    add(_case("pgp_private_key", f"gpg --export-secret-keys -a\n{block}", line))
    s = "AGE-SECRET-KEY-1" + "".join(RNG.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") for _ in range(58))
    add(_case("age_secret_key", f"# created: 2026-01-01\n{s}\n", s[16:]))
    a, b = rand(22, B64URL), rand(43, B64URL)
    add(_case("sendgrid", f"sg = SendGridAPIClient('SG.{a}.{b}')", a, b))
    s = "AC" + rand(32, HEX)
    add(_case("twilio_sid", f"client = Client(\"{s}\", auth)", s[2:]))
    s = rand(32, HEX)
    add(_case("twilio_auth_token", f"TWILIO_AUTH_TOKEN={s}", s))
    p1 = base64.b64encode(str(RNG.randint(10**17, 10**19)).encode()).decode().rstrip("=")  # a user id
    p2, p3 = rand(6, B64URL), rand(38, B64URL)
    add(_case("discord_bot", f"bot.run('{p1}.{p2}.{p3}')", p1, p3))
    s = "django-insecure-" + "".join(RNG.choice(LOWER + DIGITS + "!@#$%^&*(-_=+)") for _ in range(50))
    add(_case("django_secret_key", f"SECRET_KEY = '{s}'", s[16:]))
    s = word()
    add(_case("db_pass", f"DB_PASS={s}\nDB_HOST=db", s))
    s = word()
    add(_case("password_word", f"PASSWORD={s}", s))
    s = word()
    add(_case("mysql_password", f"      MYSQL_PASSWORD: {s}\n", s))
    s = word()
    add(_case("yaml_db_password", f"database:\n  DB_PASSWORD: {s}\n  DB_USER: app\n", s))
    s = word() + "7"
    add(_case("curl_user", f"curl -u admin:{s} https://api.internal/v1/", s))
    s = rand(10) + "/" + rand(8)
    add(_case("url_password_slash", f"DATABASE_URL=postgres://app:{s}@db.internal:5432/app", s[:10], s[11:]))
    s = "key-" + rand(32, HEX)
    add(_case("mailgun", f"requests.post(url, auth=('api', '{s}'))", s[4:]))
    s = str(uuid.UUID(int=RNG.getrandbits(128), version=4))
    add(_case("heroku_api_key", f"HEROKU_API_KEY={s}", s))
    s = rand(64, HEX)
    add(_case("hex_encryption_key", f"ENCRYPTION_KEY = \"{s}\"", s))
    s = rand(40, HEX)
    add(_case("hex_app_key", f"APP_KEY={s}", s))
    s = "npm_" + rand(36)
    add(_case("npm_token", f"//registry.npmjs.org/:_authToken={s}", s[4:]))
    s = "pypi-AgEIcHlwaS5vcmc" + rand(70, B64URL)
    add(_case("pypi_token", f"twine upload -u __token__ -p {s} dist/*", s[20:]))
    s = "hf_" + rand(34, string.ascii_letters)
    add(_case("huggingface", f"huggingface-cli login --token {s}", s[3:]))
    s = rand(86, B64) + "=="
    add(_case("azure_storage", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
              f"{s};EndpointSuffix=core.windows.net", s[:40]))
    block, line = pem("PRIVATE KEY", 4)
    sa = json.dumps({"type": "service_account", "project_id": "p", "private_key_id": rand(40, HEX),
                     "private_key": block + "\n", "client_email": "a@p.iam.gserviceaccount.com"})
    add(_case("gcp_service_account", sa, line))
    s = "shpat_" + rand(32, HEX)
    add(_case("shopify", f"X-Shopify-Access-Token: {s}", s[6:]))
    s = "sq0csp-" + rand(43, B64URL)
    add(_case("square_oauth_secret", f"square secret {s}", s[7:]))
    s = "EAAA" + rand(60, B64URL)
    add(_case("square_access_token", f"SQUARE_ACCESS_TOKEN={s}", s[4:]))
    s = rand(10, DIGITS) + ":AA" + rand(33, B64URL)
    add(_case("telegram_bot", f"bot = telebot.TeleBot(\"{s}\")", s[13:]))
    s = "dop_v1_" + rand(64, HEX)
    add(_case("digitalocean", f"doctl auth init -t {s}", s[7:]))
    s = rand(32, HEX)
    add(_case("datadog_api_key", f"DD_API_KEY={s}", s))
    k = rand(32, HEX)
    add(_case("sentry_dsn", f"sentry_sdk.init(dsn=\"https://{k}@o{rand(6, DIGITS)}.ingest.sentry.io/{rand(7, DIGITS)}\")",
              k))
    cred = base64.b64encode(f"admin:{word()}9".encode()).decode()
    add(_case("basic_auth_header", f"Authorization: Basic {cred}", cred))
    s = rand(40, B64URL)
    add(_case("bearer_token", f"curl -H \"Authorization: Bearer {s}\" https://api.x.io", s))
    s = str(uuid.UUID(int=RNG.getrandbits(128), version=4))
    add(_case("npmrc_auth_token", f"registry=https://npm.corp/\n//npm.corp/:_authToken={s}\nalways-auth=true", s))
    s = word() + "!" + rand(4, DIGITS)
    add(_case("pypirc_password", f"[pypi]\nusername = alice\npassword = {s}\n", s))
    cred = base64.b64encode(f"bob:{rand(20)}".encode()).decode()
    add(_case("docker_auths", json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": cred}}}), cred))
    pw = base64.b64encode(word().encode()).decode()
    add(_case("k8s_secret", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n"
              f"  username: YWRtaW4=\n  pw: {pw}\n", pw))
    s = "gsk_" + rand(52)
    add(_case("groq", f"GROQ_API_KEY={s}", s[4:]))
    s = "sk-or-v1-" + rand(64, HEX)
    add(_case("openrouter", f"openrouter key {s}", s[9:]))
    s = "dapi" + rand(32, HEX)
    add(_case("databricks", f"databricks token {s}", s[4:]))
    s = "ATATT3xFfGF0" + rand(170, B64URL) + "=" + rand(8, HEX.upper())
    add(_case("atlassian", f"jira token {s}", s[12:60]))
    s = "PMAK-" + rand(24, HEX) + "-" + rand(34, HEX)
    add(_case("postman", f"postman api key {s}", s[5:29]))
    s = "glsa_" + rand(32) + "_" + rand(8, HEX)
    add(_case("grafana", f"grafana service account {s}", s[5:37]))
    s = "NRAK-" + rand(27, UPPER + DIGITS)
    add(_case("newrelic", f"NEW_RELIC key {s}", s[5:]))
    s = "sbp_" + rand(40, HEX)
    add(_case("supabase", f"supabase login --token {s}", s[4:]))
    s = "lin_api_" + rand(40)
    add(_case("linear", f"linear api {s}", s[8:]))
    s = "ntn_" + rand(46)
    add(_case("notion", f"notion integration {s}", s[4:]))
    s = "dp.pt." + rand(43)
    add(_case("doppler", f"doppler token {s}", s[6:]))
    s = "pul-" + rand(40, HEX)
    add(_case("pulumi", f"pulumi token {s}", s[4:]))
    s = rand(14, LOWER + DIGITS) + ".atlasv1." + rand(67, B64URL)
    add(_case("terraform_cloud", f"terraform token {s}", s[23:]))
    s = "xai-" + rand(80)
    add(_case("xai", f"xai key {s}", s[4:]))
    s = rand(32, HEX) + "-us" + str(RNG.randint(1, 21))
    add(_case("mailchimp", f"mailchimp key {s}", s[:32]))
    g1, g2, h = str(uuid.UUID(int=RNG.getrandbits(128))), str(uuid.UUID(int=RNG.getrandbits(128))), rand(32, HEX)
    add(_case("teams_webhook", f"curl -d @card.json https://contoso.webhook.office.com/webhookb2/{g1}@{g2}/"
              f"IncomingWebhook/{h}/{g1}", h))
    s = rand(43, B64).replace("+", "%2B").replace("/", "%2F") + "%3D"  # base64, URL-encoded
    add(_case("azure_sas", f"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sp=r&sig={s}",
              s[:20]))
    s = rand(26, LOWER + DIGITS)
    add(_case("mattermost_webhook", f"MM_HOOK=https://chat.example.org/hooks/{s}", s))
    return cases


# Public identifiers that look random: none may be redacted.
def not_secrets(seed: int = 7) -> list[str]:
    RNG.seed(seed)
    sha = rand(40, HEX)
    return [
        f"commit {sha}",
        f"git checkout {sha[:7]} && git log {sha[:12]}",
        f"request id {uuid.UUID(int=RNG.getrandbits(128), version=4)}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(43, B64) + " user@host",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + rand(300, B64) + " me@laptop",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + rand(64, B64) + "\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE" + rand(64, B64) + "\n-----END CERTIFICATE-----",
        "program id TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
        "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL and 11111111111111111111111111111111",
        "declare_id!(\"" + "".join(RNG.choice("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
                                   for _ in range(44)) + "\");",
        "send to 0x" + rand(40, HEX) + " on mainnet",
        "tx 0x" + rand(64, HEX),
        "bc1q" + rand(38, LOWER + DIGITS),
        "image sha256:" + rand(64, HEX),
        '"integrity": "sha512-' + rand(86, B64) + '=="',
        "golang.org/x/text v0.3.7 h1:" + rand(43, B64) + "=",
        "requests==2.31.0 --hash=sha256:" + rand(64, HEX),
        '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA' + rand(200, B64) + '==">',
        "https://files.pythonhosted.org/packages/" + rand(2, HEX) + "/" + rand(2, HEX) + "/" + rand(60, HEX)
        + "/requests-2.31.0-py3-none-any.whl",
        "resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#" + rand(40, HEX) + "\"",
        "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",
        f"\"version\": \"{sha}\"",
        "Merge pull request #42 from owner/branch " + sha,
        "[[package]]\nname = \"x\"\nchecksum = \"" + rand(64, HEX) + "\"",
        "password = request.POST['password']",
        "api_key = os.environ[\"API_KEY\"]",
        "token = os.getenv('TOKEN')",
        "PASSWORD=${DB_PASSWORD}",
        "PASSWORD=$DB_PASSWORD",
        "password: <your-password>",
        "SECRET_KEY=changeme",
        "password=None",
        "DB_PASSWORD=",
        "login(user, password=password)",
        "client = Client(api_key=api_key, timeout=5)",
    ]
