package host

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestStdioAnswersAllBeforeEnd: many calls sent at once, then the end of
// the input, are each answered once, whole, on lines of their own, before
// the server ends: the answers written together (stdio_out.go), of the
// direct path and of the SDK's, large and small, and errors.
func TestStdioAnswersAllBeforeEnd(t *testing.T) {
	const n = 100
	big := strings.Repeat("b", 70000) // answers past a pipe's buffer
	p := startStdio(t, loadSource(t, directConfig))
	p.initialize()
	want := map[string]string{} // id → what its answer holds
	var lines strings.Builder
	for i := 1; i <= n; i++ {
		id := fmt.Sprint(i)
		name, meta := "world", ""
		switch i % 5 {
		case 1:
			name = big
		case 2:
			meta = `"_meta":{},` // the SDK's path
		case 3:
			lines.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"count","arguments":{"n":"x"}}}` + "\n")
			want[id] = `"isError":true`
			continue
		case 4:
			lines.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"nosuch"}}` + "\n")
			want[id] = `"error":`
			continue
		}
		lines.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + meta + `"name":"hello","arguments":{"name":"` + name + `"}}}` + "\n")
		want[id] = `hello ` + name + ` \u003c\u0026\u003e`
	}
	go func() {
		_, _ = p.in.WriteString(lines.String())
		p.in.Close()
	}()
	for range n {
		r := p.next()
		id := string(r.ID)
		w, ok := want[id]
		if !ok {
			t.Fatalf("an answer to no call, or a second one: %.200s", r.line)
		}
		delete(want, id)
		if !json.Valid([]byte(r.line)) || !strings.Contains(r.line, w) {
			t.Errorf("answer %s is %.200s, want one holding %.80s", id, r.line, w)
		}
	}
	if err := <-p.done; err != nil {
		t.Errorf("the server ended with %v", err)
	}
	p.done <- nil // for the cleanup
}
