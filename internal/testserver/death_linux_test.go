package testserver

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestServerDiesWithTests checks that a server the tests did not stop is
// killed when the test binary exits: a child test binary starts one,
// prints its pid and exits, and the server's end is waited for.
func TestServerDiesWithTests(t *testing.T) {
	if os.Getenv("TESTSERVER_ORPHAN") == "1" {
		var p Process
		if err := p.Start(exec.Command("sh", "-c", "echo up; exec sleep 3600"), "up"); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("pid", p.cmd.Process.Pid)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTests$")
	cmd.Env = append(os.Environ(), "TESTSERVER_ORPHAN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "pid "); ok {
			pid, _ = strconv.Atoi(v)
			break
		}
		t.Log(sc.Text())
	}
	if pid == 0 {
		_ = cmd.Wait()
		t.Fatal("the child test binary did not start its server")
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		_ = cmd.Wait()
		return // already gone
	}
	if err != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		t.Skipf("pidfd_open: %v", err)
	}
	defer unix.Close(fd)
	_ = cmd.Wait()
	// The pidfd is readable once the process has ended; Poll waits for it
	// (the test's own timeout bounds the wait).
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			return
		}
	}
}
