package hcl

import (
	"strings"
	"testing"
)

// TestToolTask checks the values of a tool's task attribute, and that a bad
// one is a diagnostic on the value that names the values there are.
func TestToolTask(t *testing.T) {
	tests := []struct {
		name, attr, want, wantErr string
	}{
		{"absent", "", "", ""},
		{"optional", `task = "optional"`, TaskOptional, ""},
		{"required", `task = "required"`, TaskRequired, ""},
		{"misspelt", `task = "requird"`, "", `Did you mean "required"?`},
		{"other", `task = "always"`, "", `"always" is neither`},
		{"not a string", `task = true`, "", "task"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "tool \"slow\" {\n  " + tc.attr + "\n  exec {\n    command = [\"sleep\", \"1\"]\n  }\n}\n"
			cfg, diags := loadString(t, src, nil)
			errs := errorsOf(diags)
			if tc.wantErr == "" {
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				if got := cfg.Tools[0].Task; got != tc.want {
					t.Fatalf("Task = %q, want %q", got, tc.want)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(errs), errs)
			}
			d := errs[0]
			if !strings.Contains(d.Summary+" "+d.Detail, tc.wantErr) {
				t.Fatalf("got %q %q, want %q in it", d.Summary, d.Detail, tc.wantErr)
			}
			if d.Subject == nil || d.Subject.Start.Line != 2 || d.Subject.Start.Column < 10 {
				t.Fatalf("subject %v, want the value on line 2", d.Subject)
			}
		})
	}
}
