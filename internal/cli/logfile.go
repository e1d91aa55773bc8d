package cli

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/toolhost/toolhost/internal/logfile"
)

// logFileFlags are the flags that send the log to a file besides stderr
// (serve and bridge): an editor keeps a server's stderr where its users
// seldom look.
type logFileFlags struct {
	path    string
	maxSize int64
	file    *logfile.File // open once open has succeeded
	tee     *teeLog       // the writer open returned, with the file
	openErr error
}

// addLogFileFlags declares --log-file and --log-file-max-size on fs.
func addLogFileFlags(fs *flag.FlagSet) *logFileFlags {
	f := &logFileFlags{}
	fs.StringVar(&f.path, "log-file", "", "also write every log line to this file (appended to; its directory is made; opened again when a rotation tool moves it away); give an absolute path, as an editor starts servers in a directory of its own choosing")
	fs.Int64Var(&f.maxSize, "log-file-max-size", logfile.DefaultMaxSize, "with --log-file: the size in bytes past which the log file is renamed to FILE.1 (replacing an older one) and a new one begun")
	return f
}

// open returns where log lines and diagnostics go: stderr, and the log
// file too when --log-file names one. A log file that cannot be opened,
// or that is an .hcl file (a config's), does not stop the command: the problem is said on stderr (and, through
// warn, in the log) and the lines go to stderr only. close closes the
// file.
func (f *logFileFlags) open(stderr io.Writer) (w io.Writer, close func()) {
	if f.path == "" {
		return stderr, func() {}
	}
	if strings.EqualFold(filepath.Ext(f.path), ".hcl") {
		// serve --log-file tools.hcl, the log's own path left out: the
		// lines would be appended to the config, which the next reload
		// would then refuse.
		f.openErr = fmt.Errorf("%s is an .hcl file, which toolhost reads as config; give the log a path of its own, such as --log-file /abs/path/toolhost.log", f.path)
		return stderr, func() {}
	}
	file, err := logfile.Open(f.path, f.maxSize)
	if err != nil {
		f.openErr = err
		return stderr, func() {}
	}
	f.file = file
	f.tee = &teeLog{stderr: stderr, file: file}
	return f.tee, func() { _ = file.Close() }
}

// announce logs where the log file is, or why there is none. A logger
// of JSON records (--log-format json) makes the warning of a failed write
// of the file one too.
func (f *logFileFlags) announce(logger *slog.Logger) {
	if _, ok := logger.Handler().(*slog.JSONHandler); ok && f.tee != nil {
		f.tee.json.Store(true)
	}
	switch {
	case f.openErr != nil:
		logger.Error("--log-file: logging to stderr only", "path", f.path, "error", f.openErr)
	case f.file != nil:
		logger.Info("logging to a file as well as stderr", "path", f.file.Path(), "max_bytes", f.maxSize)
	}
}

// teeLog writes each log line to stderr and to the log file. A failed
// write of the file is said once on stderr, until a write succeeds again.
type teeLog struct {
	stderr io.Writer
	file   *logfile.File
	failed atomic.Bool
	json   atomic.Bool // --log-format json: the warning is a JSON record
}

func (t *teeLog) Write(p []byte) (int, error) {
	n, err := t.stderr.Write(p)
	if _, ferr := t.file.Write(p); ferr != nil {
		if !t.failed.Swap(true) {
			msg := fmt.Sprintf("toolhost: cannot write the log file %s: %s; the lines go to stderr only until it can be written again", t.file.Path(), ferr)
			if t.json.Load() {
				_, _ = t.stderr.Write(warnRecord(msg))
			} else {
				fmt.Fprintln(t.stderr, msg)
			}
		}
	} else {
		t.failed.Store(false)
	}
	return n, err
}
