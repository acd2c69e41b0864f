#!/usr/bin/env bash
# Installs what the VS Code extension's build and tests need: Debian's Chromium (driven by
# playwright-core, never `playwright install`), ripgrep and the headers code-server builds against,
# code-server 4.100.3 (VS Code 1.100.3) into .tools/code-server, and the extension's npm
# dependencies (TypeScript, esbuild, vsce, vscode-tmgrammar-test, playwright-core) from its
# package-lock.json. Idempotent: a second run only checks and returns.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CODE_SERVER_VERSION=4.100.3
TOOLS="$ROOT/.tools"

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v rg >/dev/null || need_apt+=(ripgrep)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v node >/dev/null || need_apt+=(nodejs npm)
if ((${#need_apt[@]})); then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" fonts-dejavu-core
fi

# code-server's @vscode/ripgrep downloads a release from GitHub on install; give it Debian's rg in
# the cache it looks in first, so the install needs only the npm registry.
rg_cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
rg_tar="$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [[ ! -s $rg_tar ]]; then
    mkdir -p "$rg_cache"
    tar -C "$(dirname "$(command -v rg)")" -czf "$rg_tar" rg
fi

# code-server from its npm tarball, installed as a project (not `npm install -g`): its
# postinstall runs a nested `npm install` in lib/vscode, which a global install's inherited
# prefix settings break.
cs="$TOOLS/code-server"
cs_version() { node "$cs/out/node/entry.js" --version 2>/dev/null | head -1 | cut -d' ' -f1; }
if [[ ! -f $cs/out/node/entry.js || ! -e $cs/lib/vscode/node_modules.asar ]] || [[ $(cs_version) != "$CODE_SERVER_VERSION" ]]; then
    rm -rf "$cs" "$TOOLS/code-server.tgz"
    mkdir -p "$cs"
    (cd "$TOOLS" && npm pack --silent "code-server@$CODE_SERVER_VERSION" >/dev/null && mv "code-server-$CODE_SERVER_VERSION.tgz" code-server.tgz)
    tar -xzf "$TOOLS/code-server.tgz" --strip-components=1 -C "$cs"
    rm -f "$TOOLS/code-server.tgz"
    (cd "$cs" && npm_config_unsafe_perm=true npm_config_yes=true \
        npm install --omit=dev --no-audit --no-fund --loglevel=error)
fi

ext="$ROOT/vscode-extension"
if [[ ! -f $ext/node_modules/.package-lock.json ]] || ! cmp -s "$ext/package-lock.json" "$ext/node_modules/.ci-installed-lock.json"; then
    (cd "$ext" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.ci-installed-lock.json)
fi
echo "vscode tools ready: code-server $(cs_version), $(chromium --version 2>/dev/null | cut -d' ' -f1,2)"
