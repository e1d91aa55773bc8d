package hcl

import (
	"github.com/hashicorp/hcl/v2"
)

// Annotations are the MCP tool annotations: hints for clients.
type Annotations struct {
	Title           string
	ReadOnlyHint    bool
	DestructiveHint *bool
	IdempotentHint  bool
	OpenWorldHint   *bool
}

// annotationsBlockSchema is the schema of an annotations block.
var annotationsBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "title"},
		{Name: "read_only_hint"},
		{Name: "destructive_hint"},
		{Name: "idempotent_hint"},
		{Name: "open_world_hint"},
	},
}

// decodeAnnotations decodes an annotations block; ctx evaluates its
// constant attributes.
func decodeAnnotations(block *hcl.Block, ctx *hcl.EvalContext) (*Annotations, hcl.Diagnostics) {
	content, diags := block.Body.Content(annotationsBlockSchema)
	a := &Annotations{}
	diags = append(diags, stringAttr(content.Attributes, "title", ctx, &a.Title)...)
	diags = append(diags, boolAttr(content.Attributes, "read_only_hint", ctx, &a.ReadOnlyHint)...)
	diags = append(diags, boolPtrAttr(content.Attributes, "destructive_hint", ctx, &a.DestructiveHint)...)
	diags = append(diags, boolAttr(content.Attributes, "idempotent_hint", ctx, &a.IdempotentHint)...)
	diags = append(diags, boolPtrAttr(content.Attributes, "open_world_hint", ctx, &a.OpenWorldHint)...)
	return a, diags
}
