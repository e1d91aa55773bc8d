package http

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestValueParamAsTraversal checks that a value that is param.<name>
// alone, read without HCL's traversal (paramValue), is what the traversal
// gives, or the same error, whatever the parameters hold.
func TestValueParamAsTraversal(t *testing.T) {
	obj := func(attrs map[string]cty.Value) *hcl.EvalContext {
		return &hcl.EvalContext{Variables: map[string]cty.Value{paramRoot: cty.ObjectVal(attrs)}}
	}
	child := obj(map[string]cty.Value{"id": cty.StringVal("from the parent")}).NewChild()
	child.Variables = map[string]cty.Value{"other": cty.True}
	for _, tc := range []struct {
		name string
		ev   *hcl.EvalContext
		fast bool // whether paramValue reads it
	}{
		{"string", obj(map[string]cty.Value{"id": cty.StringVal("a/b c")}), true},
		{"number", obj(map[string]cty.Value{"id": cty.NumberIntVal(42)}), true},
		{"null", obj(map[string]cty.Value{"id": cty.NullVal(cty.String)}), true},
		{"sensitive", obj(map[string]cty.Value{"id": cty.StringVal("secret").Mark("sensitive")}), true},
		{"unknown", obj(map[string]cty.Value{"id": cty.UnknownVal(cty.String)}), true},
		{"in the parent context", child, true},
		{"no such attribute", obj(map[string]cty.Value{"other": cty.StringVal("x")}), false},
		{"params marked", &hcl.EvalContext{Variables: map[string]cty.Value{paramRoot: cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("x")}).Mark("m")}}, false},
		{"params null", &hcl.EvalContext{Variables: map[string]cty.Value{paramRoot: cty.NullVal(cty.Object(map[string]cty.Type{"id": cty.String}))}}, false},
		{"params unknown", &hcl.EvalContext{Variables: map[string]cty.Value{paramRoot: cty.DynamicVal}}, false},
		{"params a map", &hcl.EvalContext{Variables: map[string]cty.Value{paramRoot: cty.MapVal(map[string]cty.Value{"id": cty.StringVal("x")})}}, false},
		{"no params", &hcl.EvalContext{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expr, diags := hclsyntax.ParseExpression([]byte("param.id"), "url.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			fast := newValue(expr, cty.DynamicVal, "url")
			if fast.param != "id" {
				t.Fatalf("newValue of param.id: param = %q, want id", fast.param)
			}
			if _, ok := paramValue(tc.ev, "id"); ok != tc.fast {
				t.Errorf("paramValue read it: %v, want %v", ok, tc.fast)
			}
			slow := &value{expr: expr, what: "url"}
			got, gotErr := fast.eval(tc.ev)
			want, wantErr := slow.eval(tc.ev)
			if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
				t.Fatalf("error %v, the traversal's %v", gotErr, wantErr)
			}
			if gotErr == nil && !got.RawEquals(want) {
				t.Errorf("value %#v, the traversal's %#v", got, want)
			}
		})
	}
	for _, src := range []string{"param", "param.id.x", "param[\"id\"]", "other.id", "\"${param.id}x\""} {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "url.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if v := newValue(expr, cty.DynamicVal, "url"); v.param != "" {
			t.Errorf("newValue of %s: param = %q, want none (it is not param.<name> alone)", src, v.param)
		}
	}
}
