"""`compaction-lsp` / `python -m lsp_server`: stdio by default, `--tcp` on 127.0.0.1 only."""

from __future__ import annotations

import argparse
import logging
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compaction-lsp", description="Context compaction language server.")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on 127.0.0.1 instead of stdio")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--allow-read", action="append", default=[], metavar="PATH",
                        help="also let requests read transcripts under PATH (repeatable; also $COMPACTION_ALLOW_READ)")
    args = parser.parse_args(argv)

    from compaction import __version__

    if args.version:
        print(f"compaction-lsp {__version__}")
        return 0

    from compaction.confine import allowed_reads_from_env
    from lsp_server.server import ClientLogHandler, check_pygls_internals, server

    server.allow_read = [str(p) for p in args.allow_read] + [str(p) for p in allowed_reads_from_env()]

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    ours = logging.getLogger("lsp_server")
    ours.setLevel(args.log_level)
    ours.addHandler(ClientLogHandler(server))
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message body at INFO
    try:
        check_pygls_internals()  # refuse to run with silently broken cancellation
    except RuntimeError:
        return 1

    if args.tcp:
        server.start_tcp("127.0.0.1", args.port)
    else:
        server.start_io()
    return 0


if __name__ == "__main__":
    sys.exit(main())
