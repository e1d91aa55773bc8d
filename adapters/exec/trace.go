package exec

import (
	"context"
	"os"
	"path/filepath"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolhost/toolhost/internal/telemetry"
)

// runSpan is the span of one command run, a child of the call's span;
// nil when the call is not traced, and its methods then do nothing.
type runSpan struct {
	s      *telemetry.Span
	exited bool
	code   int
}

// traceRun starts the span of a run of prog, named "exec PROGRAM" with the
// program's base name (its directory may name a user's home).
func traceRun(ctx context.Context, prog string) (context.Context, *runSpan) {
	if !telemetry.Traced(ctx) {
		return ctx, nil
	}
	name := filepath.Base(prog)
	ctx, s := telemetry.Start(ctx, "exec "+name, trace.SpanKindInternal, semconv.ProcessExecutableName(name))
	return ctx, &runSpan{s: s}
}

// ended records how the command ended: its exit code and pid. st is nil
// when it never ran.
func (r *runSpan) ended(st *os.ProcessState) {
	if r == nil || st == nil {
		return
	}
	r.exited = true
	r.code = st.ExitCode()
	r.s.Set(semconv.ProcessExitCode(r.code), attribute.Int("process.pid", st.Pid()))
}

// end ends the span: failed when the command did not exit, or exited
// with a code other than 0 (error.type is then the code, or "signal"
// when a signal ended it).
func (r *runSpan) end() {
	if r == nil {
		return
	}
	switch {
	case !r.exited:
		r.s.End("_OTHER")
	case r.code == -1:
		r.s.End("signal")
	case r.code != 0:
		r.s.End(strconv.Itoa(r.code))
	default:
		r.s.End("")
	}
}
