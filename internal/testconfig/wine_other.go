//go:build !windows

package testconfig

// UnderWine reports false: only a Windows binary can run under wine.
func UnderWine() bool { return false }
