//go:build !linux

package host

import "io"

// pollableInput returns in: elsewhere than on Linux, opening standard
// input again may give the same open file, whose flags are the client's.
func pollableInput(in io.Reader) io.Reader { return in }
