//go:build unix
// +build unix

// Package buildtag has a build constraint above its package comment.
package buildtag

// Unix is true.
const Unix = true
