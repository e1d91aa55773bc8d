# setup.sh prepares this machine to run windows/amd64 Go binaries and
# `go test` under wine 8. Source it from bash (`. .ci/wine/setup.sh`); it
# needs Debian's wine, wine64 and gcc-mingw-w64-x86-64 packages, and:
#   - makes a wine prefix in $TOOLHOST_WINE_DIR (a new temporary directory
#     by default) with a bcryptprimitives.dll that wine 8 lacks (prng.c);
#   - writes a -overlay file for `go test`/`go build` that fixes file
#     deletion under wine 8 in the standard library of the Go in use
#     ($TOOLHOST_WINE_OVERLAY): wine answers FileDispositionInformationEx
#     with STATUS_NOT_IMPLEMENTED, which internal/syscall/windows does not
#     take as "use the older call";
#   - puts go_windows_amd64_exec (which runs a binary under wine64) on
#     PATH, so that `GOOS=windows go test` runs the tests under wine;
#   - starts a wineserver that stays up (stop it with wine_stop), away
#     from go test's pipes, which wine's services would otherwise hold.

WINE64=${WINE64:-/usr/lib/wine/wine64}
if [ ! -x "$WINE64" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  echo "wine setup: install Debian's wine wine64 gcc-mingw-w64-x86-64 first" >&2
  return 1 2>/dev/null || exit 1
fi
_wine_src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLHOST_WINE_DIR=${TOOLHOST_WINE_DIR:-$(mktemp -d)}
export WINEPREFIX="$TOOLHOST_WINE_DIR/prefix" WINEDEBUG=-all WINE64
mkdir -p "$TOOLHOST_WINE_DIR/bin"
if [ ! -f "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ]; then
  "$WINE64" wineboot -i </dev/null >/dev/null 2>&1
  wineserver -w
  x86_64-w64-mingw32-gcc -O2 -shared -s -o "$TOOLHOST_WINE_DIR/bcryptprimitives.dll" "$_wine_src/prng.c" -ladvapi32
  cp "$TOOLHOST_WINE_DIR/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
fi

_wine_at="$(go env GOROOT)/src/internal/syscall/windows/at_windows.go"
_wine_case='case STATUS_INVALID_INFO_CLASS, // the operating system doesn'"'"'t support FileDispositionInformationEx'
if ! grep -qF "$_wine_case" "$_wine_at"; then
  echo "wine setup: $_wine_at no longer has the case this overlay extends; look at Deleteat again" >&2
  return 1 2>/dev/null || exit 1
fi
sed "s|$_wine_case|case NTStatus(0xC0000002), // wine 8: STATUS_NOT_IMPLEMENTED\n\t\tSTATUS_INVALID_INFO_CLASS,|" "$_wine_at" > "$TOOLHOST_WINE_DIR/at_windows.go"
printf '{"Replace": {"%s": "%s"}}\n' "$_wine_at" "$TOOLHOST_WINE_DIR/at_windows.go" > "$TOOLHOST_WINE_DIR/overlay.json"
export TOOLHOST_WINE_OVERLAY="$TOOLHOST_WINE_DIR/overlay.json"

printf '#!/bin/sh\nexec "%s" "$@"\n' "$WINE64" > "$TOOLHOST_WINE_DIR/bin/go_windows_amd64_exec"
chmod +x "$TOOLHOST_WINE_DIR/bin/go_windows_amd64_exec"
case ":$PATH:" in *":$TOOLHOST_WINE_DIR/bin:"*) ;; *) export PATH="$TOOLHOST_WINE_DIR/bin:$PATH" ;; esac

wineserver -p
"$WINE64" cmd /c exit </dev/null >/dev/null 2>&1

# wine_stop ends the wineserver that setup.sh started.
wine_stop() { wineserver -k 2>/dev/null || true; }
