package main

import "github.com/toolhost/toolhost/internal/testconfig"

// The commands of testConfig's tools "slow" and "fail" on Windows: this
// test binary as a program (testconfig.RunProgram).
var (
	slowCommand = testconfig.ProgramList(`"sleep"`, "param.seconds", `"print"`, `"slept"`)
	failCommand = testconfig.ProgramList(`"stderr"`, `"broken"`, `"exit"`, `"3"`)
)
