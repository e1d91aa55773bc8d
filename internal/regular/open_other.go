//go:build !unix

package regular

// openFlags are none: outside Unix, the stat before the open and the
// check after it refuse what is not a regular file.
const openFlags = 0
