package testconfig

import (
	"bytes"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"
)

// serveStartTimeout bounds how long StartHTTP waits for toolhost to say
// where it serves.
const serveStartTimeout = 30 * time.Second

// servingRE finds the address in toolhost's "serving over HTTP" log line,
// in text or (--log-format json) JSON.
var servingRE = regexp.MustCompile(`msg="serving over HTTP" addr=(\S+)|"msg":"serving over HTTP".*?"addr":"([^"]+)"`)

// A Served is a toolhost serve --listen that StartHTTP started.
type Served struct {
	Cmd    *exec.Cmd
	Base   string        // http://127.0.0.1:PORT
	Exited chan struct{} // closed once the process has exited
	Err    error         // from Wait, once Exited is closed

	mu      sync.Mutex
	stderr  bytes.Buffer
	serving chan struct{} // closed once stderr has the address
}

// ServeHTTP starts bin serve --listen 127.0.0.1:0 with args and waits
// until it serves, as StartHTTP does.
func ServeHTTP(t *testing.T, bin string, args ...string) *Served {
	t.Helper()
	return StartHTTP(t, exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...))
}

// StartHTTP starts cmd, a toolhost serve --listen prepared by the caller
// (its environment, its process group), and waits until its log says
// where it serves. The process is killed when the test ends, and its log
// goes to the test's when the test failed.
func StartHTTP(t *testing.T, cmd *exec.Cmd) *Served {
	t.Helper()
	s := &Served{Cmd: cmd, Exited: make(chan struct{}), serving: make(chan struct{})}
	cmd.Stderr = (*servedLog)(s)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.Err = cmd.Wait()
		close(s.Exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.Exited
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.Log())
		}
	})
	select {
	case <-s.serving:
	case <-s.Exited:
		t.Fatalf("toolhost exited before it served: %v\n%s", s.Err, s.Log())
	case <-time.After(serveStartTimeout):
		t.Fatalf("toolhost did not say where it serves within %s\n%s", serveStartTimeout, s.Log())
	}
	return s
}

// Log is what the process wrote to stderr so far.
func (s *Served) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// servedLog is a Served's stderr: it keeps the log, and sets Base and
// closes serving once the address is in it.
type servedLog Served

func (l *servedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stderr.Write(p)
	if l.Base == "" {
		if m := servingRE.FindSubmatch(l.stderr.Bytes()); m != nil {
			l.Base = "http://" + string(m[1]) + string(m[2])
			close(l.serving)
		}
	}
	return len(p), nil
}
