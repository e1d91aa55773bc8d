//go:build !linux

package testserver

import "os/exec"

// startCmd starts cmd. A server outlives tests that end without stopping
// it (a panic, a timeout) where there is no parent-death signal.
func startCmd(cmd *exec.Cmd) error { return cmd.Start() }
