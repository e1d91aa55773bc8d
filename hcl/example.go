package hcl

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/toolhost/toolhost/internal/attr"
)

// Example is an example block of a tool: arguments, the backend's recorded
// output and the result the tool must give for them. Examples are tests of
// the result mapping that run offline: `toolhost validate` runs them (see
// host.CheckExamples); serve only checks their shape.
//
//	example "three topics" {
//	  args     = { limit = 3 }
//	  response = file("testdata/hotlist.json")   # the HTTP body, or stdout
//	  result   = { updated_at = "...", topics = [ ... ] }
//	}
//
// An example expects either a result (every field the tool returns, exactly)
// or an error (text the tool's error message contains).
type Example struct {
	Name        string
	Description string
	// Args, Response, Result and Error are the attributes, nil when absent.
	// Their expressions are constant: they cannot refer to param.
	Args, Response, Result, Error *hcl.Attribute
	// Answers are the user's answers to the tool's ask form, nil when
	// absent.
	Answers *hcl.Attribute
	// Claims are the claims of the caller's token, for a tool that reads
	// them with claim(); nil when absent.
	Claims *hcl.Attribute
	// BaseDir is the directory of the config file; file() reads below it.
	BaseDir   string
	DeclRange hcl.Range
}

// ExampleValues are an example's attributes, evaluated.
type ExampleValues struct {
	// Args are the arguments as a JSON object ("{}" when absent).
	Args json.RawMessage
	// Answers are the answers to the tool's ask form as a JSON object;
	// nil when absent.
	Answers json.RawMessage
	// Claims are the caller's claims as a JSON object; nil when absent.
	Claims json.RawMessage
	// Response is the recorded output; nil when absent.
	Response *string
	// Result is the expected result; cty.NilVal when absent.
	Result cty.Value
	// Error is the text the expected error contains; nil when absent.
	Error *string
}

var exampleBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "description"},
		{Name: "args"},
		{Name: "answers"},
		{Name: "claims"},
		{Name: "response"},
		{Name: "result"},
		{Name: "error"},
	},
}

// decodeExample decodes an example block of a tool. prev are the tool's
// examples so far, for duplicate names. Nothing is evaluated: a recorded
// response may live in a file that only validate needs.
func decodeExample(block *hcl.Block, baseDir string, prev []*Example) (*Example, hcl.Diagnostics) {
	e := &Example{Name: block.Labels[0], BaseDir: baseDir, DeclRange: block.DefRange}
	var diags hcl.Diagnostics
	for _, p := range prev {
		if p.Name == e.Name {
			diags = append(diags, duplicate("example", e.Name, block.DefRange, p.DeclRange, uniqueIn("example", "a tool")))
			break
		}
	}
	content, d := block.Body.Content(exampleBlockSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	e.Args, e.Response, e.Result, e.Error = attrs["args"], attrs["response"], attrs["result"], attrs["error"]
	e.Answers, e.Claims = attrs["answers"], attrs["claims"]
	for _, a := range attrs {
		if vars := a.Expr.Variables(); len(vars) > 0 {
			diags = append(diags, attr.NotConstantError(vars[0].SourceRange(),
				fmt.Sprintf("An example's %s is a fixed value, so it cannot refer to %s. Write the value itself, as in args = { limit = 3 }.", a.Name, vars[0].RootName())))
		}
	}
	if a, ok := attrs["description"]; ok && len(a.Expr.Variables()) == 0 {
		v, d := a.Expr.Value(nil)
		if !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			e.Description = v.AsString()
		} else {
			diags = append(diags, rangeDiag(a, "Invalid description", "An example's description is a string, such as description = \"the hottest three topics\"."))
		}
	}
	switch {
	case e.Result != nil && e.Error != nil:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Conflicting expectations",
			Detail:   fmt.Sprintf("The example %q expects both a result and an error. Keep result to check a successful call, or error to check a refused one.", e.Name),
			Subject:  e.Error.NameRange.Ptr(),
		})
	case e.Result == nil && e.Error == nil && !d.HasErrors():
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing expectation",
			Detail:   fmt.Sprintf("The example %q says nothing about the outcome. Add result = { ... } with the structured result the tool returns for the response (or the text, for a tool without result fields), or error = \"...\" with text its error message contains.", e.Name),
			Subject:  block.DefRange.Ptr(),
		})
	}
	return e, diags
}

// Evaluate evaluates the example's attributes with functions (the language's
// library) and file(), which reads files below the config file's directory.
func (e *Example) Evaluate(functions map[string]function.Function) (*ExampleValues, hcl.Diagnostics) {
	fns := maps.Clone(functions)
	if fns == nil {
		fns = map[string]function.Function{}
	}
	fns["file"] = fileFunc(e.BaseDir)
	ctx := &hcl.EvalContext{Functions: fns}
	out := &ExampleValues{Args: json.RawMessage("{}")}
	var diags hcl.Diagnostics
	eval := func(a *hcl.Attribute) (cty.Value, bool) {
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			return cty.NilVal, false
		}
		v, _ = v.UnmarkDeep()
		if !v.IsWhollyKnown() {
			diags = append(diags, rangeDiag(a, "Value not known", fmt.Sprintf("The example's %s must be a fixed value.", a.Name)))
			return cty.NilVal, false
		}
		return v, true
	}
	str := func(a *hcl.Attribute, example string) *string {
		v, ok := eval(a)
		if !ok {
			return nil
		}
		s, err := convert.Convert(v, cty.String)
		if err != nil || s.IsNull() {
			diags = append(diags, rangeDiag(a, "Invalid "+a.Name, fmt.Sprintf("An example's %s is a string, such as %s.", a.Name, example)))
			return nil
		}
		r := s.AsString()
		return &r
	}
	object := func(a *hcl.Attribute, what, example string) json.RawMessage {
		v, ok := eval(a)
		if !ok || v.IsNull() {
			return nil
		}
		t := v.Type()
		if !t.IsObjectType() && !t.IsMapType() {
			diags = append(diags, rangeDiag(a, "Invalid "+a.Name, fmt.Sprintf("An example's %s are an object of %s, as in %s.", a.Name, what, example)))
			return nil
		}
		b, err := ctyjson.Marshal(v, t)
		if err != nil {
			diags = append(diags, rangeDiag(a, "Invalid "+a.Name, fmt.Sprintf("The %s cannot be written as JSON: %s.", a.Name, err)))
			return nil
		}
		return b
	}
	if a := e.Args; a != nil {
		if b := object(a, "argument values", `args = { city = "Paris", limit = 3 }`); b != nil {
			out.Args = b
		}
	}
	if a := e.Answers; a != nil {
		out.Answers = object(a, "the user's answers to the form's fields", `answers = { time = "19:30", people = 4 }`)
	}
	if a := e.Claims; a != nil {
		out.Claims = object(a, "the claims of the caller's token", `claims = { email = "ann@example.com", groups = ["ops"] }`)
	}
	if a := e.Response; a != nil {
		out.Response = str(a, `file("testdata/response.json") or a heredoc with the recorded body`)
	}
	if a := e.Error; a != nil {
		out.Error = str(a, `error = "greater than the maximum"`)
	}
	if a := e.Result; a != nil {
		if v, ok := eval(a); ok {
			out.Result = v
		}
	}
	fixFunctionDiags(diags)
	return out, diags
}

// PathStep is one step of a path into a value: a string (an object key) or
// an int (a list index).
type PathStep = any

// ExprRangeAt returns the source range of the part of expr at path, going
// into object and tuple constructors as far as they go, and the range of
// expr itself when it is not one. It is the tightest range for a message
// about a nested value.
func ExprRangeAt(expr hcl.Expression, path []PathStep) hcl.Range {
	rng := expr.Range()
	cur := expr
	for _, step := range path {
		next := childExpr(cur, step)
		if next == nil {
			break
		}
		cur = next
		rng = cur.Range()
	}
	return rng
}

// ExprKeyRange returns the range of the key of the item named key in an
// object constructor expression.
func ExprKeyRange(expr hcl.Expression, key string) (hcl.Range, bool) {
	obj, ok := unwrapExpr(expr).(*hclsyntax.ObjectConsExpr)
	if !ok {
		return hcl.Range{}, false
	}
	for _, item := range obj.Items {
		if objectKey(item.KeyExpr) == key {
			return item.KeyExpr.Range(), true
		}
	}
	return hcl.Range{}, false
}

func childExpr(expr hcl.Expression, step PathStep) hcl.Expression {
	switch e := unwrapExpr(expr).(type) {
	case *hclsyntax.ObjectConsExpr:
		key, ok := step.(string)
		if !ok {
			return nil
		}
		for _, item := range e.Items {
			if objectKey(item.KeyExpr) == key {
				return item.ValueExpr
			}
		}
	case *hclsyntax.TupleConsExpr:
		i, ok := step.(int)
		if ok && i >= 0 && i < len(e.Exprs) {
			return e.Exprs[i]
		}
	}
	return nil
}

// unwrapExpr looks through parentheses.
func unwrapExpr(expr hcl.Expression) hcl.Expression {
	for {
		p, ok := expr.(*hclsyntax.ParenthesesExpr)
		if !ok {
			return expr
		}
		expr = p.Expression
	}
}

// objectKey is the name an object constructor's key stands for: a bare
// word or a constant string; "" otherwise.
func objectKey(expr hcl.Expression) string {
	if k := hcl.ExprAsKeyword(expr); k != "" {
		return k
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}

// TypeMismatch is where a value does not fit a declared type: the innermost
// part of the value that does not, for a message that names it and a caret
// on it (ExprRangeAt with the path).
type TypeMismatch struct {
	// Path leads from the value to the part that does not fit; empty when
	// it is the value itself.
	Path []PathStep
	// Want is what the type takes there, as in "a number"; Got is the part
	// of the value, as JSON, as in "five" with its quotes.
	Want, Got string
}

// String is "expected a number, got \"five\"".
func (m *TypeMismatch) String() string {
	return fmt.Sprintf("expected %s, got %s", m.Want, m.Got)
}

// FindTypeMismatch finds the first part of v, depth first in the order the
// value is written, that does not fit t: a primitive that does not convert
// (a string such as "five" where a number is declared), a fraction where an
// integer is, a list where an object is, a missing attribute that is not
// optional, a null. It returns nil when there is none. It follows the
// conversion rules that results are checked with (numbers and bools convert
// to strings, numeric strings to numbers, extra object attributes are
// dropped), and is meant for expected values written in examples.
func FindTypeMismatch(t *Type, v cty.Value) *TypeMismatch {
	return findMismatch(t, v, nil)
}

func findMismatch(t *Type, v cty.Value, path []PathStep) *TypeMismatch {
	if t == nil || t.Kind == KindAny {
		return nil
	}
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		return nil
	}
	miss := func(want string) *TypeMismatch {
		return &TypeMismatch{Path: path, Want: want, Got: ctyDisplay(v)}
	}
	at := func(step PathStep) []PathStep {
		return append(append([]PathStep(nil), path...), step)
	}
	if v.IsNull() {
		return miss(declTypePhrase(t) + " (null is allowed only for an attribute declared optional(...))")
	}
	vt := v.Type()
	switch t.Kind {
	case KindString, KindNumber, KindInteger, KindBool:
		cv, err := convert.Convert(v, t.Cty())
		if err != nil {
			return miss(declTypePhrase(t))
		}
		if t.Kind == KindInteger && !IntegerValue(cv) {
			return miss(declTypePhrase(t))
		}
		return nil
	case KindList, KindSet, KindTuple:
		if !(vt.IsTupleType() || vt.IsListType() || vt.IsSetType()) {
			return miss(declTypePhrase(t))
		}
		if t.Kind == KindTuple && v.LengthInt() != len(t.Elems) {
			return miss(declTypePhrase(t))
		}
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			et := t.Elem
			if t.Kind == KindTuple {
				et = t.Elems[i]
			}
			if m := findMismatch(et, ev, at(i)); m != nil {
				return m
			}
		}
		return nil
	case KindMap:
		if !(vt.IsObjectType() || vt.IsMapType()) {
			return miss(declTypePhrase(t))
		}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			if m := findMismatch(t.Elem, ev, at(k.AsString())); m != nil {
				return m
			}
		}
		return nil
	case KindObject:
		if !(vt.IsObjectType() || vt.IsMapType()) {
			return miss(declTypePhrase(t))
		}
		has := func(n string) bool {
			if vt.IsObjectType() {
				return vt.HasAttribute(n)
			}
			return v.HasIndex(cty.StringVal(n)).True()
		}
		get := func(n string) cty.Value {
			if vt.IsObjectType() {
				return v.GetAttr(n)
			}
			return v.Index(cty.StringVal(n))
		}
		for _, n := range t.AttrOrder {
			if !has(n) {
				if t.Optional[n] {
					continue
				}
				return &TypeMismatch{Path: path, Want: fmt.Sprintf("%s with the attribute %q", declTypePhrase(t), n), Got: ctyDisplay(v)}
			}
			av := get(n)
			if av.IsNull() && t.Optional[n] {
				continue
			}
			if m := findMismatch(t.Attrs[n], av, at(n)); m != nil {
				return m
			}
		}
		return nil
	}
	return nil
}

// declTypePhrase names what a declared type takes, for "expected ...": "a number", "a
// list of list(string)", "an object ({ title = string })".
func declTypePhrase(t *Type) string {
	switch t.Kind {
	case KindString:
		return "a string"
	case KindNumber:
		return "a number"
	case KindInteger:
		return "a whole number"
	case KindBool:
		return "true or false"
	case KindList, KindSet, KindMap:
		return fmt.Sprintf("%s (%s)", withArticle(map[TypeKind]string{KindList: "list", KindSet: "set", KindMap: "map"}[t.Kind]), t)
	case KindObject:
		return fmt.Sprintf("an object (%s)", t)
	case KindTuple:
		return fmt.Sprintf("a tuple of %d items (%s)", len(t.Elems), t)
	}
	return t.String()
}
