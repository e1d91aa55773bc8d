package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// movedPic is a tool whose every call fails with an error that names the
// line of its image item.
const movedPic = `tool "pic" {
  template { text = "a picture of a cat" }
  result {
    image {}
  }
}
`

// picLine is the line of movedPic's image item in src.
func picLine(src string) int {
	return strings.Count(src[:strings.Index(src, "    image {}")], "\n") + 1
}

// wantPicLine fails unless a call of movedPic on s names its line in src.
func wantPicLine(t *testing.T, s *Server, src string) {
	t.Helper()
	want := fmt.Sprintf("the image item at tools.hcl:%d:", picLine(src))
	if got := serverCallText(t, s, "pic", `{}`); !strings.Contains(got, want) {
		t.Fatalf("pic answered %q, want it to name %q", got, want)
	}
}

// serverCallText calls a tool of s and returns the text of its result.
func serverCallText(t *testing.T, s *Server, name, args string) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Errorf("calling %s: %v", name, err)
		return ""
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestReloadMovedTools edits a tool of a config parsed in pieces so that
// the tools after it move: the reload puts the edit in service with the
// moved tools as they were, and while it parses them where they are, the
// edited tool runs as edited and a moved tool's error names the line of
// the file before the edit, as during any reload; after, the moved tool's
// error names the line it is on now, and the registry before is retired.
func TestReloadMovedTools(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // parsed in pieces
	base := testconfig.Tools(300, "v0") + movedPic
	edited := strings.Replace(base, "Generated tool 10 (v0)", "Generated tool 10, edited to be longer (v0)", 1)
	edited = strings.Replace(edited, "tool \"tool_20\" {", "# two lines\n# of comment\ntool \"tool_20\" {", 1)
	r, path := reloadFrom(t, base, nil)
	var logged bytes.Buffer
	r.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	before := r.Server.Registry()
	r.beforeSettle = func() {
		reg := r.Server.Registry()
		if reg == before || !reg.Config.Moved("pic") || reg.Config.Moved("tool_10") || reg.tools["pic"] != before.tools["pic"] {
			t.Fatal("the first load of the reload did not take the moved tools")
		}
		if got := serverCallText(t, r.Server, "tool_10", `{"name":"ann"}`); got != "tool 10 says hello ann x1" {
			t.Errorf("the edited tool answered %q", got)
		}
		want := fmt.Sprintf("the image item at tools.hcl:%d:", picLine(base))
		if got := serverCallText(t, r.Server, "pic", `{}`); !strings.Contains(got, want) {
			t.Errorf("the moved tool answered %q, want it to run as before the edit, naming %q", got, want)
		}
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res := r.Reload(context.Background())
	if !res.Applied || len(res.Changes.ToolsChanged) != 1 {
		t.Fatalf("reload: %+v", res)
	}
	if reg := r.Server.Registry(); reg.Config.Moved("") {
		t.Fatal("the registry in service after the reload still has moved tools")
	}
	if before.acquire() {
		t.Fatal("the registry before the reload was not retired")
	}
	if text := logged.String(); !strings.Contains(text, "parsed the tools an edit moved where they are now") || strings.Contains(text, "level=WARN") {
		t.Fatalf("the second load changed what clients see, or did not run:\n%s", text)
	}
	wantPicLine(t, r.Server, edited)
}

// TestReloadMovedThenEdited saves again while a reload that took moved
// tools is between its loads: the second load leaves the first in
// service, and the next reload serves the last save.
func TestReloadMovedThenEdited(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	base := testconfig.Tools(300, "v0") + movedPic
	first := strings.Replace(base, "Generated tool 10 (v0)", "Generated tool 10, edited to be longer (v0)", 1)
	second := strings.Replace(first, "Generated tool 12 (v0)", "Generated tool 12, edited as well (v0)", 1)
	r, path := reloadFrom(t, base, nil)
	var between *Registry
	r.beforeSettle = func() {
		between = r.Server.Registry()
		if err := os.WriteFile(path, []byte(second), 0o644); err != nil {
			t.Error(err)
		}
	}
	if err := os.WriteFile(path, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := r.Reload(context.Background()); !res.Applied {
		t.Fatalf("reload: %+v", res)
	}
	if between == nil || r.Server.Registry() != between {
		t.Fatal("the second load replaced the first though the files changed between them")
	}
	r.beforeSettle = nil
	res := r.Reload(context.Background())
	if !res.Applied || len(res.Changes.ToolsChanged) != 1 || res.Changes.ToolsChanged[0] != "tool_12" {
		t.Fatalf("the reload after: %+v", res.Changes)
	}
	wantPicLine(t, r.Server, second)
}

// TestReloadMovedWithWarnings saves an edit that moves the tools after it
// and has a warning: the warning points at where things are, so the
// reload loads as usual, takes no moved tool, and reports the warning.
func TestReloadMovedWithWarnings(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	base := testconfig.Tools(300, "v0") + movedPic
	warned := "tool \"labels\" {\n  param \"labels\" {\n    type = map(string)\n  }\n  template { text = \"labels\" }\n}\n"
	edited := strings.Replace(base, "tool \"tool_20\" {", warned+"tool \"tool_20\" {", 1)
	var out bytes.Buffer
	r, path := reloadFrom(t, base, &out)
	r.beforeSettle = func() { t.Error("a reload whose load has a warning took moved tools") }
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res := r.Reload(context.Background())
	if !res.Applied || len(res.Diagnostics) != 1 || res.Diagnostics[0].Summary != "Schema some clients reject" {
		t.Fatalf("reload: applied %v, diagnostics %v", res.Applied, res.Diagnostics)
	}
	if line := strings.Count(edited[:strings.Index(edited, "type = map(string)")], "\n") + 1; res.Diagnostics[0].Subject.Start.Line != line {
		t.Fatalf("the warning is at line %d, want %d", res.Diagnostics[0].Subject.Start.Line, line)
	}
	if reg := r.Server.Registry(); reg.Config.Moved("") {
		t.Fatal("the registry in service has moved tools")
	}
	wantPicLine(t, r.Server, edited)
}
