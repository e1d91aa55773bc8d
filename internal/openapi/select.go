package openapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/suggest"
)

// DefaultLimit is the most operations Convert imports without a
// selection.
const DefaultLimit = 30

// methods are the HTTP methods of a path item, in the order tools are
// written.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// operation is one operation of the document, with where it is.
type operation struct {
	method, path string
	item         *PathItem
	op           *Operation
}

// pointer is the JSON pointer of the operation in the document.
func (o operation) pointer() string {
	p := strings.NewReplacer("~", "~0", "/", "~1").Replace(o.path)
	return "#/paths/" + p + "/" + strings.ToLower(o.method)
}

// label names the operation in messages: its operationId and route.
func (o operation) label() string {
	if o.op.OperationID != "" {
		return fmt.Sprintf("%s (%s %s)", o.op.OperationID, o.method, o.path)
	}
	return o.method + " " + o.path
}

// operations lists the document's operations, by path then method.
func operations(doc *Document) []operation {
	var out []operation
	if doc.Paths == nil {
		return nil
	}
	paths := doc.Paths
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item := paths[path]
		if item == nil {
			continue
		}
		for _, m := range methods {
			if op := item.GetOperation(m); op != nil {
				out = append(out, operation{method: m, path: path, item: item, op: op})
			}
		}
	}
	return out
}

// TagCount is a tag of the document and how many operations carry it.
type TagCount struct {
	Tag   string
	Count int
}

// SelectionError is Convert's refusal of a large document without a
// selection; Tags lists what to choose from.
type SelectionError struct {
	Source string
	Total  int
	Limit  int
	Tags   []TagCount
}

// Error says why, and what to do.
func (e *SelectionError) Error() string {
	return fmt.Sprintf("%s has %d operations, more than the %d imported without a selection: a model picks better among a few tools chosen for its task. Choose them with --tag TAG (the tags are listed above, with their operation counts) or --operation ID, each repeatable", e.Source, e.Total, e.Limit)
}

// TagList is the tags and their counts, one a line, for stderr.
func (e *SelectionError) TagList() string {
	var b strings.Builder
	width := 0
	for _, t := range e.Tags {
		width = max(width, len(t.Tag))
	}
	for _, t := range e.Tags {
		fmt.Fprintf(&b, "  %-*s %5d\n", width, t.Tag, t.Count)
	}
	return b.String()
}

// untagged is the tag listed for operations without one.
const untagged = "(untagged)"

// selectOps returns the operations that opts selects: those whose
// operationId (or tool name) --operation names, and those with a tag
// --tag names. Without a selection it returns all of them, unless there
// are more than the limit. A name that matches nothing is an error with
// the closest one.
func selectOps(all []operation, opts Options) ([]operation, error) {
	limit := opts.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if len(opts.Tags) == 0 && len(opts.Operations) == 0 {
		if len(all) > limit {
			return nil, &SelectionError{Source: opts.Source, Total: len(all), Limit: limit, Tags: tagCounts(all)}
		}
		return all, nil
	}
	var ids, tags []string
	for _, o := range all {
		if o.op.OperationID != "" {
			ids = append(ids, o.op.OperationID)
		}
		tags = append(tags, o.op.Tags...)
	}
	for _, id := range opts.Operations {
		if !slices.Contains(ids, id) && !slices.ContainsFunc(ids, func(s string) bool { return snake(s) == id }) {
			return nil, fmt.Errorf("%s has no operation with the operationId %q.%s Give one of its operationIds (or the tool name made from it)", opts.Source, id, suggest.Hint(id, ids))
		}
	}
	for _, tag := range opts.Tags {
		if !slices.Contains(tags, tag) {
			return nil, fmt.Errorf("%s has no operation tagged %q.%s Give one of the tags it lists (run without --tag to see them, with their counts, on a large document)", opts.Source, tag, suggest.Hint(tag, tags))
		}
	}
	var out []operation
	for _, o := range all {
		id := o.op.OperationID
		if (id != "" && (slices.Contains(opts.Operations, id) || slices.Contains(opts.Operations, snake(id)))) ||
			slices.ContainsFunc(o.op.Tags, func(t string) bool { return slices.Contains(opts.Tags, t) }) {
			out = append(out, o)
		}
	}
	return out, nil
}

// tagCounts counts the operations of each tag, most first.
func tagCounts(all []operation) []TagCount {
	counts := map[string]int{}
	for _, o := range all {
		if len(o.op.Tags) == 0 {
			counts[untagged]++
		}
		for _, t := range o.op.Tags {
			counts[t]++
		}
	}
	out := make([]TagCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TagCount{t, n})
	}
	slices.SortFunc(out, func(a, b TagCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Tag, b.Tag)
	})
	return out
}
