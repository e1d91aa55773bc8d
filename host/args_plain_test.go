package host

import (
	"bytes"
	"path/filepath"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
)

// plainArgsCorpus are arguments for the weather tool of testdata/args.hcl
// (strings, an integer, a number and a bool, with checks and defaults),
// each with whether plainArgs reads it.
var plainArgsCorpus = []struct {
	args  string
	plain bool
}{
	{`{"city":"Oslo"}`, false}, // longer than max_length: a problem
	{`{"city":"Rio"}`, true},
	{` { "city" : "Rio" , "unit" : "fahrenheit" , "days" : 7 , "ratio" : 0.5e0 , "code" : "ABC" , "verbose" : true } `, true},
	{`{"city":"Rio","verbose":false,"ratio":-0,"days":1E0}`, true},
	{`{"city":"Rio","ratio":null,"code":null}`, true},
	{`{"city":null}`, false}, // required
	{`{}`, false},
	{`{"city":"Rio","city":"Rom"}`, false},
	{`{"city":"Rio","town":"x"}`, false},
	{`{"city":"Ri\u006f"}`, false},
	{"{\"city\":\"R\xffo\"}", false},
	{"{\"city\":\"R\to\"}", false},
	{`{"city":"日本"}`, true},
	{`{"city":"Rio","days":2.5}`, false},
	{`{"city":"Rio","days":01}`, false},
	{`{"city":"Rio","days":"2"}`, false},
	{`{"city":"Rio","ratio":1e400}`, false},
	{`{"city":"Rio","ratio":.5}`, false},
	{`{"city":"Rio","ratio":1.}`, false},
	{`{"city":"Rio","ratio":-}`, false},
	{`{"city":"Rio","verbose":tru}`, false},
	{`{"city":"Rio","verbose":nul}`, false},
	{`{"city":"Rio","unit":"kelvin"}`, false},
	{`{"city":"Rio",}`, false},
	{`{"city":"Rio"} {}`, false},
	{`{"city":"Rio"`, false},
	{`{"city" "Rio"}`, false},
	{`{"city":["Rio"]}`, false},
	{`["Rio"]`, false},
	{`null`, false},
	{``, false},
}

// samePlainArgs checks that when plainArgs reads raw, the general decoder
// accepts it and gives the same "param" object.
func samePlainArgs(t *testing.T, r *Registry, tool string, raw []byte) bool {
	t.Helper()
	tl := mustTool(t, r, tool)
	raw = bytes.TrimSpace(raw) // as DecodeArgs does
	got, ok := plainArgs(tl, raw)
	if !ok {
		return false
	}
	want, err := decodeArgs(tl, raw)
	if err != nil {
		t.Fatalf("%s %q: plainArgs read what the general decoder refuses: %v", tool, raw, err)
	}
	if !got.RawEquals(want) {
		t.Fatalf("%s %q: plainArgs %#v, the general decoder %#v", tool, raw, got, want)
	}
	return true
}

func TestPlainArgsAsGeneral(t *testing.T) {
	r := loadRegistry(t, "args.hcl")
	for _, c := range plainArgsCorpus {
		t.Run(c.args, func(t *testing.T) {
			if got := samePlainArgs(t, r, "weather", []byte(c.args)); got != c.plain {
				t.Fatalf("plainArgs read it: %v, want %v", got, c.plain)
			}
		})
	}
	t.Run("no parameters", func(t *testing.T) {
		if !samePlainArgs(t, r, "nothing", []byte(` { } `)) {
			t.Fatal("plainArgs did not read {} for a tool without parameters")
		}
	})
	t.Run("parameters of other types", func(t *testing.T) {
		if samePlainArgs(t, r, "anything", []byte(`{"v":"x"}`)) {
			t.Fatal("plainArgs read the arguments of a parameter of type any")
		}
	})
}

func FuzzPlainArgs(f *testing.F) {
	for _, c := range plainArgsCorpus {
		f.Add([]byte(c.args))
	}
	r, diags := Load([]string{filepath.Join("testdata", "args.hcl")}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		f.Fatal(thcl.FormatDiagnostics(diags))
	}
	f.Cleanup(func() { _ = r.Close() })
	f.Fuzz(func(t *testing.T, raw []byte) { samePlainArgs(t, r, "weather", raw) })
}
