"""The model configurations a session went through: each model the harness announced (a run's
`Model: x`, a `/model` switch, an assistant message's model), the provider errors it met before the
next one (`LLM Provider NOT provided`, `not a valid model ID`, missing credentials, 404, 429), and the
one finally used. Why a decision: the user's switch after a failure is one (the successor must not
set the failed configurations up again), and the error lines alone name neither the model nor the
switch.
"""

from __future__ import annotations

import re

from compaction.history.facts import Fact, cite
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import escape_path
from compaction.model import Role

ERROR_CHARS = 60  # one provider error, as said
MAX_ERRORS = 3  # distinct errors shown per model
_ERROR_LINE_RE = re.compile(r"^[> ]*(?:[\w.]+\.)?(\w*(?:Error|Exception))\b[:\s-]*(.*)$", re.MULTILINE)
_MESSAGE_RE = re.compile(r"""["']message["']\s*:\s*["']((?:[^"'\\]|\\.){4,})""")
_CODE_RE = re.compile(r"""["']code["']\s*:\s*(\d{3})""")
_NOISE_RE = re.compile(r"^(?:litellm\.)?\w*(?:Error|Exception)\s*[:-]?\s*|\b\w+Exception\s*(?:\w+Error)?\s*-\s*")


@fact_source(Section.DECISIONS)
def model_facts(ctx: FactContext) -> list[Fact]:
    """One line when the session changed models after a failure; nothing otherwise."""
    periods: list[tuple[str, int, list[tuple[int, str]]]] = []  # (model, first round, errors)
    replied = False  # the current model answered: later errors (a rate limit mid-work) are not its setup's
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            model = msg.meta.get("model")
            if isinstance(model, str) and model[:1].isalnum() and (not periods or periods[-1][0] != model):
                periods.append((model, rnd.number, []))
                replied = False
            if msg.role is Role.ASSISTANT and msg.text.strip():
                replied = True
            elif periods and not replied and msg.harness and not msg.tool_results and msg.role is not Role.USER:
                said = _provider_error(msg.text)
                if said and said not in [s for _, s in periods[-1][2]]:
                    periods[-1][2].append((rnd.number, said))
    if len(periods) < 2 or not any(errs for _, _, errs in periods[:-1]):
        return []
    parts: list[str] = []
    rounds: list[int] = []
    for model, first, errs in periods[:-1]:
        if not errs:  # tried without a recorded failure: the line is about what failed
            continue
        rounds += [first] + [r for r, _ in errs]
        shown = "; ".join(s for _, s in errs[:MAX_ERRORS])
        parts.append(f"`{escape_path(model)}` failed: {shown}")
    final, first, errs = periods[-1]
    rounds.append(first)
    last = f"finally `{escape_path(final)}` (from r{first} on" + (f"; errors met: {'; '.join(s for _, s in errs[:2])}" if errs else "") + ")"
    text = "Models: " + " → ".join(parts + [last])
    return [Fact(Section.DECISIONS, f"{text} {cite(sorted(set(rounds)))}", sorted(set(rounds)), score=60)]


def _provider_error(text: str) -> str:
    """A harness line's model or provider error in a few words (its JSON `message` and `code`
    when it has one), or "" when the text holds no error line."""
    if "rror" not in text and "xception" not in text:
        return ""
    lines = list(_ERROR_LINE_RE.finditer(text))
    if not lines:
        return ""
    m = lines[-1] if text.lstrip("> ").startswith("Traceback") else lines[0]  # a traceback ends with its error
    line = m.group(0).strip("> ").strip()
    said = _MESSAGE_RE.search(line)
    code = _CODE_RE.search(line)
    body = said.group(1) if said else line
    for _ in range(3):  # `litellm.X: VertexAIException InternalServerError - ` says only where it came from
        body = _NOISE_RE.sub("", body, count=1)
    body = re.split(r"(?<=\.)\s", body.replace("\\n", " ").replace("`", "'").strip(), maxsplit=1)[0]
    if not body:
        body = m.group(1)
    if code and code.group(1) not in body:
        body = f"{code.group(1)} {body}"
    if len(body) <= ERROR_CHARS:
        return body
    head = ERROR_CHARS * 3 // 5  # a long line's head and its end (`… not found.`): the end says what went wrong
    return body[:head].rstrip() + "… " + body[-(ERROR_CHARS - head - 2):].lstrip()
