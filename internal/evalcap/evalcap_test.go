package evalcap

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// TestSizeNeverBelow: the size a guard works out before the function runs
// is never below the length of what the function builds, and is close to
// it, for each guarded function and the shapes of arguments it takes.
func TestSizeNeverBelow(t *testing.T) {
	s := cty.StringVal
	n := cty.NumberIntVal
	strs := func(ss ...string) cty.Value {
		if len(ss) == 0 {
			return cty.ListValEmpty(cty.String)
		}
		vals := make([]cty.Value, len(ss))
		for i, x := range ss {
			vals[i] = s(x)
		}
		return cty.ListVal(vals)
	}
	cases := []struct {
		name string
		fn   string
		args []cty.Value
		// slack is how much above the real length the estimate may be.
		slack int64
	}{
		{"replace grows", "replace", []cty.Value{s("abcabc"), s("b"), s("XYZ")}, 0},
		{"replace shrinks", "replace", []cty.Value{s("abcabc"), s("bc"), s("")}, 0},
		{"replace empty substring", "replace", []cty.Value{s("héllo"), s(""), s("--")}, 0},
		{"replace no match", "replace", []cty.Value{s("abc"), s("z"), s("long replacement")}, 0},
		{"regex_replace literal", "regex_replace", []cty.Value{s("a1b22c333"), s("[0-9]+"), s("#")}, 0},
		{"regex_replace empty matches", "regex_replace", []cty.Value{s("abc"), s("x*"), s("-")}, 0},
		{"regex_replace references", "regex_replace", []cty.Value{s("key=value; k2=v2"), s("(\\w+)=(\\w+)"), s("$2:$1 ${1}")}, 48},
		{"regex_replace named", "regex_replace", []cty.Value{s("2024-01-02"), s("(?P<y>\\d+)-(?P<m>\\d+)"), s("$m/$y")}, 16},
		{"regex_replace dollar", "regex_replace", []cty.Value{s("price 5"), s("\\d"), s("$$$0")}, 8},
		{"format plain", "format", []cty.Value{s("hello %s, you are %d"), s("ann"), n(42)}, 8},
		{"format width", "format", []cty.Value{s("[%-10s][%10s]"), s("ab"), s("cd")}, 4},
		{"format precision", "format", []cty.Value{s("%.3f %8.2f"), cty.NumberFloatVal(3.14159), n(2)}, 40},
		{"format index", "format", []cty.Value{s("%[2]s %[1]s %[2]s"), s("one"), s("two")}, 0},
		{"format json", "format", []cty.Value{s("%#v %q %v"), s("<a&b>"), s("\"q\""), strs("x", "y")}, 40},
		{"format percent", "format", []cty.Value{s("100%% of %s"), s("it")}, 0},
		{"format unicode width", "format", []cty.Value{s("%5s|"), s("日本")}, 6},
		{"format null", "format", []cty.Value{s("%v"), cty.NullVal(cty.String)}, 0},
		{"formatlist lists", "formatlist", []cty.Value{s("%s=%s"), strs("a", "b", "c"), strs("1", "22", "333")}, 0},
		{"formatlist single", "formatlist", []cty.Value{s("<%s:%s>"), strs("a", "b"), s("fixed")}, 0},
		{"formatlist width", "formatlist", []cty.Value{s("%-4s|"), strs("a", "bb")}, 3},
		{"join", "join", []cty.Value{s(", "), strs("a", "bb", "ccc")}, 0},
		{"join lists", "join", []cty.Value{s("-"), strs("a"), strs("b", "c")}, 0},
		{"join empty", "join", []cty.Value{s("-"), strs()}, 0},
		{"indent", "indent", []cty.Value{n(4), s("a\nb\nc")}, 0},
		{"indent no newline", "indent", []cty.Value{n(4), s("abc")}, 0},
		{"split", "split", []cty.Value{s(","), s("a,bb,,c")}, 0},
		{"split characters", "split", []cty.Value{s(""), s("héllo")}, 0},
		{"regexall", "regexall", []cty.Value{s("[0-9]+"), s("a1b22c333")}, 0},
		{"jsonencode string", "jsonencode", []cty.Value{s("<tag> & \"q\" \\ \n\t")}, 0},
		{"jsonencode object", "jsonencode", []cty.Value{cty.ObjectVal(map[string]cty.Value{"a": n(1), "b": strs("x", "y"), "c": cty.True, "d": cty.NullVal(cty.String)})}, 24},
		{"jsonencode number", "jsonencode", []cty.Value{cty.NumberFloatVal(1e300)}, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := guards[tc.fn]
			v, err := g.fn.Call(tc.args)
			if err != nil {
				t.Fatalf("%s: %v", tc.fn, err)
			}
			real := Size(v, 1<<40)
			if v.Type() == cty.String {
				real = int64(len(v.AsString()))
			} else {
				// formatlist: the bytes of the strings.
				real = 0
				for _, el := range v.AsValueSlice() {
					real += int64(len(el.AsString()))
				}
			}
			if g.count != nil {
				if n := g.count(tc.args); n != int64(v.LengthInt()) {
					t.Errorf("count %d, want the %d elements %s built", n, v.LengthInt(), tc.fn)
				}
			}
			est := g.size(tc.args, 1<<40)
			if est < real {
				t.Errorf("estimate %d is below the %d bytes %s built", est, real, tc.fn)
			}
			if est > real+tc.slack {
				t.Errorf("estimate %d is more than %d above the %d bytes %s built", est, tc.slack, real, tc.fn)
			}
		})
	}
}

// TestGuardsRefuseBeforeBuilding: each guarded function refuses arguments
// that would make it build more than the limit, with a LimitError naming
// it, without building the value.
func TestGuardsRefuseBeforeBuilding(t *testing.T) {
	s := cty.StringVal
	big := strings.Repeat("a", 2000)
	cases := []struct {
		fn   string
		args []cty.Value
	}{
		{"replace", []cty.Value{s(big), s("a"), s(big)}},
		{"regex_replace", []cty.Value{s(big), s("a"), s(big)}},
		{"format", []cty.Value{s("%999999999999s"), s("x")}},
		{"format", []cty.Value{s("%.999999999999f"), cty.NumberIntVal(1)}},
		{"formatlist", []cty.Value{s(big + "%s"), cty.ListVal(repeatVals(s(""), 2000))}},
		{"join", []cty.Value{s(big), cty.ListVal(repeatVals(s(""), 2000))}},
		{"indent", []cty.Value{cty.NumberIntVal(1 << 40), s("\n\n")}},
		{"jsonencode", []cty.Value{cty.TupleVal(repeatVals(s(big), 2000))}},
		{"split", []cty.Value{s(","), s(strings.Repeat(big+",", 600))}},
		{"regexall", []cty.Value{s("a+"), s(strings.Repeat(big+",", 600))}},
	}
	fns := Functions()
	for _, tc := range cases {
		t.Run(tc.fn, func(t *testing.T) {
			b := NewBudget(context.Background(), 1<<20, 8*(1<<20), time.Time{})
			ctx, done := With(&hcl.EvalContext{}, b)
			defer done()
			_, err := ctx.Functions[tc.fn].Call(tc.args)
			var le *LimitError
			if !errors.As(err, &le) || le.Kind != Value || le.What != tc.fn+"()" || le.Max != 1<<20 {
				t.Fatalf("error = %v, want a LimitError for %s() over 1048576", err, tc.fn)
			}
			if b.Err() == nil {
				t.Error("the budget did not record the error")
			}
			if _, err := fns[tc.fn].Call(tc.args); err == nil && le.Size > MaxValue {
				t.Errorf("without a budget, %s built a value of %d bytes", tc.fn, le.Size)
			}
		})
	}
}

func repeatVals(v cty.Value, n int) []cty.Value {
	out := make([]cty.Value, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestExprEvaluatesAsTheOriginal: the copy Expr makes evaluates to what the
// original does, with and without a budget, for each kind of expression a
// for expression can be nested in.
func TestExprEvaluatesAsTheOriginal(t *testing.T) {
	vars := map[string]cty.Value{
		"l": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("bb"), cty.StringVal("")}),
		"o": cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v"), "n": cty.NumberIntVal(2)}),
		"r": cty.ListVal([]cty.Value{
			cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("x")}),
			cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("y")}),
		}),
	}
	fns := map[string]function.Function{
		"join":   stdlib.JoinFunc,
		"upper":  stdlib.UpperFunc,
		"length": stdlib.LengthFunc,
		"concat": stdlib.ConcatFunc,
		"range":  stdlib.RangeFunc,
	}
	exprs := []string{
		`[for s in l : upper(s)]`,
		`[for i, s in l : "${i}:${s}" if s != ""]`,
		`{for s in l : s => upper(s)...}`,
		`{for k, v in o : k => v}`,
		`join(",", [for s in l : s])`,
		`"%{for s in l}[${s}]%{endfor}"`,
		`"%{for s in l}%{if s != ""}${s}%{else}-%{endif}%{endfor}"`,
		`length(l) > 2 ? [for s in l : s] : []`,
		`[for s in l : s][1]`,
		`[for x in [for s in l : upper(s)] : "${x}!"]`,
		`concat([for s in l : s], ["z"])`,
		`r[*].name`,
		`[for x in r[*].name : upper(x)]`,
		`{a = [for s in l : s], b = (["q"])}`,
		`-length([for s in l : s])`,
		`[for n in range(3) : [for m in range(n) : m]]`,
		`[for s in l : s] == ["a", "bb", ""]`,
		`["a"] != [for s in l : s if s == "a"]`,
		`length([for s in l : s]) == 3`,
	}
	for _, src := range exprs {
		t.Run(src, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			ctx := &hcl.EvalContext{Variables: vars, Functions: fns}
			want, diags := e.Value(ctx)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			copied := Expr(e)
			got, diags := copied.Value(ctx)
			if diags.HasErrors() || !got.RawEquals(want) {
				t.Errorf("without a budget: %#v (%v), want %#v", got, diags, want)
			}
			b := NewBudget(context.Background(), 1<<20, 8*(1<<20), time.Now().Add(time.Minute))
			bctx, done := With(ctx, b)
			defer done()
			got, diags = copied.Value(bctx)
			if diags.HasErrors() || b.Err() != nil {
				t.Fatalf("with a budget: %v %v", diags, b.Err())
			}
			// A for expression may give a list where the original gives a
			// tuple; the values are the same.
			if !got.Equals(want).True() && !sameElements(got, want) {
				t.Errorf("with a budget: %#v, want %#v", got, want)
			}
			// Run with the walk made at every evaluation, and a Prepared
			// made once, agree.
			run, runDiags, runErr := Run(ctx, NewBudget(context.Background(), 1<<20, 8*(1<<20), time.Now().Add(time.Minute)), Expr(e))
			prep, prepDiags, prepErr := Prepare(e).Run(ctx, NewBudget(context.Background(), 1<<20, 8*(1<<20), time.Now().Add(time.Minute)))
			if !prep.RawEquals(run) || prepDiags.HasErrors() != runDiags.HasErrors() || (prepErr == nil) != (runErr == nil) {
				t.Errorf("Prepare(e).Run: %#v (%v, %v), Run: %#v (%v, %v)", prep, prepDiags, prepErr, run, runDiags, runErr)
			}
		})
	}
}

// sameElements reports whether a and b, lists or tuples, have equal
// elements in the same order.
func sameElements(a, b cty.Value) bool {
	if !a.CanIterateElements() || !b.CanIterateElements() || a.LengthInt() != b.LengthInt() {
		return false
	}
	as, bs := a.AsValueSlice(), b.AsValueSlice()
	for i := range as {
		if !as[i].Equals(bs[i]).True() && !sameElements(as[i], bs[i]) {
			return false
		}
	}
	return true
}

// TestBudgetStopsLoops: a spent budget ends the for expressions running,
// with one error, not one per iteration, and later loops do not run.
func TestBudgetStopsLoops(t *testing.T) {
	cases := []struct {
		name, src string
		maxValue  int
		kind      Kind
	}{
		{"iterations", `[for a in range(1000) : [for b in range(1000) : [for c in range(1000) : 0]]]`, 1 << 22, Iterations},
		{"bytes", `[for a in range(1000) : [for b in range(1000) : "${a}-${b}-0123456789"]]`, 1 << 16, Total},
	}
	fns := map[string]function.Function{"range": stdlib.RangeFunc}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(tc.src), "x.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			b := NewBudget(context.Background(), tc.maxValue, 8*tc.maxValue, time.Now().Add(time.Minute))
			ctx, done := With(&hcl.EvalContext{Functions: fns}, b)
			defer done()
			start := time.Now()
			v, diags := Expr(e).Value(ctx)
			// A second without the race detector, several with it; a
			// billion iterations without the budget.
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %s", took)
			}
			if len(diags) != 0 || v.IsKnown() {
				t.Errorf("value %#v, %d diagnostics; want unknown, none", v, len(diags))
			}
			if err := b.Err(); err == nil || err.Kind != tc.kind {
				t.Errorf("budget error = %v, want kind %d", err, tc.kind)
			}
		})
	}
	t.Run("deadline", func(t *testing.T) {
		e, _ := hclsyntax.ParseExpression([]byte(`[for a in range(1000) : [for b in range(100) : b]]`), "x.hcl", hcl.InitialPos)
		b := NewBudget(context.Background(), 1<<20, 8*(1<<20), time.Now().Add(-time.Second))
		ctx, done := With(&hcl.EvalContext{Functions: fns}, b)
		defer done()
		if _, diags := Expr(e).Value(ctx); len(diags) != 0 {
			t.Errorf("diagnostics: %v", diags)
		}
		if err := b.Err(); err == nil || err.Kind != Deadline {
			t.Errorf("budget error = %v, want the deadline", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		e, _ := hclsyntax.ParseExpression([]byte(`[for a in range(1000) : [for b in range(100) : b]]`), "x.hcl", hcl.InitialPos)
		cctx, cancel := context.WithCancel(context.Background())
		cancel()
		b := NewBudget(cctx, 1<<20, 8*(1<<20), time.Time{})
		ctx, done := With(&hcl.EvalContext{Functions: fns}, b)
		defer done()
		Expr(e).Value(ctx)
		if err := b.Err(); err == nil || err.Kind != Cancelled {
			t.Errorf("budget error = %v, want cancelled", err)
		}
	})
}

// TestJSONDecodeAsCty: jsondecode decodes as cty's does, but for arrays of
// one type, which are lists; it refuses what cty's refuses, and a text of
// more values than MaxElements.
func TestJSONDecodeAsCty(t *testing.T) {
	docs := []string{
		`1`, `-2.5e3`, `"text"`, `true`, `null`, `[]`, `{}`,
		`[1, 2, 3]`, `["a", 1, null, true]`, `[null, null]`,
		`{"a": 1, "b": [1, 2], "c": {"d": "e"}, "f": null}`,
		`[{"a": 1}, {"a": 2}]`, `[{"a": 1}, {"b": 2}]`, `[[1], [2, 3]]`, `[[1], ["x"]]`,
		` {"a" : "\u00e9\n"} `, `123456789012345678901234567890`, `[1, "1"]`,
	}
	for _, doc := range docs {
		t.Run(doc, func(t *testing.T) {
			want, err := stdlib.JSONDecodeFunc.Call([]cty.Value{cty.StringVal(doc)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := JSONDecodeFunc.Call([]cty.Value{cty.StringVal(doc)})
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equals(want).True() && !sameElements(got, want) && !(got.IsNull() && want.IsNull()) {
				t.Errorf("jsondecode(%s) = %#v, want %#v", doc, got, want)
			}
			ge, _ := stdlib.JSONEncodeFunc.Call([]cty.Value{got})
			we, _ := stdlib.JSONEncodeFunc.Call([]cty.Value{want})
			if ge.AsString() != we.AsString() {
				t.Errorf("encoded again: %s, want %s", ge.AsString(), we.AsString())
			}
		})
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a" 1}`, `1 2`, `[] x`, `nul`} {
		t.Run("refused "+bad, func(t *testing.T) {
			if _, err := stdlib.JSONDecodeFunc.Call([]cty.Value{cty.StringVal(bad)}); err == nil {
				t.Fatalf("cty's jsondecode takes %q", bad)
			}
			if _, err := JSONDecodeFunc.Call([]cty.Value{cty.StringVal(bad)}); err == nil {
				t.Errorf("jsondecode(%q) did not fail", bad)
			}
		})
	}
	t.Run("too many values", func(t *testing.T) {
		doc := "[" + strings.Repeat("1,", MaxElements) + "1]"
		_, err := JSONDecodeFunc.Call([]cty.Value{cty.StringVal(doc)})
		var le *LimitError
		if !errors.As(err, &le) || le.Kind != Elements {
			t.Errorf("error = %v, want a LimitError for the elements", err)
		}
	})
	t.Run("a number no float holds is text", func(t *testing.T) {
		v, err := JSONDecodeFunc.Call([]cty.Value{cty.StringVal(`[1e100000000, 1e-400, 1.5]`)})
		if err != nil {
			t.Fatal(err)
		}
		want := cty.TupleVal([]cty.Value{cty.StringVal("1e100000000"), cty.StringVal("1e-400"), cty.NumberFloatVal(1.5)})
		if !v.RawEquals(want) {
			t.Errorf("got %#v, want %#v", v, want)
		}
	})
	t.Run("an array of one type is a list", func(t *testing.T) {
		v, _ := JSONDecodeFunc.Call([]cty.Value{cty.StringVal(`["a", "b"]`)})
		if !v.Type().Equals(cty.List(cty.String)) {
			t.Errorf("type %#v, want a list of strings", v.Type())
		}
	})
}

// TestNumbersInRange: tonumber and parseint make the numbers they always
// made, and refuse one no 64-bit float holds, at once.
func TestNumbersInRange(t *testing.T) {
	cases := []struct {
		fn   function.Function
		args []cty.Value
		want cty.Value // cty.NilVal: refused
	}{
		{ToNumberFunc, []cty.Value{cty.StringVal("12.5")}, cty.NumberFloatVal(12.5)},
		{ToNumberFunc, []cty.Value{cty.StringVal("-1e300")}, cty.MustParseNumberVal("-1e300")},
		{ToNumberFunc, []cty.Value{cty.NumberIntVal(3)}, cty.NumberIntVal(3)},
		{ToNumberFunc, []cty.Value{cty.NullVal(cty.String)}, cty.NullVal(cty.Number)},
		{ToNumberFunc, []cty.Value{cty.StringVal("1e10000000")}, cty.NilVal},
		{ToNumberFunc, []cty.Value{cty.StringVal("1e-400")}, cty.NilVal},
		{ToNumberFunc, []cty.Value{cty.StringVal(strings.Repeat("9", 4<<20))}, cty.NilVal},
		{ParseIntFunc, []cty.Value{cty.StringVal("ff"), cty.NumberIntVal(16)}, cty.NumberIntVal(255)},
		{ParseIntFunc, []cty.Value{cty.StringVal("-" + strings.Repeat("0", 1000) + "7"), cty.NumberIntVal(10)}, cty.NumberIntVal(-7)},
		{ParseIntFunc, []cty.Value{cty.StringVal(strings.Repeat("9", 300)), cty.NumberIntVal(10)}, cty.NumberVal(new(big.Float).SetInt(nines300()))},
		{ToNumberFunc, []cty.Value{cty.StringVal("1e99999999999999999999")}, cty.NilVal},
		{ToNumberFunc, []cty.Value{cty.StringVal("1e00000000000000000300")}, cty.MustParseNumberVal("1e300")},
		{ParseIntFunc, []cty.Value{cty.StringVal(strings.Repeat("9", 1<<20)), cty.NumberIntVal(10)}, cty.NilVal},
		{ParseIntFunc, []cty.Value{cty.StringVal(strings.Repeat("1", 1030)), cty.NumberIntVal(2)}, cty.NilVal},
	}
	for i, tc := range cases {
		start := time.Now()
		got, err := tc.fn.Call(tc.args)
		if took := time.Since(start); took > time.Second {
			t.Errorf("%d: took %s", i, took)
		}
		if tc.want == cty.NilVal {
			if err == nil || !strings.Contains(err.Error(), "64-bit number") {
				t.Errorf("%d: %#v, %v; want it refused", i, got, err)
			}
			continue
		}
		if err != nil || !got.RawEquals(tc.want) && !got.Equals(tc.want).True() {
			t.Errorf("%d: %#v, %v; want %#v", i, got, err, tc.want)
		}
	}
}

func nines300() *big.Int {
	n, _ := new(big.Int).SetString(strings.Repeat("9", 300), 10)
	return n
}

// TestUnbudgeted checks which prepared expressions run without a Budget:
// those that call no function and run no loop, which Run then evaluates
// with a nil Budget.
func TestUnbudgeted(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`"hello ${param.name}"`, true},
		{`"${param.a}${param.b} and ${param.c ? "yes" : "no"}"`, true},
		{`param.count + 1`, true},
		{`"hello ${upper(param.name)}"`, false},
		{`join(",", param.list)`, false},
		{`[for s in param.list : s]`, false},
		{`"%{for s in param.list}${s}%{endfor}"`, false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(tc.src), "x.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p := Prepare(e)
			if got := p.Unbudgeted(); got != tc.want {
				t.Fatalf("Unbudgeted() = %v, want %v", got, tc.want)
			}
			if !tc.want {
				return
			}
			ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.ObjectVal(map[string]cty.Value{
				"name": cty.StringVal("world"), "a": cty.StringVal("x"), "b": cty.StringVal("y"), "c": cty.True, "count": cty.NumberIntVal(2),
			})}}
			want, wd := e.Value(ctx)
			got, gd, lerr := p.Run(ctx, nil)
			if lerr != nil || gd.HasErrors() != wd.HasErrors() || !got.RawEquals(want) {
				t.Fatalf("Run with no budget = %#v, %v, %v; want %#v, %v", got, gd, lerr, want, wd)
			}
		})
	}
}
