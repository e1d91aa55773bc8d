package testserver

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// starter is the goroutine, locked to its thread for good, that starts
// the servers.
var starter struct {
	once sync.Once
	cmds chan *exec.Cmd
	errs chan error
}

// startCmd starts cmd (whose SysProcAttr setGroup set) so that it is
// killed when the tests end without stopping it (a panic, a timeout): the
// kernel kills it when the thread that started it ends, and it is started
// from a thread that lives as long as the test binary (a thread of Go's
// may end before its process: go.dev/issue/27505).
func startCmd(cmd *exec.Cmd) error {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	starter.once.Do(func() {
		starter.cmds, starter.errs = make(chan *exec.Cmd), make(chan error)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives on
			for cmd := range starter.cmds {
				starter.errs <- cmd.Start()
			}
		}()
	})
	starter.cmds <- cmd
	return <-starter.errs
}
