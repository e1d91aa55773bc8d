package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Server is the entry of a stdio server in an editor's config file, its
// fields in the order editors write them.
type Server struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// BinaryServer is the entry that runs the toolhost binary at binary (an
// absolute path) on the config at config (absolute too).
func BinaryServer(e Editor, binary, config string) Server {
	return e.server(binary, []string{"serve", config})
}

// NPXServer is the entry that runs toolhost through npx, which fetches
// the npm package on first use, on the config at config (absolute). On
// Windows npx is a batch file, which editors that start servers without a
// shell (Claude Desktop, Cursor) cannot run: there cmd /c runs it, and
// cmd.exe reads the config's path again, so that a path with a character
// of its own (& | < > ^ % ( ) ! ") is refused.
func NPXServer(e Editor, goos, config string) (Server, error) {
	args := []string{"-y", "toolhost", "serve", config}
	if goos == "windows" {
		if i := strings.IndexAny(config, cmdCharacters); i >= 0 {
			return Server{}, fmt.Errorf("the config's path %s has %q, which cmd.exe (it runs npx on Windows) would read as its own: move the config to a path without & | < > ^ %% ( ) ! \" in it, or leave out --npx so that the editor starts toolhost.exe by its path", config, config[i])
		}
		return e.server("cmd", append([]string{"/c", "npx"}, args...)), nil
	}
	return e.server("npx", args), nil
}

// cmdCharacters are those cmd.exe reads as its own in an argument.
const cmdCharacters = `&|<>^%()!"`

// WithLogFile is s starting toolhost with --log-file path (absolute), so
// that its log is in a file the user chose besides the editor's own log.
// An entry that runs npx through cmd.exe refuses a path with one of
// cmdCharacters, as NPXServer refuses such a config path.
func (s Server) WithLogFile(path string) (Server, error) {
	if s.Command == "cmd" {
		if i := strings.IndexAny(path, cmdCharacters); i >= 0 {
			return Server{}, fmt.Errorf("the log file's path %s has %q, which cmd.exe (it runs npx on Windows) would read as its own: choose a path without & | < > ^ %% ( ) ! \" in it, or leave out --npx so that the editor starts toolhost.exe by its path", path, path[i])
		}
	}
	s.Args = append(slices.Clip(s.Args), "--log-file", path)
	return s, nil
}

// InNPXCache reports whether toolhost runs from npx's cache (a path with
// an _npx folder in it: npx -y toolhost setup ...), which npm may clear at
// any time: an entry must then start toolhost through npx, not by that
// path.
func InNPXCache() bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return inNPXCache(exe)
}

// inNPXCache reports whether the path exe is in npx's cache.
func inNPXCache(exe string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(exe), "/"), "_npx")
}

func (e Editor) server(command string, args []string) Server {
	s := Server{Command: command, Args: args}
	if e.Typed {
		s.Type = "stdio"
	}
	return s
}

// marshal is s as JSON, indented with unit from the second line on, each
// such line starting with indent; unit "" puts it on one line. Paths keep
// their & < > as they are.
func (s Server) marshal(indent, unit string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(indent, unit)
	}
	_ = enc.Encode(s) // strings only: it cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Binary is the absolute path that an editor should run toolhost by: the
// running executable, through the link on PATH that leads to it when there
// is one (a package manager's link, such as Homebrew's, outlives the
// versioned path it leads to). note, when not empty, says why the path may
// not last. Binary fails when toolhost runs from a temporary build (go
// run), whose path is gone once it exits.
func Binary() (path, note string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("cannot find the toolhost executable: %w; give --npx to run toolhost through npx instead", err)
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		real = exe
	}
	if isGoRunBuild(real) {
		return "", "", fmt.Errorf("toolhost runs from a temporary build of go run (%s), which is removed when it exits; install it (go install, or a release) and run setup with the installed toolhost, or give --npx", exe)
	}
	path = exe
	if onPath, err := exec.LookPath(filepath.Base(exe)); err == nil {
		if abs, err := filepath.Abs(onPath); err == nil {
			if r, err := filepath.EvalSymlinks(abs); err == nil && SameFile(r, real) {
				path = abs
			}
		}
	}
	// The npm package's link on PATH (npm install -g) outlives updates;
	// a path inside node_modules does not.
	if slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "node_modules") {
		note = "toolhost runs from an npm package's directory, whose path changes when the package is updated or removed; --npx writes an entry that does not depend on it"
	}
	return path, note, nil
}

// isGoRunBuild reports whether exe is a binary that go run built in its
// temporary work directory ($TMPDIR/go-build.../exe/NAME).
func isGoRunBuild(exe string) bool {
	parts := strings.Split(filepath.ToSlash(exe), "/")
	if len(parts) < 3 || parts[len(parts)-2] != "exe" {
		return false
	}
	for _, p := range parts[:len(parts)-2] {
		if strings.HasPrefix(p, "go-build") {
			return true
		}
	}
	return false
}

// SameFile reports whether the paths a and b name one file or folder.
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// Config is the absolute path of the toolhost config at p, which must be
// there: an editor starts the server later, in a directory of its own
// choosing, where a relative path or a missing file fails.
func Config(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("there is no file or directory at %s: give the path of your tools.hcl (or of a directory of .hcl files); toolhost init writes a starter tools.hcl in the current directory", abs)
		}
		return "", fmt.Errorf("cannot read %s: %w", abs, err)
	}
	return abs, nil
}
