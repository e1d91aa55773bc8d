//go:build windows

// Command winchild is the Windows program of the interoperability test
// that drives toolhost.exe under wine (windows.test.mjs): a command that
// leaves a child behind, and a way to ask whether that child still runs.
//
//	winchild parent PIDFILE   start "winchild sleep", write its pid to PIDFILE
//	                          and print it, then wait for it
//	winchild sleep            sleep for ten minutes
//	winchild alive PID        print "alive" or "gone"
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/windows"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "parent":
		if len(os.Args) != 3 {
			usage()
		}
		parent(os.Args[2])
	case "sleep":
		time.Sleep(10 * time.Minute)
	case "alive":
		if len(os.Args) != 3 {
			usage()
		}
		pid, err := strconv.Atoi(os.Args[2])
		if err != nil {
			usage()
		}
		if alive(uint32(pid)) {
			fmt.Println("alive")
		} else {
			fmt.Println("gone")
		}
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: winchild parent PIDFILE | sleep | alive PID")
	os.Exit(2)
}

// parent starts a copy of this program that sleeps, writes its pid, and
// waits for it: the child outlives its parent unless something ends both.
func parent(pidFile string) {
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	child := exec.Command(self, "sleep")
	if err := child.Start(); err != nil {
		fail(err)
	}
	pid := strconv.Itoa(child.Process.Pid)
	if err := os.WriteFile(pidFile+".tmp", []byte(pid), 0o644); err != nil {
		fail(err)
	}
	if err := os.Rename(pidFile+".tmp", pidFile); err != nil {
		fail(err)
	}
	fmt.Println(pid)
	_ = child.Wait()
}

// alive reports whether the process pid still runs.
func alive(pid uint32) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, pid)
	if err != nil {
		return false // no such process (any more)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
