package host

// removesDeclarations reports whether serving next in place of cur would
// take away a tool, resource, resource template or prompt that cur
// serves. The watcher holds such a reload back as it holds one with
// errors (see FailureQuiet): a file cut short at a block's end by a
// writer that paused parses, and would take the rest of the config's
// tools away until its next write.
func removesDeclarations(cur, next *Registry) bool {
	if cur == nil || cur.Placeholder() {
		return false
	}
	for _, t := range cur.Tools {
		if _, ok := next.tools[t.Name]; !ok {
			return true
		}
	}
	for _, res := range cur.Resources {
		if _, ok := next.resources[res.URI]; !ok {
			return true
		}
	}
	for _, p := range cur.Prompts {
		if _, ok := next.prompts[p.Name]; !ok {
			return true
		}
	}
	if len(next.Templates) < len(cur.Templates) {
		return true
	}
	have := make(map[string]bool, len(next.Templates))
	for _, rt := range next.Templates {
		have[rt.URITemplate] = true
	}
	for _, rt := range cur.Templates {
		if !have[rt.URITemplate] {
			return true
		}
	}
	return false
}
