"""Language-server benchmarks (printed, never asserted in unit tests).

1. Hover with 1,000 error-memory records: server-side handler time (in-process, the same
   `hover_at` the server runs) and the LSP round trip through a real server subprocess.
2. A file written on disk reflected in the restore index (watchdog -> debounce -> invalidate),
   with the server's own wiring: median and worst of N writes; target < 500 ms.
3. Server memory (VmRSS / VmHWM of the subprocess) while watching a generated 50,000-file
   workspace after the index scan; target < 150 MB.

Run: `.venv/bin/python bench/lsp_bench.py [--files 50000] [--records 1000]`
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from lsp_harness import lsp_session, open_doc, wait_for  # noqa: E402

from compaction.errors import ErrorMemory  # noqa: E402


def make_records(ws: Path, n: int, files: int = 50) -> Path:
    """n records spread over `files` source files (20 distinct lines each), in the real store."""
    src = ws / "src"
    src.mkdir(parents=True, exist_ok=True)
    for f in range(files):
        (src / f"mod{f}.py").write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(100)))
    with ErrorMemory(ws) as memory:
        for i in range(n):
            memory.add(f"ERR_PY_Bench{i}", solution=f"solution {i}", avoidance=f"avoid {i}",
                       path=f"/elsewhere/proj/src/mod{i % files}.py", line=1 + (i // files) * 2)  # fmt: skip
    return src / "mod0.py"


def bench_hover_in_process(ws: Path, target: Path, trials: int = 2000) -> dict[str, float]:
    from pygls.workspace import Workspace

    from lsp_server import server as srv

    ls = srv.server
    ls.protocol._workspace = Workspace(ws.as_uri(), types.TextDocumentSyncKind.Incremental)
    t0 = time.perf_counter()
    srv.refresh_error_index(ls)
    build_ms = (time.perf_counter() - t0) * 1000
    uri = target.as_uri()
    per_file = len(ls.error_index.spots_for(target))
    times = []
    hits = 0
    for i in range(trials):
        pos = types.Position(line=(i % per_file) * 2 + (i // per_file) % 2, character=4)  # every other: a miss
        t = time.perf_counter()
        h = srv.hover_at(ls, uri, pos)
        times.append((time.perf_counter() - t) * 1000)
        hits += h is not None
    return {"median_ms": statistics.median(times), "p95_ms": sorted(times)[int(0.95 * len(times))],
            "index_build_ms": build_ms, "hits": hits, "trials": trials,
            "records": len(ls.error_index.records)}  # fmt: skip


async def bench_hover_lsp(ws: Path, target: Path, trials: int = 300) -> dict[str, float]:
    async with lsp_session(ws) as lc:
        uri = open_doc(lc, target)
        await wait_for(lambda: lc.diagnostics.get(uri), what="diagnostics")
        times = []
        for i in range(trials):
            t = time.perf_counter()
            res = await lc.text_document_hover_async(
                types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri),
                                  position=types.Position(line=(i % 20) * 2, character=4))  # fmt: skip
            )
            times.append((time.perf_counter() - t) * 1000)
            assert res is not None
        return {"median_ms": statistics.median(times), "p95_ms": sorted(times)[int(0.95 * len(times))]}


def bench_watch_to_index(ws: Path, writes: int = 20) -> dict[str, float]:
    from pygls.workspace import Workspace

    from lsp_server import server as srv

    ls = srv.server
    ls.protocol._workspace = Workspace(ws.as_uri(), types.TextDocumentSyncKind.Incremental)
    ls.last_compaction = None
    srv.workspace_index(ls).ensure_scanned()
    srv.start_watching(ls)
    time.sleep(0.3)
    lat = []
    try:
        for i in range(writes):
            rel = f"pkg{i % 5}/new_{i}.py"
            (ws / rel).parent.mkdir(exist_ok=True)
            t = time.perf_counter()
            (ws / rel).write_text(f"x = {i}\n")
            while srv.workspace_index(ls).get(rel) is None:
                if time.perf_counter() - t > 5:
                    raise AssertionError(f"{rel} never reached the index")
                time.sleep(0.002)
            lat.append((time.perf_counter() - t) * 1000)
    finally:
        srv.stop_watching(ls)
    return {"median_ms": statistics.median(lat), "max_ms": max(lat), "writes": writes}


def make_big_workspace(root: Path, files: int) -> None:
    per_dir = 100
    for i in range(files):
        d = root / f"pkg{i // (per_dir * 20)}" / f"sub{(i // per_dir) % 20}"
        if i % per_dir == 0:
            d.mkdir(parents=True, exist_ok=True)
        (d / f"m{i}.py").write_text(f"v = {i}\n")
    nm = root / "node_modules" / "dep"
    nm.mkdir(parents=True)
    for i in range(2000):
        (nm / f"f{i}.js").write_text("module.exports = 1\n")


def _rss(pid: int) -> tuple[float, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def bench_memory(root: Path, files: int) -> dict[str, float]:
    t = time.perf_counter()
    make_big_workspace(root, files)
    gen_s = time.perf_counter() - t
    async with lsp_session(root) as lc:
        pid = lc._server.pid
        # the index scan runs in the background after initialize
        await wait_for(lambda: any(m.message.startswith("workspace index:") for m in lc.log_messages), 300, "scan")
        await asyncio.sleep(0.5)
        watch_rss, _ = _rss(pid)
        t = time.perf_counter()
        result = await lc.workspace_execute_command_async(
            types.ExecuteCommandParams(command="compaction.restore", arguments=[{}])
        )
        restore_ms = (time.perf_counter() - t) * 1000
        # touch a file and let the watcher see it
        (root / "pkg0" / "sub0" / "m0.py").write_text("v = -1\n")
        await asyncio.sleep(1.0)
        rss, hwm = _rss(pid)
    return {"files": files, "generate_s": gen_s, "rss_mb": rss, "peak_mb": hwm, "first_restore_ms": restore_ms,
            "watch_rss_mb": watch_rss,
            "files_indexed": result["state"]["stats"]["files_indexed"]}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--records", type=int, default=1000)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lsp-bench-"))
    os.environ.setdefault("COMPACTION_HOME", str(tmp / "home"))
    try:
        ws = tmp / "hover"
        target = make_records(ws, args.records)
        h = bench_hover_in_process(ws, target)
        print(f"hover (server-side, {h['records']} records): median {h['median_ms']:.3f} ms, p95 {h['p95_ms']:.3f} ms"
              f" over {h['trials']} hovers ({h['hits']} with a record); index build {h['index_build_ms']:.1f} ms"
              f"  [target < 5 ms]")
        r = asyncio.run(bench_hover_lsp(ws, target))
        print(f"hover (LSP round trip, subprocess): median {r['median_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms")
        w = bench_watch_to_index(tmp / "hover")
        print(f"file change -> restore index: median {w['median_ms']:.0f} ms, max {w['max_ms']:.0f} ms"
              f" over {w['writes']} writes  [target < 500 ms]")
        m = asyncio.run(bench_memory(tmp / "big", args.files))
        print(f"memory watching {m['files']} files ({m['files_indexed']} indexed): RSS {m['watch_rss_mb']:.0f} MB"
              f" watching and indexed; {m['rss_mb']:.0f} MB (peak {m['peak_mb']:.0f} MB) after a restore, which loads"
              f" the tokenizer; first restore {m['first_restore_ms']:.0f} ms  [target < 150 MB]")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
