"""The `compaction` command line. Human Markdown on stdout by default, `--json` for machines.

Exit codes: 0 success, 1 bad input (a file or setting we cannot use), 2 usage.
Each command group lives in its own module exposing `register(subparsers)`.
"""

from __future__ import annotations

import argparse
import importlib
import sys

_GROUPS = ["errors", "restore", "blocks", "memory", "hooks", "install", "watch"]
# The command word each group module registers, so one invocation imports only its own group.
_COMMAND_MODULE = {"errors": "errors", "restore": "restore", "blocks": "blocks", "memory": "memory",
                   "hook": "hooks", "install": "install", "watch": "watch"}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="compaction", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version="compaction 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    word = next((a for a in (argv or []) if not a.startswith("-")), None)
    if word not in _COMMAND_MODULE:  # compact, stats, formats (or help): the core commands
        from compaction.cli import compact as compact_cmd

        compact_cmd.register(sub)
    groups = [_COMMAND_MODULE[word]] if word in _COMMAND_MODULE else ([] if word else _GROUPS)
    for name in groups:
        try:
            module = importlib.import_module(f"compaction.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"compaction.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    if next((a for a in argv if not a.startswith("-")), None) == "hook":
        return _main_hook(parser, argv)
    args = parser.parse_args(argv)
    return _run(parser, args)


def _main_hook(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """`compaction hook …`: Claude Code reads a hook's exit 2 as "block the compaction and show
    stderr to the model", so argparse's usage exit 2 becomes a logged, non-blocking exit 1."""
    import contextlib
    import io

    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code != 2:
            sys.stderr.write(said.getvalue())
            raise
        from compaction.cli.hooks import usage_error

        lines = said.getvalue().strip().splitlines()
        return usage_error(lines[-1] if lines else " ".join(argv))
    return _run(parser, args)


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - sorted below; anything else is a bug and re-raised
        code = _exit_code_for(exc)
        if code is None:
            raise
        print(f"compaction: error: {exc}", file=sys.stderr)
        return code


def _exit_code_for(exc: Exception) -> int | None:
    """1 for bad input (a file, setting or store we cannot use; unreadable or unwritable paths),
    2 for usage, None for a bug. Imported here so that a hook's start-up does not pay for them."""
    from compaction.config import ConfigError
    from compaction.model import TranscriptError
    from compaction.store import StoreError

    if isinstance(exc, TranscriptError | ConfigError | StoreError | OSError):
        return 1
    if isinstance(exc, ValueError):
        return 2
    return None


if __name__ == "__main__":
    sys.exit(main())
