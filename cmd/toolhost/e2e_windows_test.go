package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The commands of testConfig's tools "slow" and "fail" on Windows: this
// test binary as a helper program (runHelper), its path written with
// slashes, which exec takes as a path on Windows too.
var (
	slowCommand = fmt.Sprintf(`[%q, %q, "sleep", param.seconds]`, filepath.ToSlash(testExecutable()), helperArg)
	failCommand = fmt.Sprintf(`[%q, %q, "fail"]`, filepath.ToSlash(testExecutable()), helperArg)
)

// testExecutable is the path of this test binary.
func testExecutable() string {
	p, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return p
}
