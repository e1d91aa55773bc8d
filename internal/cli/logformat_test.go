package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFormatLogger writes a line with a duration, and a plain line to the
// writer newFormatLogger returns, in each format: text reads as before;
// json gives one object a line, the duration as KEY_ms, the plain line
// as a record's msg; an unknown format or level is refused.
func TestFormatLogger(t *testing.T) {
	cases := []struct {
		format, level string
		err           string
		want          []string // pieces of the output, in order
	}{
		{"text", "info", "", []string{`level=INFO msg="tool call" tool=t duration=1.5ms`, "toolhost serve: plain\n"}},
		{"json", "info", "", []string{`"level":"INFO","msg":"tool call","tool":"t","duration_ms":1.5}`, `"level":"WARN","msg":"toolhost serve: plain"}`}},
		{"JSON", "error", "", []string{`"level":"WARN","msg":"toolhost serve: plain"}`}},
		{"yaml", "info", `unknown --log-format "yaml": use text or json`, nil},
		{"json", "loud", `unknown log level "loud"`, nil},
	}
	for _, c := range cases {
		t.Run(c.format+" "+c.level, func(t *testing.T) {
			var b bytes.Buffer
			logger, w, err := newFormatLogger(&b, c.level, c.format)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			logger.Info("tool call", "tool", "t", "duration", 1500*time.Microsecond)
			fmt.Fprintf(w, "toolhost serve: plain\n")
			out := b.String()
			if c.level == "error" && strings.Contains(out, "tool call") {
				t.Errorf("an info line passed level error:\n%s", out)
			}
			rest := out
			for _, piece := range c.want {
				i := strings.Index(rest, piece)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", piece, out)
				}
				rest = rest[i+len(piece):]
			}
			if strings.HasPrefix(strings.ToLower(c.format), "json") {
				for line := range strings.Lines(out) {
					if !json.Valid([]byte(line)) {
						t.Errorf("a line is not JSON: %q", line)
					}
				}
			}
		})
	}
}
