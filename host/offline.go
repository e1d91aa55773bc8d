package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
)

// OfflineMetaKey is the _meta key of every result a tool answered from one
// of its examples because toolhost runs offline (serve --offline, call
// --offline). Its value is an object: "example", the example's name, and
// "argumentsMatched", false when no example has the call's arguments and
// the tool's first example answered. A client tells recorded data from
// live data by it.
const OfflineMetaKey = "io.github.toolhost/offline"

// offlineExample is an example a tool answers from offline: one with a
// recorded response, and its arguments decoded as a call's are.
type offlineExample struct {
	ex     *thcl.Example
	params cty.Value
}

// OfflineSummary says how the tools of a registry loaded offline answer.
type OfflineSummary struct {
	// Examples are the tools that answer from their examples, in config
	// order; Missing are those of them that have no example with a
	// recorded response, whose calls fail. Run are the tools that run
	// as always (exec, template, and tools that say offline = "run").
	Examples, Missing, Run []string
}

// Offline reports whether r was loaded offline (thcl.Options.Offline),
// and how its tools answer then.
func (r *Registry) Offline() (OfflineSummary, bool) {
	var s OfflineSummary
	if r.offline == nil {
		return s, false
	}
	for _, t := range r.Config.Tools {
		if _, ok := r.tools[t.Name]; !ok {
			continue
		}
		examples, ok := r.offline[t.Name]
		switch {
		case !ok:
			s.Run = append(s.Run, t.Name)
		case len(examples) == 0:
			s.Examples = append(s.Examples, t.Name)
			s.Missing = append(s.Missing, t.Name)
		default:
			s.Examples = append(s.Examples, t.Name)
		}
	}
	return s, true
}

// OfflineExamples names the examples tool answers from offline, in the
// order they are matched; ok is false when the registry was not loaded
// offline, or the tool runs its backend.
func (r *Registry) OfflineExamples(tool string) (names []string, ok bool) {
	examples, ok := r.offline[tool]
	for _, e := range examples {
		names = append(names, e.ex.Name)
	}
	return names, ok
}

// prepareOffline sets r up to serve offline: for each tool that answers
// from its examples (thcl.OfflineExample), the examples with a recorded
// response, their arguments decoded as a call's are. An example whose
// values cannot be evaluated (a response file that is missing) is left
// out, with a warning: validate reports it as an error, and the tool may
// still answer from its other examples. Responses are read again when a
// call needs one, so that a large one is not held for the life of the
// registry.
func (r *Registry) prepareOffline() hcl.Diagnostics {
	r.offline = map[string][]offlineExample{}
	var diags hcl.Diagnostics
	for _, t := range r.Config.Tools {
		if _, ok := r.tools[t.Name]; !ok || t.Offline != thcl.OfflineExample {
			continue
		}
		usable := []offlineExample{}
		for _, ex := range t.Examples {
			if ex.Response == nil {
				continue // it records no answer: a refusal, or an example of a template
			}
			vals, d := ex.Evaluate(r.functions.Functions)
			if d.HasErrors() {
				for _, dg := range d {
					w := *dg
					w.Severity = hcl.DiagWarning
					w.Detail = strings.TrimSpace(w.Detail + fmt.Sprintf(" With --offline, the tool %q does not answer from the example %q until this is fixed.", t.Name, ex.Name))
					diags = append(diags, &w)
				}
				continue
			}
			params, err := DecodeArgs(t, vals.Args)
			if err != nil {
				continue // a call with these arguments is refused before it runs; validate says so
			}
			usable = append(usable, offlineExample{ex: ex, params: params})
		}
		r.offline[t.Name] = usable
	}
	return diags
}

// answerOffline answers a call of t from one of its examples when r was
// loaded offline and t answers so; ok is false when t runs its backend.
// The example is the first whose arguments are the call's, compared
// after defaults, as the call and the example decode them (every
// parameter equal, an absent optional one null in both); else the
// tool's first example with a recorded response. Its response goes
// through the tool's result mapping with the call's arguments, as a live
// response does, and the result is marked with OfflineMetaKey.
func (r *Registry) answerOffline(ctx context.Context, t *thcl.Tool, eval *hcl.EvalContext) (res *mcp.CallToolResult, ok bool) {
	examples, ok := r.offline[t.Name]
	if !ok {
		return nil, false
	}
	if len(examples) == 0 {
		return toolError(noExampleMessage(t)), true
	}
	chosen, matched := examples[0], false
	for _, e := range examples {
		if sameExampleArgs(e.params, eval.Variables["param"]) {
			chosen, matched = e, true
			break
		}
	}
	// The response is read in a slot, as a backend runs: at most
	// max_concurrent_calls of them are held at once.
	if res := r.takeSlot(ctx, t.Name, nil); res != nil {
		return res, true
	}
	vals, d := chosen.ex.Evaluate(r.functions.Functions)
	r.releaseSlot(ctx)
	if d.HasErrors() || vals.Response == nil {
		return toolError(fmt.Sprintf("toolhost runs offline, and the recorded response of the example %q of the tool %q cannot be read: %s. Correct the example (toolhost validate checks it), or run toolhost without --offline.",
			chosen.ex.Name, t.Name, strings.TrimSuffix(thcl.FormatDiagnostics(d), "\n"))), true
	}
	out := &adapters.Output{Body: []byte(*vals.Response), MIMEType: "text/plain"}
	if gjson.Valid(*vals.Response) {
		out.MIMEType = "application/json"
	}
	res = r.shapeOutput(ctx, t, eval, out)
	res.Meta = mcp.Meta{OfflineMetaKey: map[string]any{"example": chosen.ex.Name, "argumentsMatched": matched}}
	return res, true
}

// noExampleMessage is the error of a call of t, which answers from its
// examples offline, when it has none with a recorded response.
func noExampleMessage(t *thcl.Tool) string {
	what := "the backend's output"
	if n, ok := t.Backend.(adapters.OutputNamer); ok {
		what = n.OutputName()
	}
	has := "has no example block"
	if len(t.Examples) > 0 {
		has = "has no example block with a recorded response"
	}
	return fmt.Sprintf("toolhost runs offline (--offline), so the tool %q answers from the recorded responses of its examples instead of calling its %s backend, and it %s. Add one to the tool, as in example \"recorded\" { args = { ... }, response = file(\"testdata/%s.json\"), result = ... } with %s, or run toolhost without --offline.",
		t.Name, t.BackendKind, has, t.Name, what)
}

// sameExampleArgs reports whether two decoded argument objects of one tool are
// equal: every parameter, numbers by value.
func sameExampleArgs(a, b cty.Value) bool {
	eq := a.Equals(b)
	eq, _ = eq.Unmark()
	return eq.IsKnown() && !eq.IsNull() && eq.True()
}

// offlineRead refuses, when r was loaded offline, to read the resource uri
// from b when b calls the network: a resource has no examples to answer
// from, and offline nothing is sent.
func (r *Registry) offlineRead(uri string, b adapters.Backend) error {
	if r.offline == nil {
		return nil
	}
	if n, ok := b.(adapters.NetworkCaller); !ok || !n.CallsNetwork() {
		return nil
	}
	return fmt.Errorf("reading %s: toolhost runs offline (--offline), and this resource is read over the network, which it does not do then (a resource has no recorded examples to answer from); run toolhost without --offline to read it", uri)
}
