package host

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	thcl "github.com/toolhost/toolhost/hcl"
)

// expectsStructured reports whether an example's expected result is to be
// compared as JSON values: the tool has no result block, its backend
// answers JSON of its own (adapters.StructuredOutput, as sql's
// {"rows": [...]}, which clients get as structuredContent), and the
// example writes the result as an object or a list rather than as the
// JSON text.
func expectsStructured(t *thcl.Tool, want cty.Value) bool {
	if t.Result != nil || t.OutputSchemaJSON == nil || want.IsNull() || !want.IsKnown() {
		return false
	}
	wt := want.Type()
	return wt.IsObjectType() || wt.IsMapType() || wt.IsTupleType() || wt.IsListType()
}

// compareStructured compares the expected result of such an example with
// the JSON the tool answers for the recorded response, value by value.
func compareStructured(ex *thcl.Example, want cty.Value, body []byte, fail exampleFail) hcl.Diagnostics {
	resultExpr := ex.Result.Expr
	if !json.Valid(body) {
		at := resultExpr.Range()
		if ex.Response != nil {
			at = ex.Response.Expr.Range()
		}
		return fail("Example failed", at, "the tool answers JSON, and the recorded response is not JSON (it begins %s). Record the JSON the tool returns, or write the expected result as its text: result = \"...\".", shorten(fmt.Sprintf("%q", body)))
	}
	wraw, err := ctyjson.Marshal(want, want.Type())
	if err != nil {
		return fail("Invalid example result", resultExpr.Range(), "the expected result cannot be written as JSON: %s.", err)
	}
	var diffs []valueDiff
	diffJSON(nil, decodeJSON(wraw), decodeJSON(body), &diffs)
	return diffDiagnostics(diffs, resultExpr, fail, nil, "Correct the expected value, or the recorded response.")
}

// exampleFail makes the diagnostic of a failed example (see checkExample).
type exampleFail = func(summary string, at hcl.Range, format string, args ...any) hcl.Diagnostics

// diffDiagnostics appends to diags one "Example result mismatch" for each
// of the first maxExampleDiffs differences, placed at the expected value
// it concerns, each ending with fix.
func diffDiagnostics(diffs []valueDiff, resultExpr hcl.Expression, fail exampleFail, diags hcl.Diagnostics, fix string) hcl.Diagnostics {
	for i, d := range diffs {
		if i == maxExampleDiffs {
			diags[len(diags)-1].Detail += fmt.Sprintf(" (%d more differences are not shown.)", len(diffs)-maxExampleDiffs)
			break
		}
		note := d.note
		switch {
		case note != "":
		case len(d.path) == 0:
			note = fmt.Sprintf("the tool returns %s, but the example expects %s", jsonPreview(d.got), jsonPreview(d.want))
		default:
			note = fmt.Sprintf("%s is %s in the result mapped from the response, but the example expects %s", pathString(d.path), jsonPreview(d.got), jsonPreview(d.want))
		}
		diags = append(diags, fail("Example result mismatch", thcl.ExprRangeAt(resultExpr, d.path), "%s. %s", note, fix)...)
	}
	return diags
}
