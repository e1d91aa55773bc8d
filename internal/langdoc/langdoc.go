// Package langdoc holds what the language reference says of a config
// block besides its schema: the types, defaults and descriptions of its
// attributes and the prose around them, written in a small text format
// kept beside each block's decoder (Parse). Block joins that text to the
// decoder's own hcl.BodySchema, so that the reference (internal/langref)
// lists exactly what the decoder accepts; Check says where the two
// disagree. It imports nothing of toolhost, so that hcl and the backends
// can both use it.
package langdoc

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Block is one block type of the language: the decoder's schema of its
// body and the text that documents it.
type Block struct {
	// ID names the block in the reference, unique in it, such as
	// "tool.param" ("http" for a backend's block).
	ID string
	// Type is the block type as written in a config, such as "param".
	Type string
	// Labels are the names of the block's labels, such as ["name"].
	Labels []string
	// Schema is the schema the decoder decodes the block's body with: the
	// very value, not a copy.
	Schema *hcl.BodySchema
	// Extends, when set, is a block whose attributes this one takes too
	// (an ask form's field takes a param's).
	Extends *Block
	// Nested are the blocks of Schema.Blocks, in its order, each with its
	// own schema and text.
	Nested []*Block
	// Backend marks the block of a backend kind: a tool's documentation
	// does not name it, the backend documents itself.
	Backend bool
	// Summary is a one-line description (from the backend kind, for a
	// backend's block; else the text's first line).
	Summary string
	// Doc is the block's text.
	Doc *Doc
}

// Doc is the text of one block (see Parse for its format).
type Doc struct {
	// Summary is the first line: what the block is, in one sentence.
	Summary string
	// Intro is the prose before the attributes.
	Intro string
	// Attrs documents the attributes, in the text's order.
	Attrs []*Attr
	// Blocks says what each nested block is for, by type.
	Blocks map[string]string
	// Notes is the prose after the attributes and nested blocks.
	Notes string
	// File names the text, for messages.
	File string
}

// Attr documents one attribute.
type Attr struct {
	Name string
	// Type is the attribute's type as a config writes it: string, bool,
	// duration, list(string), expression...
	Type string
	// Default is the value an absent attribute has, as written in a config
	// or in words; "" when there is none.
	Default string
	// Required is true when the decoder requires the attribute, by its
	// schema or by a check of its own (Schema says only the first).
	Required bool
	// Description says what the attribute does (Markdown).
	Description string
}

// Attr returns the text of the attribute named name, or nil.
func (d *Doc) Attr(name string) *Attr {
	for _, a := range d.Attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Parse reads a block's text. Its first line is the summary; the prose up
// to the first directive is the intro. A line "@attr NAME | TYPE | DEFAULT"
// starts an attribute, the lines after it its description; DEFAULT is
// "required" for an attribute that must be written, and may be left out
// with its bar. A line "@block TYPE" starts what a nested block is for;
// a line "@notes" starts the prose that comes after the tables. A line
// "@func NAME" starts what a function's text adds to its own description
// (in Attrs, with no type). name
// names the text in errors.
func Parse(name, text string) (*Doc, error) {
	d := &Doc{File: name, Blocks: map[string]string{}}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" || strings.HasPrefix(lines[0], "@") {
		return nil, fmt.Errorf("%s: the first line must be the block's summary", name)
	}
	d.Summary = strings.TrimSpace(lines[0])
	var body []string
	flush := func() string {
		s := strings.TrimSpace(strings.Join(body, "\n"))
		body = body[:0]
		return s
	}
	var set func(string) // where the text being read goes
	set = func(s string) { d.Intro = s }
	for i, line := range lines[1:] {
		if !strings.HasPrefix(line, "@") {
			body = append(body, line)
			continue
		}
		set(flush())
		fields := strings.Fields(line)
		switch {
		case fields[0] == "@attr" && len(fields) >= 2:
			parts := strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "@attr")), "|")
			a := &Attr{Name: strings.TrimSpace(parts[0])}
			if len(parts) > 1 {
				a.Type = strings.TrimSpace(parts[1])
			}
			if len(parts) > 2 {
				a.Default = strings.TrimSpace(strings.Join(parts[2:], "|"))
			}
			if a.Default == "required" {
				a.Default, a.Required = "", true
			}
			if a.Type == "" || strings.ContainsAny(a.Name, " \t") {
				return nil, fmt.Errorf("%s:%d: write an attribute as \"@attr NAME | TYPE | DEFAULT\"", name, i+2)
			}
			if d.Attr(a.Name) != nil {
				return nil, fmt.Errorf("%s:%d: the attribute %q is documented twice", name, i+2, a.Name)
			}
			d.Attrs = append(d.Attrs, a)
			set = func(s string) { a.Description = s }
		case fields[0] == "@func" && len(fields) == 2:
			a := &Attr{Name: fields[1]}
			if d.Attr(a.Name) != nil {
				return nil, fmt.Errorf("%s:%d: the function %q is documented twice", name, i+2, a.Name)
			}
			d.Attrs = append(d.Attrs, a)
			set = func(s string) { a.Description = s }
		case fields[0] == "@block" && len(fields) == 2:
			typ := fields[1]
			if _, dup := d.Blocks[typ]; dup {
				return nil, fmt.Errorf("%s:%d: the block %q is documented twice", name, i+2, typ)
			}
			d.Blocks[typ] = ""
			set = func(s string) { d.Blocks[typ] = s }
		case fields[0] == "@notes" && len(fields) == 1:
			set = func(s string) { d.Notes = s }
		default:
			return nil, fmt.Errorf("%s:%d: %q is not a directive: use @attr, @block, @func or @notes", name, i+2, line)
		}
	}
	set(flush())
	return d, nil
}

// MustParse is Parse for texts embedded in the program, which a test
// parses: an error is a programming error.
func MustParse(name, text string) *Doc {
	d, err := Parse(name, text)
	if err != nil {
		panic(err)
	}
	return d
}

// Check reports where b's text and its schema disagree, for b and every
// block below it: an attribute of the schema without text, text of an
// attribute the schema lacks, a nested block without a line, or a line
// for a nested block the schema lacks. Backend blocks below b are checked
// too, against their backend's texts.
func Check(b *Block) []error {
	var errs []error
	seen := map[*Block]bool{}
	var walk func(b *Block)
	walk = func(b *Block) {
		if seen[b] {
			return
		}
		seen[b] = true
		errs = append(errs, checkOne(b)...)
		for _, n := range b.Nested {
			walk(n)
		}
	}
	walk(b)
	return errs
}

// checkOne is Check of one block.
func checkOne(b *Block) []error {
	var errs []error
	if b.Doc == nil {
		return []error{fmt.Errorf("block %s has no text: write one beside its decoder", b.ID)}
	}
	where := fmt.Sprintf("block %s (%s)", b.ID, b.Doc.File)
	var names []string
	if b.Schema != nil {
		for _, a := range b.Schema.Attributes {
			names = append(names, a.Name)
			if b.Doc.Attr(a.Name) == nil {
				errs = append(errs, fmt.Errorf("%s: the attribute %q is in the decoder's schema but not documented: add an \"@attr %s | TYPE | DEFAULT\" entry", where, a.Name, a.Name))
			}
		}
	}
	for _, a := range b.Doc.Attrs {
		if !slices.Contains(names, a.Name) {
			errs = append(errs, fmt.Errorf("%s: the attribute %q is documented but the decoder's schema has no such attribute: remove its entry", where, a.Name))
		}
	}
	var types []string
	for _, n := range b.Nested {
		types = append(types, n.Type)
		if _, ok := b.Doc.Blocks[n.Type]; !ok && !n.Backend {
			errs = append(errs, fmt.Errorf("%s: the nested block %q is in the decoder's schema but not documented: add an \"@block %s\" entry", where, n.Type, n.Type))
		}
	}
	if b.Schema != nil {
		for _, h := range b.Schema.Blocks {
			if !slices.ContainsFunc(b.Nested, func(n *Block) bool { return n.Type == h.Type }) {
				errs = append(errs, fmt.Errorf("block %s: the nested block %q of the decoder's schema has no description in the language's table of blocks", b.ID, h.Type))
			}
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(b.Doc.Blocks)) {
		if !slices.Contains(types, typ) {
			errs = append(errs, fmt.Errorf("%s: the nested block %q is documented but the decoder's schema has no such block: remove its entry", where, typ))
		}
	}
	return errs
}

// Texts are the texts of some blocks: the files of FS, which is at Dir
// in the repository (named in messages, so that they say which file to
// edit).
type Texts struct {
	FS  fs.FS
	Dir string
}

// Block makes the block id (the part after its last dot is its type),
// with the schema the decoder decodes it with and the text in file (a Doc
// of nil, which Check reports, when there is none). Its nested blocks are
// kids, in the order of the schema's blocks, each given the labels the
// schema names; a kid the schema lacks goes last, for Check to report.
func (t Texts) Block(file, id string, schema *hcl.BodySchema, kids ...*Block) *Block {
	b := &Block{ID: id, Type: id[strings.LastIndex(id, ".")+1:], Schema: schema}
	b.Doc = t.Doc(file)
	if b.Doc != nil {
		b.Summary = b.Doc.Summary
	}
	used := map[*Block]bool{}
	for _, h := range schema.Blocks {
		i := slices.IndexFunc(kids, func(k *Block) bool { return k.Type == h.Type })
		if i >= 0 {
			kids[i].Labels = h.LabelNames
			b.Nested = append(b.Nested, kids[i])
			used[kids[i]] = true
		}
	}
	for _, k := range kids {
		if !used[k] {
			b.Nested = append(b.Nested, k)
		}
	}
	return b
}

// Doc parses the text in file, or returns nil when there is no such
// file. The texts are the program's own (embedded), so that a text that
// does not parse is a programming error, which a test finds: Doc panics.
func (t Texts) Doc(file string) *Doc {
	text, err := fs.ReadFile(t.FS, file)
	if err != nil {
		return nil
	}
	return MustParse(path.Join(t.Dir, file), string(text))
}
