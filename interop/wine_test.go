//go:build linux

package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// wineTimeout bounds the node run of windows.test.mjs: every Windows
// process start under wine costs more than a Linux one.
const wineTimeout = 4 * time.Minute

// wineHint says how to set wine up for TestWindowsUnderWine.
const wineHint = "install Debian's wine wine64 gcc-mingw-w64-x86-64, then `. .ci/wine/setup.sh` from the repository root before go test"

// TestWindowsUnderWine builds toolhost.exe and testdata/winchild for
// windows/amd64 and runs windows.test.mjs: the TypeScript SDK client
// spawns `wine64 toolhost.exe serve CONFIG`, lists and calls a template
// tool, reads a file resource, cancels an exec call whose command left a
// child (which must be gone afterwards), and sees list_changed after an
// edit. It needs wine set up as .ci/wine/setup.sh does (WINEPREFIX with
// its bcryptprimitives.dll); without it the test skips, naming what is
// missing, unless TOOLHOST_WINE_E2E=1 says the machine must have it.
func TestWindowsUnderWine(t *testing.T) {
	wine64 := os.Getenv("WINE64")
	if wine64 == "" {
		wine64 = "/usr/lib/wine/wine64"
	}
	if _, err := os.Stat(wine64); err != nil {
		wineMissing(t, "this machine has no wine64 ("+wine64+"): "+wineHint)
	}
	prefix := os.Getenv("WINEPREFIX")
	if prefix == "" {
		wineMissing(t, "WINEPREFIX is not set: "+wineHint)
	}
	if _, err := os.Stat(filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")); err != nil {
		wineMissing(t, "the wine prefix "+prefix+" has no bcryptprimitives.dll, without which Go programs do not start under wine 8: "+wineHint)
	}
	node := findNode(t)

	dir := t.TempDir()
	bin := filepath.Join(dir, "toolhost.exe")
	child := filepath.Join(dir, "winchild.exe")
	for _, b := range []struct{ out, pkg string }{{bin, "../cmd/toolhost"}, {child, "./testdata/winchild"}} {
		build := exec.Command("go", "build", "-o", b.out, b.pkg)
		build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("GOOS=windows go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	runNode(t, node, wineTimeout, []string{
		"TOOLHOST_WIN_BIN=" + bin, "TOOLHOST_WINCHILD=" + child, "TOOLHOST_WINE64=" + wine64, "WINEDEBUG=-all",
	}, "windows.test.mjs")
}

// wineMissing skips the test, saying what this machine lacks, or fails it
// where TOOLHOST_WINE_E2E=1 says wine must be there (the wine leg of CI).
func wineMissing(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("TOOLHOST_WINE_E2E") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
