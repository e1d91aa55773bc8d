package host

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestResultPlain checks which result blocks are evaluated without a
// Budget: those whose every expression calls no function and has no for
// expression. A path written as a plain string is also read as it is.
func TestResultPlain(t *testing.T) {
	expr := func(src string) hcl.Expression {
		e, diags := hclsyntax.ParseExpression([]byte(src), "tools.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return e
	}
	fields := func(paths ...string) *thcl.Result {
		r := &thcl.Result{}
		for _, p := range paths {
			r.Fields = append(r.Fields, &thcl.Field{Name: "f", Path: expr(p)})
		}
		return r
	}
	text := func(src string) *thcl.Result {
		return &thcl.Result{Content: []*thcl.Content{{Kind: thcl.ContentText, Text: expr(src)}}}
	}
	for _, tc := range []struct {
		name   string
		result *thcl.Result
		plain  bool
	}{
		{"literal paths", fields(`"id"`, `"items.#.sku"`), true},
		{"interpolated path", fields(`"${param.kind}.name"`, `"id"`), true},
		{"a path calling a function", fields(`"id"`, `lower(param.kind)`), false},
		{"a path with a for expression", fields(`join(".", [for k in param.keys : k])`), false},
		{"plain text item", text(`"found ${param.id}"`), true},
		{"text item calling a function", text(`format("%s", param.id)`), false},
		{"text item with a for expression", text(`"%{for x in param.xs}${x}%{endfor}"`), false},
		{"output item", &thcl.Result{Content: []*thcl.Content{{Kind: thcl.ContentText, Output: true}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resultPlain(tc.result); got != tc.plain {
				t.Errorf("resultPlain = %v, want %v", got, tc.plain)
			}
		})
	}
	for src, want := range map[string]string{`"id"`: "id", `"owner.login"`: "owner.login", `"a\"b"`: `a"b`} {
		if got, ok := literalPath(expr(src)); !ok || got != want {
			t.Errorf("literalPath(%s) = %q, %v; want %q", src, got, ok, want)
		}
	}
	for _, src := range []string{`"${param.p}"`, `"a${param.p}"`, `param.p`, `1`, `null`} {
		if got, ok := literalPath(expr(src)); ok {
			t.Errorf("literalPath(%s) = %q; it is not a plain string", src, got)
		}
	}
}
