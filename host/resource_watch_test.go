package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// resWatchConfig serves seed 001's report under file:///reports/q4.md, a
// beacon the tests write to after each step (its URI sorts after every
// other, see TestResourceFilesWatched), a resource no one subscribes to,
// a directory through a {name} template and a tree through a {+path} one.
// %[1]s is the directory of the files (resWatchFiles).
const resWatchConfig = resWatchKept + `
resource "q4" {
  uri       = "file:///reports/q4.md"
  mime_type = "text/markdown"
  file      = "%[1]s/reports/q4.md"
}
resource_template "notes" {
  uri_template = "notes:///{name}"
  dir          = "%[1]s/notes"
}
`

// resWatchKept is resWatchConfig after a reload that drops the report
// and the notes template.
const resWatchKept = `
resource "beacon" {
  uri  = "zz://beacon"
  file = "%[1]s/reports/beacon.md"
}
resource "unsub" {
  uri  = "docs://unsub"
  file = "%[1]s/reports/unsub.md"
}
resource_template "tree" {
  uri_template = "tree://{+path}"
  dir          = "%[1]s/tree"
}
`

// resWatchFiles writes the files of resWatchConfig in a new directory,
// which it returns with symlinks resolved (the paths the watches have).
func resWatchFiles(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"reports/q4.md", "reports/beacon.md", "reports/unsub.md", "notes/a.md", "notes/c.md", "tree/sub/b.md"} {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), name)
	}
	return dir
}

// writeFile writes text to path, making its directory: a truncate and a
// write, as most programs save.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// updateClient is a client of one transport, subscribed to resources:
// uris brings the URI of every notifications/resources/updated it gets.
type updateClient struct {
	uris      chan string
	subscribe func(t *testing.T, uris ...string)
}

// next returns the URI of the next resources/updated the client gets.
func (c *updateClient) next(t *testing.T) string {
	t.Helper()
	select {
	case u := <-c.uris:
		return u
	case <-time.After(15 * time.Second):
		t.Fatal("no notifications/resources/updated within 15s")
	}
	return ""
}

// updatesTransport starts a server for the config src over one transport
// and connects a client to it.
type updatesTransport struct {
	name  string
	start func(t *testing.T, src string) (*Server, *updateClient)
}

// updatesTransports are the transports resources/updated is sent on.
var updatesTransports = []updatesTransport{
	{"stdio", stdioUpdates},
	{"streamable HTTP GET stream", func(t *testing.T, src string) (*Server, *updateClient) {
		e := startHTTPConfig(t, HTTPOptions{}, src)
		return e.srv, sdkUpdates(t, func(o *mcp.ClientOptions) *mcp.ClientSession { return e.connect(o, nil) })
	}},
	{"legacy SSE", func(t *testing.T, src string) (*Server, *updateClient) {
		e := startHTTPConfig(t, HTTPOptions{}, src)
		return e.srv, sdkUpdates(t, e.connectSSE)
	}},
	{"subscriptions/listen", func(t *testing.T, src string) (*Server, *updateClient) {
		return listenUpdates(t, HTTPOptions{Stateless: true}, src)
	}},
	{"subscriptions/listen beside sessions", func(t *testing.T, src string) (*Server, *updateClient) {
		return listenUpdates(t, HTTPOptions{}, src)
	}},
}

// stdioUpdates serves src over stdio to a client that subscribes with
// resources/subscribe.
func stdioUpdates(t *testing.T, src string) (*Server, *updateClient) {
	p := startStdio(t, loadSource(t, src))
	p.initialize()
	c := &updateClient{uris: make(chan string, 64)}
	replies := make(chan stdioReply, 8)
	go func() {
		for r := range p.lines {
			var m struct {
				Method string
				Params struct{ URI string }
			}
			_ = json.Unmarshal([]byte(r.line), &m)
			switch {
			case m.Method == "notifications/resources/updated":
				c.uris <- m.Params.URI
			case len(r.ID) > 0:
				replies <- r
			}
		}
	}()
	id := 100
	c.subscribe = func(t *testing.T, uris ...string) {
		t.Helper()
		for _, u := range uris {
			id++
			p.send(subscribeLine(id, u))
			select {
			case r := <-replies:
				if r.Error != nil || string(r.ID) != strconv.Itoa(id) {
					t.Fatalf("subscribe %s: %s", u, r.line)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("subscribe %s: no answer", u)
			}
		}
	}
	return p.srv, c
}

// sdkUpdates connects an SDK client with connect and subscribes with it.
func sdkUpdates(t *testing.T, connect func(*mcp.ClientOptions) *mcp.ClientSession) *updateClient {
	c := &updateClient{uris: make(chan string, 64)}
	cs := connect(&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		c.uris <- req.Params.URI
	}})
	c.subscribe = func(t *testing.T, uris ...string) {
		t.Helper()
		for _, u := range uris {
			if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: u}); err != nil {
				t.Fatalf("subscribe %s: %v", u, err)
			}
		}
	}
	return c
}

// listenUpdates serves src over HTTP with opts to a 2026-07-28 client
// that opens a subscriptions/listen stream for each subscribe.
func listenUpdates(t *testing.T, opts HTTPOptions, src string) (*Server, *updateClient) {
	e := startHTTPConfig(t, opts, src)
	c := &updateClient{uris: make(chan string, 64)}
	id := 200
	c.subscribe = func(t *testing.T, uris ...string) {
		t.Helper()
		id++
		list, _ := json.Marshal(uris)
		s := openListenStream(t, e, "updates", id, `"resourceSubscriptions":`+string(list))
		go func() {
			for lm := range s.msgs {
				if lm.err != nil {
					return
				}
				method, _ := lm.m["method"].(string)
				params, _ := lm.m["params"].(map[string]any)
				if method != "notifications/resources/updated" {
					continue
				}
				uri, _ := params["uri"].(string)
				meta, _ := params["_meta"].(map[string]any)
				if tag, _ := meta["io.modelcontextprotocol/subscriptionId"].(float64); tag != float64(s.id) {
					c.uris <- fmt.Sprintf("%s tagged with subscription %v, not %d", uri, meta["io.modelcontextprotocol/subscriptionId"], s.id)
					continue
				}
				c.uris <- uri
			}
		}()
	}
	return e.srv, c
}

// watchServer runs a Reloader's Watch on srv, as serve does, and returns
// the reloads it applies.
func watchServer(t *testing.T, srv *Server, logger *slog.Logger) <-chan ReloadResult {
	t.Helper()
	results := make(chan ReloadResult, 16)
	r := &Reloader{Paths: srv.Registry().Config.Paths, Server: srv, Logger: logger, Diagnostics: io.Discard,
		OnReload: func(res ReloadResult) { results <- res }}
	r.Prime(srv.Registry())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Watch(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return results
}

// updateStep is a step of a test of resources/updated: what it does, and
// the URIs it should bring notifications for, in order.
type updateStep struct {
	name string
	act  func(t *testing.T)
	want []string
	// repeats lets a URI of want come more than once: a change made of
	// several steps (a directory renamed away, another renamed in) may
	// reach the watcher in two flushes on a loaded machine, each telling
	// the subscribers. Nothing outside want may come.
	repeats bool
}

// runUpdateSteps runs steps, each as a subtest, with c subscribed to
// zz://beacon, served from the file beacon. Each step reads what it
// should bring, then writes the beacon, whose URI sorts after every
// other, and reads its notification: a notification a step should not
// have sent comes before it (in an earlier flush, or earlier in the same
// one), and fails the step.
func runUpdateSteps(t *testing.T, c *updateClient, beacon string, steps []updateStep) {
	t.Helper()
	for i, step := range steps {
		if !t.Run(step.name, func(t *testing.T) {
			step.act(t)
			var got []string
			for range step.want {
				got = append(got, c.next(t))
			}
			writeFile(t, beacon, "beacon "+strconv.Itoa(i))
			got = append(got, c.next(t))
			if step.repeats {
				got = readRepeats(t, c, got, step.want)
			}
			if want := append(slices.Clone(step.want), "zz://beacon"); !slices.Equal(got, want) {
				t.Fatalf("got resources/updated for %q, want %q", got, want)
			}
		}) {
			break // the client is behind: later steps would fail for it
		}
	}
}

// readRepeats reads on until the beacon's notification when got (what
// a step with repeats read so far) has URIs of want more than once, and
// returns got with each URI of want kept at its first place; a URI
// outside want is kept, and fails the step.
func readRepeats(t *testing.T, c *updateClient, got, want []string) []string {
	t.Helper()
	for got[len(got)-1] != "zz://beacon" && len(got) < 4*len(want)+1 {
		got = append(got, c.next(t))
	}
	var kept []string
	for _, u := range got {
		if !slices.Contains(want, u) || !slices.Contains(kept, u) {
			kept = append(kept, u)
		}
	}
	return kept
}

// awaitApplied waits for a reload that is applied.
func awaitApplied(t *testing.T, reloads <-chan ReloadResult) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case res := <-reloads:
			if res.Applied {
				return
			}
		case <-timeout:
			t.Fatal("no reload was applied within 15s")
		}
	}
}

// waitWatches waits until srv watches exactly dirs for its resources.
func waitWatches(t *testing.T, srv *Server, dirs ...string) {
	t.Helper()
	slices.Sort(dirs)
	var got []string
	deadline := time.Now().Add(15 * time.Second)
	for {
		if got = srv.resourceWatchDirs(); slices.Equal(got, dirs) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the resources' watches are on %q, want %q", got, dirs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// renameOver saves text to path as editors do: written to a file beside
// it, then renamed over it.
func renameOver(t *testing.T, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	writeFile(t, tmp, text)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// appendTo appends text to path.
func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// removeFile deletes path.
func removeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// TestResourceFilesWatched: over every transport, a client subscribed to
// seed 001's file:///reports/q4.md, to files of a {name} and of a {+path}
// template, hears exactly one notifications/resources/updated for each
// save of one of them, however it is saved (appended, truncated and
// written, renamed over, deleted and made again), and nothing for a file
// it did not subscribe to (a resource, or a new file in a template's
// directory). A file deleted is told once it has stayed deleted for
// EmptyGrace, and once more when it is made again. A directory made in a
// {+path} template's tree is watched. A template's directory replaced
// (renamed away, another renamed in its place) tells the subscribers of
// its files, and the new one is watched. After a reload that drops the
// report and the {name} template, their changes send nothing and the
// directory only the template needed is no longer watched.
// Each step ends with a save of a beacon (runUpdateSteps).
func TestResourceFilesWatched(t *testing.T) {
	for _, tr := range updatesTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel() // each waits on debounces and EmptyGrace, mostly
			dir := resWatchFiles(t)
			srv, c := tr.start(t, fmt.Sprintf(resWatchConfig, filepath.ToSlash(dir)))
			reloads := watchServer(t, srv, slog.New(slog.DiscardHandler))
			at := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
			waitWatches(t, srv, dir, at("reports"), at("notes"), at("tree"), at("tree/sub"))
			c.subscribe(t, "file:///reports/q4.md", "zz://beacon", "notes:///a.md", "notes:///c.md", "tree://sub/b.md")
			const q4 = "file:///reports/q4.md"
			steps := []updateStep{
				{"append", func(t *testing.T) { appendTo(t, at("reports/q4.md"), "\nmore") }, []string{q4}, false},
				{"truncate and write", func(t *testing.T) { writeFile(t, at("reports/q4.md"), "Q4, again") }, []string{q4}, false},
				{"rename over", func(t *testing.T) { renameOver(t, at("reports/q4.md"), "Q4, saved by an editor") }, []string{q4}, false},
				{"delete and re-create", func(t *testing.T) {
					removeFile(t, at("reports/q4.md"))
					writeFile(t, at("reports/q4.md"), "Q4, made again")
				}, []string{q4}, false},
				{"a resource not subscribed to", func(t *testing.T) { appendTo(t, at("reports/unsub.md"), "x") }, nil, false},
				{"a template's file appended", func(t *testing.T) { appendTo(t, at("notes/a.md"), "x") }, []string{"notes:///a.md"}, false},
				{"a template's file renamed over", func(t *testing.T) { renameOver(t, at("notes/a.md"), "a'") }, []string{"notes:///a.md"}, false},
				{"a new file in a template's directory", func(t *testing.T) { writeFile(t, at("notes/new.md"), "new") }, nil, false},
				{"a file below a {+path} template", func(t *testing.T) { writeFile(t, at("tree/sub/b.md"), "b'") }, []string{"tree://sub/b.md"}, false},
				{"a new file subscribed to before it was made", func(t *testing.T) {
					c.subscribe(t, "tree://later.md")
					writeFile(t, at("tree/later.md"), "later")
				}, []string{"tree://later.md"}, false},
				{"a template's file deleted", func(t *testing.T) { removeFile(t, at("notes/c.md")) }, []string{"notes:///c.md"}, false},
				{"a template's file made again", func(t *testing.T) { writeFile(t, at("notes/c.md"), "c again") }, []string{"notes:///c.md"}, false},
				{"a template's directory replaced", func(t *testing.T) {
					writeFile(t, at("notes.new/a.md"), "a, new")
					writeFile(t, at("notes.new/c.md"), "c, new")
					if err := os.Rename(at("notes"), at("notes.old")); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(at("notes.new"), at("notes")); err != nil {
						t.Fatal(err)
					}
				}, []string{"notes:///a.md", "notes:///c.md"}, true},
				{"a file of the replacing directory", func(t *testing.T) { appendTo(t, at("notes/a.md"), "x") }, []string{"notes:///a.md"}, false},
				{"a directory made in a {+path} tree", func(t *testing.T) {
					writeFile(t, at("tree/new/x.md"), "x")
					waitWatches(t, srv, dir, at("reports"), at("notes"), at("tree"), at("tree/sub"), at("tree/new"))
				}, nil, false},
				{"a file in the new directory", func(t *testing.T) {
					c.subscribe(t, "tree://new/x.md")
					appendTo(t, at("tree/new/x.md"), "y")
				}, []string{"tree://new/x.md"}, false},
				{"reload dropping the report and the {name} template", func(t *testing.T) {
					writeFile(t, srv.Registry().Config.Paths[0], fmt.Sprintf(resWatchKept, filepath.ToSlash(dir)))
					awaitApplied(t, reloads)
					waitWatches(t, srv, dir, at("reports"), at("tree"), at("tree/sub"), at("tree/new"))
				}, nil, false},
				{"the dropped report appended", func(t *testing.T) { appendTo(t, at("reports/q4.md"), "x") }, nil, false},
				{"a file of the dropped template appended", func(t *testing.T) { appendTo(t, at("notes/a.md"), "x") }, nil, false},
			}
			runUpdateSteps(t, c, at("reports/beacon.md"), steps)
		})
	}
}

// TestResourceWatchesCapped: a {+path} template over a tree of more
// directories than maxResourceWatchSlots watches that many, nearest first,
// and logs a warning naming the cap; a directory of 100,000 files is one
// watch, and one for its parent (on kqueue, where every entry costs an open file, neither is
// watched, and the warning says so). A reload that drops the template
// drops its watches.
func TestResourceWatchesCapped(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	for i := range maxResourceWatchSlots + 50 {
		if err := os.MkdirAll(filepath.Join(tree, fmt.Sprintf("d%04d", i), "deeper"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	flat := filepath.Join(dir, "flat")
	if err := os.Mkdir(flat, 0o755); err != nil {
		t.Fatal(err)
	}
	// 100,000 files take seconds to make on Linux, and minutes under wine:
	// elsewhere, 10,000 make the same point.
	files := 100_000
	if runtime.GOOS != "linux" {
		files = 10_000
	}
	for i := range files {
		f, err := os.Create(filepath.Join(flat, strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	tests := []struct {
		name, template, dir string
		watches             int
		warned              bool
	}{
		{"100,000 files", "flat:///{name}", flat, 2, false}, // and its parent
		{"more directories than the cap", "tree://{+path}", tree, maxResourceWatchSlots, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if watchOpensEntries {
				tc.watches, tc.warned = 0, true // the root's entries alone are past the cap
			}
			config := fmt.Sprintf("resource_template \"t\" {\n  uri_template = %q\n  dir          = %q\n}\n", tc.template, tc.dir)
			srv := NewServer(loadSource(t, config), slog.New(slog.DiscardHandler))
			t.Cleanup(func() { srv.Registry().Retire() })
			var log httpLog
			reloads := watchServer(t, srv, slog.New(slog.NewTextHandler(&log, nil)))
			warning := fmt.Sprintf("max_watches=%d", maxResourceWatchSlots)
			testconfig.WaitFor(t, "the template's directories are watched", func() bool {
				return len(srv.resourceWatchDirs()) == tc.watches && (!tc.warned || strings.Contains(log.String(), warning))
			})
			if got := strings.Contains(log.String(), warning); got != tc.warned {
				t.Fatalf("warning logged: %v, want %v; log:\n%s", got, tc.warned, log.String())
			}
			if tc.watches > 0 && !slices.Contains(srv.resourceWatchDirs(), tc.dir) {
				t.Fatalf("the template's own directory is not among those watched")
			}
			if tc.warned && tc.watches > 0 {
				// Nearest first, and in name order among equals: the tree
				// and its first subdirectories by name, whatever order the
				// file system lists them in.
				want := []string{tree}
				for i := range maxResourceWatchSlots - 1 {
					want = append(want, filepath.Join(tree, fmt.Sprintf("d%04d", i)))
				}
				slices.Sort(want)
				if got := srv.resourceWatchDirs(); !slices.Equal(got, want) {
					t.Fatalf("watched %d directories, not the tree and its first %d subdirectories by name; the first not wanted: %s", len(got), maxResourceWatchSlots-1, firstMissing(got, want))
				}
				// 50 subdirectories of the tree and the "deeper" below the
				// 999 watched ones are left out, at least.
				if !strings.Contains(log.String(), "unwatched_dirs=1049") {
					t.Fatalf("the warning does not count the 1,049 directories found and left out; log:\n%s", log.String())
				}
			}
			writeFile(t, srv.Registry().Config.Paths[0], "resource \"r\" {\n  uri = \"docs://r\"\n  template { text = \"r\" }\n}\n")
			awaitApplied(t, reloads)
			waitWatches(t, srv)
		})
	}
}

// firstMissing returns the first of got that want lacks, for a message.
func firstMissing(got, want []string) string {
	for _, g := range got {
		if !slices.Contains(want, g) {
			return g
		}
	}
	return "(none)"
}

// resourceWatchDirs lists the directories watched for the resources'
// files, for tests: none while no watch runs.
func (s *Server) resourceWatchDirs() []string {
	s.applyMu.Lock()
	rw := s.resWatch
	s.applyMu.Unlock()
	if rw == nil {
		return nil
	}
	return slices.Sorted(slices.Values(rw.w.WatchList()))
}
