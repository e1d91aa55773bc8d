package hcl

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/suggest"
)

// What a tool does when toolhost runs offline (serve --offline, call
// --offline), the values of its offline attribute.
const (
	// OfflineExample answers the tool's calls from its example blocks'
	// recorded responses: the backend is never called. The default of
	// a backend that calls the network (http).
	OfflineExample = "example"
	// OfflineRun runs the backend as always. The default of the others:
	// exec runs a local command, a template renders.
	OfflineRun = "run"
)

// offlineValues are the values of a tool's offline attribute.
var offlineValues = []string{OfflineExample, OfflineRun}

// decodeOffline reads the tool's offline attribute, after its backend is
// compiled, into t.Offline: what the tool does offline. Without it, a
// backend that calls the network (adapters.NetworkCaller) answers from
// its examples and the others run. A backend that does no I/O at all (a
// template, or no backend) always runs, so the attribute is refused on
// it rather than ignored.
func (t *Tool) decodeOffline(attrs hcl.Attributes, static *hcl.EvalContext) hcl.Diagnostics {
	t.Offline = OfflineRun
	if n, ok := t.Backend.(adapters.NetworkCaller); ok && n.CallsNetwork() {
		t.Offline = OfflineExample
	}
	a, ok := attrs["offline"]
	if !ok {
		return nil
	}
	var v string
	diags := stringAttr(attrs, "offline", static, &v)
	if diags.HasErrors() {
		return diags
	}
	if v != OfflineExample && v != OfflineRun {
		detail := fmt.Sprintf("offline says what the tool does when toolhost runs with --offline: %q answers from the recorded responses of its example blocks, %q runs the backend as always. %q is neither.", OfflineExample, OfflineRun, v)
		return hcl.Diagnostics{rangeDiag(a, "Invalid offline", detail+suggest.Hint(v, offlineValues))}
	}
	if o, ok := t.Backend.(adapters.OfflineCaller); ok && o.CallsOffline() {
		why := fmt.Sprintf("its %s backend does no I/O", t.BackendKind)
		if t.BackendKind == "none" {
			why = "it has no backend"
		}
		return hcl.Diagnostics{rangeDiag(a, "offline on a tool that does no I/O",
			fmt.Sprintf("The tool %q calls no network and runs no command (%s), so it runs the same with --offline: remove offline.", t.Name, why))}
	}
	t.Offline = v
	if v == OfflineExample && !slices.ContainsFunc(t.Examples, func(ex *Example) bool { return ex.Response != nil }) {
		d := rangeDiag(a, "offline = \"example\" with no recorded response",
			fmt.Sprintf("The tool %q answers from the recorded responses of its example blocks when toolhost runs with --offline, and none of its examples has a response, so its calls then fail. Add one, as in example \"recorded\" { args = { ... }, response = file(\"testdata/%s.json\"), result = ... }, or remove offline to run the backend.", t.Name, t.Name))
		d.Severity = hcl.DiagWarning
		return hcl.Diagnostics{d}
	}
	return nil
}
