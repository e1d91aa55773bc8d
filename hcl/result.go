package hcl

import (
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Result is a result block: named fields extracted from the backend's
// output with gjson paths.
type Result struct {
	Fields []*Field
	// Content are the result's content blocks, in order: the items of the
	// result's content, after the JSON text of the fields when there are
	// fields.
	Content   []*Content
	DeclRange hcl.Range
}

// Field is one field of a result block.
type Field struct {
	Name        string
	Description string
	// Path is a string expression (it may interpolate params) that evaluates
	// to a gjson path over the backend's JSON output.
	Path     hcl.Expression
	Type     *Type
	Optional bool
	// DeclRange is the field block's header, for messages.
	DeclRange hcl.Range
}

// resultBlockSchema is the schema of a result block: fields and content
// items.
var resultBlockSchema = &hcl.BodySchema{
	Blocks: append([]hcl.BlockHeaderSchema{{Type: "field", LabelNames: []string{"name"}}}, contentBlockTypes...),
}

// fieldBlockSchema is the schema of a result block's field block.
var fieldBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "type"},
		{Name: "description"},
		{Name: "optional"},
	},
}

// decodeResult decodes a result block. roots are the variables its paths
// and content items may use, evaluated with eval; typecheck is false when
// the params have errors, so their types are not known well enough to
// evaluate the paths. Constant attributes are evaluated with static.
func decodeResult(block *hcl.Block, eval, static *hcl.EvalContext, roots []refRoot, typecheck bool, baseDir string) (*Result, hcl.Diagnostics) {
	content, diags := block.Body.Content(resultBlockSchema)
	r := &Result{DeclRange: block.DefRange}
	seen := map[string]hcl.Range{}
	sc := &contentScope{roots: roots, eval: eval, static: static, baseDir: baseDir, output: true, where: "a result block"}
	if !typecheck {
		sc.eval = &hcl.EvalContext{Functions: eval.Functions, Variables: map[string]cty.Value{"param": cty.DynamicVal}}
	}
	for _, b := range content.Blocks {
		if b.Type != "field" {
			c, d := decodeContent(b, sc)
			diags = append(diags, d...)
			if c != nil {
				r.Content = append(r.Content, c)
			}
			continue
		}
		f := &Field{Name: b.Labels[0], DeclRange: b.DefRange, Type: &Type{Kind: KindAny}}
		if strings.TrimSpace(f.Name) == "" {
			// The structured result's key: a client shows it, a model
			// reads it, and "" names nothing.
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Empty field name",
				Detail:   `A field's name is its key in the structured result, so it cannot be empty or blank. Name the field, as in field "title" { path = "title" }.`,
				Subject:  b.LabelRanges[0].Ptr(),
			})
			continue
		}
		if prev, dup := seen[f.Name]; dup {
			diags = append(diags, duplicate("field", f.Name, b.DefRange, prev, uniqueIn("field", "a result block")))
			continue
		}
		seen[f.Name] = b.DefRange
		fc, d := b.Body.Content(fieldBlockSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		f.Path = fc.Attributes["path"].Expr
		refDiags := checkRefs(f.Path.Variables(), roots)
		diags = append(diags, refDiags...)
		if !refDiags.HasErrors() && typecheck {
			v, d := f.Path.Value(eval)
			diags = append(diags, d...)
			if !d.HasErrors() {
				if _, err := convert.Convert(v, cty.String); err != nil {
					diags = append(diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Invalid path",
						Detail:   "path is a gjson path written as a string, such as \"data.#.title\".",
						Subject:  f.Path.Range().Ptr(),
					})
				}
			}
		}
		if a, ok := fc.Attributes["type"]; ok {
			t, d := ParseType(a.Expr)
			diags = append(diags, d...)
			if t != nil {
				f.Type = t
			}
		}
		diags = append(diags, stringAttr(fc.Attributes, "description", static, &f.Description)...)
		diags = append(diags, boolAttr(fc.Attributes, "optional", static, &f.Optional)...)
		r.Fields = append(r.Fields, f)
	}
	if len(content.Blocks) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Empty result block",
			Detail:   "A result block declares at least one field, as in field \"title\" { path = \"data.title\" }, or content item, as in image { file = \"logo.png\" }. Remove the block to return the output as text.",
			Subject:  block.DefRange.Ptr(),
		})
	}
	return r, diags
}

// schema is the tool's output schema: an object with a property for each
// field, required unless optional.
func (r *Result) schema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, f := range r.Fields {
		fs := f.Type.Schema(false)
		fs.Description = f.Description
		s.Properties[f.Name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
		if !f.Optional {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

// fixed reports whether a result is only content items that each have data
// of their own (text, data, file or a resource's URI), so that it needs no
// backend output.
func (r *Result) fixed() bool {
	if len(r.Fields) > 0 || len(r.Content) == 0 {
		return false
	}
	for _, c := range r.Content {
		if c.Kind != ContentResource && c.Output || c.Path != nil {
			return false
		}
	}
	// A resource item without text or file is then a declared resource.
	for _, c := range r.Content {
		c.Output = false
	}
	return true
}
