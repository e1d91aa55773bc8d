package host

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// holdTool is a config of one tool, alpha, whose description is desc.
func holdTool(desc string) string {
	return "tool \"alpha\" {\n  description = \"" + desc + "\"\n  template { text = \"x\" }\n}\n"
}

// writeInPieces writes src to path in place as an editor that truncates
// and writes in several writes does, with a pause between the writes: a
// reload in a pause finds the file half-written, which does not parse.
func writeInPieces(t *testing.T, path, src string, pieces int, pause time.Duration) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	step := (len(src) + pieces - 1) / pieces
	for i := 0; i < len(src); i += step {
		if i > 0 {
			time.Sleep(pause)
		}
		if _, err := f.WriteString(src[i:min(i+step, len(src))]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWatchBurstOneReload saves the config the ways editors do, some in
// bursts whose files do not parse until the last write (written in
// pieces with pauses longer than the debounce, saved broken and fixed at
// once): each save gives one reload, applied, and no reload with errors
// is reported; the tools in service stay until then. A further save, made
// after, is the next reload reported, so nothing of the burst came late.
func TestWatchBurstOneReload(t *testing.T) {
	for _, tc := range []struct {
		name string
		save func(t *testing.T, path, src string)
	}{
		{"written whole", func(t *testing.T, path, src string) {
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"renamed over", renameOver},
		{"written in pieces", func(t *testing.T, path, src string) {
			writeInPieces(t, path, src, 4, 2*DefaultDebounce)
		}},
		{"half written, then whole", func(t *testing.T, path, src string) {
			if err := os.WriteFile(path, []byte(src[:len(src)/2]), 0o644); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * DefaultDebounce)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"saved broken, then fixed", func(t *testing.T, path, src string) {
			if err := os.WriteFile(path, []byte(strings.Replace(src, "description", "descriptio", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * DefaultDebounce)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "tools.hcl")
			if err := os.WriteFile(path, []byte(holdTool("one")), 0o644); err != nil {
				t.Fatal(err)
			}
			// Held errors wait a minute: whatever the pauses of a busy
			// machine, the burst's last write comes first.
			srv, results := watchConfig(t, path, func(r *Reloader) { r.failureQuiet = time.Minute })
			tc.save(t, path, holdTool("two"))
			nextApplied(t, results, "the save", "two")
			if got := srv.Registry().Tools[0].Description; got != "two" {
				t.Fatalf("the tool in service says %q, want two", got)
			}
			renameOver(t, path, holdTool("three"))
			nextApplied(t, results, "the save after", "three")
		})
	}
}

// nextApplied waits for the next reload reported and fails unless it was
// applied and changed alpha's description to desc.
func nextApplied(t *testing.T, results <-chan ReloadResult, what, desc string) {
	t.Helper()
	select {
	case res := <-results:
		if !res.Applied || res.Diagnostics.HasErrors() || !slices.Equal(res.Changes.ToolsChanged, []string{"alpha"}) {
			t.Fatalf("%s: the next reload reported was %+v, want alpha changed (%q) and applied", what, res, desc)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no reload within 30s", what)
	}
}

// TestWatchFailureReported: a save with errors that no other save follows
// is reported, once the file has been quiet for FailureQuiet, and the tool
// in service stays; saving the config fixed then loads it.
func TestWatchFailureReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(holdTool("one")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, results := watchConfig(t, path, nil)
	renameOver(t, path, strings.Replace(holdTool("two"), "description", "descriptio", 1))
	select {
	case res := <-results:
		if res.Applied || !res.Diagnostics.HasErrors() {
			t.Fatalf("the broken save was reported as %+v, want its errors", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the broken save was not reported within 30s")
	}
	if got := srv.Registry().Tools[0].Description; got != "one" {
		t.Fatalf("after the broken save the tool in service says %q, want one", got)
	}
	renameOver(t, path, holdTool("three"))
	nextApplied(t, results, "the fixed save", "three")
}

// namedTool is a template tool named name whose description is desc.
func namedTool(name, desc string) string {
	return "tool \"" + name + "\" {\n  description = \"" + desc + "\"\n  template { text = \"x\" }\n}\n"
}

// TestWatchSlowWriterNoToolsRemoved: a program that writes the config
// one block per write (a generator; a writer descheduled for a moment on
// a busy machine between two writes) pauses 60 ms after the first block.
// The half-written file parses: a reload that reads it applies a config
// without the second tool, which clients see removed (list_changed, calls
// refused) and then added back. No reload may remove a tool here.
func TestWatchSlowWriterNoToolsRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(namedTool("alpha", "one")+namedTool("beta", "one")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, results := watchConfig(t, path, nil)
	time.Sleep(300 * time.Millisecond) // the watcher's first look is done
	for len(results) > 0 {
		<-results
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(namedTool("alpha", "two")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	if _, err := f.WriteString(namedTool("beta", "two")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	deadline := time.After(2 * time.Second)
	for {
		select {
		case res := <-results:
			if len(res.Changes.ToolsRemoved) > 0 {
				t.Fatalf("a reload of the half-written file removed %v (then: %+v)", res.Changes.ToolsRemoved, res.Changes)
			}
		case <-deadline:
			if n := len(srv.Registry().Tools); n != 2 {
				t.Fatalf("%d tools in service, want 2", n)
			}
			return
		}
	}
}

// TestWatchBrokenWhileSavingReported: a config saved with errors every
// 80 ms (a generator or an editor saving as it goes) gets its errors
// reported while the saves go on: MaxDebounce says a writer that saves
// continuously still gets a reload at least every 500 ms.
func TestWatchBrokenWhileSavingReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(namedTool("alpha", "one")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, results := watchConfig(t, path, nil)
	time.Sleep(300 * time.Millisecond)
	for len(results) > 0 {
		<-results
	}
	stop := time.Now().Add(2 * time.Second)
	for i := 0; time.Now().Before(stop); i++ {
		src := strings.Replace(namedTool("alpha", strings.Repeat("x", i)), "description", "descriptio", 1)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case res := <-results:
			if res.Diagnostics.HasErrors() {
				return
			}
		case <-time.After(80 * time.Millisecond):
		}
	}
	t.Fatal("2 s of broken saves, 80 ms apart, and no reload reported their errors")
}
