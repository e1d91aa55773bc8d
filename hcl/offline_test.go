package hcl

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestToolOffline checks the offline attribute: its default by backend
// (http answers from its examples, exec runs), the values an author may
// give, and the errors of a bad value, of one on a tool that does no I/O,
// and of one written inside the backend block.
func TestToolOffline(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string   // the tool's Offline, when it loads
		summary   string   // the error, when it does not
		warning   string   // the warning about offline, when it loads with one
		details   []string // in the error's or the warning's detail
	}{
		{name: "http default", src: `tool "t" {
  http { url = "https://example.com/" }
}`, want: OfflineExample},
		{name: "exec default", src: `tool "t" {
  exec { command = ["true"] }
}`, want: OfflineRun},
		{name: "exec answers from examples", src: `tool "t" {
  offline = "example"
  exec { command = ["true"] }
  example "e" {
    response = "ok"
    result   = "ok"
  }
}`, want: OfflineExample},
		{name: "exec answers from no example", src: `tool "t" {
  offline = "example"
  exec { command = ["true"] }
}`, want: OfflineExample, warning: "offline = \"example\" with no recorded response", details: []string{"none of its examples has a response", "or remove offline"}},
		{name: "http runs", src: `tool "t" {
  offline = "run"
  http { url = "http://127.0.0.1:8080/" }
}`, want: OfflineRun},
		{name: "template default", src: `tool "t" {
  template { text = "x" }
}`, want: OfflineRun},
		{name: "misspelt", src: `tool "t" {
  offline = "examples"
  exec { command = ["true"] }
}`, summary: "Invalid offline", details: []string{`"examples" is neither`, `Did you mean "example"?`}},
		{name: "not a string", src: `tool "t" {
  offline = ["run"]
  exec { command = ["true"] }
}`, summary: "Wrong type for offline", details: []string{"must be a string"}},
		{name: "template", src: `tool "t" {
  offline = "example"
  template { text = "x" }
}`, summary: "offline on a tool that does no I/O", details: []string{"template backend does no I/O", "remove offline"}},
		{name: "in the backend block", src: `tool "t" {
  exec {
    command = ["true"]
    offline = "example"
  }
}`, summary: "Unsupported argument", details: []string{"belongs in the tool block"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, diags := loadString(t, tc.src, nil)
			if tc.summary != "" {
				if !hasDiag(diags, tc.summary, tc.details...) {
					t.Fatalf("want an error %q with %q; got %v", tc.summary, tc.details, diags)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("load: %v", diags)
			}
			if got := cfg.Tools[0].Offline; got != tc.want {
				t.Errorf("Offline = %q, want %q", got, tc.want)
			}
			var warned []string
			for _, d := range diags {
				if d.Severity == hcl.DiagWarning && strings.HasPrefix(d.Summary, "offline") && containsAll(d.Detail, tc.details) {
					warned = append(warned, d.Summary)
				}
			}
			if tc.warning == "" && len(warned) > 0 || tc.warning != "" && !slices.Contains(warned, tc.warning) {
				t.Errorf("warnings about offline %q, want %q with %q; all: %v", warned, tc.warning, tc.details, diags)
			}
		})
	}
}

// containsAll reports whether s contains every one of parts.
func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
