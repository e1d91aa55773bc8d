//go:build unix

package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestSignalBeforeWork: until a command starts something that must be
// stopped in order, a stop signal ends toolhost at once, as it would any
// program: validate while it loads a large config (which once went on to
// the end, the handlers installed 100 ms after the start only cancelling a
// context the load does not look at), fmt waiting on a pipe (which once
// ignored every signal), and serve before initialize.
func TestSignalBeforeWork(t *testing.T) {
	// 20,000 tools, about 6.5 MB (under the 8 MiB cap): a load long enough
	// for the signals below to come during it.
	big := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(big, []byte(testconfig.Tools(20000, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	// fmt waits to read a pipe it holds (/dev/fd/3, as a shell's <(...)
	// gives) that nothing writes to; a FIFO it would refuse at once.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, tc := range []struct {
		name string
		args []string
		// ready returns once the process is doing what is to be
		// interrupted, given its stderr.
		ready func(t *testing.T, stderr *bufio.Reader)
	}{
		{"validate while loading", []string{"validate", big}, func(t *testing.T, _ *bufio.Reader) {
			time.Sleep(300 * time.Millisecond)
		}},
		{"fmt reading a pipe", []string{"fmt", "/dev/fd/3"}, func(t *testing.T, _ *bufio.Reader) {
			time.Sleep(300 * time.Millisecond)
		}},
		{"serve before initialize", []string{"serve", "--watch=false", writeConfig(t, testConfig)}, func(t *testing.T, stderr *bufio.Reader) {
			for {
				line, err := stderr.ReadString('\n')
				if err != nil {
					t.Fatalf("serve's stderr ended before it said it was serving: %v", err)
				}
				if strings.Contains(line, "serving over stdio") {
					return
				}
			}
		}},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(tc.name+"/"+sig.String(), func(t *testing.T) {
				cmd := exec.Command(binPath, tc.args...)
				cmd.ExtraFiles = []*os.File{pr}
				stdin, err := cmd.StdinPipe() // serve waits on it
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				stderr, err := cmd.StderrPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				r := bufio.NewReader(stderr)
				tc.ready(t, r)
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				go func() { _, _ = r.WriteTo(io.Discard) }()
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				select {
				case err := <-exited:
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						t.Fatalf("toolhost %s exited with %v after %v, want to be ended by it", tc.args[0], err, sig)
					}
					ws := ee.Sys().(syscall.WaitStatus)
					if !ws.Signaled() || ws.Signal() != sig {
						t.Fatalf("toolhost %s: %v after %v, want to be ended by it", tc.args[0], ee, sig)
					}
				case <-time.After(20 * time.Second):
					_ = cmd.Process.Kill()
					t.Fatalf("toolhost %s still running 20s after %v", tc.args[0], sig)
				}
			})
		}
	}
}
