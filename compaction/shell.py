"""The one shell-command parser: events (files written, reads, state changes) and the error memory
(a command's identity, the files it edits) both read command lines through it.

Best effort and without execution: POSIX quoting rules (`words` gives what `shlex.split` gives,
many times faster), top-level splitting on unquoted `&&`, `||`, `;`, `|` and newlines, and a
heredoc's body (from the line after its `<<` to its closing word) never analysed as commands.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from compaction.memo import per_text
from compaction.transcripts.path_spelling import file_name

# --- splitting a command line into simple commands --------------------------------------------

_UNQUOTED_SPLIT_RE = re.compile(r"&&|\|\||[;\n|]")
# One token per quoted string (an unclosed one runs to the end), escape, separator or plain run.
_COMMAND_TOKEN_RE = re.compile(
    r"""'[^']*'?|"(?:\\.|[^"\\])*(?:\\\Z)?"?|\\\n|\\.|&&|\|\||[;\n|]|[^'"\\;|&\n]+|[&\\]""", re.DOTALL)
_COMMAND_SEPARATORS = frozenset({"&&", "||", ";", "\n", "|"})
_LIST_SEPARATORS = _COMMAND_SEPARATORS - {"|"}  # between a list's commands; `|` joins a pipeline's stages


def without_heredoc_body(command: str) -> str:
    """The command line without its heredocs' bodies (data): a line opening heredocs stays, each body is
    skipped in turn up to its closing line (the word alone; tabs before it for `<<-`), and the lines
    after the last body are commands again (`cat > t.py <<'EOF' … EOF` then `python t.py`). A `<<`
    without a word, or a body never closed, takes the rest of the text; a here-string (`<<<`) opens none."""
    kept: list[str] = []
    pos = 0
    while (first := _HEREDOC_AT_RE.search(command, pos)) is not None:
        end = command.find("\n", first.start())
        if end < 0:
            break
        kept.append(command[pos:end])
        pos = end
        for opener in _HEREDOC_AT_RE.finditer(command, first.start(), end):
            word = _HEREDOC_OPEN_RE.match(command, opener.start())
            if word is None:
                return "".join(kept)
            indent = "\t*" if word.group(1) else ""
            closed = re.compile(rf"^{indent}{re.escape(word.group(3))}\r?$", re.M).search(command, pos + 1)
            if closed is None:
                return "".join(kept)
            pos = closed.end()  # the newline after the closing line starts what follows
    return "".join(kept) + command[pos:]


_HEREDOC_AT_RE = re.compile(r"(?<!<)<<(?!<)")  # a heredoc's `<<`, not a here-string's `<<<`
_HEREDOC_OPEN_RE = re.compile(r"<<(-?)[ \t]*(['\"]?)([\w.-]+)\2")


def split_commands(command: str) -> list[str]:
    """Top-level simple commands of a command line, stripped: split on unquoted `&&`, `||`, `;`,
    `|` and newlines (not escaped ones); a heredoc's body is not analysed."""
    return list(_split_commands(command))


@per_text(maxsize=4096)  # one command is split for its writes, its reads and its state change
def _split_commands(command: str) -> tuple[str, ...]:
    line = without_heredoc_body(command)
    if "'" not in line and '"' not in line and "\\" not in line:
        return tuple(p.strip() for p in _UNQUOTED_SPLIT_RE.split(line) if p.strip())
    parts: list[str] = []
    buf: list[str] = []
    for token in _COMMAND_TOKEN_RE.findall(line):
        if token in _COMMAND_SEPARATORS:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(" " if token == "\\\n" else token)  # an escaped newline continues the line
    parts.append("".join(buf))
    return tuple(p.strip() for p in parts if p.strip())


_QUOTED_RE = re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")


def blank_quotes(command: str) -> str:
    """`command` with every quoted string's inside blanked (same length): what the shell itself reads
    as redirections and operators, not the `=>` or `>` of a quoted script (`node -e "x => …"`)."""
    if "'" not in command and '"' not in command:
        return command
    return _QUOTED_RE.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], command)


def pipeline_heads(command: str) -> list[str]:
    """The first stage of each command of a list (`cd a && grep -r x src | head; ls b` -> `cd a`,
    `grep -r x src`, `ls b`): what each command reads from, not what a pipe feeds on; quotes and
    escapes respected (`find … -exec grep x {} \\;` is one command), a heredoc's body not read."""
    heads: list[str] = []
    buf: list[str] = []
    piped = False
    for token in _COMMAND_TOKEN_RE.findall(without_heredoc_body(command)):
        if token in _LIST_SEPARATORS:
            heads.append("".join(buf))
            buf, piped = [], False
        elif token == "|":
            piped = True
        elif not piped:
            buf.append(" " if token == "\\\n" else token)
    heads.append("".join(buf))
    return [h.strip() for h in heads if h.strip()]


def _unescaped(command: str, upto: int | None = None) -> Iterator[tuple[int, str, str, str]]:
    """(position, character, the quote open before it, the quote open after it) of each character of a
    shell command up to `upto` that a backslash does not escape: single quotes hold everything literally,
    a backslash escapes outside them."""
    quote, i, n = "", 0, len(command) if upto is None else min(upto, len(command))
    while i < n:
        c = command[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        before = quote
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        yield i, c, before, quote
        i += 1


def quote_at(command: str, at: int) -> str:
    """The quote (`"`, `'`) open at position `at` of a shell command, "" when none."""
    return next((after for *_, after in deque(_unescaped(command, at), maxlen=1)), "")


def double_quoted_backticks(command: str) -> list[str]:
    """The backticked spans inside double quotes of a shell command, in one pass: what the shell runs
    and substitutes (a commit message "Rename `alphaFn`" runs `alphaFn`); an escaped backtick, and
    one in single quotes or outside quotes, is none of them."""
    spans: list[str] = []
    opened: int | None = None
    for i, c, before, _ in _unescaped(command):
        if before != '"' or c == "\n":  # outside double quotes, or a line ended: no span is open
            opened = None
        elif c == "`":
            if opened is None:
                opened = i
            else:
                if i > opened + 1:
                    spans.append(command[opened + 1:i])
                opened = None
    return spans


_PREAMBLE_RE = re.compile(r"#|set [-+]\w")  # a comment, a shebang, the shell's options (`set -euo pipefail`)


@per_text(maxsize=8192)  # a command is shown in several sections and keyed by the error memory
def code_lines(command: str, most: int = 2) -> tuple[str, ...]:
    """A command's first `most` lines that run something, stripped: the comments an agent opens a script
    with (`# Kill any existing vLLM processes`) say what it means to do, its commands what it did, and the
    clearing up before the work (`pkill -f vllm; sleep 2`, `rm -f /tmp/run.log`, `echo "=== Start ==="`,
    `export X=1`) is not what it did either; its first line alone when it has no other (a heredoc's
    hundred lines are not all looked at)."""
    first, ran, chores = "", [], []
    lines = command.strip().splitlines()
    for ln in _logical_lines(lines):
        if not ln:
            continue
        first = first or ln
        if _PREAMBLE_RE.match(ln):
            continue
        if not ran and len(lines) > 1 and len(chores) < MAX_CHORES and _chore(ln):
            chores.append(ln)
            continue
        ran.append(ln)
        if len(ran) >= most:
            break
    return tuple(ran or chores[:most] or ([first] if first else []))


def unbroken(line: str) -> str:
    """A logical line (`code_lines`) as the shell reads it: its continuations' backslashes gone."""
    return line.replace("\\ ", " ") if "\\ " in line else line


def _logical_lines(lines: list[str]) -> Iterator[str]:
    """The lines stripped, joined as the shell reads them: a line continued with a trailing backslash
    (`NCCL_P2P_DISABLE=1 \\` then `  nohup vllm serve …`, its backslash kept) and a quote left open
    (`python -c "` then its script's lines, joined by `; `) are one command; of a quote open for more
    than QUOTED_LINES lines, the opening only (nothing after it is read as a command of its own)."""
    held, quote, joined = "", "", 0
    for raw in lines:
        ln = raw.strip()
        if quote:
            if not ln:
                continue
            # a script's lines in one line: `; ` between statements, a space after a block's opening
            held += ("" if held.endswith(("(", "[", "{", quote)) or ln.startswith(quote)
                     else " " if held.endswith(":") else "; ") + ln
            joined += 1
            quote = _open_quote(ln, quote)
            if not quote:
                yield held
                held, joined = "", 0
            elif joined >= QUOTED_LINES:  # a script in quotes: its opening says it, the rest is inside it
                yield held + " …"
                return
            continue
        if ln.endswith("\\") and not ln.startswith("#"):
            held += ln + " "  # shown as run, its backslash kept: `unbroken` reads it as one line
            continue
        ln = held + ln
        held = ""
        quote = _open_quote(ln, "") if ('"' in ln or "'" in ln) and not ln.startswith("#") else ""
        if quote:
            held = ln
            continue
        yield ln
    if held:
        yield held.rstrip()


QUOTED_LINES = 6


def _open_quote(text: str, quote: str) -> str:
    """The quote still open at the end of `text` when `quote` was open at its start ("" for none). A `#`
    opening a word outside quotes starts a comment: its apostrophes (`# kill what's left`) open nothing."""
    escaped = False
    prev = " "
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch == "#" and prev in " \t;&|(":
            return ""
        elif ch in "\"'":
            quote = ch
        prev = ch
    return quote


MAX_CHORES = 8  # lines of clearing up skipped before a command's work; past them, the line is its work
# What clears up or narrates before the work: stopping processes, waiting, saying, setting the environment.
_CHORES = frozenset({"kill", "pkill", "killall", "sleep", "wait", "true", "echo", "printf", "export", "unset", "clear"})


def _chore(line: str) -> bool:
    """A line that only clears up before the work: each of its commands stops a process, waits, says
    something (to the terminal, not into a file), sets the environment, or removes temporary files."""
    for part in split_commands(unbroken(line)):
        run, redirections = unredirected(words(part))
        if not all(map(discarded, redirections)):
            return False  # `echo x > notes.txt` writes a file, `< in` reads one
        if not run:
            return False
        if run[0] == "rm":  # a temporary file, not a tree under /tmp (a project cloned there)
            if not all(w.startswith("-") or _TEMP_FILE_RE.match(w) for w in run[1:]):
                return False
        elif run[0] not in _CHORES:
            return False
    return True


_TEMP_FILE_RE = re.compile(r"(?:/tmp|/var/tmp|\$TMPDIR)/[^/\s]+$")  # a file right in a temporary directory


def code_line(command: str) -> str:
    """A command's first line that runs something (`code_lines`)."""
    lines = code_lines(command)
    return lines[0] if lines else ""


def first_line_commands(command: str | None) -> list[str]:
    """The simple commands of a command's first line (what the error memory keys commands by)."""
    text = (command or "").strip()
    return split_commands(code_line(text)) if text else []


# --- words ------------------------------------------------------------------------------------

_SHELL_WORD = re.compile(r"""(?:[^ \t\r\n'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+""", re.DOTALL)
_SHELL_PIECE = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|([^'"\\]+)""", re.DOTALL)
_DQ_ESCAPE = re.compile(r'\\([\\"])')
_BLANK = " \t\r\n"


def _unquote(word: str) -> str:
    if "'" not in word and '"' not in word and "\\" not in word:  # a plain word (most are) is itself
        return word
    out = []
    for single, double, escaped, plain in _SHELL_PIECE.findall(word):
        out.append(plain or single or escaped or _DQ_ESCAPE.sub(r"\1", double))
    return "".join(out)


def raw_words(segment: str) -> list[str]:
    """A simple command's words as written, quotes kept (`grep "a b" src` -> `grep`, `"a b"`, `src`):
    which word is a quoted pattern shows."""
    return _SHELL_WORD.findall(segment)


def words(segment: str) -> list[str]:
    """`shlex.split(segment)` (POSIX rules) by two regexes, many times faster; what shlex would
    reject (an unclosed quote, a trailing backslash) is split at whitespace."""
    if "'" not in segment and '"' not in segment and "\\" not in segment:  # nothing quoted or escaped: whitespace splitting
        return segment.split()
    return list(_quoted_words(segment))


@per_text(maxsize=4096)
def _quoted_words(segment: str) -> tuple[str, ...]:
    """`words` of a segment that quotes or escapes, remembered: one command is split into words for
    its writes, its reads, the scripts it runs and its program (four readers, one parse)."""
    out: list[str] = []
    pos = 0
    for m in _SHELL_WORD.finditer(segment):
        if segment[pos:m.start()].strip(_BLANK):
            return tuple(segment.split())  # a quote left open or a lone backslash
        out.append(_unquote(m.group()))
        pos = m.end()
    if segment[pos:].strip(_BLANK):
        return tuple(segment.split())
    return tuple(out)


# `cd DIR &&` / `cd DIR;` / `cd /d DIR &&` at the start of a command line (the rest runs in DIR)
DRIVE_RE = re.compile(r"[A-Za-z]:[\\/]")
_LEADING_CD_RE = re.compile(r"^\s*cd\s+(?:/d\s+)?((?:\"[^\"\n]+\"|'[^'\n]+'|(?:\\.|[^\s;&|\\])++))\s*(?:&&|;)\s*")


def leading_cd(command: str) -> tuple[str, str] | None:
    """(the directory, the rest of the line) of a command line that starts by changing directory."""
    m = _LEADING_CD_RE.match(command)
    if m is None:
        return None
    raw = m.group(1)
    if raw[:1] in "\"'":
        found = [raw[1:-1]]
    elif DRIVE_RE.match(raw):  # a Windows path: its backslashes separate, they do not escape
        found = [raw]
    else:
        found = words(raw)
    if len(found) != 1:
        return None
    return found[0].rstrip("/\\") or found[0], command[m.end():]


# What changes the working directory and runs nothing: `cd`, `pushd`, cmd's `chdir`, PowerShell's `Set-Location`.
_CHANGE_DIR_RE = re.compile(r"(?:cd|pushd|chdir|set-location|sl|push-location)\s", re.IGNORECASE)


def first_word(cmd: str) -> str:
    """The program a simple command runs (`cd` for a `cd …` or any other change of directory: `pushd`,
    `Set-Location`; past `(` and `past_prefixes`: `X=1`, `time`, `sudo`, `env`…), as it was spelled
    (`/usr/bin/pnpm` stays whole)."""
    cmd = cmd.strip().lstrip("( ")
    if _CHANGE_DIR_RE.match(cmd):
        return "cd"
    ws = past_prefixes(cmd.split())
    return ws[0] if ws else ""


# --- exit status -------------------------------------------------------------------------------

# Look-ups whose exit status 1 means "no match", not a failure (grep, find in some forms, which, and
# pgrep/pkill/killall when no process matched).
_LOOKUP_RE = re.compile(r"(?:grep|egrep|fgrep|rg|ag|find|which|command\s+-v|pgrep|pkill|killall)(?=\s|$)")
# Comparisons whose exit status 1 means "they differ" or "false": no failure either, but no look-up.
_COMPARE_RE = re.compile(r"(?:diff|cmp|git\s+diff|test|\[)(?=\s|$)")


def _last_command(command: str) -> str:
    """The last simple command of a line, which gives the line its exit status (`a; b`, `a && b`,
    `a | b`), found by the shared splitter (quotes respected); "" for none."""
    parts = split_commands(command)
    return parts[-1] if parts else ""


def found_nothing(command: str, exit_code: int | None, silent: bool = False) -> bool:
    """Whether a command line's exit status says its look-up found nothing: 1 from a line whose last
    command is a look-up (`pgrep -l x; pgrep -l y` exits with the second's status), or, when the line
    printed nothing (`silent`), whose first command is (`grep -q x f && echo found` stopped at grep)."""
    if exit_code != 1 or not command:
        return False
    return bool(_LOOKUP_RE.match(_last_command(command)) or silent and _LOOKUP_RE.match(_first_command(command)))


def benign_exit(command: str, exit_code: int | None, silent: bool = False) -> bool:
    """Whether a command line's exit status 1 is no failure: a look-up that found nothing
    (`found_nothing`), or a comparison whose answer is "they differ" or "false" (`diff a b`, `cmp`,
    `[ -f x ]`)."""
    if exit_code != 1 or not command:
        return False
    return found_nothing(command, exit_code, silent) or bool(_COMPARE_RE.match(_last_command(command)))


# How a harness tells a command's exit status inside its output (mini-swe-agent, OpenHands, Claude Code).
EXIT_TAG_RE = re.compile(r"<returncode>-?\d+</returncode>|\[The command completed with exit code -?\d+\.\]|"
                         r"[Ee]xit (?:code|status):? -?\d+")


# A harness's bookkeeping lines around a command's output (Gemini CLI's `Command: …`, `Output: (empty)`,
# `Error: (none)`, `Exit Code: 1`, `Signal: 0`, `Background PIDs: (none)`, `Process Group PGID: 7`,
# `Directory: (root)`; Claude Code's `Shell cwd was reset to /repo`; a fence; a bare tag):
# fullmatch on a stripped line. They say nothing of what went wrong.
CWD_RESET_RE = re.compile(r"Shell cwd was reset to [^\n]*")  # Claude Code's note after a command that left the project
STATUS_LINE_RE = re.compile(r"`{3,}\w*|</?\w+>|\[The command completed[^\n]*|[A-Z][\w ]{0,30}: \((?:none|empty)\)|"
                            r"(?:Exit [Cc]ode|Signal|Process Group PGID|Background PIDs|Directory|Command):[^\n]*|"
                            + CWD_RESET_RE.pattern)
# Gradle's account of a failed build: the lines after `* What went wrong:`.
_WENT_WRONG_RE = re.compile(r"^\* What went wrong:[ \t]*\r?\n((?:[ \t]*\S[^\n]*(?:\n|$)){1,2})", re.M)


def went_wrong(output: str) -> tuple[int, int] | None:
    """(start, end) of what a build tool said went wrong, at most two lines (`Problem configuring task
    :app:test from command line.` / `> Unknown command-line option '--tests'.`), else None."""
    if "went wrong:" not in output:
        return None
    m = _WENT_WRONG_RE.search(output)
    if m is None:
        return None
    block = m.group(1)
    lines = [ln for ln in block.split("\n") if ln.strip()]
    end = m.start(1) + len(block.rstrip())
    if len(lines) > 1 and not lines[1].lstrip().startswith(">"):  # a second line only when it details the first
        end = m.start(1) + len(block.split("\n", 1)[0].rstrip())
    return m.start(1), end


def printed_nothing(output: str) -> bool:
    """Whether a command's output is empty but for the harness's exit-status tag and status lines."""
    rest = EXIT_TAG_RE.sub("", output)
    return all(STATUS_LINE_RE.fullmatch(ln.strip()) for ln in rest.splitlines() if ln.strip())


def run_words(command: str) -> list[str]:
    """The words of the first command a line runs past its `cd`s and prefixes (`cd /repo && X=1 make
    all` -> `make all`): every line of a session that works in one directory opens with the same `cd`."""
    for part in split_commands(command):
        if first_word(part) != "cd":
            return past_prefixes(words(part))
    return []


# A word that redirects (`2>&1`, `>>log`, `&>out`, `<in`): where output goes, not what runs nor a place read.
REDIRECT_WORD_RE = re.compile(r"^(?:\d|&)?(?:>>?|<<<|<<-?|<)")


def unredirected(said: Sequence[str]) -> tuple[list[str], list[str]]:
    """(a simple command's words without its redirections, each redirection with its target: `>out.txt`,
    `2>&1`, `<in.sql`). Why one place: where output goes is no part of what runs, nor a place searched,
    and a bare `>`'s target is the next word; runs, chores, checks and searches are all told by it."""
    kept: list[str] = []
    redirections: list[str] = []
    rest = iter(said)
    for w in rest:
        if not REDIRECT_WORD_RE.match(w):
            kept.append(w)
        elif REDIRECT_WORD_RE.fullmatch(w.rstrip("&|")):  # a bare `>`, `2>`, `<`: its target follows
            redirections.append(w + next(rest, ""))
        else:
            redirections.append(w)
    return kept, redirections


def discarded(redirection: str) -> bool:
    """Whether a redirection only drops or merges output (`2>/dev/null`, `2>&1`): no file is written."""
    return redirection.endswith(("/dev/null", "&1", "&2"))


def _first_command(command: str) -> str:
    parts = split_commands(command)
    return parts[0] if parts else ""


# --- options and operands ----------------------------------------------------------------------

def options(args: list[str], valued: Collection[str]) -> Iterator[tuple[str, str]]:
    """A program's arguments as getopt reads them: (option, its value or "") for each option, ("", word)
    for each operand. `valued`: the options that take a value, the next word unless attached (`-t dir`,
    `-tdir`, `--target-directory=dir`); short ones cluster (`-vt dir`); all after `--` are operands.
    Why: an option's value read as an operand is a wrong file (`python -W ignore f.py` runs f.py)."""
    rest = iter(args)
    for w in rest:
        if w == "--":
            yield from (("", x) for x in rest)
            return
        if w == "-" or not w.startswith("-"):
            yield "", w
        elif w.startswith("--"):
            name, eq, value = w.partition("=")
            yield name, value if eq or name not in valued else next(rest, "")
        else:
            for k, flag in enumerate(w[1:], 2):
                if f"-{flag}" in valued:
                    yield f"-{flag}", w[k:] or next(rest, "")
                    break
                yield f"-{flag}", ""


# --- moves and copies ---------------------------------------------------------------------------

_TRANSFER_VALUED = frozenset({"-t", "--target-directory", "-S", "--suffix"})  # mv's and cp's (GNU)
_TARGET_DIR = frozenset({"-t", "--target-directory"})
_NO_TARGET_DIR = frozenset({"-T", "--no-target-directory"})


@dataclass(frozen=True, slots=True)
class Transfer:
    """The files of a `mv`, `git mv` or `cp`: `into` when the target is a directory by the command's own
    words (a trailing slash, several sources, `-t DIR`, `.`), where each source keeps its name."""

    program: str  # "mv", "git mv" or "cp"
    sources: tuple[str, ...]
    target: str
    into: bool

    @property
    def moves(self) -> bool:
        """Whether the sources leave their places (a copy leaves them)."""
        return self.program != "cp"

    def pairs(self, into: bool | None = None) -> list[tuple[str, str]]:
        """(source, destination) of each source; `into` True when the caller knows the target is a
        directory (`mv f lib` after `mkdir lib`)."""
        inside = self.into if into is None else into
        return [(s, joined(self.target, s) if inside else self.target) for s in self.sources]


def joined(directory: str, source: str) -> str:
    """Where `source` lands when moved into `directory`: the directory joined with its base name (a
    directory's trailing slash kept, so it stays told apart from a file)."""
    name = source.rstrip("/").rsplit("/", 1)[-1] + ("/" if source.endswith("/") else "")
    if directory in (".", "./"):
        return name
    return f"{directory.rstrip('/')}/{name}" if directory.rstrip("/") else f"/{name}"


def _is_dir_word(path: str) -> bool:
    """A target that is a directory by its spelling alone (`dir/`, `.`, `..`, `~`)."""
    return path.endswith(("/", "/.", "/..")) or path in (".", "..", "~")


def transfer(said: list[str]) -> Transfer | None:
    """A `mv`, `git mv` or `cp` simple command's files, from its words (the program first), else None."""
    if said[:2] == ["git", "mv"]:
        program, args = "git mv", said[2:]
    elif said[:1] in (["mv"], ["cp"]):
        program, args = said[0], said[1:]
    else:
        return None
    paths: list[str] = []
    target_dir, exact = "", False
    for name, value in options(args, _TRANSFER_VALUED):
        if not name:
            paths.append(value)
        elif name in _TARGET_DIR:
            target_dir = value
        exact = exact or name in _NO_TARGET_DIR
    if target_dir:
        return Transfer(program, tuple(paths), target_dir, True) if paths else None
    if len(paths) < 2:
        return None
    into = not exact and (len(paths) > 2 or _is_dir_word(paths[-1]))
    return Transfer(program, tuple(paths[:-1]), paths[-1], into)


def transfers(command: str) -> list[Transfer]:
    """The moves and copies of a command line's simple commands."""
    found = (transfer(words(part)) for part in split_commands(command) if first_word(part) in ("mv", "cp", "git"))
    return [t for t in found if t is not None]


def made_dirs(command: str) -> set[str]:
    """The directories a command line's `mkdir`s make, with their parents (which exist, or `-p` makes them)."""
    out: set[str] = set()
    for part in split_commands(command):
        said = words(part)
        if first_word(part) != "mkdir" or "mkdir" not in said:
            continue
        for name, path in options(said[said.index("mkdir") + 1:], {"-m", "--mode"}):
            parts = path.removeprefix("./").rstrip("/").split("/") if not name else []  # `./lib` is `lib`
            out.update("/".join(parts[:i]) for i in range(1, len(parts) + 1) if parts[:i] != [""])
    return out


# --- a command's identity and the files it edits (the error memory's keys) ---------------------

_FILE_TOKEN = re.compile(r"[\w/]\.(?:py|js|mjs|cjs|ts|tsx|sh|java|go|rs|rb|pl|c|cc|cpp|pony|json|toml|cfg|ini)$")
_EDIT_CMD = re.compile(r"\b(?:sed|perl)\s+-[a-z]*i\S*\s+(?:'[^']*'|\"[^\"]*\"|\S+\s+)*?([\w./\-]+\.\w+)\s*$|"
                       r"(?:cat|tee|echo|printf)\b[^>\n]*>{1,2}\s*([\w./\-]+\.\w+)")


# Programs that run the command after them, with their options that take a value (`sudo -u me`,
# `timeout -s KILL 60 cmd`): what runs is the program past them.
_PREFIX_OPTIONS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-h", "-p", "-U", "--user", "--group"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "nohup": frozenset(),
}
ASSIGNMENT_RE = re.compile(r"[A-Za-z_]\w*=\S*")


def past_prefixes(said: list[str]) -> list[str]:
    """A simple command's words from the program it runs: past `X=1` assignments and the programs
    that run the rest (`sudo -E`, `env -i`, `time`, `nohup`, `timeout 60s`), their options skipped."""
    i = 0
    while i < len(said):
        word = said[i]
        if ASSIGNMENT_RE.fullmatch(word):
            i += 1
            continue
        valued = _PREFIX_OPTIONS.get(word)
        if valued is None:
            break
        i += 1
        while i < len(said) and said[i].startswith("-") and said[i] != "-":
            i += 2 if said[i] in valued else 1
        if word == "timeout" and i < len(said):
            i += 1  # the duration
    return said[i:]


# Programs that run another one named next (`npx tsc`, `pnpm exec eslint`, `uv run pytest`, `python -m pytest`):
# the program a line runs is that one (`npx tsc` and `npx jest` run two programs).
_RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx"})
_RUNNER_VERBS = {"pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "npm": ("exec", "x"), "bun": ("x",), "uv": ("run",),
                 "pipx": ("run",), "poetry": ("run",), "bundle": ("exec",)}
_RUNNER_VALUED = frozenset({"-p", "--package", "--with", "--from", "-c", "--call"})  # a runner's options with a value


def program_run(said: list[str]) -> str:
    """The file name of the program a simple command's words run, past a package runner and its options
    (`npx -p typescript tsc` -> `tsc`, `pnpm exec eslint` -> `eslint`, `uv run python -m pytest` ->
    `pytest`); "" for no words."""
    if not said:
        return ""
    prog = file_name(said[0])
    rest = said[1:]
    verb = bool(rest) and rest[0] in _RUNNER_VERBS.get(prog, ())
    if verb or prog in _RUNNERS:
        rest = rest[1:] if verb else rest
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            i += 2 if rest[i] in _RUNNER_VALUED else 1
        return program_run(rest[i:]) or prog
    if prog.startswith("python") and len(rest) > 1 and rest[0] == "-m":
        return rest[1]
    return prog


def program_of(command: str) -> str:
    """The program a command line runs past its `cd`s, prefixes and package runner (`cd r && npx tsc` -> `tsc`)."""
    return program_run(run_words(command))


@per_text(maxsize=4096)  # the same command is asked for by every record scanned after it
def norm_command(cmd: str | None) -> str:
    """A command's identity for "same command": the program plus the first file it names (else its
    first argument), from the last command of a chain: `cd x && pytest -n 2 t.py::a` -> `pytest t.py`,
    `python -c "import idna; …"` -> `python -c idna`, `python -m pytest` -> `python -m pytest`."""
    segments = first_line_commands(cmd)
    ws = past_prefixes(words(segments[-1])) if segments else []
    if not ws:
        return ""
    prog = ws[0].rsplit("/", 1)[-1]
    if len(ws) > 2 and ws[1] in ("-c", "-m"):
        if ws[1] == "-m":
            return f"{prog} -m {ws[2]}"
        mod = re.search(r"(?:from|import)\s+([\w.]+)", ws[2]) or re.search(r"[A-Za-z_]\w*", ws[2])
        return f"{prog} -c {mod.group(1) if mod and mod.groups() else (mod.group(0) if mod else '')}".rstrip()
    files = [w.split("::", 1)[0] for w in ws[1:]]
    file = next((f for f in files if _FILE_TOKEN.search(f)), None)
    if file:
        return f"{prog} {file}"
    rest = [w for w in ws[1:] if not w.startswith("-")]
    return " ".join([prog, *rest[:1]])


def command_keys(cmd: str | None) -> set[str]:
    """Identities of every command in a chain (`javac A.java && java A` gives both), without `cd`."""
    out = set()
    for seg in first_line_commands(cmd):
        key = norm_command(seg)
        if key and key.split()[0] != "cd":
            out.add(key)
    return out


def edited_files(cmd: str | None) -> list[str]:
    """Files a shell command edits in place or overwrites (`sed -i … f`, `cat > f <<EOF`)."""
    out = []
    for seg in first_line_commands(cmd):
        m = _EDIT_CMD.search(seg)
        if m:
            out.append(m.group(1) or m.group(2))
    return out


_INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "bash", "sh", "zsh", "deno", "bun", "php", "perl",
                           "pwsh", "powershell", "java"})
# Per interpreter, from its documented options: those that take a value (the next word unless attached), and
# those that give the program inline or as a module (`-c`, `-m`, `-e`): then no script file runs.
_VALUED_NONE: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
_SCRIPT_OPTIONS = {
    "python": (frozenset({"-W", "-X", "--check-hash-based-pycs"}), frozenset({"-c", "-m"})),
    "node": (frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions",
                        "--input-type", "--title"}), frozenset({"-e", "--eval", "-p", "--print"})),
    "ruby": (frozenset({"-r", "-I", "-C", "-E"}), frozenset({"-e"})),
    "perl": (frozenset({"-I", "-M", "-m"}), frozenset({"-e", "-E"})),
    "php": (frozenset({"-c", "-d", "-z"}), frozenset({"-r"})),
    "sh": (frozenset({"-o", "-O"}), frozenset({"-c"})),  # bash and zsh alike
    # `java -cp out Main`: the class Main (its source Main.java); `-jar app.jar`: the jar
    "java": (frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules",
                        "--add-opens", "--add-exports", "--source"}), frozenset({"-m", "--module"})),
}


def scripts_run(command: str) -> set[str]:
    """The names of the script files a command line runs: an interpreter's first argument, or `./file`."""
    names: set[str] = set()
    for part in split_commands(command):
        said = words(part)
        said = past_prefixes(said)
        if not said:
            continue
        program = said[0].rsplit("/", 1)[-1]
        if said[0].startswith("./"):
            script = said[0]
        elif program in _INTERPRETERS or re.fullmatch(r"python\d[\d.]*", program):
            script = _script(program, said[1:])
        else:
            continue
        if script:
            name = script.rsplit("/", 1)[-1]
            # a class runs from its source file's name (`java Repro`: Repro.java), a jar or a source file as named
            if program == "java" and not name.endswith((".java", ".jar")):
                name = name.rsplit(".", 1)[-1] + ".java"  # `com.example.Repro`: the class Repro, in Repro.java
            names.add(name)
    return names


def _script(program: str, args: list[str]) -> str:
    """The script file an interpreter's arguments run: its first operand, options' values skipped (`python
    -W ignore f.py`: f.py); "" when an option gives the program inline or as a module (`-c`, `-m`, `-e`)."""
    family = "python" if program.startswith("python") else "sh" if program in ("bash", "zsh") else program
    valued, inline = _SCRIPT_OPTIONS.get(family, _VALUED_NONE)
    for name, value in options(args, valued | inline):
        if name in inline:
            return ""
        if not name:
            return "" if value == "-" else value  # `python -`: the script comes on stdin
    return ""
