package hcl

import (
	"strings"
	"testing"
)

// TestUninterpolatedReferenceRange: the warning about a reference written
// without ${...} points at the reference itself, where the source has no
// escape before it, and at the whole string where it has.
func TestUninterpolatedReferenceRange(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"braces", `"hello {param.name}!"`, "{param.name}"},
		{"double braces", `"a {{ param.name }} b"`, "{{ param.name }}"},
		{"dollar", `"x $param.name."`, "$param.name"},
		{"shell substitution", `"$(param.name)"`, "$(param.name)"},
		{"after an escape", `"\"q\" {param.name}"`, `\"q\" {param.name}`},
		{"after an interpolation", `"${param.name} {param.name}"`, "{param.name}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := "    text = " + tc.text
			src := "tool \"t\" {\n  param \"name\" {\n    type = string\n  }\n  template {\n" + line + "\n  }\n}\n"
			_, diags := loadString(t, src, nil)
			var found []string
			for _, d := range diags {
				if d.Summary != "Reference without ${...}" {
					continue
				}
				if d.Subject.Start.Line != 6 || d.Subject.End.Line != 6 {
					t.Fatalf("the warning is on lines %d-%d, want 6", d.Subject.Start.Line, d.Subject.End.Line)
				}
				found = append(found, line[d.Subject.Start.Column-1:d.Subject.End.Column-1])
				if got := src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != found[len(found)-1] {
					t.Errorf("the byte range holds %q, the columns %q", got, found[len(found)-1])
				}
			}
			if len(found) != 1 || found[0] != tc.want {
				t.Fatalf("warnings point at %q, want one at %q\n%v", found, tc.want, diags)
			}
		})
	}
	// None for what is not a reference to a declared name.
	for _, text := range []string{`"${param.name}"`, `"$${param.name}"`, `"{param.other}"`, `"{param.name"`, `"{name}"`, `"$(param.name"`} {
		src := "tool \"t\" {\n  param \"name\" {\n    type = string\n  }\n  template {\n    text = " + text + "\n  }\n}\n"
		_, diags := loadString(t, src, nil)
		for _, d := range diags {
			if strings.Contains(d.Summary, "Reference without") {
				t.Errorf("%s: %s", text, d.Detail)
			}
		}
	}
}
