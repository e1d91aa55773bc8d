package exec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/internal/files"
	"github.com/toolhost/toolhost/internal/regular"
	"github.com/zclconf/go-cty/cty"
)

// builtEnv is an environment buildEnv built from toolhost's own,
// environ, and an env that is the same for every call.
type builtEnv struct {
	environ, env []string
}

// buildEnv returns the environment of one call. When the block's env is
// the same for every call, the environment built last is taken again
// while toolhost's own is unchanged; callers must not modify it.
func (e *Exec) buildEnv(ectx *hcl.EvalContext) ([]string, error) {
	if !e.envKnown {
		v, diags := e.env.Value(ectx)
		if diags.HasErrors() {
			return nil, evalError("env", diags)
		}
		extra, err := envMap(v)
		if err != nil {
			return nil, err
		}
		return e.mergeEnv(os.Environ(), extra), nil
	}
	environ := os.Environ()
	if last := e.lastEnv.Load(); last != nil && slices.Equal(last.environ, environ) {
		return last.env, nil
	}
	env := e.mergeEnv(environ, e.envConst)
	e.lastEnv.Store(&builtEnv{environ: environ, env: env})
	return env, nil
}

// mergeEnv is toolhost's environment environ, as inherit_env keeps it,
// with the block's variables extra set or removed, sorted.
func (e *Exec) mergeEnv(environ []string, extra map[string]*string) []string {
	// vars is keyed by envKey: on Windows, where names are
	// case-insensitive, a user's "Path" replaces the host's "PATH".
	vars := map[string]string{}
	for _, kv := range environ {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if e.inheritEnv || keepMinimal(k) {
			vars[envKey(k)] = k + "=" + val
		}
	}
	for k, val := range extra {
		if val == nil {
			delete(vars, envKey(k))
		} else {
			vars[envKey(k)] = k + "=" + *val
		}
	}
	if _, ok := vars[envKey("PATH")]; !ok {
		vars[envKey("PATH")] = "PATH=" + defaultPath
	}
	env := make([]string, 0, len(vars))
	for _, kv := range vars {
		env = append(env, kv)
	}
	sort.Strings(env)
	return env
}

// buildStdin returns the standard input of one call; nil means empty.
func (e *Exec) buildStdin(ectx *hcl.EvalContext) (*string, error) {
	if e.stdin == nil {
		return nil, nil
	}
	if e.stdinConst != nil {
		return e.stdinConst, nil
	}
	v, diags := e.stdin.Value(ectx)
	if diags.HasErrors() {
		return nil, evalError("stdin", diags)
	}
	v, _ = v.UnmarkDeep()
	if v.IsKnown() && v.IsNull() {
		return nil, nil
	}
	s, problem := argString(v)
	if problem != "" {
		return nil, fmt.Errorf("the stdin of the command %s, and it must be a string", problem)
	}
	return &s, nil
}

// resolveProgram finds the program to run. A name without a directory
// (hasDir) is looked up in the PATH of the command's environment, never
// in the working directory; a relative path is relative to the
// configuration file's directory. Which file a name stands for is the
// platform's rule (findProgram).
func (e *Exec) resolveProgram(prog string, env []string) (string, error) {
	if hasDir(prog) {
		p, err := e.programPath(prog)
		if err != nil {
			return "", err
		}
		switch f, exists := findProgram(p, env); {
		case f != "":
			return f, nil
		case exists:
			return "", fmt.Errorf("command %q is not an executable file", prog)
		}
		return "", fmt.Errorf("command %q not found", prog)
	}
	path := envValue(env, "PATH")
	if last := e.lastFound.Load(); last != nil && last.prog == prog && last.path == path {
		// The file found last time, if it is still there: a PATH walk
		// costs a stat of every directory before the program's.
		if f, _ := findProgram(last.file, env); f == last.file {
			return f, nil
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // never look in the working directory
		}
		if f, _ := findProgram(filepath.Join(dir, prog), env); f != "" {
			e.lastFound.Store(&foundProgram{prog: prog, path: path, file: f})
			return f, nil
		}
	}
	if hint := e.localProgramHint(prog); hint != "" {
		return "", fmt.Errorf("command %q not found on PATH; %s", prog, hint)
	}
	return "", fmt.Errorf("command %q not found on PATH", prog)
}

// basePath makes the relative path p relative to the configuration
// file's directory, and absolute.
func (e *Exec) basePath(prog, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.baseDir, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("command %q not found", prog)
	}
	return abs, nil
}

// envValue returns the value of the variable name in env, the last one
// when there are several; names compare as envKey says.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && envKey(k) == envKey(name) {
			v = val
		}
	}
	return v
}

// localProgramHint says how to run prog, a name without a slash that is
// not on the PATH, when the config file's directory holds a file of that
// name: a program's name is looked up on the PATH only, never in that
// directory. "" when there is no such file.
func (e *Exec) localProgramHint(prog string) string {
	if e.baseDir == "" {
		return ""
	}
	fi, err := os.Stat(filepath.Join(e.baseDir, prog))
	if err != nil || fi.IsDir() {
		return ""
	}
	return fmt.Sprintf("the config file's directory has a file %s, and a name without a slash is looked up on the PATH only: write %q to run it", prog, "./"+prog)
}

// checkDir checks the working directory, for the message of a command
// that failed to start (startError) and the warning of a config whose
// directory is missing (missingDir).
func (e *Exec) checkDir() error {
	if e.dir == "" {
		return nil
	}
	fi, err := os.Stat(e.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the working directory of the command (dir) %q does not exist", e.dir)
	case err != nil:
		return fmt.Errorf("cannot use the working directory of the command (dir) %q: %v", e.dir, files.Bare(err))
	case !fi.IsDir():
		return fmt.Errorf("the working directory of the command (dir) %q is not a directory", e.dir)
	}
	return nil
}

// startError turns an error of Start into a message; path is the program
// file that was found.
func (e *Exec) startError(prog, path string, err error) error {
	// A chdir that fails in the child is reported as a failing exec of
	// the program, since the command has a process group of its own: a
	// missing directory, or a file, is told by checkDir.
	if derr := e.checkDir(); derr != nil {
		return derr
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "chdir" {
		return fmt.Errorf("cannot enter the working directory of the command (dir) %q: %v", e.dir, pe.Err)
	}
	// The program file is there (resolveProgram found it): what is
	// missing, or cannot run, is what its #! line names.
	interp, shebang := shebang(path)
	if errors.Is(err, fs.ErrNotExist) {
		switch {
		case shebang && strings.HasSuffix(interp, "\r"):
			return fmt.Errorf("command %q could not be started: its first line (#!%s) ends with a carriage return, so the system looks for an interpreter whose name ends with one; "+
				"the file has Windows line endings: convert it to Unix ones (dos2unix, or your editor's LF setting)", prog, strings.TrimSuffix(interp, "\r"))
		case shebang:
			return fmt.Errorf("command %q could not be started: the interpreter its first line names (#!%s) is not found; install it, or correct the #! line", prog, interp)
		}
		return fmt.Errorf("command %q not found", prog)
	}
	if notExecutable(err) && !shebang {
		return fmt.Errorf("command %q could not be started: the file is not a program the system can run; "+
			"if it is a script, make its first line name its interpreter (such as #!/bin/sh), or run it through one, as in command = [\"sh\", %q]", prog, prog)
	}
	return fmt.Errorf("command %q could not be started: %v", prog, files.Bare(err))
}

// shebang returns what follows "#!" on the first line of the file at
// path, and whether it starts so. A path that is not a regular file (a
// FIFO with its execute bits set) is not opened, as a FIFO would hold the
// call until a writer came.
func shebang(path string) (string, bool) {
	f, err := regular.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, ok := bytes.CutPrefix(buf[:n], []byte("#!"))
	if !ok {
		return "", false
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return strings.TrimLeft(string(line), " \t"), true
}

// envMap converts an env value; a nil entry removes the variable.
func envMap(v cty.Value) (map[string]*string, error) {
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, errors.New("the env of this tool did not evaluate to an object; the tool's configuration needs fixing")
	}
	m := map[string]*string{}
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := k.AsString()
		if problem := envNameProblem(name); problem != "" {
			return nil, fmt.Errorf("environment variable name %q %s", name, problem)
		}
		if val.IsKnown() && val.IsNull() {
			m[name] = nil
			continue
		}
		s, problem := argString(val)
		if problem != "" {
			return nil, fmt.Errorf("the value of environment variable %s %s, and it must be a string", name, problem)
		}
		if strings.ContainsRune(s, 0) {
			return nil, fmt.Errorf("the value of environment variable %s contains a NUL character; remove it", name)
		}
		m[name] = &s
	}
	return m, nil
}
