"""Project rules the agent read and must follow: instruction files (AGENTS.md, CLAUDE.md, a skill's
SKILL.md, .cursor/rules…) read by a tool or pasted into the conversation, and the work rules of a
harness's task message — their key rules in a few lines, as context (not decisions).

Why: a successor that does not know "do not modify tests" or "targeted search only" breaks them. A
document is recognised by its name or by its shape (imperative bullet rules: must/never/always/do
not); its rules are its list items and modal sentences, grouped under their headings. Rules about
how to talk to the harness (one code block per reply, a THOUGHT section) are not the project's and
are left out.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from compaction.events import count_matches
from compaction.history import project_root
from compaction.history.facts import WS_RE, Fact, split_task, without_tags
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.literal_heads import holds
from compaction.model import Role
from compaction.shell import blank_quotes

# Names agents give their instruction files (the content check below finds the others).
_NAME_RE = re.compile(r"(?:^|[/\\\s\"'])(AGENTS|CLAUDE|GEMINI|CONVENTIONS|SKILL|QWEN|CRUSH)\.md\b|\.cursorrules\b|"
                      r"\.windsurfrules\b|\.clinerules\b|copilot-instructions\.md\b|\.cursor[/\\]rules\b",
                      re.IGNORECASE)
_MODAL_RE = re.compile(r"\b(?:must|never|always|do not|don't|should|only|avoid|prefer|required?|ensure|make sure)\b",
                       re.IGNORECASE)
_ITEM_RE = re.compile(r"^(\s*)(?:[-*•]|\d+[.)])\s+(.*)$")
_HEADING_RE = re.compile(r"^\s*+(?:#{1,6}\s++(.*\S)|\*\*([^*]{2,60}?):?\*\*:?)\s*$")  # no lazy title: linear
_FENCE_RE = re.compile(r"^\s*(```|~~~)")


def _may_name(text: str) -> bool:
    """Whether `_NAME_RE` may match: every name it knows holds `.md` or `rule` in any case (letters with
    no Unicode case fold beyond their capitals), so a text lacking both names none; the pattern, which
    opens with a branch and ignores case, is tried at every position."""
    low = text.lower()
    return ".md" in low or "rule" in low
_EXAMPLE_RE = re.compile(r"<(\w*example\w*)>.*?</\1>", re.DOTALL | re.IGNORECASE)
# Rules about the exchange with the harness itself, not about the work.
_PROTOCOL_RE = re.compile(r"\b(?:your response|each response|one response|responses? (?:should|must)|"
                          r"(?:code|bash|separate) blocks?|"
                          r"THOUGHT|one (?:\w+ )?command|single command|format your)\b", re.IGNORECASE)
# Lower-cased, one of which every match of the pattern holds: an ASCII line (its case folds within ASCII)
# holding none is passed over by substring checks, most lines of a document hold none.
_PROTOCOL_WORDS = ("response", "block", "thought", "command", "format your")
# In a harness's own notice (Cline's "[ERROR] You did not use a tool…" reminder), how to use its tools is
# protocol too; a project's document may make its own rules of tools ("all tool calls go through X").
_TOOL_USE_RE = re.compile(r"\btool (?:use|call)s?\b|\buse the [a-z0-9]+(?:_[a-z0-9]+)+ tool\b", re.IGNORECASE)
_MODAL_WORDS = ("must", "never", "always", "do not", "don't", "should", "only", "avoid", "prefer", "require", "ensure",
                "make sure")
_TASK = "Task instructions"
_DOC_SUFFIX_RE = re.compile(r"(?:\.md|\.mdc|\.txt|/[^./]+)$", re.IGNORECASE)  # prose files, or no suffix
# A project's instruction document the client injects (its opening line says instructions/rules/…, and it
# has sections): what its sections say besides their rules (the project's overview, goal, architecture),
# one line per section, as context; harness boilerplate has no such opening or no sections.
_INSTRUCTIONS_RE = re.compile(r"\b(?:instructions|rules|guidelines|conventions)\b", re.IGNORECASE)
_SECTION_RE = re.compile(r"^#{2,4} ++(.*\S)\s*$", re.MULTILINE)
MAX_PROJECT_SECTIONS = 10
CONTEXT_ROUNDS = 3  # an instruction document injected before or with the first requests
_MIN_RULES = 3  # a document with fewer rule lines is not an instruction file
_MAX_DOC_CHARS = 60_000  # bounded work: longer reads are not instruction files
FULL_ROOM = 2.0  # characters per budget token the full digests may take together (about half the budget)


def is_instructions(text: str, named: bool = False) -> bool:
    """Instruction-shaped: named like an instruction file, or several imperative rule items and a
    good share of its prose lines modal."""
    return _parsed(text, named) is not None


def _parsed(text: str, named: bool = False, notice: bool = False) -> list[tuple[str, int, str]] | None:
    """The document's rule lines when it is instruction-shaped, else None. One pass of one regex
    first: most texts (tool outputs, logs) leave here without being split into lines. `notice`: a
    harness's message that names no document (`_TOOL_USE_RE`)."""
    if count_matches(_MODAL_RE, text[:5_000]) < (1 if named else 3):
        return None
    rules = _rule_lines(text, notice)
    if named:
        return rules if len(rules) >= 2 else None
    lines = sum(1 for ln in text.splitlines() if ln.strip())
    modal = sum(1 for _, _, rule in rules if _MODAL_RE.search(rule))
    return rules if len(rules) >= _MIN_RULES and modal >= 3 and modal * 6 >= lines else None


def _rule_lines(text: str, notice: bool = False) -> list[tuple[str, int, str]]:
    """(heading, indent, rule) of a document's rules: its list items and modal sentences outside
    code and examples, harness-protocol rules left out."""
    text = without_tags(_EXAMPLE_RE.sub("", text))
    out: list[tuple[str, int, str]] = []
    heading = ""
    fenced = False
    value = ""  # the address a line of no rule of this section gave ("**Submit here**: https://…")
    for raw in text.splitlines():
        if _FENCE_RE.match(raw):
            fenced = not fenced
            continue
        if fenced or raw.lstrip().startswith("|"):
            continue
        line = raw.rstrip()
        if not line.strip():
            continue
        hm = _HEADING_RE.match(line)
        if hm:
            heading = (hm.group(1) or hm.group(2) or "").strip(" #*:")
            value = ""
            continue
        im = _ITEM_RE.match(line)
        body = (im.group(2) if im else line).strip().strip("*").strip()
        if len(body) < 2 or holds(_PROTOCOL_RE, _PROTOCOL_WORDS, body) or (notice and _TOOL_USE_RE.search(body)):
            continue
        if im or holds(_MODAL_RE, _MODAL_WORDS, body):
            if value and "://" not in body and _POINTS_BACK_RE.search(body):
                body = f"{body.rstrip('.')} ({value})"  # "Always show this link…": the rule without it says nothing
            out.append((heading, len(im.group(1)) if im else 0, body))
            value = ""
        else:  # the line just before a rule gives its address: one, outside code (a command's URL is no link)
            found = _ADDRESS_RE.findall(_CODE_SPAN_RE.sub("", body)) if "://" in body else []
            value = found[0] if len(found) == 1 else ""
    return out


# A rule that points at a value given apart ("Always show this link to the user"), and that value: an address
_POINTS_BACK_RE = re.compile(r"\b(?:this|that|the above) (?:link|url|address|form)\b", re.IGNORECASE)
_CODE_SPAN_RE = re.compile(r"`[^`\n]*`")
_ADDRESS_RE = re.compile(r"\b[a-z][a-z+.-]*://[^\s<>()`'\"]+[^\s<>()`'\".,;:]")


_STRONG_RE = re.compile(r"\b(?:must|never|always|do not|don't|only|required?|MODIFY)\b", re.IGNORECASE)


def _strength(rule: str) -> int:
    """How binding a rule reads: must/never/do not over should/prefer over a plain list item."""
    return 2 if _STRONG_RE.search(rule) else 1 if _MODAL_RE.search(rule) else 0


class Digest:
    """A document's rules folded once (nested items into their parent, with how binding each reads),
    rendered at any size."""

    def __init__(self, lines: list[tuple[str, int, str]]) -> None:
        self.rules: list[tuple[str, str]] = []  # (heading, rule)
        for heading, indent, rule in lines:
            rule = " ".join(rule.split()).rstrip(".;")
            if indent and self.rules and self.rules[-1][0] == heading:
                parent = self.rules[-1][1]
                self.rules[-1] = (heading, parent + (" " if parent.endswith(":") else ", ") + rule)
            else:
                self.rules.append((heading, rule))
        self.strength = [_strength(rule) for _, rule in self.rules]
        self.order = sorted(range(len(self.rules)), key=lambda i: (-self.strength[i], i))

    def render(self, limit: int | None = None, min_strength: int = 0) -> str:
        """`Heading: rule; rule` one line per heading; within `limit` characters the most binding
        rules are kept (must/never before should before plain items), whole, in the document's order."""
        keep = set(range(len(self.rules)))
        if limit is not None:
            keep, size, headings = set(), 0, set()
            for i in self.order:
                heading, rule = self.rules[i]
                if self.strength[i] < min_strength:
                    break
                cost = len(rule) + 2 + (len(heading) + 3 if heading not in headings else 0)
                if size + cost <= limit:
                    keep.add(i)
                    headings.add(heading)
                    size += cost
        out: list[tuple[str, list[str]]] = []
        for i in sorted(keep):
            heading, rule = self.rules[i]
            if not out or out[-1][0] != heading:
                out.append((heading, []))
            out[-1][1].append(rule)
        return "\n".join(f"{hd}: " + "; ".join(items) if hd else "; ".join(items) for hd, items in out)


def digest(text: str, limit: int | None = None, min_strength: int = 0) -> str:
    """The rules of a text grouped under their headings (see `Digest.render`)."""
    return Digest(_rule_lines(text)).render(limit, min_strength)


Rules = list[tuple[str, int, str]]


def _documents(ctx: FactContext) -> list[tuple[str, int, Rules, bool]]:
    """(name, round, rule lines, whether its sections are context lines too) of each instruction
    document the agent was given or read; a text seen before (a file read twice) is not parsed again."""
    docs: list[tuple[str, int, Rules, bool]] = []
    seen: set[int] = set()

    def add(name: str, rnd: int, text: str, named: bool, context: bool = False, notice: bool = False) -> None:
        key = hash(text)
        if key in seen:
            return
        seen.add(key)
        rules = _parsed(text, named, notice)
        if rules:
            docs.append((name, rnd, rules, context))

    first_user = True
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is Role.USER and msg.text:
                if first_user and not msg.harness:
                    first_user = False
                    boilerplate = split_task(msg.text)[1]
                    if boilerplate:
                        add(_TASK, rnd.number, boilerplate, True)
                    continue
                opening = msg.text[:300]
                named = _NAME_RE.search(opening) if _may_name(opening) else None
                if (msg.harness or named) and len(msg.text) <= _MAX_DOC_CHARS:
                    add(_name(named.group(0)) if named else "Instructions given", rnd.number, msg.text, bool(named),
                        msg.harness and rnd.number <= CONTEXT_ROUNDS
                        and 0 < len(_context_sections(msg.text)) <= MAX_PROJECT_SECTIONS,  # every section told
                        notice=msg.harness and not named)
            for call in msg.tool_calls:
                where = (call.path or call.command or "")[:400]
                named = _NAME_RE.search(where) if (".md" in where or "rules" in where.lower()) else None
                if not named and not (call.kind == "read" and call.path and _DOC_SUFFIX_RE.search(call.path)):
                    continue
                if _foreign(where, ctx.cwd):
                    continue  # another checkout's or a download's instructions: read as material, not the rules here
                output = ctx.output_of(rnd, call, _MAX_DOC_CHARS)
                if output is not None:
                    add(_name(named.group(0)) if named else PurePath(call.path or "file").name, rnd.number,
                        output, bool(named))
    return docs


_ABSOLUTE_RE = re.compile(r"(?<![\w.~>,-])(?:/|~/|[A-Za-z]:[\\/])[\w.~-][^\s'\"`;|&>]*")
_SCRATCH_ROOTS = ("/tmp/", "/var/tmp/", "/private/tmp/")
_REDIRECT_TARGET_RE = re.compile(r"\d?>>?\s*\S+")
_PATTERN_CHARS_RE = re.compile(r"[\^$*,]")  # a sed address or a regex, not a path (`/Usage/,/^$/p`)


def _foreign(where: str, cwd: str | None) -> bool:
    """Whether an instruction file a call read lies outside the project, its parent folders and any
    agent's own settings (a hidden folder such as `~/.claude/skills`, `.agents`): a clone in /tmp, a
    sibling checkout (pi's `find ../pi-skills -name SKILL.md -exec cat`) holds another project's rules,
    read as material. Only the paths the call reads count (not `/dev/null`, not where it sends output)."""
    plain = _REDIRECT_TARGET_RE.sub(" ", blank_quotes(where))  # a quoted word is a pattern (`'/## Usage/,/^$/p'`)
    paths = [m.group(0).replace("\\", "/") for m in _ABSOLUTE_RE.finditer(plain)]
    paths = [p for p in paths if not p.startswith("/dev/") and not _PATTERN_CHARS_RE.search(p)]
    if not paths:
        return False  # a relative path: inside the project
    for path in paths:
        if path.startswith(_SCRATCH_ROOTS):
            continue
        here = path.rstrip("/")
        folder = here.rsplit("/", 1)[0] if "." in here.rsplit("/", 1)[-1] else here  # a file's folder, or the folder
        if "/." in path or not cwd or project_root.on_path(folder, cwd):  # the project, or a folder above it
            return False
    return True


def _name(match: str) -> str:
    return match.strip(" /\\\"'")


@fact_source(Section.RULES)
def rule_facts(ctx: FactContext) -> list[Fact]:
    facts: list[Fact] = []
    seen: set[str] = set()
    target = ctx.target_tokens or 8000
    cap = max(300, int(target * 0.5))  # characters of the shown form: about an eighth of the budget
    docs = []
    for name, rnd, lines, context in _documents(ctx):
        rules = Digest(lines)
        # A harness's task instructions are mostly generic: only their binding rules, in less room. An
        # injected project document's other lines are its sections' context lines
        # (`instruction_context_facts`): here its rules (must/should/prefer…), each item said once.
        strength = 2 if name == _TASK else 1 if context and rules.render(10**9, 1) else 0
        docs.append((name, rnd, rules, strength, context))
    most = _full_room([d[:4] for d in docs], max(600, int(target * FULL_ROOM)))
    for i, (name, rnd, rules, strength, context) in enumerate(docs):
        generic = name == _TASK
        full = rules.render(max(600, target) // 2 if generic else most[i], strength)
        if not full or full in seen:
            continue
        seen.add(full)
        shown = rules.render(cap // 2 if generic else cap, strength)
        short = rules.render(max(160, cap // 3), strength)
        head = f"{name} (r{rnd}), to follow:"
        # Shown short first; the whole digest comes back only after the work's own facts (priority).
        # A harness's generic instructions are optional, after the work's own facts.
        fact = Fact(Section.RULES, f"{head}\n{shown}", [rnd], score=60, essential=not generic,
                    short=f"{head}\n{short}", priority=4.6 if generic else 4.5)
        if shown != full:
            fact.full_text = f"{head}\n{full}"
            if not context:
                # a skill or rules file the agent read: its binding rules across its headings (its workflow's
                # steps) before a cut of its first headings. An injected project document keeps its leading
                # lines: its sections' context lines (`instruction_context_facts`) already range over them all
                # (codex's AGENTS.md lost its search order and server rules to its digest's breadth: exam 59)
                fact.forms = _between(rules, strength, len(shown), len(full), head)
        facts.append(fact)
    return facts


_FORM_STEPS = (0.75, 0.5, 0.35)  # of the full digest's size: the fuller forms between it and the shown one


def _between(rules: Digest, strength: int, shown: int, full: int, head: str) -> tuple[str, ...]:
    """The digest at sizes between its shown and its full form, longest first: the filler gives the longest
    that fits, its most binding rules kept, where a cut of the full form's leading lines would keep the first
    headings' every item (a skill's telemetry preamble, "A) Sure…; B) No thanks", and not its workflow)."""
    forms: list[str] = []
    last = ""
    for step in _FORM_STEPS:
        limit = int(full * step)
        if limit <= shown:
            break
        text = rules.render(limit, max(strength, 1))  # a plain item alone ("B) No thanks") says nothing
        if len(text) > shown and text != last:
            forms.append(f"{head}\n{text}")
            last = text
    return tuple(forms)


def _full_room(docs: list[tuple[str, int, Digest, int]], room: int) -> list[int]:
    """Characters each document's full digest may take of `room` (by index): shared evenly, what a
    shorter one leaves going to the longer ones (else the first document's full text takes all the
    room and the next, a skill the agent was following, stays at its short form). A harness's task
    instructions have their own smaller room."""
    out = [0] * len(docs)
    sizes = sorted((len(d.render(10**9, s)), i) for i, (name, _, d, s) in enumerate(docs) if name != _TASK)
    for k, (size, i) in enumerate(sizes):
        out[i] = max(300, min(size, room // (len(sizes) - k)))
        room -= min(size, out[i])
    return out


def _context_sections(text: str) -> list[re.Match[str]]:
    """The section headings of an injected project instruction document (its opening line says
    instructions/rules/…, and it has sections), else none."""
    opening = text.lstrip().split("\n", 1)[0]
    if not _INSTRUCTIONS_RE.search(opening):
        return []
    heads = list(_SECTION_RE.finditer(text))
    return heads if len(heads) >= 2 else []


def _grouped(body: str) -> list[tuple[str, bool]]:
    """A section's lines as items, with whether each leads into a nested list ("- Server should control:" then
    "  - Match state.": "Server should control: Match state, Enemy spawning"). Flattened, the children read
    as the section's own items, and what they belong to (the server, the client) is lost."""
    out: list[tuple[str, bool]] = []
    lead: int | None = None  # the indentation of the item that ends with a colon, while its children follow
    for raw in body.splitlines():
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        item = WS_RE.sub(" ", raw).strip().lstrip("-*•0123456789. ").rstrip(".:")
        if lead is not None and indent > lead and out:
            text, nested = out[-1]
            out[-1] = (f"{text}{', ' if nested else ': '}{item}", True)
            continue
        lead = indent if raw.rstrip().endswith(":") else None
        out.append((item, False))
    return out


@fact_source(Section.RULES)
def instruction_context_facts(ctx: FactContext) -> list[Fact]:
    """One fact per section of an injected project instruction document: its heading and its lines
    that are not rules (the digest above carries those)."""
    out: list[Fact] = []
    for rnd in ctx.transcript.rounds[:CONTEXT_ROUNDS]:  # injected before or with the first requests
        for msg in rnd.messages:
            if msg.role is not Role.USER or not msg.harness or not msg.text:
                continue
            heads = _context_sections(msg.text)
            if not heads:
                continue
            for i, m in enumerate(heads[:MAX_PROJECT_SECTIONS]):
                end = heads[i + 1].start() if i + 1 < len(heads) else len(msg.text)
                body = re.sub(r"</?[A-Za-z_][\w-]*>.*", "", msg.text[m.end():end], flags=re.DOTALL)  # trailing markup
                # a rule is the digest's; one that leads into a list is kept with it (what the list belongs to)
                items = [x for x, nested in _grouped(body) if len(x) >= 2 and (nested or not _MODAL_RE.search(x))]
                if not items:
                    continue
                text = f"Project instructions, {m.group(1).strip('# ')}: " + "; ".join(items)
                out.append(Fact(Section.RULES, text if len(text) <= 240 else text[:239] + "…", [rnd.number],
                                score=30 - i / 100, priority=4.7))
    return out
