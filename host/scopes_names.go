package host

import (
	"maps"
	"slices"

	thcl "github.com/toolhost/toolhost/hcl"
)

// seenNames returns, sorted, the names of the tools or prompts (kind
// "tool" or "prompt") of reg that v sees, for the messages that list
// them: a caller is not told the names its lists leave out.
func (v view) seenNames(reg *Registry, kind string) []string {
	if kind == "tool" {
		return seenOf(v, reg, kind, reg.tools, func(t *thcl.Tool) []string { return t.Scopes })
	}
	return seenOf(v, reg, kind, reg.prompts, func(p *thcl.Prompt) []string { return p.Scopes })
}

// seenOf is seenNames for the items of one kind, by name, and their scopes.
func seenOf[T any](v view, reg *Registry, kind string, items map[string]T, scopes func(T) []string) []string {
	names := slices.Sorted(maps.Keys(items))
	if !v.filtered(reg) {
		return names
	}
	return slices.DeleteFunc(names, func(n string) bool { return !v.sees(reg, kind, n, scopes(items[n])) })
}
