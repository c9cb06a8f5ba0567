"""The optional LLM: any OpenAI-compatible endpoint through the `openai` client.

It improves prose (abstractive summaries, facts, gists, a polish of the compaction document);
it is never required. Every answer is validated: malformed output is rejected, and the
identifiers, paths, markers and todos that the deterministic engine found and the LLM dropped
are put back. Timeouts, rate limits, server errors and garbage make each call return `None`
with a notice, and the caller takes the offline path.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any

from compaction import tokens as tok
from compaction.summarize import extractive, required_facts

if TYPE_CHECKING:  # pragma: no cover
    from compaction.config import LLMSettings

RESTORED_HEADING = "Kept facts (restored after the LLM dropped them):"


class LLMFailure(Exception):
    """One failed call (timeout, rate limit, server error, malformed output), with a short reason."""


def _strip_fences(s: str) -> str:
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

    @staticmethod
    def _notice(what: str, reason: str) -> str:
        return f"LLM {what} failed ({reason}); used the offline result"

    def _json(self, system: str, user: str, max_tokens: int | None = None) -> Any:
        raw = self.chat(system, user, max_tokens)
        try:
            return json.loads(_strip_fences(raw))
        except json.JSONDecodeError:
            self.failures += 1
            raise LLMFailure("malformed JSON") from None

    # -- tasks

    def summarize(self, text: str, target_tokens: int, query: str | None = None) -> tuple[str | None, str | None]:
        """Abstractive summary within `target_tokens`; facts the offline extract keeps are put back."""
        focus = f" Focus on: {query}." if query else ""
        try:
            out = self.chat(
                "You compress text for a coding assistant's context. Keep file paths, identifiers, error names, "
                "commands, numbers, decisions and todos verbatim. Reply with the summary only.",
                f"Summarize in at most {max(1, int(target_tokens * 0.8))} tokens.{focus}\n\nText:\n{text}",
                max_tokens=max(16, target_tokens),
            )
        except LLMFailure as exc:
            return None, self._notice("summary", str(exc))
        out = _strip_fences(out)
        offline = extractive(text, target_tokens, query).text
        out, missing = restore_facts(out, required_facts(offline))
        if tok.count(out) > target_tokens:
            out = extractive(out, target_tokens, query).text
        notice = f"LLM summary: {len(missing)} dropped facts restored" if missing else None
        return out, notice

    def extract_facts(self, text: str) -> tuple[dict[str, str] | None, str | None]:
        """Key-value facts as a JSON object of strings (non-scalar values are rejected)."""
        try:
            data = self._json("Extract atomic key facts. Use short snake_case keys such as file_modified, error, "
                              "command, decision. Reply with one JSON object of string values only.",
                              f"Text:\n{text[:60000]}")
        except LLMFailure as exc:
            return None, self._notice("fact extraction", str(exc))
        if not isinstance(data, dict) or not data:
            return None, self._notice("fact extraction", "expected a JSON object")
        facts = {str(k): str(v) for k, v in data.items() if isinstance(v, str | int | float | bool) and str(v).strip()}
        if not facts:
            return None, self._notice("fact extraction", "no scalar facts")
        return facts, None

    def gists(self, text: str, n: int = 10, min_words: int = 2, max_words: int = 5
              ) -> tuple[list[str] | None, str | None]:
        """Exactly-`n` key phrases of min..max words; phrases of the wrong length are discarded."""
        try:
            data = self._json(f"Compress the text into exactly {n} key phrases of {min_words}-{max_words} words each "
                              "that capture the essential information. Reply with a JSON array of strings.",
                              f"Text:\n{text[:60000]}")
        except LLMFailure as exc:
            return None, self._notice("gists", str(exc))
        if not isinstance(data, list):
            return None, self._notice("gists", "expected a JSON array")
        ok = [p.strip() for p in data if isinstance(p, str) and min_words <= len(p.split()) <= max_words]
        if len(ok) < max(1, min(n, len(data)) // 2):
            return None, self._notice("gists", "phrases of the wrong shape")
        return ok[:n], None

    def score_sentences(self, sentences: list[str]) -> tuple[list[float] | None, str | None]:
        """Importance 0..1 per sentence (selective distillation)."""
        listing = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(sentences))
        try:
            data = self._json("Rate the importance of each sentence for continuing the coding task on a scale of "
                              "0-1. Reply with a JSON array of numbers, one per sentence.", listing)
        except LLMFailure as exc:
            return None, self._notice("sentence scoring", str(exc))
        if (not isinstance(data, list) or len(data) != len(sentences)
                or not all(isinstance(x, int | float) and 0 <= x <= 1 for x in data)):
            return None, self._notice("sentence scoring", "expected one number in 0..1 per sentence")
        return [float(x) for x in data], None

    def polish(self, markdown: str) -> tuple[str, str | None]:
        """Polish a compaction document's prose; every identifier, path, marker and todo line stays."""
        try:
            out = self.chat("Improve the wording of this Markdown compaction document for a coding assistant. "
                            "Keep every heading, file path, identifier, error id, command, marker (@important, "
                            "@decision, @warning, @todo) and todo item verbatim. Reply with the document only.",
                            markdown)
        except LLMFailure as exc:
            return markdown, self._notice("polish", str(exc))
        out = _strip_fences(out)
        headings = [ln for ln in markdown.splitlines() if ln.startswith("#")]
        if sum(1 for h in headings if h in out) < len(headings) / 2:
            return markdown, self._notice("polish", "document structure lost")
        out, missing = restore_facts(out, required_facts(markdown))
        return out, (f"LLM polish: {len(missing)} dropped facts restored" if missing else None)
