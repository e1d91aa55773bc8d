package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// listAllTools reads every page of tools/list, with ids from id on, and
// returns each tool's JSON by name.
func (s *session) listAllTools(id int) map[string]string {
	s.t.Helper()
	tools := map[string]string{}
	var cursor string
	for ; ; id++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params})
		res := s.until("tools/list reply", isID(id))["result"].(map[string]any)
		for _, t := range res["tools"].([]any) {
			b, err := json.Marshal(t)
			if err != nil {
				s.t.Fatal(err)
			}
			tools[t.(map[string]any)["name"].(string)] = string(b)
		}
		next, _ := res["nextCursor"].(string)
		if next == "" {
			return tools
		}
		cursor = next
	}
}

// differing names the tools whose JSON differs between a and b, or that
// only one has.
func differing(a, b map[string]string) []string {
	var names []string
	for _, n := range slices.Sorted(maps.Keys(a)) {
		if b[n] != a[n] {
			names = append(names, n)
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	return names
}

// TestReloadOneToolOfMany edits a config of 2,500 tools under a running
// serve, one tool at a time: after each save the client is told once, and
// every page of tools/list shows that one tool changed and no other. A
// second notification for the first edit would come before the second
// edit is loaded, and the list read after it would not show that edit.
// A save with an error keeps every tool as it was and tells the client
// the error; the save that fixes it is loaded as an edit of one tool.
func TestReloadOneToolOfMany(t *testing.T) {
	const n = 2500
	src := testconfig.Tools(n, "v0")
	cfg := writeConfig(t, src)
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	before := s.listAllTools(1)
	if len(before) != n {
		t.Fatalf("%d tools listed, want %d", len(before), n)
	}
	id := 100
	save := func(text string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, tool := range []int{1200, 7, n - 1} {
		edited := fmt.Sprintf("Generated tool %d (edit %d)", tool, i)
		src = strings.Replace(src, fmt.Sprintf("Generated tool %d (v0)", tool), edited, 1)
		save(src)
		s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
		after := s.listAllTools(id)
		id += 10
		name := fmt.Sprintf("tool_%d", tool)
		if d := differing(before, after); !slices.Equal(d, []string{name}) {
			t.Fatalf("edit %d: the tools that changed in tools/list are %.200v, want only %s", i, d, name)
		}
		if !strings.Contains(after[name], edited) {
			t.Fatalf("edit %d: %s is listed as %s", i, name, after[name])
		}
		before = after
	}
	broken := strings.Replace(src, "tool 3 says hello ${param.name}", "tool 3 says hello ${param.nope}", 1)
	save(broken)
	msg := s.until("the error notification", isMethod("notifications/message"))
	text, _ := json.Marshal(msg["params"])
	for _, w := range []string{"the previous tools stay in service", "Undeclared parameter", "tools.hcl:"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("the error notification lacks %q: %s", w, text)
		}
	}
	if d := differing(before, s.listAllTools(id)); len(d) > 0 {
		t.Fatalf("a save with an error changed tools: %.200v", d)
	}
	id += 10
	src = strings.Replace(src, "Generated tool 3 (v0)", "Generated tool 3 (fixed)", 1)
	save(src)
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	if d := differing(before, s.listAllTools(id)); !slices.Equal(d, []string{"tool_3"}) {
		t.Fatalf("after the fix, the tools that changed are %.200v, want only tool_3", d)
	}
}
