#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# server mode) against toolhost's streamable HTTP endpoint, serving
# testdata/ (tools.hcl and the other *.hcl files there): every scenario,
# then the 2026-07-28 requirement set, each once with sessions and once
# with --stateless.
# Scenarios that need features toolhost lacks are listed with their reasons
# in expected-failures.yml (and expected-failures-stateless.yml); any other
# failure, or a listed scenario that now passes, makes this script exit 1.
#
# The suite needs Node.js 22 or newer. When the node on PATH is older, Node
# 22 is installed from npm into conformance/.node (git-ignored).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
here=$(pwd)

NODE_VERSION=22.23.3 # the Node.js that runs the suite when PATH has none >= 22

node_major() {
  "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

node_bin=""
if command -v node >/dev/null 2>&1 && [ "$(node_major node)" -ge 22 ]; then
  node_bin=$(command -v node)
elif [ -x .node/node_modules/.bin/node ] && [ "$(node_major .node/node_modules/.bin/node)" -ge 22 ]; then
  node_bin="$here/.node/node_modules/.bin/node"
else
  if ! command -v npm >/dev/null 2>&1; then
    echo "conformance: the suite needs Node.js 22 or newer, and there is no npm to install it with;" >&2
    echo "             install Node.js 22+ (with npm), or npm so that this script can install Node $NODE_VERSION into conformance/.node." >&2
    exit 1
  fi
  echo "== installing Node.js $NODE_VERSION from npm into conformance/.node"
  npm install --prefix .node --no-audit --no-fund --no-save "node@$NODE_VERSION" >/dev/null
  node_bin="$here/.node/node_modules/.bin/node"
  if [ "$(node_major "$node_bin")" -lt 22 ]; then
    echo "conformance: npm install node@$NODE_VERSION did not give a working Node.js 22 in conformance/.node" >&2
    exit 1
  fi
fi
echo "== conformance: node $("$node_bin" --version) ($node_bin)"

suite_pkg=node_modules/@modelcontextprotocol/conformance/package.json
want=$(sed -n 's/.*"@modelcontextprotocol\/conformance": *"\([^"]*\)".*/\1/p' package.json)
have=$( [ -f "$suite_pkg" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$suite_pkg" | head -1 || true)
if [ -n "${CI:-}" ] || [ "$have" != "$want" ]; then
  echo "== npm ci (conformance/, @modelcontextprotocol/conformance $want)"
  # npm runs on the node on PATH, which may be older than the suite wants.
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== building toolhost"
(cd .. && go build -o "$work/toolhost" ./cmd/toolhost)

# start_server MODE_FLAGS...: starts toolhost on a free loopback port and
# sets server_pid and url.
start_server() {
  local log="$work/server.log"
  : >"$log"
  # A fresh copy of the fixture each time: the trigger tools of the
  # stateless scenario add and remove config files in it.
  rm -rf "$work/testdata"
  cp -R testdata "$work/testdata"
  rm -f "$work"/testdata/listen-extra-*.hcl "$work"/testdata/.listen-extra-*.tmp
  "$work/toolhost" serve --listen 127.0.0.1:0 "$@" "$work/testdata" 2>"$log" &
  server_pid=$!
  local addr=""
  for _ in $(seq 1 300); do
    addr=$(sed -n 's/.*msg="serving over HTTP" addr=\([^ ]*\).*/\1/p' "$log" | head -1)
    [ -n "$addr" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  if [ -z "$addr" ]; then
    echo "conformance: toolhost did not start serving; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  url="http://$addr/mcp"
}

stop_server() {
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# run_mode NAME BASELINE SELECTION SERVE_FLAGS...: runs the scenarios
# SELECTION names (all: every scenario, each at the protocol version it was
# written for; or a requirement set, such as 2026-07-28: its scenarios at
# that version) against a fresh server and prints the suite's summary.
run_mode() {
  local name=$1 baseline=$2 selection=$3
  shift 3
  local select=(--suite all)
  if [ "$selection" != all ]; then
    select=(--requirements "$selection")
  fi
  start_server "$@"
  echo "== conformance ($name): $url"
  local out="$work/suite-$name.txt" rc=0
  timeout 900 "$node_bin" "$suite" server --url "$url" "${select[@]}" \
    --expected-failures "$baseline" -o "$work/results-$name" >"$out" 2>&1 || rc=$?
  stop_server
  # The summary, without colours, its counts reworded ("N checks passed")
  # so that no line reads like a test runner's closing line: the failures
  # it counts are the expected ones when rc is 0.
  local summary="$work/summary-$name.txt"
  sed -n '/=== SUMMARY ===/,$p' "$out" | sed 's/\x1b\[[0-9;]*m//g' |
    sed 's/\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed/\1 checks passed, \2 checks failed/' >"$summary"
  cat "$summary"
  if [ "$rc" -ne 0 ]; then
    if ! grep -q '=== SUMMARY ===' "$out"; then
      cat "$out"
    fi
    echo "conformance ($name): FAILED (exit $rc); the suite's full output was above or is in its results directory" >&2
    status=1
    return
  fi
  # The suite leaves the scenarios of extensions (tasks) out of its
  # baseline check: a failing one must be listed too.
  local failed unlisted=""
  for failed in $(sed -n 's/^✗ \([^:]*\):.*/\1/p' "$summary"); do
    if ! grep -q "^ *- $failed\( \|$\)" "$baseline"; then
      unlisted="$unlisted $failed"
    fi
  done
  if [ -n "$unlisted" ]; then
    echo "conformance ($name): FAILED: these scenarios failed and are not in $(basename "$baseline"):$unlisted" >&2
    status=1
    return
  fi
  # A scenario with a warning counts as failed against the baseline.
  local total expected
  total=$(grep -c '^[✓✗] ' "$summary" || true)
  # (failed, or passed with a warning; the suite's list leaves tasks out)
  expected=$({ sed -n 's/^✗ \([^:]*\):.*/\1/p' "$summary"; sed -n '/^Expected failures/,/^$/s/^  ~ //p' "$summary"; } | sort -u | grep -c . || true)
  echo "conformance ($name): ok: $total scenarios, $((total - expected)) pass, $expected are expected failures (expected-failures*.yml says why)"
}

status=0
cat expected-failures.yml expected-failures-stateless.yml >"$work/expected-failures-stateless.yml"
run_mode stateful "$here/expected-failures.yml" all
run_mode stateless "$work/expected-failures-stateless.yml" all --stateless
# The 2026-07-28 requirement set, in both modes: with sessions, toolhost
# serves that protocol beside them on the same endpoint.
run_mode stateful-2026-07-28 "$here/expected-failures.yml" 2026-07-28
run_mode stateless-2026-07-28 "$here/expected-failures.yml" 2026-07-28 --stateless
exit "$status"
