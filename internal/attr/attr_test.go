package attr

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// parseAttr parses src, one attribute, and returns it.
func parseAttr(t *testing.T, src string) *hcl.Attribute {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse %q: %s", src, diags)
	}
	attrs, diags := f.Body.JustAttributes()
	if diags.HasErrors() || len(attrs) != 1 {
		t.Fatalf("attributes of %q: %s", src, diags)
	}
	for _, a := range attrs {
		return a
	}
	return nil
}

// wantDiags checks that diags are one error with summary and a detail
// holding detail, or none when summary is "".
func wantDiags(t *testing.T, diags hcl.Diagnostics, summary, detail string) {
	t.Helper()
	if summary == "" {
		if diags.HasErrors() {
			t.Fatalf("unexpected errors: %s", diags)
		}
		return
	}
	if len(diags) != 1 || diags[0].Summary != summary || !strings.Contains(diags[0].Detail, detail) {
		t.Fatalf("got %s; want one %q error with %q", diags, summary, detail)
	}
}

var upper = &hcl.EvalContext{Functions: map[string]function.Function{"upper": stdlib.UpperFunc}}

func TestTypeNames(t *testing.T) {
	tests := []struct {
		ty             cty.Type
		typeName, want string
	}{
		{cty.String, "a string", "a string"},
		{cty.Number, "a number", "a number"},
		{cty.Bool, "a bool", "true or false"},
		{cty.EmptyObject, "an object", "object"},
		{cty.List(cty.Number), "a list of number", "list of number"},
		{cty.Map(cty.String), "a map of string", "map of string"},
		{cty.Set(cty.Bool), "a set of bool", "set of bool"},
		{cty.EmptyTuple, "a tuple", "tuple"},
	}
	for _, tt := range tests {
		if got := TypeName(tt.ty); got != tt.typeName {
			t.Errorf("TypeName(%#v) = %q, want %q", tt.ty, got, tt.typeName)
		}
		if got := WantName(tt.ty); got != tt.want {
			t.Errorf("WantName(%#v) = %q, want %q", tt.ty, got, tt.want)
		}
	}
}

func TestConstant(t *testing.T) {
	tests := []struct {
		src             string
		want            cty.Type
		value           cty.Value
		summary, detail string
	}{
		{`x = "a"`, cty.String, cty.StringVal("a"), "", ""},
		{`x = upper("a")`, cty.String, cty.StringVal("A"), "", ""},
		{`x = 3`, cty.String, cty.StringVal("3"), "", ""},
		{`x = param.a`, cty.String, cty.NilVal, NotConstant, "cannot refer to param. Use a literal value"},
		{`x = Greetings`, cty.String, cty.NilVal, NotConstant, `If Greetings is text, write it in double quotes: x = "Greetings".`},
		{`x = [1]`, cty.String, cty.NilVal, "Wrong type for x", "x must be a string, and this is a tuple."},
		{`x = ["1", "one"]`, cty.List(cty.Number), cty.NilVal, "Wrong type for x", "x must be list of number: a number is required."},
		{`x = null`, cty.Bool, cty.NilVal, "Missing value for x", "x is null"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			v, diags := Constant(parseAttr(t, tt.src), upper, tt.want)
			wantDiags(t, diags, tt.summary, tt.detail)
			if tt.summary == "" && !v.RawEquals(tt.value) {
				t.Errorf("value %#v, want %#v", v, tt.value)
			}
		})
	}
}

func TestFixed(t *testing.T) {
	ctx := &hcl.EvalContext{
		Functions: upper.Functions,
		Variables: map[string]cty.Value{"later": cty.UnknownVal(cty.String)},
	}
	tests := []struct {
		src             string
		value           cty.Value
		summary, detail string
	}{
		{`x = upper("a")`, cty.StringVal("A"), "", ""},
		{`x = null`, cty.NullVal(cty.DynamicPseudoType), "", ""},
		{`x = param.a`, cty.NilVal, NotConstant, `cannot refer to parameters. Write a constant value, such as x = "30s".`},
		{`x = later`, cty.NilVal, NotConstant, `must be known when the config loads`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			v, diags, ok := Fixed(parseAttr(t, tt.src), ctx, `"30s"`)
			wantDiags(t, diags, tt.summary, tt.detail)
			if ok != (tt.summary == "") {
				t.Errorf("ok = %v", ok)
			}
			if ok && !v.RawEquals(tt.value) {
				t.Errorf("value %#v, want %#v", v, tt.value)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	timeout := DurationRange{Max: time.Hour, Example: `"30s"`, Examples: `"30s", "2m" or "1h"`}
	kill := DurationRange{Max: time.Minute, Zero: true, Example: `"1s"`, Examples: `"1s" or "10s"`}
	heartbeat := DurationRange{Min: 50 * time.Millisecond, Max: time.Minute, Example: `"1s"`, Examples: `"1s" or "10s"`}
	tests := []struct {
		src             string
		r               DurationRange
		want            time.Duration
		summary, detail string
	}{
		{`timeout = "90s"`, timeout, 90 * time.Second, "", ""},
		{`timeout = "5x"`, timeout, 0, "Invalid timeout", `"5x" is not a duration. Write a number with a unit, such as "30s", "2m" or "1h" (units are ms, s, m and h).`},
		{`timeout = 5`, timeout, 0, "Invalid timeout", `(units are ms, s, m and h). Did you mean "5s"?`},
		{`timeout = 7200`, timeout, 0, "Invalid timeout", `(units are ms, s, m and h).`},
		{`timeout = ["5s"]`, timeout, 0, "Invalid timeout", `The timeout must be a duration string, and this is a tuple.`},
		{`timeout = "2h"`, timeout, 0, "Timeout out of range", `The timeout is 2h, and it must be more than zero and at most 1h. Write a duration in that range, such as "30s".`},
		{`timeout = "0s"`, timeout, 0, "Timeout out of range", "more than zero"},
		{`timeout = "-1s"`, timeout, 0, "Timeout out of range", "more than zero"},
		{`kill_timeout = "0s"`, kill, 0, "", ""},
		{`kill_timeout = "2m"`, kill, 0, "kill_timeout out of range", "zero or more and at most 1m."},
		{`progress_heartbeat = "10ms"`, heartbeat, 0, "progress_heartbeat out of range", "at least 50ms and at most 1m."},
		{`progress_heartbeat = "50ms"`, heartbeat, 50 * time.Millisecond, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a := parseAttr(t, tt.src)
			v, _ := a.Expr.Value(nil)
			d, diags := Duration(a, v, tt.r)
			wantDiags(t, diags, tt.summary, tt.detail)
			if tt.summary == "" && d != tt.want {
				t.Errorf("duration %s, want %s", d, tt.want)
			}
			if tt.summary != "" && strings.Contains(diags[0].Detail, "Did you mean") != strings.Contains(tt.detail, "Did you mean") {
				t.Errorf("detail %q: a hint where none is wanted, or none where one is", diags[0].Detail)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		src             string
		want            int
		summary, detail string
	}{
		{`max_output = 1048576`, 1 << 20, "", ""},
		{`max_output = "2048"`, 2048, "", ""},
		{`max_output = "10MB"`, 0, "Invalid max_output", "must be a number of bytes, and this is a string. For 10 MiB, write max_output = 10485760, without quotes."},
		{`max_output = "soon"`, 0, "Invalid max_output", "Write a whole number, such as max_output = 1048576 for 1 MiB."},
		{`max_output = 0`, 0, "Invalid max_output", "The max_output argument is 0, and it must be a whole number of bytes from 1 to 67108864 (64 MiB)."},
		{`max_output = 1.5`, 0, "Invalid max_output", "whole number of bytes"},
		{`max_output = 67108865`, 0, "Invalid max_output", "from 1 to 67108864"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a := parseAttr(t, tt.src)
			v, _ := a.Expr.Value(nil)
			n, diags := Bytes(a, v, 64<<20, "64 MiB")
			wantDiags(t, diags, tt.summary, tt.detail)
			if tt.summary == "" && n != tt.want {
				t.Errorf("n = %d, want %d", n, tt.want)
			}
		})
	}
}

func TestSizeHint(t *testing.T) {
	tests := []struct {
		v    cty.Value
		want string
	}{
		{cty.StringVal("10MB"), " For 10 MiB, write max_response = 10485760, without quotes."},
		{cty.StringVal(" 1.5 kib "), " For 1.5 KiB, write max_response = 1536, without quotes."},
		{cty.StringVal("2g"), " For 2 GiB, write max_response = 2147483648, without quotes."},
		{cty.StringVal("512 bytes"), " Write the number without quotes: max_response = 512."},
		{cty.StringVal("0.5b"), ""},
		{cty.StringVal("10 TB"), ""},
		{cty.StringVal("MB"), ""},
		{cty.StringVal("1.2.3MB"), ""},
		{cty.NumberIntVal(10), ""},
		{cty.NullVal(cty.String), ""},
		{cty.UnknownVal(cty.String), ""},
	}
	for _, tt := range tests {
		if got := SizeHint("max_response", tt.v); got != tt.want {
			t.Errorf("SizeHint(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestDurationText(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{time.Hour, "1h"},
		{90 * time.Minute, "1h30m"},
		{10 * time.Minute, "10m"},
		{90 * time.Second, "1m30s"},
		{time.Hour + time.Second, "1h0m1s"},
		{500 * time.Millisecond, "500ms"},
		{0, "0s"},
	}
	for _, tt := range tests {
		if got := DurationText(tt.d); got != tt.want {
			t.Errorf("DurationText(%d) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
