"""Settings the harness saved for the user during the session: an approval rule, an allowed command
prefix, a permission granted "always". The harness says so in a message of its own
("Approved command prefix saved:" then the rule), never as a file edit, yet it changed the user's
configuration as surely as an edit would, and a successor asked "what was changed" must know it
(the same command will now run without asking).

Why inferred from the message's first line rather than a table of harnesses: any harness announcing
that something of the user's permissions or settings was saved, added or granted says it in a short
line, with the items after it.
"""

from __future__ import annotations

import json
import re

from compaction.history.facts import Fact, cite
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role

# "Approved command prefix saved:", "Permission rule added", "Allowed tool stored for this project".
_SAVED_RE = re.compile(
    r"^(?=[^\n]{0,80}\b(?:approv\w*|allow\w*|permission\w*|rules?|prefix\w*|settings?|config\w*|trust\w*)\b)"
    r"(?P<what>[^\n]{3,80}?\b(?:saved|added|stored|remembered|granted|persisted)\b[^\n]{0,40}?)\s*:?\s*$",
    re.IGNORECASE)
_VERBS = ("saved", "added", "stored", "remembered", "granted", "persisted")
_MAX_ITEMS = 6
_ITEM_CHARS = 90
_PATH_RE = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][^\\/\s\"']+){3,}")


@fact_source(Section.CHANGES)
def saved_setting_facts(ctx: FactContext) -> list[Fact]:
    """One fact per kind of setting saved (`approved command prefix`), its items and rounds."""
    found: dict[str, list[tuple[int, str]]] = {}
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is Role.USER or msg.role is Role.ASSISTANT and not msg.harness:
                continue
            head = msg.text[:120].casefold()
            if not any(head.find(v) >= 0 for v in _VERBS):  # prefilter: most messages say none
                continue
            first, _, rest = msg.text.partition("\n")
            m = _SAVED_RE.match(first.strip())
            if not m:
                continue
            what = m.group("what").strip().rstrip(":")
            items = [_item(ln) for ln in rest.splitlines()[:20] if ln.strip()]
            bucket = found.setdefault(what, [])
            for item in items or [""]:
                if (rnd.number, item) not in bucket:
                    bucket.append((rnd.number, item))
    facts = []
    for what, entries in found.items():
        rounds = [r for r, _ in entries]
        items = list(dict.fromkeys(i for _, i in entries if i))
        head = f"{what} (the user's harness settings)"
        # The one line names the first rule; the full text, when there is room, every rule.
        text = head + (f": `{items[0]}`" + (f" (+{len(items) - 1})" if len(items) > 1 else "") if items else "")
        shown = "; ".join(f"`{i}`" for i in items[:_MAX_ITEMS])
        more = f" (+{len(items) - _MAX_ITEMS})" if len(items) > _MAX_ITEMS else ""
        full = f"{head}: {shown}{more} {cite(rounds)}" if len(items) > 1 else None
        facts.append(Fact(Section.CHANGES, f"{text} {cite(rounds)}", rounds, score=40, full_text=full))
    return facts


def _item(line: str) -> str:
    """A saved rule as a command line: a JSON list of words joined (`["pwsh.exe", "-Command", "ls"]`),
    long paths cut to their last part (`…\\SKILL_ROUTER.md`)."""
    text = line.strip().removeprefix("- ").strip()
    if text.startswith("["):
        try:
            words = json.loads(text)
        except ValueError:
            words = None
        if isinstance(words, list) and words and all(isinstance(w, str) for w in words):
            program = re.split(r"[\\/]", words[0])[-1]  # the program by its name, not its install path
            text = " ".join([program, *words[1:]])
    text = _PATH_RE.sub(lambda m: "…" + m.group(0)[max(m.group(0).rfind("\\"), m.group(0).rfind("/")):], text)
    text = text.replace("`", "'")
    return text if len(text) <= _ITEM_CHARS else text[:_ITEM_CHARS].rsplit(" ", 1)[0] + " …"
