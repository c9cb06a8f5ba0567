"""Who may set what: the user's own configuration versus a workspace's `.compaction/config.json`.

A repository can ship `.compaction/config.json`, so a workspace file is untrusted. Settings that
send data elsewhere or widen what the tools read (the LLM switch, endpoint and key variable, the
MCP server's workspace, read roots, consent to shipped memory) are taken only from the user's
config file, command-line flags and the editor's *user* settings. A workspace file that sets one
is reported once and those keys are dropped; the rest of it still applies.

Standard library only, so `compaction.config` (at the bottom of the dependency order) can import it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

USER_CONFIG_NAME = ("compaction", "config.json")

# Dotted paths (camelCase, as in the JSON files) that only the user may set. The snake_case
# spelling of each is refused too, since the config model accepts both.
USER_ONLY_KEYS: tuple[str, ...] = (
    "llm.enabled",
    "llm.polish",
    "llm.baseUrl",
    "llm.apiKeyEnv",
    "mcp.workspace",
    "allowRead",
    "readRoots",
    "trustShippedMemory",
    "redactSecrets",  # a cloned repository must not turn redaction off for the user's own transcripts
)

# The only environment variables the LLM client may read its key from, in any layer: a name such
# as GITHUB_TOKEN or AWS_SECRET_ACCESS_KEY would send that secret as a bearer token.
ALLOWED_API_KEY_ENVS: frozenset[str] = frozenset({
    "OPENAI_API_KEY",
    "COMPACTION_LLM_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "TOGETHER_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
})


def check_api_key_env(name: str) -> str:
    """`name` if it is an allowed key variable; ValueError (naming the allowed ones) otherwise."""
    if name not in ALLOWED_API_KEY_ENVS:
        raise ValueError(f"{name!r} is not an LLM API key variable this tool may read; "
                         f"allowed: {', '.join(sorted(ALLOWED_API_KEY_ENVS))}")
    return name


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/compaction/config.json`, default `~/.config/compaction/config.json`."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path(env.get("HOME") or Path.home()) / ".config"
    return root.joinpath(*USER_CONFIG_NAME)


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _spellings(dotted: str) -> list[tuple[str, ...]]:
    parts = dotted.split(".")
    out = {tuple(parts), tuple(_snake(p) for p in parts)}
    return sorted(out)


def strip_user_only(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`data` without the user-only keys (a copy where needed) and the dotted names removed."""
    out = dict(data)
    refused: list[str] = []
    for dotted in USER_ONLY_KEYS:
        for path in _spellings(dotted):
            parent: Any = out
            chain = []
            for key in path[:-1]:
                node = parent.get(key) if isinstance(parent, dict) else None
                if not isinstance(node, dict):
                    parent = None
                    break
                node = dict(node)  # copy on the way down: the caller's dict is never changed
                parent[key] = node
                chain.append(node)
                parent = node
            if isinstance(parent, dict) and path[-1] in parent:
                del parent[path[-1]]
                refused.append(".".join(path))
    return out, refused


Reporter = Callable[[str], None]
_reported: set[str] = set()


def report_once(message: str, report: Reporter | None = None) -> None:
    """Give `message` to `report` (default: a stderr line) once per process, control characters
    escaped (it names workspace paths, which may hold newlines or terminal escapes)."""
    message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    if message in _reported:
        return
    _reported.add(message)
    if report is None:
        print(f"compaction: warning: {message}", file=sys.stderr)
    else:
        report(message)


def refusal_message(source: str | Path, refused: list[str]) -> str:
    return (f"{source}: ignored {', '.join(refused)}: a workspace may not set these (they send data "
            f"elsewhere or widen access); set them in {user_config_path()}, a command-line flag or "
            f"the editor's user settings")
