package host

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperCommand is the command attribute of an exec block that runs the
// test binary as the program TestHelperProcess is, doing what args say:
// each arg is an HCL expression (a quoted string, param.x). The tests
// then need no unix program (sh, echo, sleep), and run on Windows. The
// binary's path is written with forward slashes: the exec backend takes a
// program with no "/" in it for a name to look up on PATH, a Windows path
// with backslashes too.
func helperCommand(args ...string) string {
	elems := append([]string{hclQuote(filepath.ToSlash(os.Args[0])), `"-test.run=^TestHelperProcess$"`, `"` + helperMark + `"`}, args...)
	return "command = [" + strings.Join(elems, ", ") + "]"
}

// hclQuote is s as an HCL string literal: quoted, with its backslashes
// (a Windows path's) escaped and no template sequence.
func hclQuote(s string) string {
	q := strconv.Quote(s)
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(q)
}

// helperMark comes before the helper's arguments, where the flags of the
// test binary end. It is not "--", which would tell the exec backend that
// no argument after it is an option, and let values through that tests
// expect it to refuse.
const helperMark = "toolhost-test-helper"

// TestHelperProcess is not a test: run by helperCommand, with arguments
// after helperMark, it is a small program that does what they say, in turn:
//
//	echo WORDS...     writes the words, separated by spaces, and a newline
//	print TEXT        writes TEXT
//	printenv NAME     writes the value of the environment variable NAME
//	repeat N TEXT     writes TEXT N times
//	bytes HEX         writes the bytes HEX encodes
//	cat               copies its standard input to its standard output
//	stderr TEXT       writes TEXT and a newline on stderr
//	touch PATH        writes "x" to PATH
//	mark PATH         appends "x" and a newline to PATH
//	pid PATH          appends its process id and a newline to PATH
//	await PATH        waits until PATH exists
//	sleep SECONDS     sleeps (a decimal number, as sleep(1) takes)
//	exit CODE         exits with CODE
//
// then exits 0. Run by go test (no helperMark), it does nothing.
func TestHelperProcess(t *testing.T) {
	i := slices.Index(os.Args, helperMark)
	if i < 0 {
		return
	}
	os.Exit(runHelper(os.Args[i+1:]))
}

// runHelper does what TestHelperProcess's arguments say, and returns the
// exit code.
func runHelper(args []string) int {
	for len(args) > 0 {
		op, rest := args[0], args[1:]
		n := 1 // the operands op takes
		var err error
		switch {
		case op == "echo":
			fmt.Println(strings.Join(rest, " "))
			n = len(rest)
		case op == "cat":
			_, err = io.Copy(os.Stdout, os.Stdin)
			n = 0
		case len(rest) == 0:
			err = fmt.Errorf("%s: an operand is missing", op)
		case op == "print":
			fmt.Print(rest[0])
		case op == "printenv":
			fmt.Print(os.Getenv(rest[0]))
		case op == "bytes":
			var b []byte
			if b, err = hex.DecodeString(rest[0]); err == nil {
				_, err = os.Stdout.Write(b)
			}
		case op == "repeat" && len(rest) > 1:
			var count int
			if count, err = strconv.Atoi(rest[0]); err == nil {
				fmt.Print(strings.Repeat(rest[1], count))
			}
			n = 2
		case op == "stderr":
			fmt.Fprintln(os.Stderr, rest[0])
		case op == "touch":
			err = os.WriteFile(rest[0], []byte("x"), 0o644)
		case op == "mark":
			err = appendLine(rest[0], "x")
		case op == "pid":
			err = appendLine(rest[0], strconv.Itoa(os.Getpid()))
		case op == "await":
			for _, err = os.Stat(rest[0]); err != nil; _, err = os.Stat(rest[0]) {
				time.Sleep(10 * time.Millisecond)
			}
		case op == "sleep":
			var secs float64
			if secs, err = strconv.ParseFloat(rest[0], 64); err == nil {
				time.Sleep(time.Duration(secs * float64(time.Second)))
			}
		case op == "exit":
			var code int
			if code, err = strconv.Atoi(rest[0]); err == nil {
				return code
			}
		default:
			err = fmt.Errorf("%s: not a helper operation", op)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 2
		}
		args = rest[n:]
	}
	return 0
}

// appendLine appends line and a newline to the file at path.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
