//go:build !unix

package hcl

import "io/fs"

// fileKey is a file's identity; outside Unix, files are told apart by
// their paths alone.
type fileKey struct{}

// fileKeyOf reports no identity: paths alone tell files apart here.
func fileKeyOf(fs.FileInfo) (fileKey, bool) { return fileKey{}, false }
