#!/usr/bin/env bash
# End-to-end test of the extension in a real VS Code (code-server 4.100.3 = VS Code 1.100.3),
# offline, driven by headless Chromium through playwright-core. Reuses the stages of
# ../shared/tools/vscode-e2e/recipe.sh (install) and runs our own steps (e2e.mjs).
#
# Usage: e2e/run.sh [all|install|prepare|start|test|stop]   (default: all = install prepare start test stop)
# Env:   ROOT   (default vscode-client/.vscode-e2e: code-server, its deps, the run's state; gitignored)
#        PORT   (default: a free one)   PYTHON (default <repo>/.venv/bin/python: the server's interpreter)
#        OUT    (default vscode-client/test-output: screenshots and logs)   VSIX (default: built by `npm run package`)
#        RECIPE (default <repo>/../shared/tools/vscode-e2e/recipe.sh)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLIENT=$(dirname "$HERE")
REPO=$(dirname "$CLIENT")
ROOT=${ROOT:-$CLIENT/.vscode-e2e}
# A free port by default, so parallel runs (or another code-server) never answer our health check.
PORT=${PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
PYTHON=${PYTHON:-$REPO/.venv/bin/python}
OUT=${OUT:-$CLIENT/test-output}
VSIX=${VSIX:-$CLIENT/compaction-vscode.vsix}
RECIPE=${RECIPE:-$REPO/../shared/tools/vscode-e2e/recipe.sh}
RUN="$ROOT/run"                 # one run's state: workspace copy, fake home, user data, extensions
WS="$RUN/workspace/proj"        # the fixture workspace, copied so outputs never land in the repo
CS="$ROOT/node_modules/code-server/out/node/entry.js"
CSARGS=(--user-data-dir "$RUN/ud" --extensions-dir "$RUN/ext")

step() { echo; echo "=== $* ($(date +%T))"; }

# code-server and its extension host see only this run's home: discovery finds the fixture
# transcript under <home>/.claude/projects/<escaped workspace>/ exactly as on a user's machine.
run_env() {
  export HOME="$RUN/home" COMPACTION_HOME="$RUN/home" TMPDIR="$RUN/tmp"
  export XDG_CONFIG_HOME="$RUN/xdg/config" XDG_DATA_HOME="$RUN/xdg/data" XDG_CACHE_HOME="$RUN/xdg/cache"
  export XDG_STATE_HOME="$RUN/xdg/state"
  # The server's test hook: each phase of a long command waits this long, so Cancel can be pressed.
  export COMPACTION_LSP_PHASE_DELAY_MS=${COMPACTION_LSP_PHASE_DELAY_MS:-600}
  # Registers the test-only command that drives the language-model tools and the chat handler.
  export COMPACTION_E2E=1
}

do_install() {
  if [ -f "$CS" ] && [ -x /usr/bin/chromium ]; then echo "code-server and chromium already installed under $ROOT"; return; fi
  [ -f "$RECIPE" ] || { echo "recipe not found: $RECIPE (set RECIPE=...)"; exit 1; }
  step "install code-server, chromium (recipe)"
  ROOT="$ROOT" bash "$RECIPE" install
}

do_prepare() {
  step "prepare workspace, fake home with the transcript, user settings, extension"
  [ -f "$CS" ] || { echo "code-server missing: run '$0 install'"; exit 1; }
  [ -x "$PYTHON" ] || { echo "server interpreter missing: $PYTHON"; exit 1; }
  if [ ! -f "$VSIX" ]; then (cd "$CLIENT" && npm run --silent package); fi
  rm -rf "$RUN"
  mkdir -p "$RUN/workspace" "$RUN/home" "$RUN/tmp" "$RUN/ud/User" "$RUN/ext" "$OUT"
  cp -r "$HERE/workspace" "$WS"
  rm -f "$OUT"/*.png "$OUT"/*.log
  # Claude Code keeps sessions under ~/.claude/projects/<cwd with / and . replaced by ->/.
  local escaped; escaped=$(printf '%s' "$WS" | sed 's#[/.]#-#g')
  echo "$RUN/home/.claude/projects/$escaped/claude-session.jsonl" >"$RUN/transcript-path"
  mkdir -p "$RUN/home/.claude/projects/$escaped"
  cp "$HERE/fixtures/claude-session.jsonl" "$RUN/home/.claude/projects/$escaped/claude-session.jsonl"
  cat >"$RUN/ud/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "git.openRepositoryInParentFolders": "never",
  "editor.hover.delay": 200,
  "editor.minimap.enabled": false,
  "compaction.python.path": "$PYTHON",
  "compaction.markdownPreview": false,
  "compaction.openRestoredFiles": false,
  "compaction.trace.server": "messages"
}
JSON
  (run_env; node "$CS" "${CSARGS[@]}" --install-extension "$VSIX" --force)
  (run_env; node "$CS" "${CSARGS[@]}" --list-extensions --show-versions)
}

do_start() {
  step "start code-server on 127.0.0.1:$PORT for $WS"
  (
    run_env
    # setsid: its own process group, so do_stop ends code-server and its extension host together.
    setsid node "$CS" --bind-addr "127.0.0.1:$PORT" --auth none "${CSARGS[@]}" \
      --disable-telemetry --disable-update-check --disable-workspace-trust \
      "$WS" >"$RUN/code-server.log" 2>&1 </dev/null &
    echo $! >"$RUN/code-server.pid"
  )
  local t0=$SECONDS
  until curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null; do
    sleep 0.5
    if [ $((SECONDS - t0)) -gt 60 ]; then cat "$RUN/code-server.log"; exit 1; fi
  done
  echo "code-server up in $((SECONDS - t0))s (pid $(cat "$RUN/code-server.pid"))"
}

do_stop() {
  if [ -f "$RUN/code-server.pid" ]; then
    local pid; pid=$(cat "$RUN/code-server.pid")
    kill -- "-$pid" 2>/dev/null || true
    rm -f "$RUN/code-server.pid"
    echo "stopped code-server process group $pid"
  fi
}

# Activation time from the extension host log (when VS Code began activating us) and our own
# output channel (when activate() returned, and when the server answered initialize).
report_activation() {
  local exthost ours
  exthost=$(find "$RUN/ud/logs" -name '*exthost.log' 2>/dev/null | head -1)
  ours=$(find "$RUN/ud/logs" -path '*compaction.compaction-vscode*' -name '*.log' 2>/dev/null | head -1)
  [ -n "$exthost" ] && cp "$exthost" "$OUT/exthost.log"
  [ -n "$ours" ] && cp "$ours" "$OUT/compaction-output.log"
  cp "$RUN/code-server.log" "$OUT/code-server.log" 2>/dev/null || true
  [ -n "$exthost" ] && [ -n "$ours" ] || { echo "activation: logs not found"; return 0; }
  grep 'compaction.compaction-vscode' "$exthost" | head -3
  grep -E 'activated in|Server started in|Interpreter' "$ours" | head -3
  node -e '
    const fs = require("fs");
    const at = (file, re) => { const l = fs.readFileSync(file, "utf8").split("\n").find((x) => re.test(x));
      return l ? Date.parse(l.slice(0, 23).replace(" ", "T") + "Z") : NaN; };
    const begin = at(process.argv[1], /_doActivateExtension compaction\.compaction-vscode/);
    const done = at(process.argv[2], /activated in/);
    const server = at(process.argv[2], /Server started in/);
    console.log(`activation: ${done - begin} ms from the extension host starting to activate us to activate() returning (bundle load included); server ready ${server - begin} ms after that start`);
  ' "$exthost" "$ours"
}

do_test() {
  step "Playwright: palette -> Compact Conversation -> summary + restore opened -> hover"
  local rc=0
  # An interpreter that cannot see the server package (-S: no site-packages), for the "missing" step.
  printf '#!/bin/sh\nexec python3 -I -S "$@"\n' >"$RUN/python-without-server"
  chmod +x "$RUN/python-without-server"
  ROOT="$ROOT" PORT="$PORT" WS="$WS" OUT="$OUT" \
    FAKE_PYTHON="$RUN/python-without-server" LOGS_DIR="$RUN/ud/logs" \
    TRANSCRIPT_PATH="$(cat "$RUN/transcript-path")" node "$HERE/e2e.mjs" || rc=$?
  report_activation || true
  echo "vsix size: $(stat -c %s "$VSIX") bytes ($VSIX)"
  return $rc
}

case "${1:-all}" in
  install) do_install ;;
  prepare) do_prepare ;;
  start) do_start ;;
  test) do_test ;;
  stop) do_stop ;;
  all)
    do_install
    do_prepare
    trap do_stop EXIT
    do_start
    do_test
    ;;
  *) echo "usage: $0 [all|install|prepare|start|test|stop]"; exit 2 ;;
esac
