package interop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// noNodeEnv names the variable that says this machine cannot have
// Node.js: with it set to 1, the tests that need node skip, saying so,
// instead of failing (but not on CI, which must run them).
const noNodeEnv = "TOOLHOST_TEST_NO_NODE"

// nodeInstallHint says how to get a node that the tests can use.
const nodeInstallHint = "install Node.js 18 or newer with npm (Debian: apt-get install nodejs npm; .ci/run installs Node 22 with npm when the node it finds is older)"

// npmCITimeout bounds the npm ci the tests run when the SDK is missing.
const npmCITimeout = 5 * time.Minute

// sdkPackage is the file whose presence says that npm ci has been run.
var sdkPackage = filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")

// findNode returns the path of a node of version 18 or newer, with the
// TypeScript SDK installed in interop/: when node_modules lacks it, it
// runs npm ci here, as .ci/run does. A node that is missing or too old,
// or an npm ci that fails, fails the test, saying how to install what is
// missing; only a machine that cannot have node at all skips, when
// TOOLHOST_TEST_NO_NODE=1 says so (never on CI), and under wine, whose
// Windows test binary cannot run Linux's node.
func findNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		noNode(t, "node is not installed: "+nodeInstallHint+"; the tests then install the TypeScript SDK themselves (npm ci in interop/)")
	}
	out, err := exec.Command(node, "-p", "process.versions.node").Output()
	if err != nil {
		t.Fatalf("%s -p process.versions.node: %v; %s", node, err, nodeInstallHint)
	}
	version := strings.TrimSpace(string(out))
	if major, _ := strconv.Atoi(strings.SplitN(version, ".", 2)[0]); major < 18 {
		t.Fatalf("%s is Node.js %s, and the TypeScript SDK needs 18 or newer: %s", node, version, nodeInstallHint)
	}
	installSDK(t)
	return node
}

// noNode skips the test or fails it, as findNode says, with msg.
func noNode(t *testing.T, msg string) {
	t.Helper()
	switch {
	case testconfig.UnderWine():
		t.Skip("under wine, the Windows test binary cannot run Linux's node; TestWindowsUnderWine, on Linux, drives toolhost.exe: " + msg)
	case onCI():
		t.Fatal(msg + " (CI is set: CI must run the interop tests)")
	case os.Getenv(noNodeEnv) == "1":
		t.Skip("SKIPPED, NOT RUN: " + msg + " (" + noNodeEnv + "=1 says this machine cannot have Node.js)")
	}
	t.Fatal(msg + "; on a machine that cannot have Node.js, set " + noNodeEnv + "=1 to skip the tests that need it")
}

// onCI reports whether CI is set, as CI services and .ci/run set it.
func onCI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "0" && ci != "false"
}

// sdkOnce runs installSDK's npm ci at most once per test process; sdkErr
// is its failure, for every test after the first.
var (
	sdkOnce sync.Once
	sdkErr  string
)

// installSDK runs npm ci in interop/ when node_modules has no TypeScript
// SDK, holding a lock that other test processes of this checkout take too
// (go test runs packages in parallel; a second npm ci would delete the
// first one's node_modules under it). A failure fails the test with npm's
// output and how to install by hand.
func installSDK(t *testing.T) {
	t.Helper()
	sdkOnce.Do(func() { sdkErr = runNPMCI(t) })
	if sdkErr != "" {
		t.Fatal(sdkErr)
	}
}

// runNPMCI is installSDK's work: "" when the SDK is there, else why not.
func runNPMCI(t *testing.T) string {
	if _, err := os.Stat(sdkPackage); err == nil {
		return ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "node_modules/@modelcontextprotocol/sdk is missing in interop/, and there is no npm to install it with: install npm (Debian: apt-get install npm), or run `npm ci` in interop/ with the npm of your Node.js"
	}
	wd, err := os.Getwd()
	if err != nil {
		return err.Error()
	}
	sum := sha256.Sum256([]byte(wd))
	unlock, err := lockedfile.MutexAt(filepath.Join(os.TempDir(), "toolhost-interop-npm-ci-"+hex.EncodeToString(sum[:8])+".lock")).Lock()
	if err != nil {
		return "taking the lock of npm ci: " + err.Error()
	}
	defer unlock()
	if _, err := os.Stat(sdkPackage); err == nil {
		return "" // another test process installed it
	}
	t.Logf("node_modules/@modelcontextprotocol/sdk is missing: running npm ci in %s", wd)
	ctx, cancel := context.WithTimeout(context.Background(), npmCITimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "npm ci in interop/ failed (" + err.Error() + "), so the TypeScript SDK the interop tests drive toolhost with is missing; its output:\n" + string(out) +
			"\nRun `npm ci` in interop/ by hand (it needs the npm registry), then go test again"
	}
	if _, err := os.Stat(sdkPackage); err != nil {
		return "npm ci in interop/ succeeded but left no " + sdkPackage + "; its output:\n" + string(out)
	}
	return ""
}
