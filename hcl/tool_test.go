package hcl

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidToolName checks the name rules against the regular expressions
// they replace.
func TestValidToolName(t *testing.T) {
	mcpName := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	portable := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	for _, name := range []string{
		"", "a", "get_weather", "getBaiduHotspot", "a.b", "a-b", "a b", "a/b", "é", "a\n",
		strings.Repeat("x", 64), strings.Repeat("x", 65), strings.Repeat("x", 128), strings.Repeat("x", 129),
	} {
		if got, want := validToolName(name, true, 128), mcpName.MatchString(name); got != want {
			t.Errorf("validToolName(%q, MCP) = %v, want %v", name, got, want)
		}
		if got, want := validToolName(name, false, 64), portable.MatchString(name); got != want {
			t.Errorf("validToolName(%q, portable) = %v, want %v", name, got, want)
		}
	}
}
