//go:build unix

package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
)

// TestExecStderrReport runs real commands: standard error lines become log
// messages at stderr_log's level with secrets hidden, ::progress lines
// become progress and stay out of error messages, and an unterminated last
// line is not lost.
func TestExecStderrReport(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	f.info["a"] = adapters.ParamInfo{Sensitive: true}
	e := f.mustCompile(t, `command = ["sh", "-c", "echo first >&2; echo '::progress 1/4 one' >&2; echo \"token=$1\" >&2; echo '::progress nonsense' >&2; printf 'last' >&2; echo out", "sh", param.a]
stderr_log = "notice"`)
	rec := &recorder{}
	in := f.input(map[string]cty.Value{"a": cty.StringVal("s3cr3t-value")})
	in.Report = rec
	out, err := e.Call(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Body) != "out\n" {
		t.Errorf("stdout = %q", out.Body)
	}
	want := []string{
		"log notice first",
		"progress 1/4 one",
		"log notice token=(sensitive value)",
		"log notice ::progress nonsense",
		"log notice last",
	}
	if strings.Join(rec.events, "\n") != strings.Join(want, "\n") {
		t.Errorf("reported:\n%s\nwant:\n%s", strings.Join(rec.events, "\n"), strings.Join(want, "\n"))
	}
}

// TestExecProgressHidesSecrets: a progress message goes to the client as a
// log line does, so a sensitive parameter and a secret environment
// variable are hidden from it too, with stderr_log or without.
func TestExecProgressHidesSecrets(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	f.info["a"] = adapters.ParamInfo{Sensitive: true}
	for name, log := range map[string]string{"without stderr_log": "", "with stderr_log": `stderr_log = "info"`} {
		t.Run(name, func(t *testing.T) {
			e := f.mustCompile(t, `command = ["sh", "-c", "echo \"::progress 1/2 using $1 and $API_TOKEN\" >&2", "sh", param.a]
env = { API_TOKEN = "tok-ENV-1234567" }
`+log)
			rec := &recorder{}
			in := f.input(map[string]cty.Value{"a": cty.StringVal("s3cr3t-value")})
			in.Report = rec
			if _, err := e.Call(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			want := "progress 1/2 using (sensitive value) and (redacted)"
			if got := strings.Join(rec.events, "\n"); got != want {
				t.Errorf("reported %q, want %q", got, want)
			}
		})
	}
}

// TestExecStderrNoLogLevel: without stderr_log, lines are not forwarded,
// but progress is, and a failure's message quotes stderr without the
// progress lines.
func TestExecStderrNoLogLevel(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	e := f.mustCompile(t, `command = ["sh", "-c", "echo '::progress 50%' >&2; echo 'disk full' >&2; exit 3"]`)
	rec := &recorder{}
	in := f.input(nil)
	in.Report = rec
	_, err := e.Call(context.Background(), in)
	if err == nil || !strings.Contains(err.Error(), "disk full") || strings.Contains(err.Error(), "progress") {
		t.Errorf("error = %v; want it to quote stderr without the progress line", err)
	}
	if strings.Join(rec.events, "\n") != "progress 50/100 " {
		t.Errorf("reported %q", rec.events)
	}
}

// TestExecBinary: binary output is passed on byte for byte with its type
// sniffed or declared; text output is made valid UTF-8.
func TestExecBinary(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"
	tests := []struct {
		name, body, wantType string
		binary               bool
		want                 string
	}{
		{"sniffed", `command = ["printf", "\\211PNG\\r\\n\\032\\n\\000\\000\\000\\rIHDR\\377\\376"]
binary = true`, "image/png", true, png},
		{"declared", `command = ["printf", "\\377\\376"]
binary = true
mime_type = "audio/wav"`, "audio/wav", true, "\xff\xfe"},
		{"text", `command = ["printf", "\\377ok"]`, "text/plain", false, "\uFFFDok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.mustCompile(t, tt.body)
			out, err := e.Call(context.Background(), f.input(nil))
			if err != nil {
				t.Fatal(err)
			}
			if string(out.Body) != tt.want || out.MIMEType != tt.wantType || out.Binary != tt.binary {
				t.Errorf("got %q %s binary=%v; want %q %s binary=%v", out.Body, out.MIMEType, out.Binary, tt.want, tt.wantType, tt.binary)
			}
		})
	}
}

// TestExecSensitiveArgs: a command element or a stdin wrapped in
// sensitive(...) (a token passed as an argument, say) is hidden from the
// forwarded stderr lines and from the error message, like a secret
// environment variable.
func TestExecSensitiveArgs(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	e := f.mustCompile(t, `command = ["sh", "-c", "echo \"arg $1\" >&2; echo \"flag $2\" >&2; echo \"stdin $(cat)\" >&2; exit 2", "sh", sensitive("tok-ARG-1234567"), "--key=${sensitive("tok-FLAG-7654321")}"]
stdin = sensitive("tok-STDIN-99999")
stderr_log = "info"`)
	rec := &recorder{}
	in := f.input(nil)
	in.Report = rec
	_, err := e.Call(context.Background(), in)
	if err == nil {
		t.Fatal("the command exited 2; want an error")
	}
	reported := strings.Join(rec.events, "\n")
	for _, s := range []string{err.Error(), reported} {
		if strings.Contains(s, "tok-") {
			t.Errorf("a sensitive value leaked: %q", s)
		}
	}
	if !strings.Contains(err.Error(), "arg (redacted)") || !strings.Contains(err.Error(), "stdin (redacted)") {
		t.Errorf("error = %q; want the stderr lines with the values redacted", err)
	}
	want := "log info arg (redacted)\nlog info flag (redacted)\nlog info stdin (redacted)"
	if reported != want {
		t.Errorf("reported:\n%s\nwant:\n%s", reported, want)
	}
}

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

// TestExecCharsetReport: output that is not UTF-8 is decoded from the
// charset the block names, the error text of a failing command too;
// without one, its invalid bytes are replaced and the call's log says how
// to fix that.
func TestExecCharsetReport(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	t.Run("error text decoded", func(t *testing.T) {
		e := f.mustCompile(t, `command = ["sh", "-c", "printf '\\304\\343\\272\\303' >&2; exit 3"]
charset = "gbk"`)
		_, err := e.Call(context.Background(), f.input(nil))
		if err == nil || !strings.Contains(err.Error(), "status 3: 你好") {
			t.Fatalf("err = %v, want the exit status and 你好", err)
		}
	})
	t.Run("log lines and progress decoded", func(t *testing.T) {
		e := f.mustCompile(t, `command = ["sh", "-c", "printf '::progress 1/2 \\317\\302\\324\\330\\n\\304\\343\\272\\303 log\\n' >&2; printf ok"]
charset = "gbk"
stderr_log = "info"`)
		rec := &recorder{}
		in := f.input(nil)
		in.Report = rec
		if _, err := e.Call(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		want := "progress 1/2 下载\nlog info 你好 log"
		if got := strings.Join(rec.events, "\n"); got != want {
			t.Errorf("reported:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("no charset: replaced, and said", func(t *testing.T) {
		e := f.mustCompile(t, `command = ["printf", "caf\\351"]`)
		rec := &recorder{}
		in := f.input(nil)
		in.Report = rec
		out, err := e.Call(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if string(out.Body) != "caf\uFFFD" {
			t.Errorf("body = %q", out.Body)
		}
		if len(rec.events) != 1 || !strings.Contains(rec.events[0], "log warning") || !strings.Contains(rec.events[0], `charset = "gbk"`) {
			t.Errorf("reported %q, want one warning that names charset", rec.events)
		}
	})
}
