package hcl

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/internal/suggest"
)

// Prompt is a prompt block: a message template with string arguments.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Args        []*PromptArg
	Messages    []*PromptMessage
	// Scopes are what a caller's token must grant to see and get the
	// prompt over HTTP.
	Scopes []string
	// Claims are the claims of the caller's token its messages read with
	// claim("NAME"), sorted (see Tool.Claims).
	Claims    []string
	claimUses []claimUse
	DeclRange hcl.Range
}

// PromptArg is an arg block of a prompt. Prompt arguments are strings.
type PromptArg struct {
	Name        string
	Description string
	// Required is true unless the block says required = false.
	Required bool
	// Enum, when set, lists the only values the argument takes; clients are
	// offered them as completions.
	Enum []string
	// Completions are values offered as completions (any value is allowed).
	Completions []string
	DeclRange   hcl.Range
}

// PromptMessage is a message block: a role and either a text expression
// that may refer to arg.NAME (null when an optional argument is absent) or
// one content block (an image, a sound, an embedded resource or a link).
type PromptMessage struct {
	Role string
	// Text is nil when the message has a content block instead.
	Text      hcl.Expression
	Content   *Content
	DeclRange hcl.Range
}

// promptBlockSchema is the schema of a prompt block.
var promptBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "title"},
		{Name: "description"},
		{Name: "scopes"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "arg", LabelNames: []string{"name"}},
		{Type: "message", LabelNames: []string{"role"}},
	},
}

// promptArgBlockSchema is the schema of a prompt's arg block.
var promptArgBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "description"},
		{Name: "required"},
		{Name: "enum"},
		{Name: "completions"},
	},
}

// promptMessageBlockSchema is the schema of a prompt's message block.
var promptMessageBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "text"},
	},
	Blocks: contentBlockTypes,
}

// ArgsType is the object type of the "arg" variable.
func (p *Prompt) ArgsType() cty.Type {
	attrs := make(map[string]cty.Type, len(p.Args))
	for _, a := range p.Args {
		attrs[a.Name] = cty.String
	}
	return cty.Object(attrs)
}

// decodePrompt decodes a prompt block: its args and messages. static
// evaluates its constant attributes; baseDir is the config file's
// directory, for relative paths.
func decodePrompt(block *hcl.Block, static *hcl.EvalContext, baseDir string) (*Prompt, hcl.Diagnostics) {
	content, diags := block.Body.Content(promptBlockSchema)
	explainUnsupported(diags, promptBlockSchema)
	contentDiags := diags
	p := &Prompt{Name: block.Labels[0], DeclRange: block.DefRange}
	diags = append(diags, stringAttr(content.Attributes, "title", static, &p.Title)...)
	diags = append(diags, stringAttr(content.Attributes, "description", static, &p.Description)...)
	diags = append(diags, scopesAttr(content.Attributes, static, &p.Scopes)...)
	seen := map[string]hcl.Range{}
	var messages []*hcl.Block
	for _, b := range content.Blocks {
		switch b.Type {
		case "arg":
			if prev, dup := seen[b.Labels[0]]; dup {
				diags = append(diags, duplicate("arg", b.Labels[0], b.DefRange, prev, uniqueIn("argument", "a prompt")))
				continue
			}
			seen[b.Labels[0]] = b.DefRange
			ac, d := b.Body.Content(promptArgBlockSchema)
			explainUnsupported(d, promptArgBlockSchema)
			diags = append(diags, d...)
			a := &PromptArg{Name: b.Labels[0], Required: true, DeclRange: b.DefRange}
			diags = append(diags, stringAttr(ac.Attributes, "description", static, &a.Description)...)
			diags = append(diags, boolAttr(ac.Attributes, "required", static, &a.Required)...)
			diags = append(diags, stringListAttr(ac.Attributes, "enum", static, &a.Enum)...)
			diags = append(diags, stringListAttr(ac.Attributes, "completions", static, &a.Completions)...)
			p.Args = append(p.Args, a)
		case "message":
			messages = append(messages, b)
		}
	}
	names := make([]string, len(p.Args))
	for i, a := range p.Args {
		names[i] = a.Name
	}
	argType := p.ArgsType()
	if misspelt := misspeltLabels(block.Body, promptBlockSchema, "arg", contentDiags); len(misspelt) > 0 {
		// Declared, as far as references go: the misspelt block is
		// reported, not also every use of its name.
		names = append(names, misspelt...)
		argType = cty.DynamicPseudoType
	}
	eval := withCompileClaim(&hcl.EvalContext{
		Functions: static.Functions,
		Variables: map[string]cty.Value{"arg": cty.UnknownVal(argType)},
	})
	for _, b := range messages {
		role := b.Labels[0]
		if role != "user" && role != "assistant" {
			detail := fmt.Sprintf("A message's role is \"user\" or \"assistant\", not %q.", role)
			detail += suggest.Hint(role, []string{"user", "assistant"})
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid message role", Detail: detail, Subject: b.LabelRanges[0].Ptr()})
			continue
		}
		mc, d := b.Body.Content(promptMessageBlockSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		textAttr, hasText := mc.Attributes["text"]
		if n := len(mc.Blocks); (n > 0) == hasText || n > 1 {
			subject := b.DefRange
			if n > 1 {
				subject = mc.Blocks[1].DefRange
			} else if hasText && n == 1 {
				subject = mc.Blocks[0].DefRange
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "One content per message",
				Detail:   "A message has either text = \"...\" or one content block (image, audio, resource or resource_link). Split the content into several message blocks.",
				Subject:  subject.Ptr(),
			})
			continue
		}
		if !hasText {
			sc := &contentScope{roots: []refRoot{{root: "arg", names: names}}, eval: eval, static: static, baseDir: baseDir, where: "a prompt message"}
			c, d := decodeContent(mc.Blocks[0], sc)
			diags = append(diags, d...)
			if c != nil {
				p.Messages = append(p.Messages, &PromptMessage{Role: role, Content: c, DeclRange: b.DefRange})
			}
			continue
		}
		text := textAttr.Expr
		refDiags := checkExprRefs(text, "arg", names)
		diags = append(diags, refDiags...)
		if !refDiags.HasErrors() {
			v, d := text.Value(eval)
			diags = append(diags, d...)
			if !d.HasErrors() {
				if _, err := convert.Convert(v, cty.String); err != nil {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Message text is not a string", Detail: fmt.Sprintf("text must evaluate to a string: %s.", err), Subject: text.Range().Ptr()})
				}
			}
		}
		p.Messages = append(p.Messages, &PromptMessage{Role: role, Text: text, DeclRange: b.DefRange})
	}
	if len(messages) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Prompt without messages",
			Detail:   fmt.Sprintf("The prompt %q has no message block. Add one, as in message \"user\" { text = \"...\" }.", p.Name),
			Subject:  block.DefRange.Ptr(),
		})
	}
	return p, diags
}
