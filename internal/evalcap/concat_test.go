package evalcap

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestConcatAsHCL: a prepared template renders as HCL evaluates it, joined
// directly for text and string parameters only, by HCL for anything else.
func TestConcatAsHCL(t *testing.T) {
	params := cty.ObjectVal(map[string]cty.Value{
		"name":   cty.StringVal("world"),
		"nfd":    cty.StringVal("e\u0301 <&> \u2028"),
		"n":      cty.NumberIntVal(41),
		"none":   cty.NullVal(cty.String),
		"secret": cty.StringVal("s").Mark("sensitive"),
		"list":   cty.ListVal([]cty.Value{cty.StringVal("a")}),
	})
	tests := []struct {
		name, src string
		joined    bool // rendered without HCL
	}{
		{"text and a parameter", `"hello ${param.name}!"`, true},
		{"parameters only", `"${param.name}${param.nfd}"`, true},
		{"decomposed accents", `"a${param.nfd}"`, true},
		{"a number", `"n=${param.n}"`, false},
		{"a null", `"x${param.none}"`, false},
		{"a marked value", `"x${param.secret}"`, false},
		{"a list", `"x${param.list}"`, false},
		{"an unknown parameter", `"x${param.nope}"`, false},
		{"another variable", `"x${other.name}"`, false},
		{"a function", `"x${upper(param.name)}"`, false},
		{"an index", `"x${param.list[0]}"`, false},
		{"one interpolation alone", `"${param.name}"`, false},
		{"a heredoc", "<<EOT\nhello ${param.name}\nEOT\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr, diags := hclsyntax.ParseExpression([]byte(tt.src), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"param": params}}
			child := ctx.NewChild() // variables are found in the parents too
			p := Prepare(expr)
			_, joined := concat(p.parts, child)
			if p.parts == nil {
				joined = false
			}
			if joined != tt.joined {
				t.Errorf("joined directly: %v, want %v", joined, tt.joined)
			}
			b := NewBudget(context.Background(), 1<<20, 8*(1<<20), time.Now().Add(time.Minute))
			got, gotDiags, lerr := p.Run(child, b)
			want, wantDiags := expr.Value(child)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if gotDiags.HasErrors() != wantDiags.HasErrors() {
				t.Fatalf("diagnostics %v, HCL's %v", gotDiags, wantDiags)
			}
			if !wantDiags.HasErrors() && !got.RawEquals(want) {
				t.Errorf("rendered %#v, HCL renders %#v", got, want)
			}
		})
	}
}
