"""The optional LLM: any OpenAI-compatible endpoint through the `openai` client.

It improves prose (abstractive summaries, facts, gists, a polish of the compaction document);
it is never required. Every answer is validated: malformed output is rejected, and the
identifiers, paths, markers and todos that the deterministic engine found and the LLM dropped
are put back. Timeouts, rate limits, server errors and garbage make each call return `None`
with a notice, and the caller takes the offline path.

The client is a plain-text transport (`complete(prompt) -> str`, `complete_json`): the tasks that
validate an answer against the offline engine (summary, polish, sentence scores) live with that
engine in `compaction.summarize`, so this module imports nothing above the tokenizer.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from compaction.config import LLMSettings

RESTORED_HEADING = "Kept facts (restored after the LLM dropped them):"


class LLMFailure(Exception):
    """One failed call (timeout, rate limit, server error, malformed output), with a short reason."""


class TextModel(Protocol):
    """What the offline engine needs of a language model: text in, text out (raises LLMFailure)."""

    def complete(self, prompt: str, *, system: str = "", max_tokens: int | None = None) -> str: ...

    def complete_json(self, prompt: str, *, system: str = "", max_tokens: int | None = None) -> Any: ...


def failure_notice(what: str, reason: str) -> str:
    return f"LLM {what} failed ({reason}); used the offline result"


def strip_fences(s: str) -> str:
    """The answer without the ```-fence a model often wraps it in."""
    s = s.strip()
    m = re.match(r"^```[\w-]*\n(.*)\n```$", s, re.S)
    return m.group(1).strip() if m else s


def restore_facts(output: str, required: list[str]) -> tuple[str, list[str]]:
    """Append the required facts missing from `output`; returns (text, missing)."""
    missing = [f for f in required if f and f not in output]
    if not missing:
        return output, []
    lines = [f"- {f}" if not f.lstrip().startswith(("-", "*")) else f for f in missing]
    return output.rstrip() + "\n\n" + RESTORED_HEADING + "\n" + "\n".join(lines), missing


class LLMClient:
    """A thin, validated wrapper over `openai.OpenAI(base_url=..., api_key=$ENV)`."""

    def __init__(self, base_url: str | None, model: str = "gpt-4o-mini", api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 20.0, max_retries: int = 1) -> None:
        import openai

        from compaction.trust import check_api_key_env

        check_api_key_env(api_key_env)  # also here: a caller that builds a client without Settings
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        key = os.environ.get(api_key_env) or "not-set"  # local servers often need none
        self.client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout_s, max_retries=max_retries)
        self.calls = 0
        self.failures = 0

    @classmethod
    def from_settings(cls, settings: LLMSettings | None) -> LLMClient | None:
        """None unless the LLM is enabled in the settings."""
        if settings is None or not settings.enabled:
            return None
        return cls(settings.base_url, settings.model, settings.api_key_env, settings.timeout_s, settings.max_retries)

    def complete(self, prompt: str, *, system: str = "", max_tokens: int | None = None) -> str:
        """The model's text for `prompt` (with an optional system instruction)."""
        return self.chat(system, prompt, max_tokens)

    def complete_json(self, prompt: str, *, system: str = "", max_tokens: int | None = None) -> Any:
        """The model's answer parsed as JSON (fences allowed); LLMFailure when it is not JSON."""
        raw = self.complete(prompt, system=system, max_tokens=max_tokens)
        try:
            return json.loads(strip_fences(raw))
        except json.JSONDecodeError:
            self.failures += 1
            raise LLMFailure("malformed JSON") from None

    def chat(self, system: str, user: str, max_tokens: int | None = None) -> str:
        """One chat completion; raises LLMFailure with a short reason on any failure."""
        import openai

        self.calls += 1
        try:
            resp = self.client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                max_tokens=max_tokens,
                temperature=0,
            )
            content = resp.choices[0].message.content if resp.choices else None
        except openai.APITimeoutError:
            self.failures += 1
            raise LLMFailure(f"timeout after {self.timeout_s:g}s") from None
        except openai.RateLimitError:
            self.failures += 1
            raise LLMFailure("rate limited (429)") from None
        except openai.APIStatusError as exc:
            self.failures += 1
            raise LLMFailure(f"server error ({exc.status_code})") from None
        except openai.APIConnectionError:
            self.failures += 1
            raise LLMFailure(f"cannot connect to {self.base_url}") from None
        except (openai.OpenAIError, ValueError, AttributeError, IndexError, TypeError) as exc:
            self.failures += 1
            raise LLMFailure(f"malformed response ({type(exc).__name__})") from None
        if not isinstance(content, str) or not content.strip():
            self.failures += 1
            raise LLMFailure("empty response")
        return content

    # -- tasks that need no offline engine to validate them (the others: compaction.summarize)

    def extract_facts(self, text: str) -> tuple[dict[str, str] | None, str | None]:
        """Key-value facts as a JSON object of strings (non-scalar values are rejected)."""
        try:
            data = self.complete_json(f"Text:\n{text[:60000]}", system=(
                "Extract atomic key facts. Use short snake_case keys such as file_modified, error, "
                "command, decision. Reply with one JSON object of string values only."))
        except LLMFailure as exc:
            return None, failure_notice("fact extraction", str(exc))
        if not isinstance(data, dict) or not data:
            return None, failure_notice("fact extraction", "expected a JSON object")
        facts = {str(k): str(v) for k, v in data.items() if isinstance(v, str | int | float | bool) and str(v).strip()}
        if not facts:
            return None, failure_notice("fact extraction", "no scalar facts")
        return facts, None

    def gists(self, text: str, n: int = 10, min_words: int = 2, max_words: int = 5
              ) -> tuple[list[str] | None, str | None]:
        """Exactly-`n` key phrases of min..max words; phrases of the wrong length are discarded."""
        try:
            data = self.complete_json(f"Text:\n{text[:60000]}", system=(
                f"Compress the text into exactly {n} key phrases of {min_words}-{max_words} words each "
                "that capture the essential information. Reply with a JSON array of strings."))
        except LLMFailure as exc:
            return None, failure_notice("gists", str(exc))
        if not isinstance(data, list):
            return None, failure_notice("gists", "expected a JSON array")
        ok = [p.strip() for p in data if isinstance(p, str) and min_words <= len(p.split()) <= max_words]
        if len(ok) < max(1, min(n, len(data)) // 2):
            return None, failure_notice("gists", "phrases of the wrong shape")
        return ok[:n], None
