package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
// value, case-insensitively, exact-case matches first. A prompt or a
// resource template the config does not declare is an invalid-params error,
// as the spec asks; an argument without candidates gets no values.
func (r *Registry) Complete(ref *mcp.CompleteReference, arg, value string) (*mcp.CompleteResult, error) {
	return r.complete(view{}, ref, arg, value)
}

// complete is Complete for a request of v, whose errors list only the
// prompts and templates v sees.
func (r *Registry) complete(v view, ref *mcp.CompleteReference, arg, value string) (*mcp.CompleteResult, error) {
	var candidates []string
	switch {
	case ref == nil:
	case ref.Type == "ref/prompt":
		p, ok := r.prompts[ref.Name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("there is no prompt %q to complete arguments of; the prompts are: %s", shortName(ref.Name), listOrNone(v.seenNames(r, "prompt")))}
		}
		for _, a := range p.Args {
			if a.Name == arg {
				candidates = append(append(candidates, a.Enum...), a.Completions...)
			}
		}
	case ref.Type == "ref/resource":
		found := false
		var uris []string
		for _, t := range r.templates {
			if v.sees(r, "resource", t.decl.Name, t.decl.Scopes) {
				uris = append(uris, t.decl.URITemplate)
			}
			if t.decl.URITemplate != ref.URI {
				continue
			}
			found = true
			if t.decl.Variable != arg {
				continue
			}
			if len(t.decl.Completions) > 0 {
				candidates = t.decl.Completions
			} else if t.dir == nil {
				continue
			} else if names, err := t.dir.List(maxListedForCompletion); err == nil {
				if !t.decl.Reserved {
					// A file in a subfolder has no URI of this
					// template's form: its "/" would be encoded as %2F,
					// which reads refuse. Offer only what can be read.
					names = slices.DeleteFunc(names, func(n string) bool { return strings.Contains(n, "/") })
				}
				candidates = names
			}
		}
		if !found {
			slices.Sort(uris)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("there is no resource template %q to complete; the templates are: %s", shortURI(ref.URI), listOrNone(uris))}
		}
	}
	return &mcp.CompleteResult{Completion: rankCompletions(candidates, value)}, nil
}

// listOrNone joins names for a message, or says there are none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
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
