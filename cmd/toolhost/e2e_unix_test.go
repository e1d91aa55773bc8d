//go:build unix

package main

// The commands of testConfig's tools "slow" and "fail" on unix: sh.
const (
	slowCommand = `["sh", "-c", "sleep \"$1\"; printf slept", "slow", param.seconds]`
	failCommand = `["sh", "-c", "echo broken >&2; exit 3"]`
)
