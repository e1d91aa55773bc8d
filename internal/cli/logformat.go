package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/host"
)

// logFormatUsage is the usage of --log-format.
const logFormatUsage = "how log lines are written: text (key=value, for people) or json (one JSON object a line, for log pipelines: keys time, level, msg, then the line's own; durations as KEY_ms, in milliseconds; config diagnostics as records with file, line and col)"

// addLogFormatFlag declares --log-format on fs.
func addLogFormatFlag(fs *flag.FlagSet) *string {
	return fs.String("log-format", "text", logFormatUsage)
}

// newFormatLogger is newLogger in format (text or json). It returns the
// writer the command writes its other messages to: w itself for text; for
// json, a writer that turns each line into a record (jsonLines), so that
// every line of stderr is a JSON object (also when err is about the level).
func newFormatLogger(w io.Writer, level, format string) (*slog.Logger, io.Writer, error) {
	switch strings.ToLower(format) {
	case "text", "":
		logger, err := newLogger(w, level)
		return logger, w, err
	case "json":
	default:
		return nil, w, fmt.Errorf("unknown --log-format %q: use text or json", format)
	}
	l, err := parseLevel(level)
	if err != nil {
		// The error about the level is a record too.
		h := slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: jsonAttr})
		return nil, &jsonLines{logger: slog.New(h)}, err
	}
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l, ReplaceAttr: jsonAttr})
	logger := slog.New(h)
	return logger, &jsonLines{logger: logger}, nil
}

// jsonAttr writes a duration as a number of milliseconds under its key
// with _ms added (duration_ms, as in the audit log), which log pipelines
// read without parsing Go's duration text.
func jsonAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.Float64(a.Key+"_ms", float64(a.Value.Duration())/float64(time.Millisecond))
	}
	return a
}

// jsonLines is stderr under --log-format json: each line written to it is
// logged as the msg of a record at warn (whatever the log level: these
// are the messages a command writes for its user, mostly problems), and
// diagnostics are logged as records (host.DiagnosticLogger).
type jsonLines struct {
	logger *slog.Logger
}

var _ host.DiagnosticLogger = (*jsonLines)(nil)

func (j *jsonLines) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r := slog.NewRecord(time.Now(), slog.LevelWarn, string(line), 0)
		if err := j.logger.Handler().Handle(context.Background(), r); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// warnRecord is msg as a JSON record at warn, one line, for a writer
// that cannot go through the logger (the log's own tee, which the
// logger's handler writes to).
func warnRecord(msg string) []byte {
	b, _ := json.Marshal(struct {
		Time  time.Time `json:"time"`
		Level string    `json:"level"`
		Msg   string    `json:"msg"`
	}{time.Now(), "WARN", msg})
	return append(b, '\n')
}

// LogDiagnostics logs diags as one record each (host.LogDiagnostics).
func (j *jsonLines) LogDiagnostics(diags hcl.Diagnostics) {
	host.LogDiagnostics(j.logger, diags)
}

// flagOutput is where a command's flag errors and usage go: stderr, or,
// when args ask for --log-format json, stderr turning each line into a
// record, so that a mistyped flag does not put the one plain line on a
// log pipeline's stderr. args are read before they are parsed.
func flagOutput(args []string, stderr io.Writer) io.Writer {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "log-format" {
			continue
		}
		if !hasVal && i+1 < len(args) {
			val = args[i+1]
		}
		if strings.EqualFold(val, "json") {
			return &jsonLines{logger: slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{ReplaceAttr: jsonAttr}))}
		}
	}
	return stderr
}
