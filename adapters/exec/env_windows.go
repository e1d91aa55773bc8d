package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// defaultPath is the search path used when the host has no PATH: the
// system's directories, as a new Windows account's PATH has them.
var defaultPath = func() string {
	root := os.Getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	return root + `\System32;` + root + `;` + root + `\System32\Wbem;` + root + `\System32\WindowsPowerShell\v1.0`
}()

// minimalEnv lists the host variables a command gets when inherit_env is
// false: what Windows programs need to start and run. SystemRoot, WINDIR
// and SystemDrive locate the system (without SystemRoot, Winsock and
// much of the C runtime fail); TEMP and TMP are where GetTempPath points;
// PATH and PATHEXT find programs and COMSPEC the shell a program runs
// (system()); USERPROFILE, USERNAME, APPDATA and LOCALAPPDATA are the
// user's home, name and settings, the counterparts of HOME and USER,
// without which PowerShell and .NET programs fall back to the system's
// directories or fail to start; ProgramData is where programs keep their
// machine-wide settings. None of them is a secret.
var minimalEnv = []string{
	"SystemRoot", "WINDIR", "SystemDrive", "TEMP", "TMP", "PATH", "PATHEXT", "COMSPEC",
	"USERPROFILE", "USERNAME", "APPDATA", "LOCALAPPDATA", "ProgramData",
}

// keepMinimal reports whether the host variable name is one a command
// gets when inherit_env is false, in any case.
func keepMinimal(name string) bool {
	return slices.ContainsFunc(minimalEnv, func(m string) bool { return strings.EqualFold(m, name) })
}

// envKey is the key that identifies the variable name: names are
// case-insensitive on Windows, so "Path" and "PATH" are one variable.
func envKey(name string) string { return strings.ToUpper(name) }

// hasDir reports whether the program name prog names a directory too (a
// separator, \ or /, or a drive letter), rather than a name to look up
// on the PATH.
func hasDir(prog string) bool {
	return strings.ContainsAny(prog, `\/`) || filepath.VolumeName(prog) != ""
}

// programPath returns the absolute path of the program prog, a path: one
// rooted without a drive (\tools\x.exe) is on the drive of the config
// file's directory, one relative to the config file's directory. A drive
// without a root (C:x.exe), relative to that drive's working directory,
// is refused: toolhost never looks in a working directory.
func (e *Exec) programPath(prog string) (string, error) {
	vol := filepath.VolumeName(prog)
	rest := prog[len(vol):]
	rooted := rest != "" && os.IsPathSeparator(rest[0])
	switch {
	case vol != "" && !rooted:
		return "", fmt.Errorf("command %q names a drive without a directory, which Windows reads relative to that drive's working directory; write the full path (%s\\...)", prog, vol)
	case vol == "" && rooted:
		return e.basePath(prog, filepath.VolumeName(e.baseDir)+prog)
	}
	return e.basePath(prog, prog)
}

// pathExt returns the extensions of PATHEXT in env, with Windows's default
// when it is not set.
func pathExt(env []string) []string {
	v := envValue(env, "PATHEXT")
	if v == "" {
		v = ".COM;.EXE;.BAT;.CMD"
	}
	var exts []string
	for _, ext := range strings.Split(v, ";") {
		if ext = strings.TrimSpace(ext); ext != "" {
			if ext[0] != '.' {
				ext = "." + ext
			}
			exts = append(exts, ext)
		}
	}
	return exts
}

// findProgram returns the program file p stands for, by Windows's rule: p
// itself when its extension is one of PATHEXT, otherwise the first file
// of p followed by an extension of PATHEXT; and whether a file p exists
// at all.
func findProgram(p string, env []string) (file string, exists bool) {
	exts := pathExt(env)
	isFile := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	if ext := filepath.Ext(p); ext != "" && slices.ContainsFunc(exts, func(x string) bool { return strings.EqualFold(x, ext) }) && isFile(p) {
		return p, true
	}
	for _, ext := range exts {
		if isFile(p + ext) {
			return p + ext, true
		}
	}
	_, err := os.Stat(p)
	return "", err == nil
}
