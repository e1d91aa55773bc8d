package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/suggest"
)

// ExampleReport is what CheckExamples found.
type ExampleReport struct {
	// Run is the number of examples run; Failed how many of them failed.
	Run, Failed int
	// Diagnostics has an error for each problem, pointing at the example.
	Diagnostics hcl.Diagnostics
}

// maxExampleDiffs is how many differences one example reports.
const maxExampleDiffs = 5

// CheckExamples runs the example blocks of every tool of a registry that
// was loaded without errors in the tool's own block (so that a mistake
// elsewhere in the config hides no example's failure), offline: the
// arguments are checked with DecodeArgs, the
// tool's result mapping runs on the recorded response with MapResult, and
// the result is compared with the expected one. No request is sent and no
// command runs; a template tool without a recorded response renders its
// template, which does no I/O.
//
// validate runs the examples; serve does not (a stale recording never takes
// tools offline), but it does check their shape when it loads.
func CheckExamples(ctx context.Context, r *Registry) ExampleReport {
	var rep ExampleReport
	if r == nil || r.Config == nil || r.functions == nil {
		return rep
	}
	for _, t := range r.Config.Tools {
		if t.InputSchemaJSON == nil {
			// The tool's block has errors (its schema is compiled only
			// without them): they are reported, and its examples do not
			// run. What can be checked without the tool is: the values
			// of their attributes (a file() outside the config's
			// directory, a file that is not there), so that those show
			// in the same run.
			for _, ex := range t.Examples {
				_, d := ex.Evaluate(r.functions.Functions)
				rep.Diagnostics = append(rep.Diagnostics, d...)
			}
			continue
		}
		for _, ex := range t.Examples {
			rep.Run++
			d := r.checkExample(ctx, t, ex)
			if len(d) > 0 {
				rep.Failed++
				rep.Diagnostics = append(rep.Diagnostics, d...)
			}
		}
	}
	return rep
}

// checkExample runs one example of t as validate does: its arguments and
// answers decoded as a call decodes them, the backend's recorded response
// (or a template's rendering) mapped as a call maps it, and the result or
// error compared with what the example expects. It returns the
// diagnostics of a failure, or none.
//
// It is one function, longer than most, because its checks run in the
// order a call takes and share the helpers fail, rangeOf and expectErr,
// which word every failure the same way: split, each step would take them
// all.
func (r *Registry) checkExample(ctx context.Context, t *thcl.Tool, ex *thcl.Example) hcl.Diagnostics {
	vals, diags := ex.Evaluate(r.functions.Functions)
	if diags.HasErrors() {
		return diags
	}
	fail := func(summary string, at hcl.Range, format string, args ...any) hcl.Diagnostics {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  summary,
			Detail:   fmt.Sprintf("Example %q of tool %q: ", ex.Name, t.Name) + fmt.Sprintf(format, args...),
			Subject:  at.Ptr(),
		}}
	}
	rangeOf := func(a *hcl.Attribute) hcl.Range {
		if a == nil {
			return ex.DeclRange
		}
		return a.Expr.Range()
	}
	// expectErr handles a failure of the call: it is what the example
	// expects, or a diagnostic.
	expectErr := func(err error, summary string, at hcl.Range, fix string) hcl.Diagnostics {
		if vals.Error == nil {
			return fail(summary, at, "%s. %s", strings.TrimSuffix(err.Error(), "."), fix)
		}
		if strings.Contains(err.Error(), *vals.Error) {
			return nil
		}
		return fail("Example error mismatch", rangeOf(ex.Error), "the tool fails with %q, which does not contain %q. Correct the expected text.", err.Error(), *vals.Error)
	}

	params, err := DecodeArgs(t, vals.Args)
	if err != nil {
		at, fix := rangeOf(ex.Args), ""
		var ae *ArgumentError
		if errors.As(err, &ae) && ae.Param != "" && ex.Args != nil {
			if kr, ok := thcl.ExprKeyRange(ex.Args.Expr, ae.Param); ok && !isParam(t, ae.Param) {
				at = kr // the message suggests the closest name
			} else {
				at = thcl.ExprRangeAt(ex.Args.Expr, append([]thcl.PathStep{ae.Param}, argPathSteps(ae.Path)...))
			}
		}
		return expectErr(err, "Invalid example arguments", at,
			fix+"The tool refuses these arguments before anything runs; correct args, or expect the refusal with error = \"...\".")
	}
	switch {
	case len(t.Claims) > 0 && ex.Claims == nil:
		return fail("Missing claims", ex.DeclRange, "The tool reads claims of the caller's token (claim(%q)), so an example says what they are: add claims = { %s = ... }.", t.Claims[0], t.Claims[0])
	case len(t.Claims) == 0 && ex.Claims != nil:
		return fail("Claims without claim()", ex.Claims.NameRange, "The tool reads no claim of the caller's token, so the example's claims are not used: remove claims.")
	}
	eval, err := r.exampleEval(ctx, t, vals.Claims, params)
	if err != nil {
		return expectErr(err, "Example refused", rangeOf(ex.Claims), "The tool refuses these claims before anything runs; correct claims, or expect the refusal with error = \"...\".")
	}
	switch {
	case t.Ask != nil && ex.Answers == nil:
		return fail("Missing answers", ex.DeclRange, "The tool asks the user a form (ask) before it runs, so an example says what the user answers: add answers = { %s = ... }.", t.Ask.Fields[0].Name)
	case t.Ask == nil && ex.Answers != nil:
		return fail("Answers without a form", ex.Answers.NameRange, "The tool has no ask block, so nobody is asked anything: remove answers.")
	case t.Ask != nil:
		answers, err := DecodeArgs(&thcl.Tool{Name: t.Name, Params: t.Ask.Fields}, vals.Answers)
		if err != nil {
			return fail("Invalid example answers", ex.Answers.Expr.Range(), "The form refuses these answers (%s); correct answers.", strings.Replace(err.Error(), "argument", "answer", 1))
		}
		eval.Variables["answer"] = answers
	}

	// What the backend refuses by itself before it runs (an exec
	// argument that would start an option) is refused here too, as a
	// call refuses it.
	if ac, ok := t.Backend.(adapters.ArgumentChecker); ok {
		if err := ac.CheckArguments(&adapters.Input{Eval: eval}); err != nil {
			return expectErr(err, "Invalid example arguments", rangeOf(ex.Args),
				"The tool refuses these arguments before anything runs; correct args, or expect the refusal with error = \"...\".")
		}
	}

	var body []byte
	switch {
	case vals.Response != nil:
		body = []byte(*vals.Response)
	case callsOffline(t.Backend):
		// A template renders, and a tool without a backend (its result
		// items have data of their own) has no output: neither does I/O.
		out, err := t.Backend.Call(ctx, &adapters.Input{Eval: eval})
		if err != nil {
			return expectErr(err, "Example failed", ex.DeclRange, "The template does not render for these arguments.")
		}
		body = out.Body
	default:
		if vals.Error != nil && ex.Result == nil {
			return fail("Example error not raised", rangeOf(ex.Error), "the arguments are valid, so the tool would run; validate never sends requests or runs commands, so an error it cannot see needs a recorded response: add response = ... with what the %s backend returned.", t.BackendKind)
		}
		what := "the backend's output"
		if n, ok := t.Backend.(adapters.OutputNamer); ok {
			what = n.OutputName()
		}
		return fail("Missing response", ex.DeclRange, "there is no recorded response, and validate never sends requests or runs commands. Add response = file(\"testdata/%s.json\") (or a heredoc) with %s.", t.Name, what)
	}

	if t.Result == nil || len(t.Result.Fields) == 0 {
		text, err := r.exampleText(t, body, eval)
		if err != nil {
			return expectErr(err, "Example failed", rangeOf(ex.Response),
				"Correct the item's path, or record a response that has it.")
		}
		if vals.Error != nil {
			return fail("Example expected an error", rangeOf(ex.Error), "the tool returns the text %s, but the example expects an error containing %q.", preview([]byte(text), nil), *vals.Error)
		}
		if expectsStructured(t, vals.Result) {
			return compareStructured(ex, vals.Result, body, fail)
		}
		want, err := convert.Convert(vals.Result, cty.String)
		if err != nil || want.IsNull() {
			if t.Result != nil {
				return fail("Invalid example result", rangeOf(ex.Result), "the tool's result block has no fields, so the expected result is a string: the text of its text items, joined by newlines; write result = \"...\", or add a field to the result block.")
			}
			if t.OutputSchemaJSON != nil {
				return fail("Invalid example result", rangeOf(ex.Result), "the tool answers JSON (%s backend), so the expected result is that JSON's value, as in result = { ... }, or its text, as in result = \"...\".", t.BackendKind)
			}
			return fail("Invalid example result", rangeOf(ex.Result), "the tool has no result block, so it returns text and the expected result is a string; write result = \"...\", or add a result block to the tool.")
		}
		if w := want.AsString(); w != text {
			return fail("Example result mismatch", rangeOf(ex.Result), "%s. Correct the expected text.", textDiff(text, w))
		}
		return nil
	}

	got, err := MapResult(t.Result, body, eval)
	if err != nil {
		return expectErr(err, "Example failed", rangeOf(ex.Response),
			"Correct the field's path or type, or record a response that has the field.")
	}
	if vals.Error != nil {
		return fail("Example expected an error", rangeOf(ex.Error), "the tool succeeds with %s, but the example expects an error containing %q.", shorten(string(got)), *vals.Error)
	}
	return compareResult(t, ex, vals.Result, got, fail)
}

// exampleText is the text a tool without result fields returns for body:
// the body itself without a result block, else the text of the result's
// text items, joined by newlines. Other items (images, sounds, resources,
// links) are not made: they may read files and resources that validate
// does not, and a recorded response is text.
func (r *Registry) exampleText(t *thcl.Tool, body []byte, eval *hcl.EvalContext) (string, error) {
	if t.Result == nil {
		return string(body), nil
	}
	out := &adapters.Output{Body: body, MIMEType: "text/plain"}
	var texts []string
	for _, c := range t.Result.Content {
		if c.Kind != thcl.ContentText {
			continue
		}
		text, err := r.itemText(c, eval, out)
		if err != nil {
			return "", err
		}
		texts = append(texts, text)
	}
	return strings.Join(texts, "\n"), nil
}

// argPathStep matches one step of an ArgumentError's Path: "[1]" or
// ".title". It is compiled on first use, not at every start of every
// command (BENCHMARKS.md, "What was changed for speed").
var argPathStep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[(\d+)\]|\.([^.\[]+)`) })

// argPathSteps splits an ArgumentError's Path, such as "[1].title", into
// steps.
func argPathSteps(path string) []thcl.PathStep {
	var steps []thcl.PathStep
	for _, m := range argPathStep().FindAllStringSubmatch(path, -1) {
		if m[1] != "" {
			i, err := strconv.Atoi(m[1])
			if err != nil {
				break
			}
			steps = append(steps, i)
		} else {
			steps = append(steps, m[2])
		}
	}
	return steps
}

func isParam(t *thcl.Tool, name string) bool {
	for _, p := range t.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func paramNames(t *thcl.Tool) []string {
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	return names
}

// compareResult compares the expected result of an example with the result
// the mapping gave, field by field. Results are compared whole: every field
// the mapping returns is listed, and an absent optional field is left out
// or null.
func compareResult(t *thcl.Tool, ex *thcl.Example, want cty.Value, got json.RawMessage, fail func(string, hcl.Range, string, ...any) hcl.Diagnostics) hcl.Diagnostics {
	resultExpr := ex.Result.Expr
	wt := want.Type()
	if want.IsNull() || !(wt.IsObjectType() || wt.IsMapType()) {
		return fail("Invalid example result", resultExpr.Range(), "the expected result is an object of the tool's result fields, as in result = { %s = ... }.", t.Result.Fields[0].Name)
	}
	var gotFields map[string]json.RawMessage
	if err := json.Unmarshal(got, &gotFields); err != nil {
		return fail("Example failed", resultExpr.Range(), "the mapped result is not a JSON object: %s.", err)
	}
	wantFields := map[string]cty.Value{}
	for it := want.ElementIterator(); it.Next(); {
		k, v := it.Element()
		wantFields[k.AsString()] = v
	}
	var diags hcl.Diagnostics
	declared := make([]string, len(t.Result.Fields))
	isField := map[string]bool{}
	for i, f := range t.Result.Fields {
		declared[i] = f.Name
		isField[f.Name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(wantFields)) {
		if isField[k] {
			continue
		}
		at, ok := thcl.ExprKeyRange(resultExpr, k)
		if !ok {
			at = resultExpr.Range()
		}
		diags = append(diags, fail("Unknown field in example result", at, "the tool's result block has no field %q.%s Its fields are %s.", k, suggest.Hint(k, declared), strings.Join(declared, ", "))...)
	}
	var diffs []valueDiff
	for _, f := range t.Result.Fields {
		wv, listed := wantFields[f.Name]
		if listed && wv.IsNull() {
			listed = false
		}
		gv, present := gotFields[f.Name]
		switch {
		case !listed && !present:
			continue
		case listed && !present:
			diffs = append(diffs, valueDiff{path: []thcl.PathStep{f.Name}, note: fmt.Sprintf("%s is absent from the mapped result (its optional path matched nothing), but the example expects %s", f.Name, ctyPreview(wv))})
			continue
		case !listed && present:
			diags = append(diags, fail("Example result mismatch", resultExpr.Range(), "the mapped result has %s = %s, which the expected result does not list. Results are compared whole: add %s = ... to result.", f.Name, shorten(string(gv)), f.Name)...)
			continue
		}
		if m := thcl.FindTypeMismatch(f.Type, wv); m != nil {
			path := append([]thcl.PathStep{f.Name}, m.Path...)
			what := fmt.Sprintf("the expected value of field %q does not fit its type %s", f.Name, f.Type)
			if len(m.Path) > 0 {
				what = fmt.Sprintf("%s does not fit the type of field %q", pathString(path), f.Name)
			}
			diags = append(diags, fail("Invalid example result", thcl.ExprRangeAt(resultExpr, path), "%s: %s. Correct the expected value, or the field's type.", what, m)...)
			continue
		}
		wraw, err := ctyjson.Marshal(wv, wv.Type())
		if err == nil {
			var conv json.RawMessage
			conv, err = ConvertJSON(f.Type, wraw)
			wraw = conv
		}
		if err != nil {
			diags = append(diags, fail("Invalid example result", thcl.ExprRangeAt(resultExpr, []thcl.PathStep{f.Name}), "the expected value of field %q does not fit its type %s: %s.", f.Name, f.Type, err)...)
			continue
		}
		diffJSON([]thcl.PathStep{f.Name}, decodeJSON(wraw), decodeJSON(gv), &diffs)
	}
	return diffDiagnostics(diffs, resultExpr, fail, diags, "Correct the expected value, or the field's path if the mapping is what is wrong.")
}

// valueDiff is one difference between an expected and a mapped value.
type valueDiff struct {
	path      []thcl.PathStep
	want, got any
	note      string // replaces the "is X but expects Y" message when set
}

// decodeJSON decodes JSON keeping numbers exact.
func decodeJSON(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	_ = dec.Decode(&v)
	return v
}

// diffJSON appends the differences between want and got under path.
func diffJSON(path []thcl.PathStep, want, got any, out *[]valueDiff) {
	at := func(step thcl.PathStep) []thcl.PathStep {
		return append(append([]thcl.PathStep(nil), path...), step)
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case inW && !inG:
				*out = append(*out, valueDiff{path: at(k), note: fmt.Sprintf("%s is absent from the mapped result, but the example expects %s", pathString(at(k)), jsonPreview(wv))})
			case !inW && inG:
				*out = append(*out, valueDiff{path: path, note: fmt.Sprintf("%s is %s in the mapped result, and the example does not list it", pathString(at(k)), jsonPreview(gv))})
			default:
				diffJSON(at(k), wv, gv, out)
			}
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		n := min(len(w), len(g))
		for i := 0; i < n; i++ {
			diffJSON(at(i), w[i], g[i], out)
		}
		if len(w) != len(g) {
			extra := "the mapped result's extra items begin with " + jsonPreview(g[n:])
			if len(w) > len(g) {
				extra = "the example's extra items begin with " + jsonPreview(w[n:])
			}
			*out = append(*out, valueDiff{path: path, note: fmt.Sprintf("%s has %s in the mapped result, but the example expects %d; %s", pathString(path), items(len(g)), len(w), extra)})
		}
		return
	case json.Number:
		if g, ok := got.(json.Number); ok && numbersEqual(w, g) {
			return
		}
	default:
		if fmt.Sprintf("%T", want) == fmt.Sprintf("%T", got) && want == got {
			return
		}
	}
	*out = append(*out, valueDiff{path: path, want: want, got: got})
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

func numbersEqual(a, b json.Number) bool {
	x, _, errA := big.ParseFloat(string(a), 10, 256, big.ToNearestEven)
	y, _, errB := big.ParseFloat(string(b), 10, 256, big.ToNearestEven)
	return errA == nil && errB == nil && x.Cmp(y) == 0
}

// pathString renders a path as topics[1].title.
func pathString(path []thcl.PathStep) string {
	var b strings.Builder
	for i, step := range path {
		switch s := step.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		case string:
			switch {
			case hclsyntax.ValidIdentifier(s) && i == 0:
				b.WriteString(s)
			case hclsyntax.ValidIdentifier(s):
				b.WriteString("." + s)
			default:
				fmt.Fprintf(&b, "[%q]", s)
			}
		}
	}
	return b.String()
}

// jsonPreview renders a decoded JSON value compactly, shortened.
func jsonPreview(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return shorten(string(b))
}

func ctyPreview(v cty.Value) string {
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return v.GoString()
	}
	return shorten(string(b))
}

func shorten(s string) string {
	if r := []rune(s); len(r) > shortenMax {
		return string(r[:shortenMax]) + "..."
	}
	return s
}

// shortenMax is how many characters of a value shorten keeps.
const shortenMax = 200

// textDiff describes where two texts first differ.
func textDiff(got, want string) string {
	g, w := []rune(got), []rune(want)
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	line := 1 + strings.Count(string(g[:i]), "\n")
	tail := func(r []rune) string {
		end := min(len(r), i+40)
		s := string(r[i:end])
		if end < len(r) {
			s += "..."
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("the tool returns %s, but the example expects %s; they differ at character %d (line %d): %s here, %s expected",
		shorten(fmt.Sprintf("%q", got)), shorten(fmt.Sprintf("%q", want)), i+1, line, tail(g), tail(w))
}

// callsOffline reports whether b's calls do no I/O, so that an example may
// run one (adapters.OfflineCaller).
func callsOffline(b adapters.Backend) bool {
	o, ok := b.(adapters.OfflineCaller)
	return ok && o.CallsOffline()
}
