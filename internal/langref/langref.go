// Package langref writes the language reference (docs/reference.md) and
// the language's description for editor tooling (docs/language.json) from
// the decoder's own schemas (hcl.Language, which takes the backends'
// blocks from their adapters.Describer) and the texts kept beside them
// (hcl/refdoc, adapters/*/refdoc). Its test fails when the files in docs/
// are stale; `go generate ./internal/langref` (or `go run
// ./internal/langref/cmd`) writes them again.
package langref

//go:generate go run ./cmd -root ../..

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	_ "github.com/toolhost/toolhost/adapters/all" // every backend's block
	"github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/langdoc"
)

// Regenerate is the command that writes the files again, as their
// headers and the staleness test say it.
const Regenerate = "go generate ./internal/langref"

// The files written, relative to the repository's root.
const (
	ReferenceFile = "docs/reference.md"
	JSONFile      = "docs/language.json"
)

// Language is the language as the files describe it: its blocks, in the
// order the reference shows them, and its functions, sorted by name.
type Language struct {
	Root      *langdoc.Block
	Blocks    []*langdoc.Block
	Functions []Function
	// FunctionsIntro is the prose before the functions.
	FunctionsIntro string
}

// Function is one function of the language.
type Function struct {
	Name string
	// Params are the parameters, and Variadic the parameter that takes
	// any number of values (nil when none).
	Params   []Param
	Variadic *Param
	// Returns is the type of the result, "any" when it depends on the
	// arguments.
	Returns string
	// Description is the function's own description and what toolhost's
	// text adds to it.
	Description string
}

// Param is one parameter of a function.
type Param struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Signature is the function as it is called: name(param type, ...).
func (f Function) Signature() string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Name+" "+p.Type)
	}
	if f.Variadic != nil {
		ps = append(ps, f.Variadic.Name+"... "+f.Variadic.Type)
	}
	return fmt.Sprintf("%s(%s) %s", f.Name, strings.Join(ps, ", "), f.Returns)
}

// Load reads the language from the decoder and its texts. It fails when
// they disagree (langdoc.Check, and a function without a description, or
// a text of a function that does not exist), naming each place to fix.
func Load() (*Language, error) {
	l := &Language{Root: hcl.Language()}
	errs := langdoc.Check(l.Root)
	seen := map[*langdoc.Block]bool{l.Root: true}
	var walk func(b *langdoc.Block)
	walk = func(b *langdoc.Block) {
		for _, n := range b.Nested {
			if seen[n] {
				continue
			}
			seen[n] = true
			l.Blocks = append(l.Blocks, n)
			walk(n)
		}
	}
	walk(l.Root)

	fns := hcl.Functions(nil)
	text := hcl.FunctionDocs()
	l.FunctionsIntro = text.Summary + "\n\n" + text.Intro
	for _, a := range text.Attrs {
		if _, ok := fns[a.Name]; !ok {
			errs = append(errs, fmt.Errorf("%s: the function %q is documented but the language has no such function: remove its entry", text.File, a.Name))
		}
	}
	names := slices.Sorted(maps.Keys(fns))
	for _, name := range names {
		f := describeFunction(name, fns[name])
		var parts []string
		if d := strings.TrimSpace(strings.ReplaceAll(fns[name].Description(), `\"`, `"`)); d != "" {
			parts = append(parts, d)
		}
		if a := text.Attr(name); a != nil && a.Description != "" {
			parts = append(parts, a.Description)
		}
		if len(parts) == 0 {
			errs = append(errs, fmt.Errorf("%s: the function %q has no description: add an \"@func %s\" entry", text.File, name, name))
		}
		f.Description = strings.Join(parts, "\n\n")
		l.Functions = append(l.Functions, f)
	}
	if len(errs) > 0 {
		var b strings.Builder
		for _, e := range errs {
			b.WriteString("\n  " + e.Error())
		}
		return nil, fmt.Errorf("the language's texts and the decoder disagree:%s", b.String())
	}
	return l, nil
}

// describeFunction is the signature of the function name.
func describeFunction(name string, fn function.Function) Function {
	f := Function{Name: name, Returns: "any"}
	var types []cty.Type
	for _, p := range fn.Params() {
		f.Params = append(f.Params, Param{Name: p.Name, Type: typeName(p.Type)})
		types = append(types, p.Type)
	}
	if vp := fn.VarParam(); vp != nil {
		f.Variadic = &Param{Name: vp.Name, Type: typeName(vp.Type)}
	}
	if t, ok := returnType(fn, types); ok {
		f.Returns = typeName(t)
	}
	return f
}

// returnType is fn's result type for arguments of the parameters' own
// types, when it is known without the values.
func returnType(fn function.Function, types []cty.Type) (t cty.Type, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	t, err := fn.ReturnType(types)
	return t, err == nil && t != cty.DynamicPseudoType
}

// typeName is t as a config writes it.
func typeName(t cty.Type) string {
	switch {
	case t == cty.DynamicPseudoType:
		return "any"
	case t.IsCapsuleType(): // try's and can's expressions
		return t.FriendlyNameForConstraint()
	}
	return typeexpr.TypeString(t)
}
