//go:build !windows

package main

// fileBusy reports false: only Windows refuses to rename or remove a file
// that is open.
func fileBusy(error) bool { return false }
