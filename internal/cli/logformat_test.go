package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFormatLogger writes a line with a duration, and a plain line to the
// writer newFormatLogger returns, in each format: text reads as before;
// json gives one object a line, the duration as KEY_ms, the plain line
// as a record's msg; an unknown format or level is refused, the level's
// error said as a record in json.
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
		{"json", "loud", `unknown log level "loud"`, []string{`"level":"WARN","msg":"toolhost serve: plain"}`}},
	}
	for _, c := range cases {
		t.Run(c.format+" "+c.level, func(t *testing.T) {
			var b bytes.Buffer
			logger, w, err := newFormatLogger(&b, c.level, c.format)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				// The command says the error on w: a record in json.
				fmt.Fprintf(w, "toolhost serve: plain\n")
				if len(c.want) > 0 && (!strings.Contains(b.String(), c.want[0]) || !json.Valid(b.Bytes())) {
					t.Errorf("the error's line is %q, want a record with %s", b.String(), c.want[0])
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

// TestLogFileWarning puts a directory at --log-file's path under a
// running log:
// the one warning of the failed write reads as the log's other lines, a
// key=value line's neighbour in text, a JSON record in json.
func TestLogFileWarning(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "logs")
			f := &logFileFlags{path: filepath.Join(dir, "serve.log")}
			var b bytes.Buffer
			w, closeLog := f.open(&b)
			defer closeLog()
			logger, _, err := newFormatLogger(w, "info", format)
			if err != nil {
				t.Fatal(err)
			}
			f.announce(logger)
			// The file moved away and a directory at its path: the log
			// cannot open it again.
			if err := os.Rename(f.path, f.path+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(f.path, 0o700); err != nil {
				t.Fatal(err)
			}
			logger.Info("one")
			logger.Info("two")
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			var warnings []string
			for _, l := range lines {
				if strings.Contains(l, "cannot write the log file") {
					warnings = append(warnings, l)
				}
				if format == "json" && !json.Valid([]byte(l)) {
					t.Errorf("a line is not JSON: %q", l)
				}
			}
			if len(warnings) != 1 {
				t.Fatalf("%d warnings, want 1:\n%s", len(warnings), b.String())
			}
			if format == "text" && !strings.HasPrefix(warnings[0], "toolhost: cannot write the log file") {
				t.Errorf("warning %q", warnings[0])
			}
		})
	}
}

// TestFlagOutput parses flags with a mistake in them: when the arguments
// ask for --log-format json, in any of its spellings, every line of the
// error and the usage is a JSON record; otherwise they are plain text.
func TestFlagOutput(t *testing.T) {
	cases := []struct {
		args []string
		json bool
	}{
		{[]string{"--log-format", "json", "--bogus"}, true},
		{[]string{"--bogus", "--log-format=JSON"}, true},
		{[]string{"-log-format", "json", "--watch=maybe"}, true},
		{[]string{"--log-format", "text", "--bogus"}, false},
		{[]string{"--bogus"}, false},
		{[]string{"--bogus", "--", "--log-format", "json"}, false},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var b bytes.Buffer
			fs := newFlags("serve", "serve [flags] [CONFIG...]", flagOutput(c.args, &b))
			addLogFormatFlag(fs)
			fs.Bool("watch", true, "reload")
			if _, err := parseFlags(fs, c.args); err == nil {
				t.Fatal("the flags parsed, want an error")
			}
			if b.Len() == 0 {
				t.Fatal("nothing was said of the error")
			}
			for line := range strings.Lines(b.String()) {
				if json.Valid([]byte(line)) != c.json {
					t.Errorf("line %q: JSON is %v, want %v", line, !c.json, c.json)
				}
			}
		})
	}
}
