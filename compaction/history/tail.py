"""The most recent rounds, kept verbatim; oversized tool outputs elided in the middle with a note.

Each piece's token count is known once (from its message's count when the message carries only
that text, else by encoding it); elision slices token ids, so trying smaller caps costs no
re-encoding. The rendering honours its budget: when even the smallest cap is too big, the
oldest of the kept rounds give way first (the newest round is what the assistant continues from).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compaction import tokens
from compaction.edits import call_changes
from compaction.history.echo import output_of
from compaction.history.facts import display_path, first_line
from compaction.history.fold import folded
from compaction.history.headings import h
from compaction.history.steering import Steering, strip_code
from compaction.mdsafe import demoted, escape_path, fence_for, inline_code
from compaction.model import Message, Role, Round, ToolCall, ToolKind

_ROLE_LABEL = {Role.SYSTEM: "system", Role.USER: "user", Role.ASSISTANT: "assistant", Role.TOOL: "tool"}
ROUND_HEADING_LEVEL = 3  # `### rN`: a shown message's own headings go below it
CAPS: tuple[int | None, ...] = (None, 2000, 1000, 500, 250, 120, 60, 30)
# The user's words and the assistant's prose (what it concluded, what it did) outlast tool output when a cap
# elides: the reviews found the tail cutting the agent's conclusions while it showed logs.
_CAP_FACTOR = {Role.USER: 4, Role.ASSISTANT: 4}
_NOTE_COST = 10  # tokens of an elision note
# Of one tool output, shown at most (its first and last 30 lines or so): a 10,000-token build log says in its
# ends what it says in full, and the room it would take shows older rounds (what the agent said and did).
TOOL_OUTPUT_MOST = 1000
HARNESS_NOTICE_TOKENS = 40  # of a harness's notice in the user's turn, shown at most (the user's words are apart)
_PIECE_OVERHEAD = 6  # fences, labels, separators


@dataclass
class _Piece:
    """A span of verbatim text: prefix/suffix are markup, `text` the verbatim part and `n` its tokens.

    Why `ids` may be None: a text whose count `count_messages` already made (a message that carries
    only this text) is not encoded again, and any other is counted without building a list of ids;
    shown whole it is its own rendering, elided only its head and tail are encoded
    (`tokens.head_ids`/`tail_ids`). Only a text the counter cannot count exactly keeps its ids."""

    prefix: str
    text: str
    suffix: str
    round_no: int
    elidable: bool
    cap_factor: int = 1  # of the cap: user text and assistant prose 4, tool output 1
    n: int = 0
    ids: list[int] | None = None
    call: ToolCall | None = None  # a file tool's `→ tool path` line: the call, whose writing may follow it
    also: tuple[ToolCall, ...] = ()  # the same tool on the same path right after it: one line, `(×n)`
    most: int | None = None  # tokens shown at most whatever the cap (a harness's notice: its opening)
    output: bool = False  # a tool's output
    said: str | None = None  # an output's `_said` key, made once (the filler asks for it on every pass)

    def cost(self, cap: int | None) -> int:
        if self.call is not None:  # a file tool's line: its own count (`_call_line`)
            return self.n
        n = self.n if (limit := self._limit(cap)) is None or self.n <= limit + _NOTE_COST else limit + _NOTE_COST
        return n + _PIECE_OVERHEAD

    def _limit(self, cap: int | None) -> int | None:
        """Tokens shown at `cap` (None: all): the cap times the piece's factor, never under 16, never
        over `most`."""
        limit = None if cap is None or not self.elidable else max(cap * self.cap_factor, 16)
        if self.most is not None:
            limit = self.most if limit is None else min(limit, self.most)
        return limit

    def render(self, cap: int | None) -> str:
        enc = tokens.encoding()
        limit = self._limit(cap)
        if limit is None or self.n <= limit + _NOTE_COST:  # eliding less than its note costs: shown whole
            return f"{self.prefix}{self.text if self.ids is None else enc.decode(self.ids)}{self.suffix}"
        head_n = limit * 2 // 3
        tail_n = limit - head_n
        ids = self.ids
        head = enc.decode(ids[:head_n] if ids is not None else tokens.head_ids(self.text, head_n))
        tail = enc.decode(ids[len(ids) - tail_n:] if ids is not None else tokens.tail_ids(self.text, tail_n))
        if "\n" in head:  # cut at line boundaries: no line is split mid-way
            head = head[: head.rfind("\n")]
        elif " " in head[len(head) // 2:]:  # one long line: at a word's end, not inside a name
            head = head[: head.rfind(" ")]
        if "\n" in tail:
            tail = tail[tail.find("\n") + 1:]
        elif " " in tail[: len(tail) // 2]:
            tail = tail[tail.find(" ") + 1:]
        elided = self.n - limit
        note = f"\n[… {elided} tokens elided …]\n"  # its round is the heading above it
        return f"{self.prefix}{head}{note}{tail}{self.suffix}"


def _verbatim(prefix: str, text: str, suffix: str, rnd: int, *, known: int | None = None,
              cap_factor: int = 1) -> _Piece:
    """An elidable piece; `known`: the message's token count when the message carries only `text`."""
    if tokens.counted_exactly(text):  # counted without a list of ids; an elision encodes its ends alone
        n = known if known is not None else tokens.count_many([text])[0]
        return _Piece(prefix, text, suffix, rnd, True, cap_factor=cap_factor, n=n)
    ids = tokens.encoding().encode_ordinary(text)
    return _Piece(prefix, text, suffix, rnd, True, cap_factor=cap_factor, n=len(ids), ids=ids)


# What the loaders mark a harness's message as when it carries more than a notice: an earlier compaction's
# summary (Claude Code, Gemini CLI, a pasted one), an architect's hand-off (aider).
_MORE_THAN_A_NOTICE = ("compact_summary", "carried_summary", "architect_handoff")


def _notice(msg: Message) -> bool:
    """A harness's own words in the user's turn: not what it passes through in tags (a `!` command's
    `<bash-stdout>`, a memory note) nor a message it marks as more (`_MORE_THAN_A_NOTICE`)."""
    return (msg.harness and msg.role is Role.USER and not msg.text.lstrip().startswith("<")
            and not any(k in msg.meta for k in _MORE_THAN_A_NOTICE))


def _call_text(call: ToolCall, cwd: str | None, also: tuple[ToolCall, ...] = ()) -> str:
    """A file tool's `→ tool path` line, its path as the document's other sections print it (relative to
    the project root, when known). A recorded path is escaped: no structure, no bidi. `also`: the same
    calls that followed it, counted `(×n)`."""
    target = f" {display_path(call.path, cwd) if cwd else escape_path(call.path)}" if call.path else ""
    return f"\n→ {escape_path(call.name)}{target}" + (f" (×{len(also) + 1})" if also else "")


def _call_line(call: ToolCall, rnd: int, cwd: str | None, also: tuple[ToolCall, ...] = ()) -> _Piece:
    """A file tool's line as a piece, counted: an absolute path costs tens of tokens a line."""
    line = _call_text(call, cwd, also)
    return _Piece(line, "", "", rnd, False, n=tokens.count(line), call=call, also=also)


def _pieces(msg: Message, rnd: int, code: bool, steering: Steering,
            calls: dict[str, ToolCall] | None = None, cwd: str | None = None,
            output_most: int | None = TOOL_OUTPUT_MOST) -> list[_Piece]:
    """A message's pieces: its text, its calls (a command, else the tool and its path), its results.
    `calls`: the round's calls by id; a result shows its output without the export's echo of its call
    (`echo.output_of`), and nothing when that echo is all the export kept (Copilot Chat's keeps a read's
    summary line, never the file; a command's output never)."""
    label = _ROLE_LABEL[msg.role] + (" (harness)" if msg.harness else "")
    # its headings below the round's own (`### rN`): never read as the document's sections
    text = demoted(msg.text if code else strip_code(msg.text), ROUND_HEADING_LEVEL)
    if msg.role is Role.TOOL and msg.harness and text:  # a tool's report as text (aider's `> …` lines): an output
        text = folded(text)
    if msg.meta.get("final_patch_echo"):
        text = "[final diff printed by the harness]"
    whole = [text] + ([c.command or "" for c in msg.tool_calls] + [r.content for r in msg.tool_results] if code else [])
    if steering.ignore and steering.ignored("\n".join(whole)):
        return [_Piece(f"**{label}**: [omitted: mentions an ignored topic]", "", "", rnd, False)]
    # The message's own count is its text's when the text is all it carries (count_messages counted it).
    alone = not (msg.tool_calls and not msg.meta.get("calls_in_text"))
    text_known = msg.tokens if alone and not msg.tool_results and text is msg.text else None
    out = [_verbatim(f"**{label}**:\n", text, "", rnd, known=text_known,
                     cap_factor=_CAP_FACTOR.get(msg.role, 1) if not msg.harness else 1)]
    if _notice(msg):  # a harness's notice in the user's turn (Cline's "[ERROR] You did not use a tool…" and
        out[0].most = HARNESS_NOTICE_TOKENS  # its reminder): its opening says which
    if not code or msg.meta.get("final_patch_echo"):
        return out
    for call in msg.tool_calls:
        if call.command and call.continues:  # it reads on a run already started: no command ran again
            out.append(_Piece(note := f"\n(waiting on the output of {inline_code(first_line(call.command, 100))}, still running)",
                              "", "", rnd, False, n=tokens.count(note)))
        elif call.command and call.command not in msg.text:
            fence = fence_for(call.command)
            out.append(_verbatim(f"\n{fence}\n$ ", call.command, f"\n{fence}", rnd))
        elif not call.command:
            last = out[-1].call
            if last is not None and call.path and (last.name, last.path) == (call.name, call.path):
                out[-1] = _call_line(last, rnd, cwd, (*out[-1].also, call))  # two edits of one file in a row
            else:
                out.append(_call_line(call, rnd, cwd))
    result_known = msg.tokens if alone and not msg.text and len(msg.tool_results) == 1 else None
    for res in msg.tool_results:
        status = f" (exit {res.exit_code})" if res.exit_code is not None else (" (error)" if res.is_error else "")
        call = calls.get(res.call_id) if calls and res.call_id else None
        output = output_of(res, call)
        if res.content and not output.strip():  # the export kept only its echo of the call
            if call is not None and call.command:
                out.append(_Piece(f"\n(no output shown){status}", "", "", rnd, False))
            continue
        if res.content:
            content = folded(output)
            fence = fence_for(content)
            out.append(_verbatim(f"\n{fence}text{status}\n", content, f"\n{fence}", rnd,
                                 known=result_known if content is res.content else None))
            out[-1].most = output_most
            out[-1].output = True
        else:
            out.append(_Piece(f"\n(no output){status}", "", "", rnd, False))
    return out


def outputs_level(rounds: list[Round], most: int, room: int) -> int | None:
    """The size each tool output of `rounds` may show (at least `most`) so that those shown at `most` grow by
    about `room` tokens in all: the level L with sum(min(n, L) - most) = room over the outputs longer than
    `most` (n: each one's tokens, folded as shown). None when none is cut or no room is left."""
    if room <= 0:
        return None
    sizes = [n for rnd in rounds for m in rnd.messages for r in m.tool_results
             if len(r.content) > most and (n := tokens.count(folded(r.content))) > most + _NOTE_COST]
    if not sizes:
        return None
    lo, hi = most, max(sizes)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if sum(min(n, mid) - most for n in sizes) <= room:
            lo = mid
        else:
            hi = mid
    return lo if lo > most else None


def _written(calls: tuple[ToolCall, ...], rnd: int) -> _Piece | None:
    """What a file tool's line's calls wrote (a write's text, an edit's removed and added lines) as an
    elidable piece, None for any other call: the tail shows such calls as `→ tool path`, and only a
    document that already holds the whole session spends its spare room on this
    (`TailRenderer.with_written`, asked by the filler's `_widened`)."""
    lines: list[str] = []
    for call in calls:
        if call.command or call.kind not in (ToolKind.WRITE, ToolKind.EDIT):
            continue
        for change in call_changes(call):
            for hunk in change.hunks:
                lines += list(hunk.added) if change.whole else [*(f"- {ln}" for ln in hunk.removed),
                                                                 *(f"+ {ln}" for ln in hunk.added)]
    if not lines:
        return None
    text = "\n".join(lines)
    fence = "`" * max(3, max((len(r) for r in _TICKS_RE.findall(text)), default=0) + 1)
    return _verbatim(f"\n{fence}\n", text, f"\n{fence}", rnd)


_TICKS_RE = re.compile(r"`+")


def calls_by_id(rnd: Round) -> dict[str, ToolCall]:
    return {c.id: c for m in rnd.messages for c in m.tool_calls if c.id}


def round_pieces(rnd: Round, code: bool, steering: Steering, cwd: str | None = None,
                 output_most: int | None = TOOL_OUTPUT_MOST) -> list[_Piece]:
    """A round's pieces, each message's followed by the blank line that closes it; each tool output shown
    at most `output_most` tokens (None: whole, when the cap allows)."""
    calls = calls_by_id(rnd)
    out: list[_Piece] = []
    last_role: Role | None = None
    for msg in rnd.messages:
        pieces = _pieces(msg, rnd.number, code, steering, calls, cwd, output_most)
        opening = pieces[0]
        if opening.elidable and not opening.text.strip():  # no words: its label alone says nothing
            if len(pieces) == 1 and msg.role is Role.ASSISTANT:
                continue  # an empty reply (a reasoning-only turn an export kept as a blank); a user's stays
            if msg.role is last_role:  # the same speaker goes on (its call after its words): no label again
                pieces[0] = _Piece("", "", "", rnd.number, False)
        out += (*pieces, _Piece("\n\n", "", "", rnd.number, False))
        last_role = msg.role
    return out


ROUND_HEADING_TOKENS = 8  # a kept round's `### rN` heading and the blank lines around it


def render_rounds(rounds: list[Round], per_round: list[list[_Piece]], cap: int | None,
                  written: dict[int, _Piece] | None = None, written_cap: int | None = None) -> str:
    """Rounds under their headings, each piece at `cap` (the tail, and the filler widening it); with
    `written`, a file tool's line followed by what it wrote (by the line's id), at `written_cap`."""
    def shown(p: _Piece) -> str:
        after = written.get(id(p)) if written else None
        return p.render(cap) + (after.render(written_cap) if after is not None else "")

    return "\n\n".join(f"### r{rnd.number}\n\n" + "".join(shown(p) for p in pieces).rstrip()
                       for rnd, pieces in zip(rounds, per_round, strict=True))


REPEATED_OUTPUT_CHARS = 200  # a tool output at least this long, shown again word for word, is shown once
REPEATED_OUTPUT_MOST = 20_000  # and at most this long: a longer one is shown by its ends anyway (bounded work)
# How long a run took differs from run to run ("Checked 273 files in 161ms", "Ran 390 tests in 0.524s",
# "Time elapsed: 6.4 s"): two outputs that differ only there say the same. A figure a benchmark measured
# ("812 ms") is what it says: not one of these.
_DURATION_RE = re.compile(r"(?:\bin|[Ee]lapsed:?|\b[Tt]ime:)\s+\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds)\b")


def outputs_shown(per_round: list[list[_Piece]]) -> dict[str, int]:
    """The tool outputs `per_round` shows in full, by what they say (`_said`): the round of each."""
    return {_said(p): p.round_no for pieces in per_round for p in pieces if _comparable(p)}


def _comparable(p: _Piece) -> bool:
    """A tool output of a size worth comparing with the others (`REPEATED_OUTPUT_CHARS`…`_MOST`)."""
    return p.output and REPEATED_OUTPUT_CHARS <= len(p.text) <= REPEATED_OUTPUT_MOST


def _said(p: _Piece) -> str:
    """What a tool output says, its durations made alike, with its exit status (its fence's label): a run
    that failed never points to one that passed."""
    if p.said is None:
        p.said = f"{p.prefix}{_DURATION_RE.sub('#', p.text)}"
    return p.said


def point_repeats(pieces: list[_Piece], later: dict[str, int]) -> None:
    """Each tool output of `pieces` that a later round shows again (`later`, by `outputs_shown`) becomes a
    pointer to it; the others join `later`, for the rounds before these (called newest first)."""
    for i, p in enumerate(pieces):
        if not _comparable(p):
            continue
        key = _said(p)
        there = later.get(key)
        if there is None or there == p.round_no:
            later[key] = p.round_no
            continue
        aside = ", its timings aside" if _DURATION_RE.search(p.text) else ""
        note = f"\n(the same output as r{there}{aside})"
        pieces[i] = _Piece(note, "", "", p.round_no, False, n=tokens.count(note))


def _repeated_outputs_pointed(per_round: list[list[_Piece]]) -> None:
    """A tool output the kept rounds show again (the same check run twice, the same log; its durations aside)
    is shown in full at its last showing, the earlier ones point to it. The latest, not the first: the
    oldest kept rounds give way first when the tail is tight, so the one pointed to is always shown."""
    later: dict[str, int] = {}
    for pieces in reversed(per_round):
        point_repeats(pieces, later)


LAST_WORDS_FACTOR = 8  # of the cap: the agent's last words in the last round (a user's text has 4)


def _last_words_kept(per_round: list[list[_Piece]]) -> None:
    """The agent's last text in the last round is cut last of all: its closing report ("Changes complete:
    … new `docs/playbook/human-roles-by-phase.md`") is where a successor learns the state the work is in."""
    label = f"**{_ROLE_LABEL[Role.ASSISTANT]}**"
    last = next((p for p in reversed(per_round[-1]) if p.elidable and p.text.strip() and p.prefix.startswith(label)),
                None) if per_round else None
    if last is not None:
        last.cap_factor = max(last.cap_factor, LAST_WORDS_FACTOR)


class TailRenderer:
    """Renders the kept rounds under any budget; every piece is encoded once, whatever the number
    of budgets tried."""

    def __init__(self, rounds: list[Round], code: bool, steering: Steering,
                 output_most: int | None = TOOL_OUTPUT_MOST) -> None:
        self.rounds = rounds
        self.output_most = output_most  # of each tool output, shown at most (the older rounds the filler adds too)
        self.per_round = [round_pieces(r, code, steering, output_most=output_most) for r in rounds]
        _repeated_outputs_pointed(self.per_round)
        _last_words_kept(self.per_round)
        self._round_costs: dict[int | None, list[int]] = {}
        self.steering = steering
        self._written: dict[int, _Piece] | None = None  # by the id of a call's line: what it wrote (made when asked)
        self.cwd: str | None = None  # the project root the file tools' lines print paths relative to

    def cuts_outputs(self) -> bool:
        """Whether a kept tool output is shown shorter than it is whatever the cap (`output_most`)."""
        return any(p.most is not None and p.most == self.output_most and p.n > p.most + _NOTE_COST
                   for pieces in self.per_round for p in pieces)

    def relative_to(self, cwd: str | None) -> None:
        """File tools' lines with their paths relative to the project root, known only once the events
        are read (the pieces are made meanwhile); older rounds the filler adds use it too (`cwd`)."""
        self.cwd = cwd
        if not cwd:
            return
        for pieces in self.per_round:
            for i, p in enumerate(pieces):
                if p.call is not None and _call_text(p.call, cwd, p.also) != p.prefix:  # a path the root shortens
                    pieces[i] = _call_line(p.call, p.round_no, cwd, p.also)
        self._round_costs.clear()
        self._written = None

    def round_costs(self, cap: int | None) -> list[int]:
        """Each kept round's estimated tokens at `cap`, its heading included: summed once per cap,
        not again for every budget and every number of rounds dropped."""
        if cap not in self._round_costs:
            self._round_costs[cap] = [sum(p.cost(cap) for p in pieces) + ROUND_HEADING_TOKENS
                                      for pieces in self.per_round]
        return self._round_costs[cap]

    def render(self, budget: int) -> tuple[str, int]:
        """(text within `budget` tokens, number of oldest rounds dropped to fit)."""
        rounds = self.rounds
        if not rounds or budget <= 0:
            return "", len(rounds)
        for start in range(len(rounds)):
            kept = self.per_round[start:]
            for cap in CAPS:
                if sum(self.round_costs(cap)[start:]) <= budget:
                    return render_rounds(rounds[start:], kept, cap), start
        return "", len(rounds)

    def holds_session(self) -> bool:
        """Whether the kept rounds are the whole session (from its first round): only then may the room
        left after everything else go to what the file tools wrote."""
        return bool(self.rounds) and self.rounds[0].number == 1

    def with_written(self, room: int) -> tuple[str, int] | None:
        """Every round whole, each file tool's call followed by what it wrote, at the largest cap that fits
        in `room`: (text, the writings' estimated tokens); None when nothing was written, or not even the
        smallest cap fits. Only for a renderer that `holds_session`, the last thing a budget buys; what
        the steering ignores is not shown."""
        if self._written is None:
            ignored = self.steering.ignored if self.steering.ignore else None
            self._written = {id(p): w for ps in self.per_round for p in ps
                             if p.call is not None and (w := _written((p.call, *p.also), p.round_no)) is not None
                             and not (ignored and ignored(w.text))}
        if not self._written:
            return None
        for cap in CAPS:
            cost = sum(p.cost(cap) for p in self._written.values())
            if cost <= room:
                return render_rounds(self.rounds, self.per_round, None, self._written, cap), cost
        return None


MIN_LAST_MESSAGES = 3  # a round's end shown in part: at least its last few messages, at the largest cap that holds them


def round_end(number: int, of_round: list[_Piece], budget: int, lang: str = "en") -> tuple[str, int]:
    """(text, estimated tokens) of round `number`'s last messages within `budget`, for a round that does
    not fit even at the smallest cap (one request the agent worked on for dozens of steps): the
    successor still reads where that work stopped, in the agent's own words. Under its heading with a
    note of how many are shown: the largest cap that shows MIN_LAST_MESSAGES of them (or all,
    when fewer), else the most messages the smallest cap shows; ("", 0) when not even one fits."""
    if budget <= 0:
        return "", 0
    messages: list[list[_Piece]] = [[]]
    for p in of_round:
        messages[-1].append(p)
        if _closing(p):
            messages.append([])
    messages = [m for m in messages if m]
    heading = ROUND_HEADING_TOKENS + _NOTE_COST
    shown, cap, used = _trailing(messages, budget, heading, min(MIN_LAST_MESSAGES, len(messages)))
    if shown:
        note = h(lang, "last_messages").format(shown=shown, total=len(messages))
        pieces = [p for m in messages[len(messages) - shown:] for p in m]
        return f"### r{number} ({note})\n\n" + "".join(p.render(cap) for p in pieces).rstrip(), used
    # Not even its last message fits (one turn of dozens of tool blocks): that message's label and
    # its last parts, with a line saying how many came before.
    label, *rest = messages[-1]
    parts = [[p] for p in rest if not _closing(p)]  # the blank line closing the message is no part of it
    shown, cap, used = _trailing(parts, budget, heading + label.cost(CAPS[-1]) + _NOTE_COST, MIN_LAST_MESSAGES)
    if not shown:
        return "", 0
    note = h(lang, "last_messages").format(shown=1, total=len(messages))
    gap = h(lang, "earlier_parts").format(n=len(parts) - shown)
    return (f"### r{number} ({note})\n\n" + label.render(CAPS[-1]) + f"\n[… {gap} …]"
            + "".join(p.render(cap) for [p] in parts[len(parts) - shown:]).rstrip(), used)


def _closing(p: _Piece) -> bool:
    """Whether `p` is the blank line closing a message (`round_pieces`)."""
    return not p.elidable and p.prefix == "\n\n" and not p.text


def _trailing(units: list[list[_Piece]], budget: int, heading: int, want: int) -> tuple[int, int | None, int]:
    """(units shown from the end, cap, cost) within `budget`: the largest cap that shows `want` of
    them (or all, when fewer), else the most the smallest cap shows; (0, None, 0) when none fits."""
    want = min(want, len(units))
    best: tuple[int, int | None, int] = (0, None, 0)
    for cap in CAPS:
        used, shown = heading, 0
        for unit in reversed(units):
            cost = sum(p.cost(cap) for p in unit)
            if used + cost > budget:
                break
            used, shown = used + cost, shown + 1
        if shown >= want:
            return shown, cap, used
        if shown > best[0]:
            best = (shown, cap, used)
    return best
