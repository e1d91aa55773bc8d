package main

import (
	"fmt"
	"os"
	"strconv"
	"unicode/utf16"
)

// runFileHelper runs the helper commands of runHelper that make and
// compare the scripts' files, which the scripts ran with printf, cat,
// iconv, ln and test -ef on unix only; ok is false for another command.
func runFileHelper(args []string) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	var err error
	switch {
	case args[0] == "printf" && len(args) == 2:
		var b []byte
		b, err = unescape(args[1])
		if err == nil {
			_, err = os.Stdout.Write(b)
		}
	case args[0] == "cat":
		for _, name := range args[1:] {
			var b []byte
			if b, err = os.ReadFile(name); err != nil {
				break
			}
			if _, err = os.Stdout.Write(b); err != nil {
				break
			}
		}
	case args[0] == "utf16" && len(args) == 2:
		var b []byte
		if b, err = os.ReadFile(args[1]); err == nil {
			out := []byte{0xff, 0xfe}
			for _, u := range utf16.Encode([]rune(string(b))) {
				out = append(out, byte(u), byte(u>>8))
			}
			_, err = os.Stdout.Write(out)
		}
	case args[0] == "ln" && len(args) == 3:
		err = os.Link(args[1], args[2])
	case args[0] == "samefile" && len(args) == 3:
		var a, b os.FileInfo
		if a, err = os.Stat(args[1]); err == nil {
			if b, err = os.Stat(args[2]); err == nil && !os.SameFile(a, b) {
				err = fmt.Errorf("%s and %s are two files", args[1], args[2])
			}
		}
	default:
		return 0, false
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	return 0, true
}

// unescape returns s with printf's escapes \n, \r, \\ and \NNN (octal)
// replaced by the bytes they stand for.
func unescape(s string) ([]byte, error) {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b = append(b, s[i])
			continue
		}
		if i+1 == len(s) {
			return nil, fmt.Errorf("printf: %q ends with a backslash", s)
		}
		switch c := s[i+1]; {
		case c == 'n':
			b = append(b, '\n')
			i++
		case c == 'r':
			b = append(b, '\r')
			i++
		case c == '\\':
			b = append(b, '\\')
			i++
		case c >= '0' && c <= '7' && i+3 < len(s):
			n, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
			if err != nil {
				return nil, fmt.Errorf("printf: %q: %v", s[i:i+4], err)
			}
			b = append(b, byte(n))
			i += 3
		default:
			return nil, fmt.Errorf("printf: unknown escape %q", s[i:i+2])
		}
	}
	return b, nil
}
