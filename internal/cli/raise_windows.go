package cli

import (
	"os"
	"syscall"
)

// statusControlCExit is the exit status of a Windows process ended by a
// console control event (Ctrl+C, Ctrl+Break, the console closing) with
// no handler of its own: what the default handler passes to ExitProcess.
const statusControlCExit = 0xC000013A

// raise ends this process as the held console event would have ended it
// without the hold: Windows has no signals to send to oneself, so it
// exits with the status the default handler gives.
func raise(syscall.Signal) {
	os.Exit(statusControlCExit)
}
