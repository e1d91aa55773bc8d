package host

import "fmt"

// TemplateMiss says why a read of uri, which no resource declares, finds
// nothing although a resource template matches it (the template has no
// such file, or refuses the value), in words that end a sentence, and the
// directory the template serves files from ("" for one with a backend);
// why is "" when no template matches uri, or when the one that does would
// serve it.
func (r *Registry) TemplateMiss(uri string) (why, dir string) {
	if _, ok := r.resources[uri]; ok {
		return "", ""
	}
	for _, t := range r.templates {
		if t.matches(uri) {
			if t.decl.Backend == nil {
				dir = t.decl.Dir
			}
			if why := r.unsubscribable(uri); why != "" {
				return why, dir
			}
			// A file the directory could serve but does not hold (yet):
			// a subscription may wait for it, a read cannot.
			if name, ok := t.name(uri); ok && t.decl.Backend == nil && !t.dir.Has(name) {
				return fmt.Sprintf("resource template %q has no file %s to serve", t.decl.Name, preview([]byte(name), nil)), dir
			}
			return "", ""
		}
	}
	return "", ""
}
