package testserver

import (
	"errors"
	"os/exec"
)

// User is who a server runs as. On Windows no server runs (Find skips),
// so nothing makes one.
type User struct {
	// Name is the user's login name.
	Name string
}

// errWindows is the answer of every function here on Windows.
var errWindows = errors.New("testserver: the test database servers do not run on Windows")

// Unprivileged fails on Windows.
func Unprivileged(names ...string) (*User, error) { return nil, errWindows }

// Dir fails on Windows.
func (u *User) Dir(pattern string) (string, error) { return "", errWindows }

// Command is exec.Command.
func (u *User) Command(path string, args ...string) *exec.Cmd { return exec.Command(path, args...) }

// setGroup does nothing on Windows.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills cmd's process.
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
