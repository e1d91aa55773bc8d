package hcl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
)

// addChoices lists in an input schema the values a backend takes of its
// parameters (see adapters.ParamChoicer): as the enum of a string
// parameter, or of the items of a list of strings, unless the param
// block has an enum of its own.
func addChoices(s *jsonschema.Schema, b adapters.Backend) {
	pc, ok := b.(adapters.ParamChoicer)
	if !ok {
		return
	}
	for name, choices := range pc.ParamChoices() {
		ps := s.Properties[name]
		if ps == nil {
			continue
		}
		target := ps
		if ps.Type == "array" && ps.Items != nil {
			target = ps.Items
		}
		if target.Type != "string" || len(target.Enum) > 0 {
			continue
		}
		for _, c := range choices {
			target.Enum = append(target.Enum, c)
		}
	}
}

// pathWarnings warns of each result field that is not optional when
// the argument param is a path that may pick any part of the answer.
func pathWarnings(t *Tool, param string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, f := range t.Result.Fields {
		if !f.Optional {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Result field the model may leave out",
				Detail:   fmt.Sprintf("The result field %q is not optional, and the %q argument (the http block's select, with gjson = true) may pick a part of the answer without it, which would fail the call. Add optional = true to the field.", f.Name, param),
				Subject:  f.DeclRange.Ptr(),
			})
		}
	}
	return diags
}

// choiceWarnings warns of each result field that is not optional and
// reads a field among a backend's select choices (see
// adapters.ParamChoicer): a call whose select argument names other fields
// leaves it out of the answer, and the field would then fail the call.
func choiceWarnings(t *Tool) hcl.Diagnostics {
	if pp, ok := t.Backend.(adapters.PathPicker); ok && pp.PathParam() != "" && t.Result != nil {
		return pathWarnings(t, pp.PathParam())
	}
	pc, ok := t.Backend.(adapters.ParamChoicer)
	if !ok || t.Result == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for param, choices := range pc.ParamChoices() {
		for _, f := range t.Result.Fields {
			if f.Optional {
				continue
			}
			v, d := f.Path.Value(nil)
			if d.HasErrors() || !v.IsWhollyKnown() || v.IsNull() || v.Type() != cty.String {
				continue
			}
			path := strings.TrimPrefix(v.AsString(), "#.")
			key, _, _ := strings.Cut(path, ".")
			if !slices.Contains(choices, key) {
				continue
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Result field the model may leave out",
				Detail: fmt.Sprintf("The result field %q reads %q, which the answer holds only when the %q argument names it (the http block's select), so a call that picks other fields would fail. Add optional = true to the field.",
					f.Name, key, param),
				Subject: f.DeclRange.Ptr(),
			})
		}
	}
	return diags
}
