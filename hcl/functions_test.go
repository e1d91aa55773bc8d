package hcl

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// evalString evaluates one expression with the function library, env()
// reading env, and returns its value as a string or the diagnostics.
func evalString(t *testing.T, src string, lookup EnvLookup) (string, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse %s: %s", src, diags)
	}
	v, diags := expr.Value(StaticEval(lookup))
	if diags.HasErrors() {
		return "", diags
	}
	if v.Type() != cty.String || v.IsNull() || !v.IsKnown() {
		t.Fatalf("%s = %#v, want a known string", src, v)
	}
	return v.AsString(), nil
}

func TestFunctions(t *testing.T) {
	env := mapEnv(map[string]string{"API_KEY": "secret", "EMPTY": ""})
	tests := []struct {
		name string
		expr string
		want string
		// err, when set, is text the error's summary or detail must hold.
		err string
	}{
		{"env set", `env("API_KEY")`, "secret", ""},
		{"env set ignores default", `env("API_KEY", "fallback")`, "secret", ""},
		{"env empty is set", `env("EMPTY", "fallback")`, "", ""},
		{"env unset with default", `env("NOT_SET", "fallback")`, "fallback", ""},
		{"env unset without default", `env("NOT_SET")`, "", "the environment variable NOT_SET is not set"},
		{"env unset with null default", `env("NOT_SET", null)`, "", "NOT_SET is not set"},
		{"env too many arguments", `env("A", "b", "c")`, "", "at most one default"},
		{"env in template", `"${env("NOT_SET", "https://api.example.com")}/v1"`, "https://api.example.com/v1", ""},
		{"coalesce skips null", `coalesce(null, "10")`, "10", ""},
		// cty's coalesce, unlike Terraform's, keeps an empty string.
		{"coalesce keeps empty string", `coalesce("", "x")`, "", ""},
		{"coalesce first", `coalesce("a", "b")`, "a", ""},
		{"coalesce all null", `coalesce(null, null)`, "", "no non-null"},
		{"jsonencode quotes", `jsonencode("say \"hi\"")`, `"say \"hi\""`, ""},
		{"jsonencode chinese", `jsonencode("北京")`, `"北京"`, ""},
		{"jsonencode object", `jsonencode({ city = "北京", note = "a \"b\"" })`, `{"city":"北京","note":"a \"b\""}`, ""},
		{"jsonencode newline and backslash", `jsonencode("a\nb\\c")`, `"a\nb\\c"`, ""},
		{"urlencode space and reserved", `urlencode("a b&c=d/e?")`, "a+b%26c%3Dd%2Fe%3F", ""},
		{"urlencode chinese", `urlencode("北京")`, "%E5%8C%97%E4%BA%AC", ""},
		{"urlencode empty", `urlencode("")`, "", ""},
		{"base64encode", `base64encode("hello, 北京")`, "aGVsbG8sIOWMl+S6rA==", ""},
		{"base64decode", `base64decode("aGVsbG8sIOWMl+S6rA==")`, "hello, 北京", ""},
		{"base64 round trip", `base64decode(base64encode("a\"b\nc"))`, "a\"b\nc", ""},
		{"base64decode invalid", `base64decode("not base64!")`, "", "not valid base64"},
		// A decoded value that is not UTF-8 cannot be a string: HCL strings
		// are Unicode text.
		{"base64decode not UTF-8", `base64decode("/w==")`, "", "UTF-8"},
		{"formatdate fixed", `formatdate("YYYY-MM-DD hh:mm:ss", "2024-03-05T07:08:09Z")`, "2024-03-05 07:08:09", ""},
		{"format", `format("%s=%d", "n", 3)`, "n=3", ""},
		{"upper", `upper("abc")`, "ABC", ""},
		{"join split", `join(",", split(" ", "a b c"))`, "a,b,c", ""},
		{"replace", `replace("a-b-c", "-", "+")`, "a+b+c", ""},
		{"tostring", `tostring(12)`, "12", ""},
		{"length of a list", `tostring(length(["a", "b"]))`, "2", ""},
		{"length of keys", `tostring(length(keys({ a = 1, b = 2 })))`, "2", ""},
		{"length of a string", `tostring(length("北京"))`, "", "for the number of characters in a string, use strlen(...)"},
		{"length of an object", `tostring(length({ a = 1 }))`, "", "use length(keys(...))"},
		{"strlen", `tostring(strlen("北京"))`, "2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := evalString(t, tt.expr, env)
			if tt.err != "" {
				if !diags.HasErrors() {
					t.Fatalf("%s = %q, want an error mentioning %q", tt.expr, got, tt.err)
				}
				msg := diags.Error()
				if !strings.Contains(msg, tt.err) {
					t.Errorf("%s: error %q does not mention %q", tt.expr, msg, tt.err)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("%s: %s", tt.expr, diags)
			}
			if got != tt.want {
				t.Errorf("%s = %q, want %q", tt.expr, got, tt.want)
			}
		})
	}
}

func TestNow(t *testing.T) {
	before := time.Now().Add(-time.Second)
	got, diags := evalString(t, `now()`, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ts, err := time.Parse(time.RFC3339, got)
	if err != nil {
		t.Fatalf("now() = %q, not RFC 3339: %v", got, err)
	}
	if ts.Before(before.Truncate(time.Second)) || ts.After(time.Now().Add(time.Second)) {
		t.Errorf("now() = %s, not the current time", got)
	}
	if ts2, _ := evalString(t, `timestamp()`, nil); ts2 == "" {
		t.Errorf("timestamp() is empty")
	}

	// ZZZ is "UTC" at offset zero, and the offset otherwise: now() gives
	// formatdate an offset, not the zone's name (which Go's "MST" would
	// show: "GMT" in London in winter, and under wine on UTC).
	zone := "-0700"
	if _, off := time.Now().Zone(); off == 0 {
		zone = "UTC"
	}
	tests := []struct {
		expr   string
		layout string
	}{
		{`formatdate("YYYY-MM-DD hh:mm:ss", now())`, "2006-01-02 15:04:05"},
		{`formatdate("EEEE, DD MMMM YYYY hh:mm:ss ZZZ", now())`, "Monday, 02 January 2006 15:04:05 " + zone},
		{`formatdate("YYYY", now())`, "2006"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			start := time.Now()
			got, diags := evalString(t, tt.expr, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var want []string
			for _, at := range []time.Time{start, time.Now()} {
				want = append(want, at.Format(tt.layout))
			}
			if got != want[0] && got != want[1] {
				t.Errorf("%s = %q, want %q", tt.expr, got, want[0])
			}
		})
	}
}

// TestEnvInConfig reads the real environment through Load with no Options.
func TestEnvInConfig(t *testing.T) {
	const name = "TOOLHOST_TEST_ENV_IN_CONFIG"
	src := `
server {
  name = env("` + name + `")
}
tool "t" {
  description = env("` + name + `_UNSET_7F3A9C", "default description")
  template {
    text = "${env("` + name + `")}-${param.x}"
  }
  param "x" {
    type = string
  }
}
`
	t.Run("set", func(t *testing.T) {
		t.Setenv(name, "from-env")
		dir := writeFiles(t, map[string]string{"tools.hcl": src})
		cfg, diags := Load([]string{dir}, nil)
		if len(diags) > 0 {
			t.Fatalf("unexpected diagnostics:\n%s", FormatDiagnostics(diags))
		}
		if cfg.Server.Name != "from-env" {
			t.Errorf("server name = %q, want from-env", cfg.Server.Name)
		}
		if cfg.Tools[0].Description != "default description" {
			t.Errorf("description = %q, want the default", cfg.Tools[0].Description)
		}
	})
	t.Run("unset", func(t *testing.T) {
		t.Setenv(name, "")
		// t.Setenv cannot unset; LookupEnv stands in for an environment
		// without the variable.
		dir := writeFiles(t, map[string]string{"tools.hcl": src})
		_, diags := Load([]string{dir}, &Options{LookupEnv: mapEnv(nil)})
		// The server name is fixed at load: an error. The template runs at
		// call time: a warning at load, and an error when the tool is called.
		var errLines, warnLines []int
		for _, d := range diags {
			if !strings.Contains(d.Detail, name+" is not set") {
				t.Errorf("unexpected diagnostic: %s", FormatDiagnostic(d))
				continue
			}
			if d.Severity == hcl.DiagError {
				errLines = append(errLines, d.Subject.Start.Line)
				// Not HCL's "Invalid value for "name" parameter", which
				// reads as if the server's name were wrong.
				if d.Summary != "Environment variable not set" || strings.Contains(d.Detail, "parameter") || !strings.Contains(d.Detail, "give env() a default") {
					t.Errorf("error for the unset variable: %s", FormatDiagnostic(d))
				}
				if d.Subject.Start.Column != 14 || d.Subject.End.Column != 16+len(name) {
					t.Errorf("subject %v, want the env() argument, columns 14 to %d", d.Subject, 16+len(name))
				}
			} else {
				warnLines = append(warnLines, d.Subject.Start.Line)
			}
		}
		if fmt.Sprint(errLines) != "[3]" || fmt.Sprint(warnLines) != "[8]" {
			t.Errorf("env errors on lines %v and warnings on %v, want [3] and [8]:\n%s", errLines, warnLines, FormatDiagnostics(diags))
		}
	})
	t.Run("options lookup wins", func(t *testing.T) {
		t.Setenv(name, "from-env")
		dir := writeFiles(t, map[string]string{"tools.hcl": src})
		cfg, diags := Load([]string{dir}, &Options{LookupEnv: mapEnv(map[string]string{name: "from-options"})})
		if len(diags) > 0 {
			t.Fatalf("unexpected diagnostics:\n%s", FormatDiagnostics(diags))
		}
		if cfg.Server.Name != "from-options" {
			t.Errorf("server name = %q, want from-options", cfg.Server.Name)
		}
	})
}

// TestUnknownFunctionNames: a call of a function HCL does not have is told
// the HCL name when it is another language's name for one (upcase), or the
// closest name when one is close (lenght); every name it may give exists.
func TestUnknownFunctionNames(t *testing.T) {
	fns := Functions(nil)
	for _, a := range functionAliases {
		from, to := a.from, a.to
		if _, ok := fns[to]; !ok {
			t.Errorf("functionAliases[%q] = %q, which is not a function", from, to)
		}
		if _, ok := fns[from]; ok {
			t.Errorf("functionAliases has %q, which is a function", from)
		}
	}
	for _, tc := range []struct{ call, want string }{
		{"upcase(param.s)", `There is no function named "upcase". HCL calls it "upper".`},
		{"toUpperCase(param.s)", `There is no function named "toUpperCase". HCL calls it "upper".`},
		{"sprintf(\"%s\", param.s)", `There is no function named "sprintf". HCL calls it "format".`},
		{"lenght(param.s)", `There is no function named "lenght". Did you mean "length"?`},
		{"frobnicate(param.s)", `There is no function named "frobnicate".`},
	} {
		t.Run(tc.call, func(t *testing.T) {
			_, diags := loadString(t, `tool "t" {
  param "s" { type = string }
  template { text = "${`+tc.call+`}" }
}
`, nil)
			var got []string
			for _, d := range diags {
				if d.Summary == "Call to unknown function" {
					got = append(got, d.Detail)
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("details %q, want [%q]\n%s", got, tc.want, FormatDiagnostics(diags))
			}
		})
	}
}

// TestLengthAsStdlib: the length function, which words its errors for a
// string and an object, gives what cty's does for what it counts (marked
// and unknown values too), and costs no more: a template that uses it runs
// on every call of its tool.
func TestLengthAsStdlib(t *testing.T) {
	length := Functions(nil)["length"]
	list := cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})
	for _, v := range []cty.Value{
		list,
		cty.ListValEmpty(cty.String),
		cty.SetVal([]cty.Value{cty.NumberIntVal(1)}),
		cty.MapVal(map[string]cty.Value{"a": cty.True}),
		cty.TupleVal([]cty.Value{cty.True, cty.StringVal("x"), cty.Zero}),
		cty.UnknownVal(cty.List(cty.String)),
		cty.DynamicVal,
		list.Mark("sensitive"),
	} {
		got, err := length.Call([]cty.Value{v})
		want, werr := stdlib.LengthFunc.Call([]cty.Value{v})
		if err != nil || werr != nil || !got.RawEquals(want) {
			t.Errorf("length(%#v) = %#v, %v; cty's gives %#v, %v", v, got, err, want, werr)
		}
	}
	if _, err := length.Call([]cty.Value{cty.True}); err == nil || !strings.Contains(err.Error(), "collection must be a list") {
		t.Errorf("length(true): error %v, want cty's", err)
	}
	args := []cty.Value{cty.ListVal([]cty.Value{
		cty.ObjectVal(map[string]cty.Value{"title": cty.StringVal("a")}),
		cty.ObjectVal(map[string]cty.Value{"title": cty.StringVal("b")}),
	})}
	ours := testing.AllocsPerRun(100, func() { _, _ = length.Call(args) })
	theirs := testing.AllocsPerRun(100, func() { _, _ = stdlib.LengthFunc.Call(args) })
	if ours > theirs {
		t.Errorf("length makes %.0f allocations a call, cty's %.0f", ours, theirs)
	}
}
