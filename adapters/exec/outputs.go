package exec

import (
	"io"
	"os"
	"time"
)

// outputs is a command's standard output and error: two pipes whose
// reading ends are read while it runs, and copied to two writers.
type outputs interface {
	// writers returns the writing ends, the command's standard output and
	// error.
	writers() (stdout, stderr *os.File)
	// started closes toolhost's copies of the writing ends, once the
	// command has its own (or failed to start).
	started()
	// awaitExit waits until the started, not yet reaped, process p has
	// exited, where it can without holding a thread; otherwise it returns
	// at once, and Wait waits.
	awaitExit(p *os.Process)
	// readWhile reads the output until fin is closed.
	readWhile(fin <-chan struct{})
	// drain reads the rest of the output, until deadline at most: a
	// process that left the command's process group may hold a pipe
	// open. After drain the writers are not written to any more.
	drain(deadline time.Time)
	// close releases both pipes; the output is not read any more.
	close()
}

// pipeOutputs are outputs read by a goroutine for each pipe.
type pipeOutputs struct{ out, err *pipe }

// newPipeOutputs makes a command's output pipes, each copied to its
// writer by a goroutine.
func newPipeOutputs(stdout, stderr io.Writer) (outputs, error) {
	out, err := newPipe(stdout)
	if err != nil {
		return nil, err
	}
	errs, err := newPipe(stderr)
	if err != nil {
		out.close()
		return nil, err
	}
	return &pipeOutputs{out: out, err: errs}, nil
}

// writers returns the writing ends.
func (o *pipeOutputs) writers() (stdout, stderr *os.File) { return o.out.w, o.err.w }

// started closes toolhost's copies of the writing ends.
func (o *pipeOutputs) started() {
	o.out.started()
	o.err.started()
}

// awaitExit waits for p to exit where a pidfd allows (see awaitExit).
func (o *pipeOutputs) awaitExit(p *os.Process) { awaitExit(p) }

// readWhile waits for fin: the goroutines read meanwhile.
func (o *pipeOutputs) readWhile(fin <-chan struct{}) { <-fin }

// drain waits for both copies to end, until deadline at most.
func (o *pipeOutputs) drain(deadline time.Time) {
	o.out.drain(deadline)
	o.err.drain(deadline)
}

// close releases both pipes.
func (o *pipeOutputs) close() {
	o.out.close()
	o.err.close()
}
