"""The optional LLM against a local OpenAI-compatible server, with the real `openai` client.

The server (stdlib http.server in a thread on 127.0.0.1) answers /v1/chat/completions and can
also answer 429, 500, garbage, or sleep past the client's timeout.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from compaction import tokens as tok
from compaction.config import LLMSettings
from compaction.llm import RESTORED_HEADING, LLMClient, restore_facts
from compaction.memory import CompressedMemory
from compaction.summarize import llm_polish, llm_summary, selective_distillation, summarize

DOC = """# Compaction

## Completed work
- Fixed the quoting bug in `django/db/backends/sqlite3/operations.py` (r12)
- ERR_PY_InterfaceError resolved by unwrapping SimpleLazyObject values

## Next steps
- [ ] run tests/generic_views/test_base.py
- @todo: add a regression test for `get_context_data`
"""


class FakeOpenAI:
    def __init__(self) -> None:
        self.mode = "ok"
        self.reply: Callable[[list[dict]], str] = lambda messages: "ok"
        self.requests: list[dict] = []
        self.sleep = 2.0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

            def do_POST(self) -> None:
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **data})
                if self.path != "/v1/chat/completions":
                    return self._send(404, b'{"error": {"message": "not found"}}')
                if outer.mode == "429":
                    return self._send(429, b'{"error": {"message": "slow down", "type": "rate_limit"}}')
                if outer.mode == "500":
                    return self._send(500, b'{"error": {"message": "boom"}}')
                if outer.mode == "garbage":
                    return self._send(200, b"<html>not json at all", "text/html")
                if outer.mode == "sleep":
                    time.sleep(outer.sleep)
                content = outer.reply(data["messages"])
                body = {"id": "c1", "object": "chat.completion", "created": 0, "model": data["model"],
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": content}}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                self._send(200, json.dumps(body).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = FakeOpenAI()
    yield s
    s.close()


@pytest.fixture
def client(server, monkeypatch) -> LLMClient:
    monkeypatch.setenv("COMPACTION_LLM_API_KEY", "sekret")
    return LLMClient.from_settings(LLMSettings(enabled=True, base_url=server.base_url, model="local-model",
                                               api_key_env="COMPACTION_LLM_API_KEY", timeout_s=0.5, max_retries=0))


def test_from_settings(server):
    assert LLMClient.from_settings(LLMSettings()) is None  # disabled by default: offline


def test_summary_uses_the_endpoint_and_restores_dropped_facts(server, client):
    server.reply = lambda messages: "The quoting bug was fixed and the InterfaceError resolved."
    text = DOC * 6
    out, notice = llm_summary(client, text, 200)
    req = server.requests[-1]
    assert req["auth"] == "Bearer sekret" and req["model"] == "local-model"
    assert req["messages"][1]["content"].endswith(text)
    assert out is not None and tok.count(out) <= 200
    assert "django/db/backends/sqlite3/operations.py" in out and "ERR_PY_InterfaceError" in out
    assert RESTORED_HEADING in out and "restored" in notice


@pytest.mark.parametrize(("mode", "reason"), [("429", "rate limited (429)"), ("500", "server error (500)"),
                                              ("garbage", "malformed"), ("sleep", "timeout")])
def test_failures_fall_back_offline_with_a_notice(server, client, mode, reason):
    server.mode = mode
    out, notice = llm_summary(client, DOC * 6, 150)
    assert out is None and reason in notice and "offline" in notice
    narrative = " ".join(f"Meeting {i} went on for a while and nobody decided anything." for i in range(60))
    res = summarize(narrative, target_tokens=80, method="abstractive", llm=client)
    assert res.tokens_after <= 80 and res.text and any(reason in n for n in res.notices)


def test_fact_extraction_validated(server, client):
    server.reply = lambda m: '```json\n{"file_modified": "src/app.py", "error": "KeyError", "nested": {"x": 1}}\n```'
    facts, notice = client.extract_facts("whatever")
    assert facts == {"file_modified": "src/app.py", "error": "KeyError"} and notice is None
    server.reply = lambda m: '["not", "an", "object"]'
    facts, notice = client.extract_facts("whatever")
    assert facts is None and "JSON object" in notice


def test_gists_validated(server, client):
    server.reply = lambda m: json.dumps(["KeyError in parser", "fixed config loading", "tests pass now", "x"])
    phrases, _ = client.gists("text", n=10)
    assert phrases == ["KeyError in parser", "fixed config loading", "tests pass now"]
    server.reply = lambda m: json.dumps(["a", "b", "one two three four five six seven"])
    phrases, notice = client.gists("text", n=3)
    assert phrases is None and "wrong shape" in notice


def test_selective_distillation_with_llm_scores(server, client):
    text = "Alpha happened first. Beta was irrelevant. Gamma fixed src/app.py."
    server.reply = lambda m: "[0.9, 0.1, 0.8]"
    assert selective_distillation(text, 0.7, llm=client) == "Alpha happened first. Gamma fixed src/app.py."
    server.reply = lambda m: "[0.9]"  # wrong length: our own scores are used
    assert "Gamma fixed src/app.py." in selective_distillation(text, 0.7, llm=client)


def test_polish_keeps_identifiers_markers_and_todos(server, client):
    server.reply = lambda m: DOC.replace("ERR_PY_InterfaceError", "the error").replace(
        "- @todo: add a regression test for `get_context_data`\n", "")
    out, notice = llm_polish(client, DOC)
    assert "ERR_PY_InterfaceError" in out and "@todo: add a regression test for `get_context_data`" in out
    assert "restored" in notice
    server.reply = lambda m: "Everything is fine."  # structure lost: keep the original
    out, notice = llm_polish(client, DOC)
    assert out == DOC and "structure" in notice


def test_memory_uses_llm_facts_and_falls_back(server, client, tmp_path):
    server.reply = lambda m: (json.dumps({"bug": "quoting in sqlite3 operations"}) if "facts" in m[0]["content"]
                              else json.dumps(["sqlite quoting bug", "lazy object unwrapped"]))
    mem = CompressedMemory(tmp_path, llm=client)
    r = mem.add("The quoting bug in django/db/backends/sqlite3/operations.py was fixed.")
    assert r.gist == ["sqlite quoting bug", "lazy object unwrapped"]
    assert [(f.key, f.value) for f in mem.retrieve_facts("quoting")] == [("bug", "quoting in sqlite3 operations")]
    server.mode = "500"
    r2 = mem.add("KeyError: 'user' in src/app/views.py")
    assert r2.facts_added >= 1 and r2.gist  # offline extraction took over
    assert any("server error (500)" in n for n in mem.notices)


def test_restore_facts_helper():
    out, missing = restore_facts("summary mentions a.py", ["a.py", "b/c.py", "- [ ] todo"])
    assert missing == ["b/c.py", "- [ ] todo"] and out.endswith("- b/c.py\n- [ ] todo")


def test_block_compressor_summarizes_with_llm_and_falls_back(server, client, shared_transcripts):
    from compaction.blocks import ContextCompressor, Strategy, blocks_from_transcript
    from compaction.transcripts import load_transcript

    blocks = blocks_from_transcript(load_transcript(shared_transcripts / "sweagent-pydicom-1458.traj"))
    big = max(blocks, key=lambda b: b.token_count)
    server.reply = lambda m: "The task: make the numpy pixel handler accept float pixel data."
    comp = ContextCompressor(llm=client)
    res = comp.compress([big], target_tokens=big.token_count // 4, strategy=Strategy.PRIORITY_BASED)
    assert res.outcomes[0].action == "summarized" and res.blocks[0].metadata["llm"] is True
    assert res.tokens_after <= res.target_tokens and "numpy pixel handler" in res.blocks[0].content
    server.mode = "429"
    res = comp.compress([big], target_tokens=big.token_count // 4, strategy=Strategy.PRIORITY_BASED)
    assert res.outcomes[0].action == "summarized" and "kept_spans" in res.blocks[0].metadata  # offline path
    assert any("rate limited" in n for n in comp.notices)


def test_compaction_polish_is_validated_and_budgeted(server, monkeypatch, shared_transcripts):
    from compaction import tokens
    from compaction.config import Settings
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    monkeypatch.setenv("COMPACTION_LLM_API_KEY", "sekret")
    settings = Settings(llm=LLMSettings(enabled=True, polish=True, base_url=server.base_url, model="local-model",
                                        api_key_env="COMPACTION_LLM_API_KEY", timeout_s=2, max_retries=0))
    t = load_transcript(shared_transcripts / "sweagent-pydicom-1458.traj")
    budget = tokens.count_messages(t.messages) // 5
    plain = compact(t, target_tokens=budget)
    # The model rewrites a heading's prose and drops the error id: the id is put back.
    server.reply = lambda m: m[1]["content"].replace("ERR_PY_AttributeError", "an attribute error")
    polished = compact(t, settings, target_tokens=budget)
    assert [r["path"] for r in server.requests] == ["/v1/chat/completions"]  # the model was asked once
    assert "restored" in (polished.note or "")
    assert "ERR_PY_AttributeError" in polished.markdown
    assert tokens.count(polished.markdown) <= budget
    # A failing endpoint keeps the deterministic document, with a notice.
    server.mode = "500"
    failed = compact(t, settings, target_tokens=budget)
    assert failed.markdown == plain.markdown and failed.note
