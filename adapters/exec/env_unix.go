//go:build unix

package exec

import (
	"os"
	"slices"
	"strings"
)

// defaultPath is the search path used when the host has no PATH.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// minimalEnv lists the host variables a command gets when inherit_env is
// false, besides every LC_* variable.
var minimalEnv = []string{"PATH", "HOME", "LANG", "TMPDIR", "USER"}

// keepMinimal reports whether the host variable name is one a command
// gets when inherit_env is false.
func keepMinimal(name string) bool {
	return strings.HasPrefix(name, "LC_") || slices.Contains(minimalEnv, name)
}

// envKey is the key that identifies the variable name: the name itself,
// as names are case-sensitive.
func envKey(name string) string { return name }

// hasDir reports whether the program name prog names a directory too (it
// has a slash), rather than a name to look up on the PATH.
func hasDir(prog string) bool { return strings.ContainsRune(prog, '/') }

// programPath returns the absolute path of the program prog, a path.
func (e *Exec) programPath(prog string) (string, error) { return e.basePath(prog, prog) }

// findProgram returns p when it is an executable regular file, and
// whether a file p exists at all.
func findProgram(p string, _ []string) (file string, exists bool) {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", false
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		return "", true
	}
	return p, true
}
