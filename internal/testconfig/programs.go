package testconfig

import (
	"encoding/hex"
	"encoding/json"
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

// ProgramMark, in a test binary's arguments, makes RunProgram run the
// binary as a small program (the steps after the mark) instead of the
// tests: the exec tools of tests then need no unix program (sh, echo,
// sleep) and run alike on Linux and Windows. It is an argument rather than
// an environment variable so that a tool's command alone says what runs,
// and it is not "--", which would tell the exec backend that no argument
// after it is an option and let through values that tests expect it to
// refuse; nor does it start with "-", which exec refuses.
//
// Such a program writes to standard output on purpose: it stands in for
// echo or cat in a test, and its output is what the tool returns. It only
// runs in a test binary started with the mark, never in toolhost, whose
// standard output carries the protocol.
const ProgramMark = "toolhost-test-program"

// A Program is one step of a test program's command line: it gets the
// arguments after its name, takes the operands it needs from their front,
// and returns how many it took. It ends the program early by returning an
// Exit error (the code to exit with); another error ends it with code 2.
type Program func(args []string) (n int, err error)

// Exit is the error a Program returns to end the program with this code.
type Exit int

// Error says what code the program exits with.
func (e Exit) Error() string { return "exit " + strconv.Itoa(int(e)) }

// programs holds the steps by name: the common ones below, and those a
// package's tests add with AddProgram.
var programs = map[string]Program{
	"echo":     echoProgram,
	"print":    operand(func(s string) error { _, err := fmt.Print(s); return err }),
	"printenv": operand(func(name string) error { _, err := fmt.Print(os.Getenv(name)); return err }),
	"repeat":   Takes(2, repeatProgram),
	"bytes":    operand(bytesProgram),
	"cat":      catProgram,
	"stderr":   operand(func(s string) error { _, err := fmt.Fprintln(os.Stderr, s); return err }),
	"touch":    operand(func(path string) error { return os.WriteFile(path, []byte("x"), 0o644) }),
	"mark":     operand(func(path string) error { return appendLine(path, "x") }),
	"pid":      operand(func(path string) error { return appendLine(path, strconv.Itoa(os.Getpid())) }),
	"await":    operand(awaitFile),
	"sleep":    operand(sleepProgram),
	"exit":     operand(exitProgram),
	"env":      envProgram,
	"args":     argsProgram,
}

// AddProgram adds a step that the tests of one package need, under name;
// call it from TestMain before RunProgram. A name already taken panics.
func AddProgram(name string, p Program) {
	if _, dup := programs[name]; dup {
		panic("testconfig: program " + name + " added twice")
	}
	programs[name] = p
}

// Main is the TestMain of a package whose tests run the test binary as a
// program: RunProgram, then the tests.
func Main(m *testing.M) {
	RunProgram()
	os.Exit(m.Run())
}

// RunProgram, called first in a package's TestMain, runs the test binary
// as a program and exits if ProgramMark is among its arguments; otherwise
// it returns and the tests run. The steps are:
//
//	echo WORDS...     writes the words, separated by spaces, and a newline
//	print TEXT        writes TEXT
//	printenv NAME     writes the value of the environment variable NAME
//	repeat N TEXT     writes TEXT N times
//	bytes HEX         writes the bytes HEX encodes
//	cat [FILES...]    writes the files, or copies standard input if none
//	stderr TEXT       writes TEXT and a newline on stderr
//	touch PATH        writes "x" to PATH
//	mark PATH         appends "x" and a newline to PATH
//	pid PATH          appends its process id and a newline to PATH
//	await PATH        waits until PATH exists
//	sleep SECONDS     sleeps (a decimal number, as sleep(1) takes)
//	exit CODE         exits with CODE (decimal, or hexadecimal after 0x)
//	env               writes the environment, a variable a line
//	args ARGS...      writes ARGS as a JSON array of strings
//
// and those added with AddProgram, in turn; then it exits 0.
func RunProgram() {
	if i := slices.Index(os.Args, ProgramMark); i >= 0 {
		os.Exit(Run(os.Args[i+1:]))
	}
}

// Run runs the steps args name, in turn, and returns the exit code.
func Run(args []string) int {
	for len(args) > 0 {
		p, ok := programs[args[0]]
		if !ok {
			fmt.Fprintf(os.Stderr, "program: %s: not a step (arguments %q)\n", args[0], args)
			return 2
		}
		n, err := p(args[1:])
		if code, ok := err.(Exit); ok {
			return int(code)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "program: %s: %v\n", args[0], err)
			return 2
		}
		args = args[1+n:]
	}
	return 0
}

// ProgramArgv is the command line that runs the test binary as the
// program of steps args.
func ProgramArgv(args ...string) []string {
	return append([]string{programPath(), ProgramMark}, args...)
}

// programPath is the path of the test binary: absolute, so that a command
// run in another directory finds it.
func programPath() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
}

// ProgramList is the HCL list of an exec tool's command that runs the test
// binary as a program: exprs are HCL expressions (a quoted string,
// param.x). The binary's path is written with forward slashes: the exec
// backend takes a program with no "/" in it for a name to look up on PATH,
// a Windows path with backslashes too.
func ProgramList(exprs ...string) string {
	elems := append([]string{HCLString(filepath.ToSlash(programPath())), HCLString(ProgramMark)}, exprs...)
	return "[" + strings.Join(elems, ", ") + "]"
}

// HCLString is s as an HCL string literal: quoted, with its backslashes
// (a Windows path's) escaped and no template sequence.
func HCLString(s string) string {
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(strconv.Quote(s))
}

// Takes is a Program that takes n operands and does f with them.
func Takes(n int, f func(operands []string) error) Program {
	return func(args []string) (int, error) {
		if len(args) < n {
			return 0, fmt.Errorf("an operand is missing")
		}
		return n, f(args[:n])
	}
}

// operand is a Program that takes one operand and does f with it.
func operand(f func(string) error) Program {
	return Takes(1, func(args []string) error { return f(args[0]) })
}

// echoProgram writes all its arguments as echo does.
func echoProgram(args []string) (int, error) {
	_, err := fmt.Println(strings.Join(args, " "))
	return len(args), err
}

// repeatProgram writes its second operand as many times as the first says.
func repeatProgram(args []string) error {
	count, err := strconv.Atoi(args[0])
	if err == nil {
		_, err = fmt.Print(strings.Repeat(args[1], count))
	}
	return err
}

// bytesProgram writes the bytes s encodes in hexadecimal.
func bytesProgram(s string) error {
	b, err := hex.DecodeString(s)
	if err == nil {
		_, err = os.Stdout.Write(b)
	}
	return err
}

// catProgram writes the files args name, or its standard input if none.
func catProgram(args []string) (int, error) {
	if len(args) == 0 {
		_, err := io.Copy(os.Stdout, os.Stdin)
		return 0, err
	}
	for _, name := range args {
		b, err := os.ReadFile(name)
		if err == nil {
			_, err = os.Stdout.Write(b)
		}
		if err != nil {
			return len(args), err
		}
	}
	return len(args), nil
}

// awaitFile waits until path exists.
func awaitFile(path string) error {
	for _, err := os.Stat(path); err != nil; _, err = os.Stat(path) {
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// sleepProgram sleeps for secs, a decimal number of seconds.
func sleepProgram(secs string) error {
	s, err := strconv.ParseFloat(secs, 64)
	if err == nil {
		time.Sleep(time.Duration(s * float64(time.Second)))
	}
	return err
}

// exitProgram ends the program with code, which may be a Windows status
// such as 0xC0000005.
func exitProgram(code string) error {
	c, err := strconv.ParseUint(code, 0, 32)
	if err != nil {
		return err
	}
	return Exit(c)
}

// envProgram writes the environment, a variable a line.
func envProgram([]string) (int, error) {
	for _, kv := range os.Environ() {
		if _, err := fmt.Println(kv); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

// argsProgram writes all its arguments as a JSON array, as the Go runtime
// split its command line.
func argsProgram(args []string) (int, error) {
	return len(args), json.NewEncoder(os.Stdout).Encode(args)
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
