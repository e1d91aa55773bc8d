package main

import (
	"fmt"
	"os"
	"strconv"
	"unicode/utf16"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// init adds the test programs (testconfig.RunProgram) that make and
// compare the scripts' files, which the scripts ran with printf, iconv, ln
// and test -ef on unix only:
//
//	printf FORMAT     writes FORMAT with the escapes \n, \r, \\ and \NNN
//	                  (octal) replaced, no verbs
//	utf16 FILE        writes the file in UTF-16, little-endian after a byte
//	                  order mark, as iconv -t UTF-16 writes it
//	ln OLD NEW        makes NEW a hard link to OLD
//	samefile A B      fails unless A and B are one file
func init() {
	testconfig.AddProgram("printf", testconfig.Takes(1, printfProgram))
	testconfig.AddProgram("utf16", testconfig.Takes(1, utf16Program))
	testconfig.AddProgram("ln", testconfig.Takes(2, func(args []string) error { return os.Link(args[0], args[1]) }))
	testconfig.AddProgram("samefile", testconfig.Takes(2, samefileProgram))
}

// printfProgram is the program "printf FORMAT".
func printfProgram(args []string) error {
	b, err := unescape(args[0])
	if err == nil {
		_, err = os.Stdout.Write(b)
	}
	return err
}

// utf16Program is the program "utf16 FILE".
func utf16Program(args []string) error {
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	out := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(string(b))) {
		out = append(out, byte(u), byte(u>>8))
	}
	_, err = os.Stdout.Write(out)
	return err
}

// samefileProgram is the program "samefile A B".
func samefileProgram(args []string) error {
	a, err := os.Stat(args[0])
	if err != nil {
		return err
	}
	b, err := os.Stat(args[1])
	if err == nil && !os.SameFile(a, b) {
		err = fmt.Errorf("%s and %s are two files", args[0], args[1])
	}
	return err
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
