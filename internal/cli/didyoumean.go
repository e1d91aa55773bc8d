package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolhost/toolhost/internal/suggest"
)

// unknownCommand says that cmd is not a command of toolhost. With a
// command close to it, the line names that one and how to list the others
// (the whole usage would bury the hint); without, the usage follows.
func unknownCommand(prefix, cmd string, stderr io.Writer) int {
	if s := suggest.Closest(cmd, commands); s != "" {
		fmt.Fprintf(stderr, "%s: unknown command %q; did you mean %s? Run 'toolhost help' for the list of commands.\n", prefix, cmd, s)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n\n%s", prefix, cmd, usage)
	return ExitUsage
}

// closeHint is the aside that follows a name a command does not know, as
// ` (did you mean "notes"?)` with its leading space, naming the candidate
// close to given (suggest.Closest), or "" when none is close.
func closeHint(given string, candidates []string) string {
	if s := suggest.Closest(given, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// undefinedFlagPrefix starts the error of flag.FlagSet.Parse for a flag
// the set does not define.
const undefinedFlagPrefix = "flag provided but not defined: -"

// parseFlags parses flags that may come before or after the positional
// arguments, as in "toolhost serve tools.hcl --log-level debug" (parseAll). A flag the command does
// not have, when one of its flags is close to it, is answered with one
// line naming that flag, as in "unknown flag --listne; did you mean
// --listen?", instead of the whole list of flags; without one, a line
// naming the command and the flag as typed, and the command's usage.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	defer fs.SetOutput(out)
	pos, err := parseAll(fs, args)
	if err == nil {
		return pos, nil
	}
	if name, ok := strings.CutPrefix(err.Error(), undefinedFlagPrefix); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		dashes := "--"
		if typedWithOneDash(name, args) {
			dashes = "-"
		}
		if s := suggest.Closest(name, names); s != "" {
			fmt.Fprintf(out, "toolhost %s: unknown flag %s%s; did you mean %s%s? Run 'toolhost %s -h' for its flags.\n", fs.Name(), dashes, name, dashes, s, fs.Name())
			return nil, errors.New("unknown flag")
		}
		// The flag package's line, "flag provided but not defined: -x",
		// names neither the command nor the flag as typed: ours replaces
		// it, and the usage it wrote follows.
		_, usage, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
		fmt.Fprintf(out, "toolhost %s: unknown flag %s%s; toolhost %s has the flags below.\n", fs.Name(), dashes, name, fs.Name())
		_, _ = out.Write(usage)
		return nil, errors.New("unknown flag")
	}
	_, _ = out.Write(buf.Bytes())
	return nil, err
}

// typedWithOneDash reports whether the flag name was typed as -name (or
// -name=value) among args, rather than --name.
func typedWithOneDash(name string, args []string) bool {
	for _, a := range args {
		if a == "-"+name || strings.HasPrefix(a, "-"+name+"=") {
			return true
		}
		if a == "--" {
			break
		}
	}
	return false
}
