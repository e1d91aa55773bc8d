package host

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCompletions is the most values a completion/complete result carries,
// as the spec allows.
const maxCompletions = 100

// maxListedForCompletion caps how many file names of a resource template's
// directory are read to complete its variable.
const maxListedForCompletion = 5000

// Complete answers completion/complete: values for a prompt argument (from
// its enum or completions) or a resource template's variable (from its
// completions, or else the names of its directory's files) that start with
// value, case-insensitively, exact-case matches first. Unknown references
// get no values, not an error: a client completing as the user types
// should not show errors.
func (r *Registry) Complete(ref *mcp.CompleteReference, arg, value string) *mcp.CompleteResult {
	var candidates []string
	switch {
	case ref == nil:
	case ref.Type == "ref/prompt":
		if p, ok := r.prompts[ref.Name]; ok {
			for _, a := range p.Args {
				if a.Name == arg {
					candidates = append(append(candidates, a.Enum...), a.Completions...)
				}
			}
		}
	case ref.Type == "ref/resource":
		for _, t := range r.templates {
			if t.decl.URITemplate != ref.URI || t.decl.Variable != arg {
				continue
			}
			if len(t.decl.Completions) > 0 {
				candidates = t.decl.Completions
			} else if t.dir == nil {
				continue
			} else if names, err := t.dir.List(maxListedForCompletion); err == nil {
				candidates = names
			}
		}
	}
	return &mcp.CompleteResult{Completion: rankCompletions(candidates, value)}
}

// rankCompletions keeps the candidates that start with value (ignoring
// case), without duplicates: those that match in case first, then in the
// order given; at most maxCompletions of them.
func rankCompletions(candidates []string, value string) mcp.CompletionResultDetails {
	lower := strings.ToLower(value)
	seen := map[string]bool{}
	var exact, folded []string
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		switch {
		case strings.HasPrefix(c, value):
			exact = append(exact, c)
		case strings.HasPrefix(strings.ToLower(c), lower):
			folded = append(folded, c)
		}
	}
	values := append(exact, folded...)
	d := mcp.CompletionResultDetails{Values: values, Total: len(values)}
	if len(values) > maxCompletions {
		d.Values, d.HasMore = values[:maxCompletions], true
	}
	if d.Values == nil {
		d.Values = []string{}
	}
	return d
}
