#!/usr/bin/env bash
# Installs what the VS Code extension's build and tests need: Debian's Chromium (driven by
# playwright-core, never `playwright install`), ripgrep and the headers code-server builds against,
# code-server 4.100.3 (VS Code 1.100.3) linked at .tools/code-server, and the extension's npm
# dependencies (TypeScript, esbuild, vsce, vscode-tmgrammar-test, playwright-core) from its
# package-lock.json. Idempotent: a second run only checks and returns. What takes long to install
# is kept once per user in ~/.cache/wave-lsp-ci (XDG_CACHE_HOME), keyed by version.
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
# prefix settings break. It is installed once per user and version (the install takes half a
# minute), under a lock, and each clone's .tools/code-server links to it.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wave-lsp-ci"
cs_home="$cache/code-server-$CODE_SERVER_VERSION"
cs="$TOOLS/code-server"
cs_version() { node "$1/out/node/entry.js" --version 2>/dev/null | head -1 | cut -d' ' -f1; }
cs_ready() { [[ -f $1/out/node/entry.js && -e $1/lib/vscode/node_modules.asar && $(cs_version "$1") == "$CODE_SERVER_VERSION" ]]; }
mkdir -p "$cache" "$TOOLS"
if ! cs_ready "$cs_home"; then
    exec 9>"$cache/.code-server.lock"
    flock 9
    if ! cs_ready "$cs_home"; then
        rm -rf "$cs_home" "$cache/code-server.tgz"
        mkdir -p "$cs_home"
        (cd "$cache" && npm pack --silent "code-server@$CODE_SERVER_VERSION" >/dev/null && mv "code-server-$CODE_SERVER_VERSION.tgz" code-server.tgz)
        tar -xzf "$cache/code-server.tgz" --strip-components=1 -C "$cs_home"
        rm -f "$cache/code-server.tgz"
        (cd "$cs_home" && npm_config_unsafe_perm=true npm_config_yes=true \
            npm install --omit=dev --no-audit --no-fund --loglevel=error)
    fi
    flock -u 9
fi
[[ -L $cs || ! -e $cs ]] || rm -rf "$cs"        # an older clone's own copy
ln -sfn "$cs_home" "$cs"

# The extension's npm dependencies: installed once per user and package-lock.json (npm ci, in a
# staging folder, under a lock), and hard-linked into each clone's node_modules (a second or so,
# where npm ci took 15-25 s). Nothing writes into the linked files: the builds write to out/,
# dist/ and server/.
ext="$ROOT/vscode-extension"
installed() { [[ -f $1/.package-lock.json ]] && cmp -s "$ext/package-lock.json" "$1/.ci-installed-lock.json"; }
if ! installed "$ext/node_modules"; then
    modules="$cache/extension-modules-$(sha256sum "$ext/package-lock.json" | cut -c1-16)"
    if ! installed "$modules"; then
        exec 8>"$cache/.extension-modules.lock"
        flock 8
        if ! installed "$modules"; then
            staging=$(mktemp -d "$cache/extension-staging.XXXXXX")
            cp "$ext/package.json" "$ext/package-lock.json" "$staging/"
            (cd "$staging" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
            cp "$ext/package-lock.json" "$staging/node_modules/.ci-installed-lock.json"
            rm -rf "$modules"
            mv "$staging/node_modules" "$modules"
            rm -rf "$staging"
        fi
        flock -u 8
    fi
    rm -rf "$ext/node_modules"
    cp -al "$modules" "$ext/node_modules" 2>/dev/null || { rm -rf "$ext/node_modules"; cp -a "$modules" "$ext/node_modules"; }
fi
echo "vscode tools ready: code-server $(cs_version "$cs"), $(chromium --version 2>/dev/null | cut -d' ' -f1,2)"
