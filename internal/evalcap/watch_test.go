package evalcap

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// growFunc makes its argument a third larger, as base64encode does.
var growFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

// watchFuncs are functions With watches, as a config's table has them.
func watchFuncs() map[string]function.Function {
	return map[string]function.Function{
		"upper":           stdlib.UpperFunc,
		"grow":            growFunc,
		"join":            stdlib.JoinFunc,
		"sort":            stdlib.SortFunc,
		"distinct":        DistinctFunc,
		"flatten":         stdlib.FlattenFunc,
		"keys":            stdlib.KeysFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"length":          stdlib.LengthFunc,
		"concat":          stdlib.ConcatFunc,
	}
}

// TestWatchedFunctionsHeld: under a Budget, a function that is not one of
// the guarded ones is held all the same: it refuses to run once the
// deadline has passed or the call is cancelled, and what it builds is
// charged, so that a chain of growing calls stops at the limit.
func TestWatchedFunctionsHeld(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	big := strings.Repeat("A", 300<<10)
	cases := []struct {
		name     string
		src      string
		ctx      context.Context
		deadline time.Time
		want     Kind
	}{
		{"deadline passed", `upper(s)`, context.Background(), time.Now().Add(-time.Second), Deadline},
		{"cancelled", `length(distinct(l))`, cancelled, time.Now().Add(time.Minute), Cancelled},
		{"a chain grows past the value limit", `grow(grow(grow(grow(grow(grow(b))))))`, context.Background(), time.Now().Add(time.Minute), Value},
		{"a set too long", `setintersection(long, long)`, context.Background(), time.Now().Add(time.Minute), Elements},
	}
	long := make([]cty.Value, MaxSetElements+1)
	for i := range long {
		long[i] = cty.NumberIntVal(int64(i))
	}
	vars := map[string]cty.Value{
		"s":    cty.StringVal("x"),
		"b":    cty.StringVal(big),
		"l":    cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("a")}),
		"long": cty.TupleVal(long),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(tc.src), "x.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			b := NewBudget(tc.ctx, 1<<20, 8<<20, tc.deadline)
			ctx := &hcl.EvalContext{Variables: vars, Functions: watchFuncs()}
			_, diags, lerr := Run(ctx, b, Expr(e))
			if lerr == nil || lerr.Kind != tc.want {
				t.Fatalf("error %v (diagnostics %v), want one of kind %d", lerr, diags, tc.want)
			}
			var le *LimitError
			if !errors.As(lerr, &le) {
				t.Fatal("not a LimitError")
			}
		})
	}
}

// TestWatchedAsPlain: the watched functions give what the plain ones
// give, tuples converted to lists and sets included.
func TestWatchedAsPlain(t *testing.T) {
	vars := map[string]cty.Value{
		"mixed": cty.TupleVal([]cty.Value{cty.StringVal("b"), cty.NumberIntVal(1), cty.StringVal("a"), cty.NumberIntVal(1)}),
		"strs":  cty.TupleVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")}),
		"nums":  cty.ListVal([]cty.Value{cty.NumberIntVal(2), cty.NumberIntVal(1)}),
		"ll":    cty.TupleVal([]cty.Value{cty.TupleVal([]cty.Value{cty.StringVal("x")}), cty.ListVal([]cty.Value{cty.StringVal("y")})}),
		"obj":   cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v"), "j": cty.NumberIntVal(3)}),
	}
	exprs := []string{
		`join(",", mixed)`,
		`sort(mixed)`,
		`join("-", sort(strs))`,
		`join(",", nums)`,
		`distinct(mixed)`,
		`length(distinct(mixed))`,
		`join(",", flatten(ll))`,
		`length(flatten(ll))`,
		`join(",", keys(obj))`,
		`length(setintersection(mixed, strs))`,
		`concat(strs, ["c"])`,
		`upper(join("", strs))`,
	}
	for _, src := range exprs {
		t.Run(src, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			plain := &hcl.EvalContext{Variables: vars, Functions: watchFuncs()}
			plain.Functions["distinct"] = stdlib.DistinctFunc
			want, diags := e.Value(plain)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			b := NewBudget(context.Background(), 1<<20, 8<<20, time.Now().Add(time.Minute))
			got, diags, lerr := Run(&hcl.EvalContext{Variables: vars, Functions: watchFuncs()}, b, Expr(e))
			if diags.HasErrors() || lerr != nil {
				t.Fatalf("%v %v", diags, lerr)
			}
			if !got.Equals(want).True() && !sameElements(got, want) {
				t.Errorf("%#v, want %#v", got, want)
			}
		})
	}
}
