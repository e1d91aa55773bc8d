package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/files"
	"github.com/toolhost/toolhost/internal/setup"
	"github.com/toolhost/toolhost/internal/suggest"
)

// runSetup runs 'toolhost setup EDITOR [CONFIG]': it registers the config
// with the editor, in the editor's config file (see internal/setup).
func runSetup(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("setup", "setup [--npx] [--dry-run] [--user] [--name NAME] [--log-file FILE] EDITOR [CONFIG]\n\nEDITOR is one of "+strings.Join(setup.Names(), ", ")+"; CONFIG defaults to ./tools.hcl.", stderr)
	npx := fs.Bool("npx", false, "start toolhost with npx -y toolhost (the npm package) instead of this binary's absolute path")
	dryRun := fs.Bool("dry-run", false, "print the editor's config file as it would be written, and write nothing")
	user := fs.Bool("user", false, "vscode: the user profile's mcp.json instead of the workspace's .vscode/mcp.json")
	name := fs.String("name", setup.DefaultName, "the server's name in the editor's config")
	logFile := fs.String("log-file", "", "start the server with --log-file FILE, so that its log is in FILE as well as in the editor's log (a relative path is made absolute here)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 2 {
		fmt.Fprintf(stderr, "toolhost setup: too many arguments (%q): give the editor and, at most, one CONFIG; a directory of .hcl files stands for all of them\n", pos[2:])
		fs.Usage()
		return ExitUsage
	}
	if len(pos) == 0 {
		fs.Usage()
		return ExitUsage
	}
	ed, ok := setup.Lookup(pos[0])
	if !ok {
		fmt.Fprintf(stderr, "toolhost setup: unknown editor %q.%s The editors are %s.\n", pos[0], editorHint(pos[0]), strings.Join(setup.Names(), ", "))
		return ExitUsage
	}
	if *user && !ed.HasUserFile() {
		fmt.Fprintf(stderr, "toolhost setup: --user is for vscode, which also has a workspace file; %s has one file, the user's: drop --user\n", ed.Name)
		return ExitUsage
	}
	if strings.TrimSpace(*name) == "" {
		fmt.Fprintf(stderr, "toolhost setup: --name is empty: give the server's name, as in --name %s\n", setup.DefaultName)
		return ExitUsage
	}
	config := defaultConfig
	if len(pos) == 2 {
		config = pos[1]
	}
	// With no CONFIG and no ./tools.hcl, the starter is written there, as
	// init does, so that a new user goes from nothing to an editor entry
	// in one command; but only once the editor's file is known to take
	// the entry, so that a failure leaves nothing behind.
	starter := len(pos) == 1 && !exists(defaultConfig)
	if starter {
		config, _ = filepath.Abs(defaultConfig)
		if *dryRun {
			fmt.Fprintf(stderr, "toolhost setup: there is no %s here; without --dry-run, setup writes a starter one there (as toolhost init does) and registers it. Nothing was written.\n", config)
			return ExitOK
		}
	} else {
		if config, err = setup.Config(config); err != nil {
			fmt.Fprintf(stderr, "toolhost setup: %s\n", err)
			return ExitFailure
		}
		checkConfig(config, stderr)
	}
	if !*npx && setup.InNPXCache() {
		// npx -y toolhost setup ...: the binary is in npx's cache, which
		// npm clears when it likes.
		*npx = true
		fmt.Fprintf(stderr, "toolhost setup: note: toolhost runs from npx's cache, which npm may clear at any time, so the entry starts it with npx (as --npx does). For a faster start, install it (npm install -g toolhost) and run setup again with the installed toolhost.\n")
	}
	var server setup.Server
	if *npx {
		if server, err = setup.NPXServer(ed, runtime.GOOS, config); err != nil {
			fmt.Fprintf(stderr, "toolhost setup: %s\n", err)
			return ExitFailure
		}
	} else {
		bin, note, err := setup.Binary()
		if err != nil {
			fmt.Fprintf(stderr, "toolhost setup: %s\n", err)
			return ExitFailure
		}
		if note != "" {
			fmt.Fprintf(stderr, "toolhost setup: note: %s\n", note)
		}
		server = setup.BinaryServer(ed, bin, config)
	}
	if server, err = withLogFile(server, *logFile); err != nil {
		fmt.Fprintf(stderr, "toolhost setup: --log-file: %s\n", err)
		return ExitFailure
	}
	home, _ := os.UserHomeDir()
	if home != "" && !filepath.IsAbs(home) {
		// A relative HOME would put the editor's file under the current
		// directory, where the editor never looks.
		fmt.Fprintf(stderr, "toolhost setup: the home folder is given as %q, a relative path; set HOME (USERPROFILE on Windows) to the absolute path of your home folder and run setup again\n", home)
		return ExitFailure
	}
	wd, _ := os.Getwd()
	path, err := ed.File(setup.Place{GOOS: runtime.GOOS, Home: home, Dir: wd, Getenv: os.Getenv, ReadDir: readDirNames}, *user)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost setup: %s\n", err)
		return ExitFailure
	}
	if ed.HasUserFile() && !*user && home != "" && setup.SameFile(wd, home) {
		fmt.Fprintf(stderr, "toolhost setup: note: the current directory is your home folder, so this is the workspace file of your home folder, which %s reads only when it opens that folder; for every workspace, run setup with --user, or run it in your project's folder\n", ed.Title)
	}
	if starter {
		if _, err := setup.Apply(path, ed, *name, server, true); err != nil {
			fmt.Fprintf(stderr, "toolhost setup: %s\n", err)
			return ExitFailure
		}
		if err := writeStarter(defaultConfig); err != nil {
			fmt.Fprintf(stderr, "toolhost setup: there is no %s, and a starter one cannot be written there: %s; give the path of your config: toolhost setup EDITOR CONFIG\n", config, files.Bare(err))
			return ExitFailure
		}
		fmt.Fprintf(stdout, "Wrote %s, a starter config with one tool of each backend (as toolhost init does): edit it, and the editor's server reloads it on every save.\n", config)
	}
	res, err := setup.Apply(path, ed, *name, server, *dryRun)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost setup: %s\n", err)
		return ExitFailure
	}
	res.Report(stdout, stderr)
	return ExitOK
}

// withLogFile adds --log-file path, made absolute, to server's arguments;
// an empty path adds nothing.
func withLogFile(server setup.Server, path string) (setup.Server, error) {
	if path == "" {
		return server, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return server, err
	}
	return server.WithLogFile(abs)
}

// editorHint is the "Did you mean" for an unknown editor name: the editors
// whose names start with it when there are several (claude), else the
// nearest name.
func editorHint(name string) string {
	var starts []string
	for _, n := range setup.Names() {
		if strings.HasPrefix(n, strings.ToLower(name)) {
			starts = append(starts, n)
		}
	}
	if len(starts) > 1 {
		return fmt.Sprintf(" Did you mean %s?", strings.Join(starts, " or "))
	}
	return suggest.Hint(name, setup.Names())
}

// exists reports whether there is a file or directory at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// readDirNames lists the names in dir; none when it cannot be read.
func readDirNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

// checkConfig warns when the config does not load now: the entry is still
// written (the config can be fixed later), but the editor's server fails
// to start until it loads.
func checkConfig(config string, stderr io.Writer) {
	reg, diags := host.Load([]string{config}, nil)
	if reg != nil {
		reg.Close()
	}
	if diags.HasErrors() {
		fmt.Fprintf(stderr, "toolhost setup: warning: %s does not load now (%s); until it does, the server the editor starts serves no tools and tells the editor why (it loads the config once it is saved without errors). See the problems with: toolhost validate %s\n",
			config, countLine(diags), config)
	}
}
