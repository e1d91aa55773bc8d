#!/usr/bin/env bash
# npm packages check: makes the npm packages from a release's archives
# (npm/build.mjs), installs them from the tarballs alone into empty
# directories (npm --offline, an empty cache, a registry address nothing
# listens on), and drives `npx -y toolhost serve examples/tools.hcl` with
# the official TypeScript MCP SDK client, through the binary the install
# step puts in place and through the JS launcher (install scripts off),
# and from a directory with nothing installed, where npx fetches them from
# a registry on 127.0.0.1 serving the tarballs. The tests are
# interop/npm.test.mjs.
#
#   bash .ci/npm.sh DIST_DIR VERSION
#
# DIST_DIR is GoReleaser's dist directory, holding
# toolhost_VERSION_<os>_<arch>.tar.gz (.zip for windows) for linux,
# darwin and windows on amd64 and arm64; VERSION is the version GoReleaser
# gave them (.ci/release.sh writes it to dist/release.env as
# TOOLHOST_RELEASE_VERSION). Needs Node.js 18 or newer with npm, and
# the SDK in interop/node_modules (installed here by `npm ci` if missing).
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: bash .ci/npm.sh DIST_DIR VERSION" >&2
  exit 2
fi
if [ ! -d "$1" ]; then
  echo "error: $1 is not a directory: give GoReleaser's dist directory (made by .ci/release.sh)" >&2
  exit 2
fi
dist=$(cd "$1" && pwd)
version=$2

cd "$(dirname "${BASH_SOURCE[0]}")/.."

for tool in node npm npx; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is not on PATH: install Node.js 18 or newer with npm" >&2
    exit 1
  fi
done
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 18 ]; then
  echo "error: node $(node --version) is too old: the npm packages and their test need Node.js 18 or newer" >&2
  exit 1
fi
if [ ! -f interop/node_modules/@modelcontextprotocol/sdk/package.json ]; then
  echo "== npm ci (interop/)"
  (cd interop && npm ci --no-audit --no-fund)
fi

echo "== npm packages of $version from $dist: pack, install from the tarballs, drive npx toolhost serve"
cd interop
TOOLHOST_NPM_DIST=$dist TOOLHOST_NPM_VERSION=$version NO_COLOR=1 \
  node --test --test-reporter=spec npm.test.mjs
