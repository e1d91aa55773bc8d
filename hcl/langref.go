package hcl

import (
	"embed"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/langdoc"
)

// refdocs are the texts of the language reference, one a block type (see
// langdoc.Parse), and of its functions (functions.md).
//
//go:embed refdoc/*.md
var refdocs embed.FS

// refTexts are refdocs, as langdoc reads them.
var refTexts = langdoc.Texts{FS: refdocs, Dir: "hcl"}

// Language describes the config language for its reference: the top
// level of a config file and, below it, every block type with the schema
// the decoder decodes it with (the same values, so that a change to the
// decoder changes the reference) and its text from hcl/refdoc. Backend
// blocks come from their kinds' adapters.Describer.
func Language() *langdoc.Block {
	backends := map[string]*langdoc.Block{}
	l := &langTree{backends: backends}

	text := l.block("content.text", textContentSchema, "content.text.md")
	image := l.block("content.image", mediaContentSchema, "content.media.md")
	audio := l.block("content.audio", mediaContentSchema, "content.media.md")
	resource := l.block("content.resource", resourceContentSchema, "content.resource.md")
	link := l.block("content.resource_link", resourceLinkContentSchema, "content.resource_link.md")
	content := []*langdoc.Block{text, image, audio, resource, link}

	param := l.block("tool.param", paramBlockSchema, "tool.param.md")
	field := l.block("ask.field", askFieldExtras, "ask.field.md")
	field.Extends = param
	tool := l.block("tool", toolBlockSchema(), "tool.md",
		l.block("tool.annotations", annotationsBlockSchema, "tool.annotations.md"),
		param,
		l.block("tool.result", resultBlockSchema, "tool.result.md",
			append([]*langdoc.Block{l.block("result.field", fieldBlockSchema, "result.field.md")}, content...)...),
		l.block("tool.example", exampleBlockSchema, "tool.example.md"),
		l.block("tool.icon", iconBlockSchema, "tool.icon.md"),
		l.block("tool.ask", askBlockSchema, "tool.ask.md", field),
	)
	return l.block("", rootSchema, "config.md",
		l.block("server", serverBlockSchema, "server.md",
			l.block("server.auth", authBlockSchema, "server.auth.md")),
		tool,
		l.block("resource", withBackends(resourceBlockSchema), "resource.md"),
		l.block("resource_template", withBackends(resourceTemplateBlockSchema), "resource_template.md"),
		l.block("prompt", promptBlockSchema, "prompt.md",
			l.block("prompt.arg", promptArgBlockSchema, "prompt.arg.md"),
			l.block("prompt.message", promptMessageBlockSchema, "prompt.message.md", content...)),
		l.block("group", groupBlockSchema, "group.md"),
		l.block("source", sourceBlockSchema, "source.md"),
	)
}

// langTree builds Language's tree, with one block a backend kind however
// many blocks hold it.
type langTree struct {
	backends map[string]*langdoc.Block
}

// block makes the block id with the schema and the text in file (see
// langdoc.New); its nested blocks are kids and the blocks of the backend
// kinds the schema names.
func (l *langTree) block(id string, schema *hcl.BodySchema, file string, kids ...*langdoc.Block) *langdoc.Block {
	for _, h := range schema.Blocks {
		if b := l.backend(h.Type); b != nil {
			kids = append(kids, b)
		}
	}
	return refTexts.Block("refdoc/"+file, id, schema, kids...)
}

// backend returns the block of the backend kind named name, from its
// Describer, or nil when name is no kind's.
func (l *langTree) backend(name string) *langdoc.Block {
	if b, ok := l.backends[name]; ok {
		return b
	}
	kind, ok := adapters.Lookup(name)
	if !ok {
		return nil
	}
	b := &langdoc.Block{ID: name, Type: name}
	if d, ok := adapters.DescriberOf(name); ok {
		b = d.Describe()
	}
	b.Backend = true
	if b.Summary == "" {
		b.Summary = kind.Summary
	}
	l.backends[name] = b
	return b
}

// FunctionDocs is the text of the language's functions (hcl/refdoc/
// functions.md): for each function that has one, what toolhost says of it
// beyond its own description, by name, and the prose before them.
func FunctionDocs() *langdoc.Doc {
	return refTexts.Doc("refdoc/functions.md")
}
