package host

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallAfterShutdownRunsNothing: a call that begins after Shutdown (a
// request read as the stop signal came) gets the shutdown's reason, and
// its command never starts. Its context was ended asynchronously before,
// so the command could start, and be killed only a moment later.
func TestCallAfterShutdownRunsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	reg := loadSource(t, `
tool "touch" {
  param "path" {
    type = string
  }
  exec {
    command = ["sh", "-c", "printf x > \"$1\"", "touch", param.path]
  }
}
`)
	srv := NewServer(reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv.ShutdownBecause(ErrShuttingDown)
	// Many calls: the asynchronous cancellation lost the race now and then.
	for i := range 200 {
		res, err := srv.CallTool(context.Background(), "touch", []byte(`{"path":"`+marker+`"}`))
		if err == nil && (res == nil || !res.IsError) {
			t.Fatalf("call %d after Shutdown succeeded: %+v", i, res)
		}
		if _, statErr := os.Stat(marker); statErr == nil {
			t.Fatalf("call %d after Shutdown ran its command", i)
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		} else {
			msg = resultText(res)
		}
		if !strings.Contains(msg, ErrShuttingDown.Error()) {
			t.Fatalf("call %d after Shutdown: %q, want the reason %q", i, msg, ErrShuttingDown)
		}
	}
}
