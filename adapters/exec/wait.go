package exec

import (
	"context"
	"os/exec"
	"time"

	"github.com/toolhost/toolhost/adapters"
)

// waiting is a started command that a call waits for: it exits, is
// reaped, what it left in its process group is killed (a stopped
// command's group gets what is left of its kill_timeout first), and what
// is left in its pipes is read.
type waiting struct {
	e       *Exec
	cmd     *exec.Cmd
	run     *process
	unwatch func() // from stopOnCancel
	inPipe  *stdinPipe
	outs    outputs
	stderr  *stderrWriter

	reaped bool  // here reaped the command and left the rest to rest
	werr   error // from Wait, once reaped
	closed bool  // the backend was closed by the time it was reaped
}

// cuttable is what outputs whose waits another goroutine can cut short
// have: the call then waits for its command itself (waiting.here).
type cuttable interface {
	// cut makes the wait under way, and every one after it until goOn,
	// return as soon as it can.
	cut()
	// wasCut reports whether cut was called, and goOn not since.
	wasCut() bool
	// goOn undoes cut, once the wait it cut short has returned.
	goOn()
}

// here waits for the command on the call's own goroutine, where the
// outputs can be cut short: a host that begins to exit meanwhile cuts
// them, so that the call is answered at once. waited is false when the
// rest of the wait is left to rest, on a goroutine of its own: when the
// outputs cannot be cut, when the host began to exit before the command
// did, and when the command was stopped, whose group may take up to its
// kill_timeout to end.
func (w *waiting) here(ctx context.Context) (end outcome, waited bool) {
	c, ok := w.outs.(cuttable)
	if !ok {
		return outcome{}, false
	}
	ran := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(ran)
		if adapters.Exiting(ctx) {
			c.cut()
		}
	})
	// handOver leaves the rest to rest: the cut, if any, is undone once
	// it is over, so that rest reads the output to the end.
	handOver := func() (outcome, bool) {
		if !stop() {
			<-ran
		}
		if c.wasCut() {
			c.goOn()
		}
		return outcome{}, false
	}
	w.outs.awaitExit(w.cmd.Process)
	if c.wasCut() {
		return handOver()
	}
	w.reap()
	if w.run.wasStopped() {
		return handOver()
	}
	// Unstopped, the command's group is killed at once, and only a
	// process that left it can hold the pipes, until waitDelay at most;
	// a host that begins to exit meanwhile cuts that short.
	end = w.settle()
	if !stop() {
		<-ran
	}
	return end, true
}

// rest waits for what here left, or for all of it.
func (w *waiting) rest() outcome {
	if !w.reaped {
		w.outs.awaitExit(w.cmd.Process)
		w.reap()
	}
	return w.settle()
}

// reap reaps the command, which has exited or is about to, and takes it
// off the backend's running commands; from then on the call's context
// stops nothing (unwatch).
func (w *waiting) reap() {
	w.werr = w.cmd.Wait()
	w.unwatch()
	e := w.e
	e.mu.Lock()
	delete(e.running, w.cmd.Process.Pid)
	w.closed = e.closed
	e.mu.Unlock()
	w.reaped = true
}

// settle waits, once the command has been reaped, for what it left in
// its group (when it was stopped, up to its kill_timeout) and for the
// rest of its output, and returns how it ended.
func (w *waiting) settle() outcome {
	var forced, cut, unsent bool
	if w.run.wasStopped() {
		// The group may take what is left of its kill_timeout to exit:
		// what it prints meanwhile is read.
		fin := make(chan struct{})
		go func() {
			defer close(fin)
			forced, cut, unsent = w.run.finish()
		}()
		w.outs.readWhile(fin)
	} else {
		forced, cut, unsent = w.run.finish()
	}
	endGroup(w.cmd.Process.Pid)
	live.remove(w.run)
	if w.inPipe != nil {
		w.inPipe.close() // a process that left the group may hold it
	}
	w.outs.drain(time.Now().Add(waitDelay))
	w.stderr.flush()
	return outcome{werr: w.werr, closed: w.closed, forced: forced, cut: cut, unsent: unsent}
}
