//go:build !windows

package exec

import "golang.org/x/text/encoding"

// defaultCharset is the encoding of a command's output when its exec block
// sets no charset: nil outside Windows, where output is taken as UTF-8 (a
// command in another locale sets charset).
func defaultCharset() encoding.Encoding { return nil }
