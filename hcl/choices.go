package hcl

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolhost/toolhost/adapters"
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
