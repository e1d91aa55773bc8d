package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const fuzzConfig = `
tool "hello" {
  description = "greets"
  param "name" {
    type       = string
    max_length = 10
  }
  template { text = "hello ${param.name}" }
}
`

// FuzzStdio feeds arbitrary bytes to a real server through the stdio
// transport, followed by an initialize and a ping: the server must not
// panic, must write only JSON lines, and must answer the ping.
func FuzzStdio(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`garbage{`,
		"\xff\xfe\x00",
		`{"jsonrpc":"2.0","id":77}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello","arguments":{"name":"` + "\u0000" + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hello","arguments":[1,2]}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}`,
		"\n\n\r\n",
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"hello","arguments":{"name":"x"}}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n" +
			`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(path, []byte(fuzzConfig), 0o644); err != nil {
		f.Fatal(err)
	}
	reg, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		f.Fatal(diags)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, garbage []byte) {
		srv := NewServer(reg, logger)
		var in bytes.Buffer
		in.Write(garbage)
		in.WriteString("\n")
		in.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n")
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Run(ctx, &StdioTransport{In: &in, Out: &syncWriter{w: &out}, MaxMessageSize: 1 << 16, Logger: logger})
		if ctx.Err() != nil {
			t.Fatalf("the server did not finish: input %q", garbage)
		}
		answered := false
		sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("output line is not JSON: %q", sc.Text())
			}
			if m["id"] == "last" {
				answered = true
			}
		}
		if !answered {
			t.Fatalf("the ping after %q was not answered; output:\n%s", garbage, out.String())
		}
	})
}

// syncWriter serializes writes for the fuzz target's buffer.
type syncWriter struct {
	w  io.Writer
	mu sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// FuzzPrefixID: the id read from the start of an oversized line never
// panics, and on a whole line with one "id" in it, it is the id the
// decoder reads, or none.

// TestPrefixID: the id of an oversized line is read only from a request
// (a response's id would be taken for the answer to the client's own
// request) whose start is well-formed JSON.
func TestPrefixID(t *testing.T) {
	pad := `"params":{"pad":"` + strings.Repeat("x", 100) // cut off
	for _, tc := range []struct {
		line string
		want any // nil: no id
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"ping",` + pad, int64(7)},
		{`{"jsonrpc":"2.0","method":"ping","id":"s",` + pad, "s"},
		{`{"jsonrpc":"2.0","id":7,"result":{"content":"` + strings.Repeat("x", 100), nil},
		{`{"jsonrpc":"2.0","id":7,` + pad, nil},
		{`{"jsonrpc":"2.0","method":"ping",` + pad + `","id":7`, nil},
		{`{"a":[1,2}, "id": 5, "method":"ping",` + pad, nil},
		{`{"a":1 x "id": 6, "method":"ping",` + pad, nil},
		{`{"jsonrpc":"2.0","Id":7,"method":"ping",` + pad, nil},
		{"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"," + pad, nil},
		{`{"jsonrpc":"2.0","id":null,"method":"ping",` + pad, nil},
		{`{"jsonrpc":"2.0","id":7`, nil},
	} {
		id := prefixID([]byte(tc.line), nil)
		var got any
		if id != nil {
			got = id.Raw()
		}
		if got != tc.want {
			t.Errorf("prefixID(%.60q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
func FuzzPrefixID(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":80,"method":"ping","params":{}}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"ping","params":{"id":1}}`,
		` {"id":1.5}`,
		`{"id":[1]}`,
		`{"id":12`,
		`["id",1]`,
		`{"id":1,"Id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"pad":"x"}}`,
		`{"a":[1,2}, "id": 5, "method":"ping"}`,
	} {
		f.Add([]byte(seed), 5)
	}
	f.Fuzz(func(t *testing.T, line []byte, cut int) {
		cut = max(0, min(cut, len(line)))
		id := prefixID(line[:cut], line[cut:])
		if id == nil || !json.Valid(line) || bytes.Count(line, []byte(`"id"`)) != 1 {
			return
		}
		if want := rawID(line); want == nil || *want != *id {
			t.Fatalf("prefixID(%q) = %v, the decoder reads %v", line, id.Raw(), want)
		}
	})
}
