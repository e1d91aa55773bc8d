package exec

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a command's "process group" is a job object: the command
// starts suspended, is assigned to a job of its own that ends every
// process in it when its last handle closes (so toolhost's exit, even a
// crash, ends the command and all it started), and only then runs, so
// that nothing it starts escapes the job. It also starts in a new console
// process group, the target of the CTRL_BREAK event that asks it to stop.

// jobKilledCode is the exit code every process of a job gets when
// toolhost ends the job: an NTSTATUS with the customer bit set, which no
// system status has, so that exitDescription can tell it from the
// program's own exit codes.
const jobKilledCode = 0xE0000009

// jobs maps the pid of each running command to its job.
var jobs = struct {
	sync.Mutex
	m map[int]*job
}{m: map[int]*job{}}

// job is a command's job object, and a handle to the command's process:
// while it is open, the pid cannot name another process.
type job struct {
	handle  windows.Handle
	process windows.Handle
}

// setProcessGroup makes the command start suspended, in a new console
// process group; startGroup puts it in its job and lets it run.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED
}

// startGroup puts the command cmd started, still suspended, in a new job
// object that kills its processes when toolhost exits, then resumes it.
// On an error the command may not run; the caller kills it and calls
// endGroup.
func startGroup(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("cannot open the command's process: %v", err)
	}
	h, err := newJob()
	if err != nil {
		windows.CloseHandle(proc)
		return err
	}
	if err := windows.AssignProcessToJobObject(h, proc); err != nil {
		windows.CloseHandle(h)
		windows.CloseHandle(proc)
		return fmt.Errorf("cannot put the command in a job object: %v", err)
	}
	jobs.Lock()
	jobs.m[pid] = &job{handle: h, process: proc}
	jobs.Unlock()
	if err := resumeThreads(uint32(pid)); err != nil {
		return fmt.Errorf("cannot resume the command: %v", err)
	}
	return nil
}

// newJob creates a job object whose processes end when its last handle
// is closed.
func newJob() (windows.Handle, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("cannot create a job object: %v", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("cannot set up a job object: %v", err)
	}
	return h, nil
}

// resumeThreads resumes the threads of the suspended process pid: its
// main thread, the only one a process started suspended has. os/exec
// does not keep the thread handle CreateProcess returned, so the thread
// is found by a snapshot of the system's threads.
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := false
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed = true
	}
	if !resumed {
		return errors.New("its thread was not found")
	}
	return nil
}

// endGroup closes the job of the command pid, once it has ended and its
// job was killed: what is left in the job, should anything be, is killed
// by the close.
func endGroup(pid int) {
	jobs.Lock()
	j := jobs.m[pid]
	delete(jobs.m, pid)
	jobs.Unlock()
	if j != nil {
		windows.CloseHandle(j.handle)
		windows.CloseHandle(j.process)
	}
}

// lookupJob returns the job of the command pid, or nil.
func lookupJob(pid int) *job {
	jobs.Lock()
	defer jobs.Unlock()
	return jobs.m[pid]
}

// killGroup ends every process of the job of the command pid. A command
// without a job (stopped before startGroup ran) is killed alone: it is
// still suspended, and has started nothing.
func killGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	if j := lookupJob(pid); j != nil {
		return windows.TerminateJobObject(j.handle, jobKilledCode)
	}
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return os.ErrProcessDone
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, jobKilledCode)
}

// signals maps the names kill_signal takes (killSignals) to the console
// event each sends on Windows: all of them ask for the graceful stop
// there is, CTRL_BREAK to the command's console process group (CTRL_C
// cannot be sent to a process group other than the caller's).
var signals = map[string]uint32{
	"SIGTERM": windows.CTRL_BREAK_EVENT, "SIGINT": windows.CTRL_BREAK_EVENT, "SIGHUP": windows.CTRL_BREAK_EVENT,
	"SIGQUIT": windows.CTRL_BREAK_EVENT, "SIGUSR1": windows.CTRL_BREAK_EVENT, "SIGUSR2": windows.CTRL_BREAK_EVENT,
}

// signalText is how messages name what kill_signal sends: CTRL_BREAK,
// whatever the name (see signals).
func signalText(string) string { return "CTRL_BREAK" }

// signalGroup sends the console event the name stands for (signals) to
// the console process group of the command pid. An event that cannot be
// sent (toolhost has no console to share with the command, or runs under
// wine) is an error, and the caller kills the job instead.
func signalGroup(pid int, name string) error {
	ev, ok := signals[name]
	if pid <= 0 || !ok {
		return fmt.Errorf("cannot send %q to process group %d", name, pid)
	}
	return windows.GenerateConsoleCtrlEvent(ev, uint32(pid))
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// golang.org/x/sys/windows does not declare.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

// groupGone reports whether no process is left running in the job of the
// command pid: the command has exited, and the job counts no process;
// for a command without a job, whether it has exited.
func groupGone(pid int) bool {
	if pid <= 0 {
		return false
	}
	if j := lookupJob(pid); j != nil {
		// The command itself still running is enough: the job's count
		// is not asked then (wine has been seen to report an empty job
		// while the command ran).
		if ev, err := windows.WaitForSingleObject(j.process, 0); err == nil && ev != windows.WAIT_OBJECT_0 {
			return false
		}
		var info jobAccounting
		err := windows.QueryInformationJobObject(j.handle, windows.JobObjectBasicAccountingInformation,
			uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
		return err == nil && info.ActiveProcesses == 0
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

// statusNames names the NTSTATUS codes a Windows process most often dies
// of, the counterparts of the signals that kill a process on Linux.
var statusNames = map[uint32]string{
	0xC0000005: "access violation",
	0xC000001D: "illegal instruction",
	0xC0000094: "integer division by zero",
	0xC00000FD: "stack overflow",
	0xC000013A: "CTRL_C or CTRL_BREAK",
	0xC0000409: "stack buffer overrun",
}

// exitDescription says how a command that failed ended: killed, when
// toolhost ended its job or the system ended it with an error status (an
// NTSTATUS, 0xC0000000 and up), as a signal kills a process on Linux;
// otherwise the status it exited with.
func exitDescription(ps *os.ProcessState) string {
	if ps == nil {
		return "command failed"
	}
	code := uint32(ps.ExitCode())
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		code = ws.ExitCode
	}
	switch {
	case code == jobKilledCode:
		return "command was killed (its job object was terminated)"
	case code >= 0xC0000000:
		if name, ok := statusNames[code]; ok {
			return fmt.Sprintf("command was killed by status 0x%08X (%s)", code, name)
		}
		return fmt.Sprintf("command was killed by status 0x%08X", code)
	}
	return fmt.Sprintf("command exited with status %d", code)
}

// notExecutable reports whether err says the program file has a format
// Windows cannot run.
func notExecutable(err error) bool {
	return errors.Is(err, windows.ERROR_BAD_EXE_FORMAT)
}

// prepareFds does nothing on Windows: handles are not inherited unless
// asked for.
func prepareFds() {}

// outputPipe makes an output pipe of a command.
func outputPipe() (r, w *os.File, err error) { return os.Pipe() }

// awaitExit returns at once: Wait waits for the process.
func awaitExit(*os.Process) {}

// nullInput is nil: os/exec opens the null device for each command.
func nullInput() *os.File { return nil }

// newOutputs makes a command's output pipes, each read by a goroutine.
func newOutputs(stdout, stderr io.Writer) (outputs, error) { return newPipeOutputs(stdout, stderr) }
