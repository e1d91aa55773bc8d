package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// message is one line a server wrote, parsed just enough to route it.
type message struct {
	id     int64 // -1 for a notification or a line without a numeric id
	method string
	result json.RawMessage
	err    json.RawMessage
	raw    []byte
	at     time.Time // when the line was read, before parsing
}

// proc is one server process spoken to over pipes: newline-delimited
// JSON-RPC on stdin and stdout.
type proc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	msgs  chan message
	// stderrLines receives the lines the server logs, when watched.
	stderrLines chan string
	stderrTail  *tail
	stderrDone  chan struct{} // closed when stderr has ended
	nextID      int64
	done        chan struct{}
	wbuf        []byte
}

// tail keeps the last lines of a server's stderr for error messages, or
// every line from when keepAll is set (for a goroutine dump).
type tail struct {
	mu      sync.Mutex
	lines   []string
	keepAll bool
}

func (t *tail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, s)
	if len(t.lines) > 20 && !t.keepAll {
		t.lines = t.lines[len(t.lines)-20:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// spec says how to start one server.
type spec struct {
	name string
	argv []string
	env  []string
	dir  string
}

// start spawns the server. It does not speak to it.
func start(s spec, watchStderr bool) (*proc, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Dir = s.dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{name: s.name, cmd: cmd, stdin: stdin, msgs: make(chan message, 8192), stderrTail: &tail{}, stderrDone: make(chan struct{}), done: make(chan struct{}), nextID: 1}
	if watchStderr {
		p.stderrLines = make(chan string, 1024)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go p.readStdout(stdout)
	go p.readStderr(stderr)
	return p, nil
}

func (p *proc) readStdout(r io.Reader) {
	defer close(p.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		at := time.Now()
		if len(bytes.TrimSpace(line)) > 0 {
			p.msgs <- parse(line, at)
		}
		if err != nil {
			return
		}
	}
}

func (p *proc) readStderr(r io.Reader) {
	defer close(p.stderrDone)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		p.stderrTail.add(line)
		if p.stderrLines != nil {
			select {
			case p.stderrLines <- line:
			default:
			}
		}
	}
}

func parse(line []byte, at time.Time) message {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	m := message{id: -1, raw: line, at: at}
	if json.Unmarshal(line, &env) != nil {
		m.err = json.RawMessage(`"unparsable line"`)
		return m
	}
	if n, err := strconv.ParseInt(string(env.ID), 10, 64); err == nil {
		m.id = n
	}
	m.method, m.result, m.err = env.Method, env.Result, env.Error
	return m
}

// send writes one request and returns its id.
func (p *proc) send(method string, params string) (int64, error) {
	id := p.nextID
	p.nextID++
	b := p.wbuf[:0]
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	b = append(b, "}\n"...)
	p.wbuf = b
	_, err := p.stdin.Write(b)
	return id, err
}

func (p *proc) notify(method string) error {
	_, err := fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
	return err
}

var errTimeout = errors.New("timed out")

// hung reports a server that stopped answering. It sends SIGQUIT, on which
// a Go server writes every goroutine's stack to stderr and exits, and saves
// what the server writes to stderr from then on in a file the error names,
// so that a hang seen once can be diagnosed.
func (p *proc) hung(what string) error {
	p.stderrTail.mu.Lock()
	p.stderrTail.keepAll = true
	p.stderrTail.mu.Unlock()
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.stderrDone:
	case <-time.After(5 * time.Second):
	}
	f, err := os.CreateTemp("", "toolhost-bench-"+p.name+"-hang-*.txt")
	if err != nil {
		return fmt.Errorf("%s: %s: %w; stderr:\n%s", p.name, what, errTimeout, p.stderrTail)
	}
	_, _ = io.WriteString(f, p.stderrTail.String()+"\n")
	_ = f.Close()
	return fmt.Errorf("%s: %s: %w; its stderr after SIGQUIT (goroutine stacks for a Go server) is in %s", p.name, what, errTimeout, f.Name())
}

// next returns the next message with an id (a response), skipping
// notifications, or errTimeout.
func (p *proc) next(timeout time.Duration) (message, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case m := <-p.msgs:
			if m.id < 0 && m.method != "" {
				continue // a notification
			}
			return m, nil
		case <-p.done:
			// Drain what was read before the end.
			select {
			case m := <-p.msgs:
				if m.id >= 0 || m.method == "" {
					return m, nil
				}
				continue
			default:
			}
			return message{}, fmt.Errorf("%s exited; stderr:\n%s", p.name, p.stderrTail)
		case <-t.C:
			return message{}, p.hung(fmt.Sprintf("no response in %s", timeout))
		}
	}
}

// waitNotification returns when a notification with the method arrives.
func (p *proc) waitNotification(method string, timeout time.Duration) (time.Time, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case m := <-p.msgs:
			if m.method == method {
				return m.at, nil
			}
		case <-p.done:
			return time.Time{}, fmt.Errorf("%s exited; stderr:\n%s", p.name, p.stderrTail)
		case <-t.C:
			return time.Time{}, p.hung(fmt.Sprintf("no %s in %s", method, timeout))
		}
	}
}

// call sends one request and waits for its response.
func (p *proc) call(method, params string, timeout time.Duration) (message, error) {
	id, err := p.send(method, params)
	if err != nil {
		return message{}, err
	}
	for {
		m, err := p.next(timeout)
		if err != nil {
			return m, err
		}
		if m.id == id {
			if m.err != nil {
				return m, fmt.Errorf("%s: %s failed: %s", p.name, method, m.err)
			}
			return m, nil
		}
	}
}

const initParams = `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolhost-bench","version":"1.0.0"}}`

// initialize runs the handshake.
func (p *proc) initialize() error {
	if _, err := p.call("initialize", initParams, 30*time.Second); err != nil {
		return err
	}
	return p.notify("notifications/initialized")
}

// stop closes stdin and waits for the process to exit, killing it if it
// does not within a second.
func (p *proc) stop() {
	_ = p.stdin.Close()
	exited := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
		return
	case <-time.After(time.Second):
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(2 * time.Second):
	}
	_ = p.cmd.Process.Kill()
	<-exited
}

// memory reads VmRSS and VmHWM (peak RSS) of the process, in bytes.
func (p *proc) memory() (rss, hwm int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = n << 10
		case "VmHWM:":
			hwm = n << 10
		}
	}
	return rss, hwm
}

// resetPeak resets the process's VmHWM to its current RSS (Linux
// clear_refs 5), so that a later VmHWM is the peak of what ran since.
func (p *proc) resetPeak() bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.cmd.Process.Pid), []byte("5"), 0) == nil
}

// clockTicks is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// 100 on every Linux the driver runs on (sysconf(_SC_CLK_TCK) needs cgo).
const clockTicks = 100

// cpuTime is the CPU time the process has used so far, user and system,
// all its threads: utime + stime of /proc/PID/stat, in steps of 10 ms. 0
// when it cannot be read (not Linux).
func (p *proc) cpuTime() time.Duration { return procCPU(p.cmd.Process.Pid) }

// procCPU is cpuTime for the process pid.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields are counted from after its closing parenthesis, where
	// field 3 starts; utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * time.Second / clockTicks
}
