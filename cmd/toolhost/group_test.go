package main

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// groupConfig has a tool with scopes and two groups.
const groupConfig = `
tool "status" {
  template { text = "up" }
}
tool "restart" {
  scopes = ["ops:write"]
  template { text = "restarted" }
}
prompt "triage" {
  message "user" { text = "triage" }
}
group "ops" {
  tools   = ["restart"]
  prompts = ["triage"]
  scopes  = ["ops"]
}
group "open" {
  tools = ["status"]
}
`

// TestServeGroupStdio serves groups with serve --group over stdio, in a
// real process: the lists show the group's members, whatever their
// scopes (stdio has no caller), and a call outside the group is refused.
func TestServeGroupStdio(t *testing.T) {
	cfg := writeConfig(t, groupConfig)
	tests := []struct {
		name, group string
		tools       []string
		prompts     int
		refusedTool string
		refusalSays string
	}{
		{name: "whole config", tools: []string{"restart", "status"}, prompts: 1},
		{name: "group with scopes", group: "ops", tools: []string{"restart"}, prompts: 1, refusedTool: "status", refusalSays: `The group "ops" served here has no tool "status"`},
		{name: "group without prompts", group: "open", tools: []string{"status"}, refusedTool: "restart", refusalSays: `has no tool "restart"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--watch=false", cfg}
			if tt.group != "" {
				args = append([]string{"--group", tt.group}, args...)
			}
			s := startServe(t, args...)
			s.initialize("2025-11-25")
			s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
			var names []string
			for _, tool := range s.recv()["result"].(map[string]any)["tools"].([]any) {
				names = append(names, tool.(map[string]any)["name"].(string))
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.tools) {
				t.Fatalf("tools %v, want %v", names, tt.tools)
			}
			s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "prompts/list"})
			if n := len(s.recv()["result"].(map[string]any)["prompts"].([]any)); n != tt.prompts {
				t.Fatalf("%d prompts, want %d", n, tt.prompts)
			}
			for _, tool := range tt.tools {
				s.sendJSON(call(3, tool, nil))
				if text, isErr := resultText(t, s.recv()); isErr || text == "" {
					t.Fatalf("calling %s: %q", tool, text)
				}
			}
			if tt.refusedTool == "" {
				return
			}
			s.sendJSON(call(4, tt.refusedTool, nil))
			m := s.recv()
			e, _ := m["error"].(map[string]any)
			if msg, _ := e["message"].(string); !strings.Contains(msg, tt.refusalSays) {
				t.Fatalf("calling %s outside the group: %v", tt.refusedTool, m)
			}
		})
	}
}

// TestServeGroupUnknown: a --group the config does not have is a usage
// error that names the closest group.
func TestServeGroupUnknown(t *testing.T) {
	cfg := writeConfig(t, groupConfig)
	for _, tc := range []struct{ group, says string }{
		{"opz", `--group "opz": the config has no such group. Did you mean "ops"? (its groups are "ops", "open")`},
		{"zzzzzz", `(its groups are "ops", "open")`},
	} {
		t.Run(tc.group, func(t *testing.T) {
			cmd := exec.Command(binPath, "serve", "--group", tc.group, "--watch=false", cfg)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.says) || stdout.Len() > 0 {
				t.Fatalf("%v; stderr %q, stdout %q", err, stderr.String(), stdout.String())
			}
		})
	}
}

// TestInspectScopes: inspect shows scopes and groups, and says where
// they apply.
func TestInspectScopes(t *testing.T) {
	out, err := exec.Command(binPath, "inspect", writeConfig(t, groupConfig)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"tool restart: ops:write", "2 groups", "  ops\n    tools: restart\n    prompts: triage\n    scopes: ops", "stdio has no caller"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
}
