package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/redact"
)

// Call runs the command once and returns its standard output. A call
// whose context ends stops its command (kill_signal, then SIGKILL after
// kill_timeout) and returns once it has ended; when the context ended
// because the host is exiting (ErrHostExiting), it returns at once, and the
// command is stopped and reaped all the same.
func (e *Exec) Call(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ectx *hcl.EvalContext
	if in != nil {
		ectx = in.Eval
	}
	argv, env, stdin, path, err := e.prepare(ctx, ectx)
	if err != nil {
		return nil, err
	}
	ctx, span := traceRun(ctx, argv[0])
	defer span.end()

	runCtx, cancel := context.WithTimeout(ctx, e.timeout)
	// What the call holds is released when it returns, unless its command
	// is still running (detached): then once the command has ended.
	var held []func()
	detached := false
	defer func() {
		if !detached {
			release(held)
		}
	}()
	held = append(held, cancel)
	// The command has no context of os/exec's: that would watch it on a
	// goroutine of its own for every call. stopOnCancel stops it instead.
	cmd := exec.Command(path)
	cmd.Args = argv
	cmd.Dir = e.dir
	cmd.Env = env
	// Standard input, when there is one, is a pipe of our own too: were
	// os/exec to copy it, Wait would wait for the copy (WaitDelay, which
	// is kill_timeout and more) after the command exited, should what it
	// left in its group hold the pipe without reading it. Without one,
	// standard input is the null device, open for the command alone.
	var inPipe *stdinPipe
	var null *os.File
	if stdin != nil {
		if inPipe, err = newStdinPipe(*stdin); err != nil {
			return nil, fmt.Errorf("cannot run %q: %v", argv[0], err)
		}
		held = append(held, inPipe.close)
		cmd.Stdin = inPipe.r
	} else if null = nullInput(); null != nil {
		held = append(held, func() { _ = null.Close() })
		cmd.Stdin = null
	}
	stdout := &capWriter{max: e.maxOutput}
	stderr := e.newStderr(in, ectx, argv, stdin)
	// The output pipes are the command's own files, not writers os/exec
	// copies from: Wait then returns when the command exits, and what it
	// left running is killed at once rather than waited for (it may hold
	// the pipes open for as long as it runs).
	outs, err := newOutputs(stdout, stderr)
	if err != nil {
		return nil, fmt.Errorf("cannot run %q: %v", argv[0], err)
	}
	held = append(held, outs.close)
	cmd.Stdout, cmd.Stderr = outs.writers()
	setProcessGroup(cmd)
	run := &process{grace: e.killTimeout, signal: e.killSignal}
	// killed records that the context ended the command, rather than the
	// command exiting by itself: a command that exits in time but leaves
	// the pipes to a process that escaped its group is drained past the
	// deadline, and is not a timeout.
	var killed atomic.Bool
	closed, err := e.start(ctx, cmd, run)
	if closed {
		return nil, errors.New("the tool was stopped because its configuration was unloaded; call it again")
	}
	outs.started()
	if null != nil {
		_ = null.Close() // the command has its own
	}
	if inPipe != nil {
		inPipe.started()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, e.startError(argv[0], path, err)
	}

	unwatch := stopOnCancel(runCtx, run, &killed)
	w := &waiting{e: e, cmd: cmd, run: run, unwatch: unwatch, inPipe: inPipe, outs: outs, stderr: stderr}

	// A call stopped because the host is exiting is answered at once,
	// while its command still has its kill_timeout (ErrHostExiting). So
	// the command is waited for on a goroutine of its own, unless the call
	// can wait itself (waiting.here), which saves handing the call over.
	end, waited := w.here(ctx)
	if !waited {
		ended := make(chan outcome, 1)
		go func() { ended <- w.rest() }()
		select {
		case end = <-ended:
		case <-ctx.Done():
			if adapters.Exiting(ctx) {
				// The pipes stay open until the command has ended: one
				// that cleans up on its kill_signal must not die of
				// SIGPIPE.
				detached = true
				go func() {
					<-ended
					release(held)
				}()
				return nil, ctx.Err()
			}
			end = <-ended
		}
	}
	span.ended(cmd.ProcessState)
	lastWords := func() string { return e.lastWords(ectx, stderr, stdout, argv, stdin) }
	if err := e.failure(ctx, runCtx, killed.Load(), end, run, argv[0], lastWords); err != nil {
		return nil, err
	}
	return e.output(in, ectx, stdout, argv, stdin), nil
}

// prepare builds what a call's command gets, under the call's budget:
// its argv, environment and standard input, and the path of its program.
func (e *Exec) prepare(ctx context.Context, ectx *hcl.EvalContext) (argv, env []string, stdin *string, path string, err error) {
	// The budget is for building what the command gets; what is
	// evaluated again later (secrets to redact) is not held to it.
	bctx, done := e.budget(ctx, ectx)
	defer done()
	// An error of evaluating the command may quote a sensitive parameter.
	argv, err = e.buildArgv(bctx)
	if err != nil {
		return nil, nil, nil, "", redact.Error(err, e.sensitiveValues(ectx))
	}
	env, err = e.buildEnv(bctx)
	if err != nil {
		return nil, nil, nil, "", redact.Error(err, e.sensitiveValues(ectx))
	}
	stdin, err = e.buildStdin(bctx)
	if err != nil {
		return nil, nil, nil, "", redact.Error(err, e.sensitiveValues(ectx))
	}
	path, err = e.resolveProgram(argv[0], env)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if err := e.checkBatch(path); err != nil {
		return nil, nil, nil, "", err
	}
	// The working directory is checked only when the command fails to
	// start (startError): a stat less for every call.
	return argv, env, stdin, path, nil
}

// budget returns ectx held to a call's Budget (adapters.WithBudget), and
// the function to call once done; ectx itself when the expressions a
// call evaluates are plain.
func (e *Exec) budget(ctx context.Context, ectx *hcl.EvalContext) (*hcl.EvalContext, func()) {
	if e.plain {
		return ectx, func() {}
	}
	return adapters.WithBudget(ctx, ectx, e.timeout)
}

// newStderr returns the writer of a call's standard error: it keeps the
// end for the error message and, when the call reports, sends its lines
// to the client as log lines and progress, with secrets hidden.
func (e *Exec) newStderr(in *adapters.Input, ectx *hcl.EvalContext, argv []string, stdin *string) *stderrWriter {
	stderr := &stderrWriter{tail: tailWriter{max: stderrKeep}}
	// Log lines and progress messages go to the client, and a line cut
	// short ends the tail kept for the error: the secrets are worked out
	// once, when the first one needs it.
	var cutSecrets []string
	var cutSecretsOnce sync.Once
	lineSecrets := func() []string {
		cutSecretsOnce.Do(func() { cutSecrets = e.cutSecrets(ectx, argv, stdin) })
		return cutSecrets
	}
	stderr.maskEnd = func(raw string) string { return redact.MaskCutEnd(raw, redact.MaskedForms(lineSecrets())) }
	if in != nil && in.Report != nil {
		stderr.report = in.Report
		stderr.level = e.stderrLog
		stderr.redact = func(line string, n int, cut bool) (string, bool) {
			return redact.RedactHead(e.scrub(ectx, line), n, lineSecrets(), cut)
		}
		if e.charset != nil {
			stderr.decode = func(b []byte) []byte { return e.decode(b, false) }
		}
	}
	return stderr
}

// stopOnCancel makes the end of runCtx stop run, the started command's
// process group, and record in killed that it did. It returns the
// function to call once the command has been waited for: after it, the
// context's end stops nothing, and killed is settled.
func stopOnCancel(runCtx context.Context, run *process, killed *atomic.Bool) (unwatch func()) {
	done := make(chan struct{})
	stop := context.AfterFunc(runCtx, func() {
		defer close(done)
		// A command that ended by itself as the context ended is not
		// stopped (run.stop): the call then reports how it ended.
		if run.stop() == nil {
			killed.Store(true)
		}
	})
	return func() {
		if !stop() {
			<-done // stopping now or done: wait for killed
		}
	}
}

// start starts cmd, unless the call's context ctx has ended, and, once it
// runs, adds run to the backend's running commands and to live. closed is
// set, and cmd not started, when the backend was closed.
func (e *Exec) start(ctx context.Context, cmd *exec.Cmd, run *process) (closed bool, err error) {
	prepareFds()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	pid := cmd.Process.Pid
	if err := startGroup(cmd); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		endGroup(pid)
		return false, err
	}
	run.setPid(pid)
	e.running[pid] = run
	live.add(run)
	return false, nil
}

// failure is the error of a call whose command ended as end says, or nil
// when it succeeded: ctx is the call's context, runCtx the one its timeout
// ends, killed whether that context's end stopped the command, prog the
// program as the command names it, and lastWords the end of what it
// printed.
func (e *Exec) failure(ctx, runCtx context.Context, killed bool, end outcome, run *process, prog string, lastWords func() string) error {
	werr, closed := end.werr, end.closed

	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case killed && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("command timed out after %s (timeout) and %s", attr.DurationText(e.timeout), e.howStopped(end))
		if s := lastWords(); s != "" {
			msg += "; the end of what it printed: " + s
		}
		return errors.New(msg)
	case closed && run.wasStopped():
		return fmt.Errorf("the command %s because the tool's configuration was unloaded; call the tool again", e.howStopped(end))
	}
	if werr != nil && !errors.Is(werr, exec.ErrWaitDelay) {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			msg := exitDescription(ee.ProcessState)
			if s := lastWords(); s != "" {
				msg += ": " + s
			}
			return errors.New(msg)
		}
		return fmt.Errorf("command %q failed: %v", prog, werr)
	}
	return nil
}

// output is the output of a call whose command succeeded: stdout as it is
// for binary output, otherwise decoded to valid UTF-8 text.
func (e *Exec) output(in *adapters.Input, ectx *hcl.EvalContext, stdout *capWriter, argv []string, stdin *string) *adapters.Output {
	// What the output may echo: the secrets, and the sensitive parameters.
	secrets := func() []string {
		return append(e.secrets(ectx, argv, stdin), e.sensitiveValues(ectx)...)
	}
	body := stdout.buf
	if e.binary {
		mt := e.mimeType
		if mt == "" {
			mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
		}
		return &adapters.Output{Body: body, MIMEType: mt, Truncated: stdout.truncated, Binary: true, Secrets: secrets}
	}
	if e.charset != nil {
		body = e.decode(body, stdout.truncated)
	}
	if stdout.truncated {
		body = trimPartialRune(body)
	}
	if !utf8.Valid(body) {
		if in != nil && in.Report != nil {
			in.Report.Log("warning", fmt.Sprintf("the command's output is not valid UTF-8, and its invalid bytes were replaced with U+FFFD; "+
				"set charset = \"gbk\" (or the encoding it writes) in the exec block, or binary = true for bytes that are not text"))
		}
		body = []byte(strings.ToValidUTF8(string(body), "\uFFFD"))
	}
	mime := "text/plain"
	if json.Valid(body) {
		mime = "application/json"
	}
	return &adapters.Output{Body: body, MIMEType: mime, Truncated: stdout.truncated, Secrets: secrets}
}

// howStopped says how a stopped command ended, as end says, after "and"
// or "the command".
func (e *Exec) howStopped(end outcome) string {
	forced, cut := end.forced, end.cut
	switch {
	case e.killTimeout == 0:
		return "was killed"
	case end.unsent:
		return fmt.Sprintf("was killed: %s could not be sent to it", signalText(e.killSignal))
	case forced && cut:
		return fmt.Sprintf("was killed as toolhost exited, within its kill_timeout of %s after %s", attr.DurationText(e.killTimeout), signalText(e.killSignal))
	case forced:
		return fmt.Sprintf("was killed: it was still running %s after %s (kill_timeout)", attr.DurationText(e.killTimeout), signalText(e.killSignal))
	}
	return "was stopped with " + signalText(e.killSignal)
}

// process is one running command, as stopping it sees it.
type process struct {
	grace  time.Duration // kill_timeout
	signal string        // kill_signal

	mu       sync.Mutex
	pid      int         // the command's, and its process group's
	stopped  bool        // stop was called
	deadline time.Time   // when SIGKILL is due, once stopped
	timer    *time.Timer // sends SIGKILL at the deadline
	forced   bool        // SIGKILL found processes in the group
	cut      bool        // KillCommands sent it, before the deadline
	unsent   bool        // kill_signal could not be sent: killed at once
	done     bool        // no signal is sent any more
}

// setPid records the command's pid once it has started.
func (r *process) setPid(pid int) {
	r.mu.Lock()
	r.pid = pid
	r.mu.Unlock()
}

// stop asks the command's process group to exit: kill_signal now, SIGKILL
// once kill_timeout has passed (at once when it is zero). Only the first
// call does anything. A group with nothing left running (the command
// ended by itself, and was perhaps reaped already) is not stopped, and
// gets no signal then or later: its number may be another group's by
// then. stop then returns os.ErrProcessDone.
func (r *process) stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	if r.done {
		return os.ErrProcessDone
	}
	if groupGone(r.pid) {
		r.done = true
		return os.ErrProcessDone
	}
	if r.grace <= 0 {
		r.stopped = true
		r.killLocked()
		return nil
	}
	if err := signalGroup(r.pid, r.signal); err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			r.done = true // gone meanwhile
			return os.ErrProcessDone
		}
		// The signal cannot be sent (on Windows, when toolhost has no
		// console to share with the command): the group is killed now.
		r.stopped = true
		r.unsent = true
		r.killLocked()
		return nil
	}
	r.stopped = true
	r.deadline = time.Now().Add(r.grace)
	r.timer = time.AfterFunc(r.grace, r.kill)
	return nil
}

// wasStopped reports whether stop was called.
func (r *process) wasStopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// kill kills the process group with SIGKILL, unless that was done already.
func (r *process) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.killLocked()
}

// killLocked kills the process group with SIGKILL, once, with r.mu held.
func (r *process) killLocked() {
	if r.done {
		return
	}
	r.done = true
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.stopped && !groupGone(r.pid) {
		r.forced = true
	}
	_ = killGroup(r.pid)
}

// finish ends the command's process group once its leader has exited and
// been waited for, and reports whether it took SIGKILL to stop it, whether
// that came from KillCommands, and whether kill_signal could not be sent. What a command that exited by
// itself left running is killed at once; a stopped command's group has
// until its deadline to exit, and is killed then.
func (r *process) finish() (forced, cut, unsent bool) {
	r.mu.Lock()
	pid, stopped, deadline, done := r.pid, r.stopped, r.deadline, r.done
	r.mu.Unlock()
	if stopped && !done {
		for wait := time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, 20*time.Millisecond) {
			if groupGone(pid) {
				r.mu.Lock()
				r.done = true
				r.timer.Stop()
				r.mu.Unlock()
				break
			}
			time.Sleep(min(wait, time.Until(deadline)))
		}
	}
	r.kill()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.forced, r.cut, r.unsent
}

// outcome is how a command ended, once it has been waited for, its group
// ended and its output read.
type outcome struct {
	werr        error // from Wait
	closed      bool  // the backend was closed (its config unloaded)
	forced, cut bool  // from process.finish: SIGKILL was needed, sent by KillCommands
	unsent      bool  // from process.finish: kill_signal could not be sent
}

// release calls the functions of held, the last first.
func release(held []func()) {
	for i := len(held) - 1; i >= 0; i-- {
		held[i]()
	}
}

// live is every command running, in every exec backend: what
// KillCommands kills and WaitCommands waits for.
var live = runSet{runs: map[*process]struct{}{}}

// runSet is a set of running commands (see live).
type runSet struct {
	mu   sync.Mutex
	runs map[*process]struct{}
	// idle is closed when the set becomes empty, for the waiters of
	// WaitCommands; nil when nobody waits.
	idle chan struct{}
}

// add adds r to the set.
func (s *runSet) add(r *process) {
	s.mu.Lock()
	s.runs[r] = struct{}{}
	s.mu.Unlock()
}

// remove removes r from the set, and wakes its waiters when it becomes
// empty.
func (s *runSet) remove(r *process) {
	s.mu.Lock()
	delete(s.runs, r)
	if len(s.runs) == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
}

// waitCommands waits until no command runs any more, in any exec backend,
// or until ctx ends; it reports whether none runs: the exec kind's Wait
// (see adapters.WaitCommands).
func waitCommands(ctx context.Context) bool {
	live.mu.Lock()
	if len(live.runs) == 0 {
		live.mu.Unlock()
		return true
	}
	if live.idle == nil {
		live.idle = make(chan struct{})
	}
	idle := live.idle
	live.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-ctx.Done():
		return false
	}
}

// killCommands kills the process group of every command still running,
// with SIGKILL, without waiting for what is left of their kill_timeout: the
// exec kind's Kill (see adapters.KillCommands). The kernel kills a command
// whose parent dies (on Linux), but not what the command started.
func killCommands() {
	live.mu.Lock()
	defer live.mu.Unlock()
	for r := range live.runs {
		r.mu.Lock()
		r.cut = r.stopped && !r.done
		r.killLocked()
		r.mu.Unlock()
	}
}
