package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestExecSensitiveInConcat: a value wrapped in sensitive(...) inside a
// command built with concat (the form a list parameter's items need) is
// hidden from the error message and the forwarded stderr lines, as it is
// in a command written as a plain list.
func TestExecSensitiveInConcat(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	const script = `"sh", "-c", "echo \"arg $1\" >&2; exit 2", "sh"`
	for _, c := range []struct {
		name, command string
		args          map[string]cty.Value
	}{
		{"plain list", `[` + script + `, sensitive("tok-ARG-1234567")]`, nil},
		{"constant concat", `concat([` + script + `], [sensitive("tok-ARG-1234567")])`, nil},
		{"concat after a list parameter", `concat([` + script + `], [sensitive(param.text)], param.files)`,
			map[string]cty.Value{"text": cty.StringVal("tok-ARG-1234567"), "files": cty.ListVal([]cty.Value{cty.StringVal("a.txt")})}},
		{"inside a template", `concat([` + script + `], ["key=${sensitive(param.text)}"])`,
			map[string]cty.Value{"text": cty.StringVal("tok-ARG-1234567")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := f.mustCompile(t, "command = "+c.command+"\nstderr_log = \"info\"")
			rec := &recorder{}
			in := f.input(c.args)
			in.Report = rec
			_, err := e.Call(context.Background(), in)
			if err == nil {
				t.Fatal("the command exited 2; want an error")
			}
			for _, s := range []string{err.Error(), strings.Join(rec.events, "\n")} {
				if strings.Contains(s, "tok-") {
					t.Errorf("a sensitive value leaked: %q", s)
				}
			}
			if !strings.Contains(err.Error(), "(redacted)") {
				t.Errorf("error = %q; want the stderr line with the value redacted", err)
			}
		})
	}
}
