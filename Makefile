# The two commands a newcomer runs: `make demo` and `make test`. Both set up everything they need.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := examples/sweagent-pydicom-1458.traj

.PHONY: demo test test-python test-client test-fixture-deps test-agents-deps bench bench-all fuzz lint venv system-deps clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	@# byte-compile our sources: the hooks start a fresh interpreter per event, and with
	@# PYTHONDONTWRITEBYTECODE set every start would compile them again (existing .pyc are still read)
	$(BIN)/python -m compileall -q compaction restore lsp_server >/dev/null
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	@mkdir -p demo-output
	$(BIN)/compaction stats $(EXAMPLE)
	$(BIN)/compaction compact $(EXAMPLE) --workspace demo-output --target-tokens 1500 --restore -o demo-output/compacted.md
	@echo
	@cat demo-output/compacted.md
	@echo
	@echo "Wrote demo-output/compacted.md, demo-output/.compaction/latest.md and demo-output/.compaction/restore.md"

system-deps:
	bash scripts/install-system-deps.sh

test: $(STAMP) system-deps test-fixture-deps test-agents-deps
	$(MAKE) lint
	$(MAKE) test-python
	$(MAKE) test-client

# The real TypeScript compiler, for the test that re-runs tsc on the deliberately broken project.
test-fixture-deps:
	cd tests/data/errors/ts-broken && npm ci --no-audit --no-fund --silent

# The real agent CLIs for tests/e2e/agents (Claude Code: the release Node 20 resolves and the newest native
# binary; Gemini CLI; Codex CLI), cached in .agents-cache/ (git-ignored), installed once, quietly. A package
# npm cannot install here makes its agent's tests skip with npm's message (fail when CI=true).
AGENTS_CACHE := .agents-cache
AGENT_PACKAGES := claude:@anthropic-ai/claude-code:claude claude-latest:@anthropic-ai/claude-code@latest:claude \
	gemini:@google/gemini-cli:gemini codex:@openai/codex:codex
test-agents-deps:
	@for spec in $(AGENT_PACKAGES); do \
	  IFS=: read -r dir pkg bin <<< "$$spec"; \
	  [ -x "$(AGENTS_CACHE)/$$dir/node_modules/.bin/$$bin" ] && continue; \
	  mkdir -p "$(AGENTS_CACHE)/$$dir"; \
	  npm install --prefix "$(AGENTS_CACHE)/$$dir" --silent --no-audit --no-fund "$$pkg" >/dev/null 2>&1 \
	    || echo "test-agents-deps: npm could not install $$pkg (its e2e tests will say why)"; \
	done

# ruff, and the layering of DESIGN.md §2 (dependencies point down, no import cycle).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python scripts/import_contract.py

# pytest exits 5 when it collects no test: say so rather than fail the whole run on it.
test-python: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider || { rc=$$?; [ $$rc -eq 5 ] && echo "pytest: no tests collected" || exit $$rc; }

test-client:
	@if [ -d vscode-client ]; then $(MAKE) -C vscode-client test-all PYTHON=$(CURDIR)/$(BIN)/python; fi

# The evaluation harness (retention vs baselines, timing) -> bench/results/; `bench-all` runs every benchmark.
bench: $(STAMP)
	$(BIN)/python -m bench

bench-all: $(STAMP)
	$(BIN)/python -m bench --all

# 10,000 hypothesis examples per loader and target (make test runs FUZZ_EXAMPLES=300 of them)
fuzz: $(STAMP)
	$(BIN)/python -m bench.fuzz_all --examples 10000

clean:
	rm -rf demo-output .pytest_cache
