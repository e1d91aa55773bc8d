#!/usr/bin/env bash
# Builds a snapshot release with GoReleaser (.goreleaser.yaml) and checks
# every artifact, as a user would meet it:
#   - each archive unpacks and holds exactly the binary, README.md, LICENSE
#     and the tracked examples/, at its root;
#   - each binary is an executable of its platform (ELF, Mach-O or PE, and
#     the right CPU);
#   - the checksums file verifies and covers every archive;
#   - the linux/amd64 binary from its archive prints the stamped version and
#     serves the archive's examples/tools.hcl over stdio to a client that
#     sends initialize and tools/list;
#   - the Homebrew cask and the Scoop manifest name every archive of their
#     platforms with its SHA-256.
# Nothing is published. GoReleaser and cyclonedx-gomod (for the SBOMs) come
# from the Go module proxy, built once into a cache directory
# (TOOLHOST_TOOLS_DIR, by default ~/.cache/toolhost/tools).
#
# It leaves the artifacts in dist/ for later steps (the npm packaging) and
# writes dist/release.env with TOOLHOST_RELEASE_VERSION and
# TOOLHOST_RELEASE_DIST. With --download-tools, it only downloads the
# tools' modules and exits. Exit status: 0 when every check passed, 1 when one
# failed (the message says which and why).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
dist=$root/dist

goreleaser_version=v2.15.1
cyclonedx_version=v1.10.0
tools=${TOOLHOST_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toolhost/tools}

fail() {
  echo "release.sh: FAIL: $*" >&2
  exit 1
}

# now prints the time in milliseconds; step and step_done time each step.
now() { date +%s%3N; }
step_name=""
step_start=0
step() {
  step_name=$1
  step_start=$(now)
  echo "== release: $step_name"
}
step_done() {
  local ms=$(($(now) - step_start))
  printf -- '-- release: %s took %d.%03ds\n' "$step_name" $((ms / 1000)) $((ms % 1000))
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# install_tool NAME PACKAGE VERSION prints the path of NAME built from the Go
# module proxy at VERSION, building it into the cache the first time.
install_tool() {
  local name=$1 pkg=$2 version=$3
  local dir=$tools/$name-$version
  if [ ! -x "$dir/$name" ]; then
    echo "installing $pkg@$version into $dir" >&2
    mkdir -p "$dir"
    # Outside the repository, so that its go.mod has no say.
    (cd "$work" && GOBIN=$dir CGO_ENABLED=0 go install "$pkg@$version") >&2 ||
      fail "could not build $pkg@$version from the Go module proxy (see the go output above); check GOPROXY and the network"
  fi
  echo "$dir/$name"
}

# --download-tools only downloads the tools' modules (about 1.9 GB on a
# new machine, network rather than CPU), so that .ci/run can do it in the
# background before the tests; each in a module of its own, so that it
# resolves its dependencies as its go install does.
if [ "${1:-}" = "--download-tools" ]; then
  for tool in "github.com/goreleaser/goreleaser/v2@$goreleaser_version" "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$cyclonedx_version"; do
    d=$(mktemp -d "$work/m.XXXX")
    (cd "$d" && go mod init download >/dev/null 2>&1 && go get "$tool") ||
      fail "could not download $tool from the Go module proxy (see the go output above)"
  done
  exit 0
fi

step "install goreleaser $goreleaser_version and cyclonedx-gomod $cyclonedx_version"
goreleaser=$(install_tool goreleaser github.com/goreleaser/goreleaser/v2 "$goreleaser_version")
cyclonedx=$(install_tool cyclonedx-gomod github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod "$cyclonedx_version")
"$goreleaser" --version 2>&1 | grep -q "GitVersion: *$goreleaser_version\$" ||
  fail "$goreleaser is not GoReleaser $goreleaser_version; remove $(dirname "$goreleaser") to rebuild it"
step_done

step "goreleaser release --snapshot --clean"
# GoReleaser reads the commit from git, but drops all it read (the version
# then ends in "none" and files lose the commit's time) when the repository
# has no remote, as a repository made with git init has not: lend it one,
# the checkout itself, in its environment only. A snapshot never uses it.
if [ -z "$(git remote)" ]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=$root
fi
# A snapshot publishes nothing and announces nothing; the configuration has
# no step that needs a Docker engine (docs/releasing.md).
PATH="$(dirname "$cyclonedx"):$PATH" "$goreleaser" release --snapshot --clean ||
  fail "goreleaser release --snapshot failed (see its output above)"
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
step_done

version=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$dist/metadata.json") ||
  fail "no version in $dist/metadata.json"
case $version in
  *-snapshot-*) ;;
  *) fail "snapshot version $version does not follow .goreleaser.yaml's snapshot.version_template" ;;
esac
checksums=$dist/toolhost_${version}_checksums.txt

step "checksums"
[ -f "$checksums" ] || fail "no checksums file: $checksums"
(cd "$dist" && sha256sum --strict -c "$checksums") || fail "$checksums does not verify"
step_done

step "archives: layout and binaries"
git ls-files examples | LC_ALL=C sort >"$work/examples.git"
[ -s "$work/examples.git" ] || fail "git ls-files examples lists nothing: run this from a git checkout"
platforms="linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64"
for platform in $platforms; do
  os=${platform%_*}
  exe=toolhost
  archive=toolhost_${version}_${platform}.tar.gz
  if [ "$os" = windows ]; then
    exe=toolhost.exe
    archive=toolhost_${version}_${platform}.zip
  fi
  [ -f "$dist/$archive" ] || fail "missing archive dist/$archive"
  grep -q "  $archive\$" "$checksums" || fail "$archive is not in $(basename "$checksums")"
  out=$work/$platform
  mkdir -p "$out"
  case $archive in
    *.zip) python3 -m zipfile -e "$dist/$archive" "$out" ;;
    *) tar -xzf "$dist/$archive" -C "$out" ;;
  esac || fail "dist/$archive does not unpack"
  top=$(cd "$out" && ls -A | LC_ALL=C sort | tr '\n' ' ')
  want=$(printf '%s\n' LICENSE README.md examples "$exe" | LC_ALL=C sort | tr '\n' ' ')
  [ "$top" = "$want" ] || fail "dist/$archive holds [$top] at its root, want [$want] (no wrapping directory)"
  (cd "$out" && find examples -type f | LC_ALL=C sort) >"$work/examples.$platform"
  diff -u "$work/examples.git" "$work/examples.$platform" >&2 ||
    fail "dist/$archive's examples/ differs from git ls-files examples (-git +archive above); remove untracked files under examples/ or fix .goreleaser.yaml's archives.files"
  [ -s "$out/examples/tools.hcl" ] || fail "dist/$archive has no examples/tools.hcl"
  sbom=toolhost_${version}_${platform}.cdx.json
  grep -q "  $sbom\$" "$checksums" || fail "the SBOM dist/$sbom is missing or not in $(basename "$checksums")"
  cmp -s "$out/LICENSE" LICENSE || fail "dist/$archive's LICENSE is not the repository's"
  echo "$platform $out/$exe" >>"$work/binaries"
done
# Each binary's container format and CPU, from its headers.
python3 - "$work/binaries" <<'EOF' || fail "a binary is not an executable of its platform (above)"
import struct, sys

# (format, machine) for each GOOS/GOARCH: ELF e_machine, Mach-O cputype,
# PE COFF Machine.
want = {
    "linux_amd64": ("ELF", 0x3E), "linux_arm64": ("ELF", 0xB7),
    "darwin_amd64": ("Mach-O", 0x01000007), "darwin_arm64": ("Mach-O", 0x0100000C),
    "windows_amd64": ("PE", 0x8664), "windows_arm64": ("PE", 0xAA64),
}

def identify(path):
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:4] == b"\x7fELF" and head[4] == 2 and head[5] == 1:
        return "ELF", struct.unpack_from("<H", head, 18)[0]
    if head[:4] == b"\xcf\xfa\xed\xfe":
        return "Mach-O", struct.unpack_from("<I", head, 4)[0]
    if head[:2] == b"MZ":
        pe = struct.unpack_from("<I", head, 0x3C)[0]
        if head[pe:pe + 4] == b"PE\0\0":
            return "PE", struct.unpack_from("<H", head, pe + 4)[0]
    return "unknown", 0

bad = 0
for line in open(sys.argv[1]):
    platform, path = line.split()
    got = identify(path)
    if got != want[platform]:
        print(f"{platform}: {path} is {got[0]} machine {got[1]:#x}, want {want[platform][0]} machine {want[platform][1]:#x}", file=sys.stderr)
        bad = 1
    else:
        print(f"{platform}: {got[0]} {got[1]:#x}")
sys.exit(bad)
EOF
step_done

step "linux/amd64: version and serve examples/tools.hcl over stdio"
bin=$work/linux_amd64/toolhost
[ -x "$bin" ] || fail "$bin is not executable: the archive lost its mode bits"
got=$("$bin" version) || fail "$bin version failed"
echo "$got"
case $got in
  "toolhost $version "* | "toolhost $version") ;;
  *) fail "toolhost version printed \"$got\", want the stamped \"toolhost $version ...\" (check the -X ldflag in .goreleaser.yaml against hcl.Version)" ;;
esac
(cd "$work/linux_amd64" && python3 - "$bin" <<'EOF') || fail "the linux/amd64 binary did not serve examples/tools.hcl over stdio (above)"
import json, re, subprocess, sys, threading

# The tools the archive's example declares, read from the file itself.
want = set(re.findall(r'(?m)^\s*tool\s+"([^"]+)"\s*\{', open("examples/tools.hcl").read()))
if not want:
    sys.exit("examples/tools.hcl declares no tool")

proc = subprocess.Popen([sys.argv[1], "serve", "examples/tools.hcl"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
timer = threading.Timer(30, proc.kill)
timer.start()

def send(msg):
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()

def reply(want_id):
    for line in proc.stdout:
        msg = json.loads(line)
        if msg.get("id") == want_id:
            if "error" in msg:
                sys.exit(f"request {want_id} failed: {msg['error']}")
            return msg["result"]
    sys.exit(f"toolhost closed stdout before answering request {want_id} (exit {proc.wait()})")

send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "release-check", "version": "1"}}})
init = reply(1)
print("server:", init["serverInfo"]["name"], init["serverInfo"].get("version"), "protocol", init["protocolVersion"])
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
got = {t["name"] for t in reply(2)["tools"]}
proc.stdin.close()
code = proc.wait()
timer.cancel()
print("tools:", " ".join(sorted(got)))
if got != want:
    sys.exit(f"tools/list gave {sorted(got)}, examples/tools.hcl declares {sorted(want)}")
if code != 0:
    sys.exit(f"toolhost serve exited {code} when stdin closed, want 0")
EOF
step_done

step "Homebrew cask and Scoop manifest"
python3 - "$dist" "$version" "$checksums" <<'EOF' || fail "the Homebrew cask or the Scoop manifest is wrong (above)"
import json, os, re, sys

dist, version, checksums = sys.argv[1:]
sums = {}
for line in open(checksums):
    digest, name = line.split()
    sums[name] = digest

cask_path = os.path.join(dist, "homebrew", "Casks", "toolhost.rb")
if not os.path.exists(cask_path):
    sys.exit(f"no Homebrew cask at {cask_path}")
cask = open(cask_path).read()
# Each url line, then the sha256 line that goes with it.
pairs = re.findall(r'url "([^"]+)"[^\n]*\n\s*sha256 "([0-9a-f]{64})"', cask)
# The cask spells the version in its urls as Ruby's #{version}.
got = {url.replace("#{version}", version).rsplit("/", 1)[-1]: digest for url, digest in pairs}
for platform in ("linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"):
    name = f"toolhost_{version}_{platform}.tar.gz"
    if got.get(name) != sums[name]:
        sys.exit(f"{cask_path}: {name} has sha256 {got.get(name)}, want {sums[name]}")
if f'version "{version}"' not in cask:
    sys.exit(f"{cask_path} does not say version \"{version}\"")
print(f"{cask_path}: {len(got)} archives with their sha256")

scoop_path = os.path.join(dist, "scoop", "toolhost.json")
if not os.path.exists(scoop_path):
    sys.exit(f"no Scoop manifest at {scoop_path}")
scoop = json.load(open(scoop_path))
if scoop.get("version") != version:
    sys.exit(f"{scoop_path}: version {scoop.get('version')}, want {version}")
for key, arch in (("64bit", "amd64"), ("arm64", "arm64")):
    entry = scoop["architecture"][key]
    name = f"toolhost_{version}_windows_{arch}.zip"
    if not entry["url"].endswith("/" + name) or entry["hash"] != sums[name]:
        sys.exit(f"{scoop_path}: {key} is {entry['url']} {entry['hash']}, want .../{name} {sums[name]}")
    if entry["bin"] != ["toolhost.exe"]:
        sys.exit(f"{scoop_path}: {key} bin is {entry['bin']}, want [\"toolhost.exe\"]")
print(f"{scoop_path}: 2 archives with their sha256")
EOF
step_done

cat >"$dist/release.env" <<EOF
TOOLHOST_RELEASE_VERSION=$version
TOOLHOST_RELEASE_DIST=$dist
EOF
echo "release: version $version"
echo "release: artifacts in $dist (variables in $dist/release.env)"
