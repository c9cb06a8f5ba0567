#!/usr/bin/env bash
# Debian packages the tests need (neovim for the editor smoke test, chromium for the VS Code e2e).
# Runs apt-get only when something is missing, and only as root; otherwise says what to install.
set -euo pipefail
need=()
command -v nvim >/dev/null 2>&1 || need+=(neovim)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v git >/dev/null 2>&1 || need+=(git)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages: ${need[*]} (run: sudo apt-get install -y ${need[*]})" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
