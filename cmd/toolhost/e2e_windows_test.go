package main

import (
	"fmt"
	"os"
)

// The commands of testConfig's tools "slow" and "fail" on Windows: this
// test binary as a helper program (runHelper).
var (
	slowCommand = fmt.Sprintf(`[%q, %q, "sleep", param.seconds]`, testExecutable(), helperArg)
	failCommand = fmt.Sprintf(`[%q, %q, "fail"]`, testExecutable(), helperArg)
)

// testExecutable is the path of this test binary.
func testExecutable() string {
	p, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return p
}
