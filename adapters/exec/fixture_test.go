package exec

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/toolhost/toolhost/adapters"
)

// fixture declares a tool's parameters for compiling and calling exec
// blocks in tests.
type fixture struct {
	params  map[string]cty.Type
	info    map[string]adapters.ParamInfo
	baseDir string
	// answers are the fields of the tool's ask form, if it has one.
	answers map[string]cty.Type
}

var testFuncs = map[string]function.Function{
	"concat":     stdlib.ConcatFunc,
	"upper":      stdlib.UpperFunc,
	"format":     stdlib.FormatFunc,
	"jsonencode": stdlib.JSONEncodeFunc,
	// The functions that build lists, for the script checks.
	"flatten":      stdlib.FlattenFunc,
	"slice":        stdlib.SliceFunc,
	"reverse":      stdlib.ReverseListFunc,
	"split":        stdlib.SplitFunc,
	"formatlist":   stdlib.FormatListFunc,
	"values":       stdlib.ValuesFunc,
	"compact":      stdlib.CompactFunc,
	"coalescelist": stdlib.CoalesceListFunc,
	"element":      stdlib.ElementFunc,
	"join":         stdlib.JoinFunc,
	"replace":      stdlib.ReplaceFunc,
	"tostring":     stdlib.MakeToFunc(cty.String),
	// The functions that lose the marks of the script checks.
	"try":       tryfunc.TryFunc,
	"lookup":    stdlib.LookupFunc,
	"keys":      stdlib.KeysFunc,
	"trimspace": stdlib.TrimSpaceFunc,
	"coalesce":  stdlib.CoalesceFunc,
	// Functions that compute a program's name at load.
	"strrev": stdlib.ReverseFunc,
	"base64decode": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "text", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := base64.StdEncoding.DecodeString(args[0].AsString())
			return cty.StringVal(string(b)), err
		},
	}),
	// sensitive is the config's sensitive(VALUE): the value unchanged.
	"sensitive": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "value", Type: cty.String, AllowNull: true}},
		Type:   function.StaticReturnType(cty.String),
		Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
	}),
}

// defaultFixture has the parameters most tests use.
func defaultFixture() fixture {
	return fixture{
		params: map[string]cty.Type{
			"text":    cty.String,
			"path":    cty.String,
			"n":       cty.Number,
			"flag":    cty.Bool,
			"a":       cty.String,
			"b":       cty.String,
			"opt":     cty.String,
			"pidfile": cty.String,
			"files":   cty.List(cty.String),
		},
		info: map[string]adapters.ParamInfo{},
	}
}

// blockSource wraps body in an exec block.
func blockSource(body string) string {
	return "exec {\n" + body + "\n}\n"
}

// compile parses src (a whole exec block) and compiles it.
func (f fixture) compile(t testing.TB, src string) (*Exec, hcl.Diagnostics) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parsing test config: %s", diags.Error())
	}
	var block *hcl.Block
	for _, b := range file.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "exec" {
			block = b.AsHCLBlock()
		}
	}
	if block == nil {
		t.Fatalf("no exec block in test config")
	}
	params := map[string]adapters.ParamInfo{}
	for name := range f.params {
		params[name] = f.info[name]
	}
	kind, ok := adapters.Lookup("exec")
	if !ok {
		t.Fatalf("exec kind is not registered")
	}
	cc := &adapters.CompileContext{
		BaseDir:  f.baseDir,
		ToolName: "test_tool",
		Params:   params,
		Eval: &hcl.EvalContext{
			Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.Object(f.params))},
			Functions: testFuncs,
		},
	}
	if f.answers != nil {
		cc.Eval.Variables["answer"] = cty.UnknownVal(cty.Object(f.answers))
	}
	b, diags := kind.Compile(block, cc)
	if diags.HasErrors() {
		return nil, diags
	}
	e, ok := b.(*Exec)
	if !ok {
		t.Fatalf("compile returned %T, want *Exec", b)
	}
	return e, diags
}

// mustCompile compiles body and fails the test on any diagnostic.
func (f fixture) mustCompile(t testing.TB, body string) *Exec {
	t.Helper()
	e, diags := f.compile(t, blockSource(body))
	if diags.HasErrors() { // a warning, such as "Program not found", is fine
		t.Fatalf("compile: %s", diags.Error())
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// input builds the call-time evaluation context; parameters not in args
// are null.
func (f fixture) input(args map[string]cty.Value) *adapters.Input {
	attrs := map[string]cty.Value{}
	for name, ty := range f.params {
		if v, ok := args[name]; ok {
			attrs[name] = v
		} else {
			attrs[name] = cty.NullVal(ty)
		}
	}
	return &adapters.Input{Eval: &hcl.EvalContext{
		Variables: map[string]cty.Value{"param": cty.ObjectVal(attrs)},
		Functions: testFuncs,
	}}
}

func (f fixture) call(t *testing.T, ctx context.Context, e *Exec, args map[string]cty.Value) (*adapters.Output, error) {
	t.Helper()
	return e.Call(ctx, f.input(args))
}
