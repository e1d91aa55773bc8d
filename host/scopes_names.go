package host

import (
	"maps"
	"slices"
)

// seenNames returns, sorted, the names of the tools or prompts (kind
// "tool" or "prompt") of reg that v sees, for the messages that list
// them: a caller is not told the names its lists leave out.
func (v view) seenNames(reg *Registry, kind string) []string {
	var names []string
	switch kind {
	case "tool":
		if !v.filtered(reg) {
			return slices.Sorted(maps.Keys(reg.tools))
		}
		for name, t := range reg.tools {
			if v.sees(reg, kind, name, t.Scopes) {
				names = append(names, name)
			}
		}
	case "prompt":
		if !v.filtered(reg) {
			return slices.Sorted(maps.Keys(reg.prompts))
		}
		for name, p := range reg.prompts {
			if v.sees(reg, kind, name, p.Scopes) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}
