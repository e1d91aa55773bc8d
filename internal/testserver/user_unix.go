//go:build !windows

package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// User is who a server runs as: the current user, or, when that is root,
// an unprivileged one.
type User struct {
	// Name is the user's login name.
	Name string
	// cred is set when the server runs as another user than the tests.
	cred *syscall.Credential
}

// Unprivileged returns the current user, or, when the tests run as root,
// the first of names that exists (such as the postgres user the Debian
// package makes), else nobody.
func Unprivileged(names ...string) (*User, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("testserver: who runs the tests: %w", err)
		}
		return &User{Name: u.Username}, nil
	}
	for _, name := range append(names, "nobody") {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		return &User{Name: name, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}, nil
	}
	return nil, fmt.Errorf("testserver: the tests run as root and none of the users %v exists to run the server as", append(names, "nobody"))
}

// Dir makes a new temporary directory that u owns, with mode 0700.
func (u *User) Dir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("testserver: %w", err)
	}
	if u.cred != nil {
		if err := os.Chown(dir, int(u.cred.Uid), int(u.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("testserver: giving %s to %s: %w", dir, u.Name, err)
		}
	}
	return dir, nil
}

// Command is exec.Command run as u.
func (u *User) Command(path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	return cmd
}

// setGroup puts cmd in a process group of its own.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills cmd's process group.
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}
