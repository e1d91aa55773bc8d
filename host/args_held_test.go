package host

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var argsHeldConfig = `
server {
  max_concurrent_calls = 4
}
tool "wait" {
  description = "waits for a file"
  param "dir" { type = string }
  param "x" {
    type     = any
    required = false
  }
  exec {
    ` + helperCommand(`"await"`, `"${param.dir}/go"`, `"echo"`, `"done"`) + `
    timeout = "60s"
  }
}
tool "hello" {
  description = "greets"
  param "x" {
    type     = any
    required = false
  }
  template { text = "hello" }
}
`

// TestArgValuesHeldCapped: the calls in flight, running or waiting for a
// slot, hold at most MaxArgValuesHeld argument values together; a large
// call past it is refused at once, saying toolhost is busy, and a small
// call still runs. Each call was capped alone, so that many calls waiting
// for a slot could still hold gigabytes of decoded arguments.
func TestArgValuesHeldCapped(t *testing.T) {
	p := startStdio(t, loadSource(t, argsHeldConfig))
	p.initialize()
	dir := t.TempDir()
	// {"dir":"...","x":[...]} counts its object, its array, and one more
	// than its commas.
	x := "[" + strings.TrimSuffix(strings.Repeat("0,", MaxArgValues-3), ",") + "]"
	call := func(id int, tool, x string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"dir":` + strconv.Quote(dir) + `,"x":` + x + `}}}`
	}
	const full = MaxArgValuesHeld / MaxArgValues
	for i := range full {
		p.send(call(i+1, "wait", x))
	}
	deadline := time.Now().Add(10 * time.Second)
	for argValuesHeld.Load() < MaxArgValuesHeld {
		if time.Now().After(deadline) {
			t.Fatalf("the calls hold %d values, want %d", argValuesHeld.Load(), MaxArgValuesHeld)
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.send(call(100, "wait", "[0,0,0,0,0,0,0,0,0,0,"+strings.Repeat("0,", smallArgs)+"0]"))
	r := p.next()
	if string(r.ID) != "100" || !strings.Contains(r.line, `"isError":true`) ||
		!strings.Contains(r.line, "toolhost is busy, so the call was not run") || !strings.Contains(r.line, strconv.Itoa(MaxArgValuesHeld)) {
		t.Fatalf("a large call past the values held: %.400s", r.line)
	}
	// A small call is taken, and waits for a slot as the others do.
	p.send(`{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"hello","arguments":{"x":[1,2,3]}}}`)
	time.Sleep(50 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	small := false
	for range full + 1 {
		r := p.next()
		if strings.Contains(r.line, `"isError":true`) {
			t.Fatalf("a call within the values held: %.400s", r.line)
		}
		small = small || string(r.ID) == "101"
	}
	if !small {
		t.Fatal("the small call was not answered")
	}
	for argValuesHeld.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the calls answered still hold %d values", argValuesHeld.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.send(call(102, "wait", x))
	if r := p.next(); string(r.ID) != "102" || strings.Contains(r.line, `"isError":true`) {
		t.Fatalf("a large call once the others were answered: %.400s", r.line)
	}
}
