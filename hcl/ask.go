package hcl

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/attr"
)

// Ask is an ask block: a form the user fills in (through elicitation)
// before the tool runs. The answers are the variable "answer" in the
// backend's expressions and the result's.
type Ask struct {
	// Message is a string expression (it may use params): what the user is
	// asked.
	Message hcl.Expression
	// Fields are the form's fields, decoded as params are: type, title,
	// description, default, enum, bounds. A field without a default is
	// required.
	Fields []*Param
	// Schema is the requestedSchema sent to the client.
	Schema json.RawMessage
	// ID names the form among the input requests of a 2026-07-28
	// input-required result; "ask" unless the block sets id.
	ID        string
	DeclRange hcl.Range
}

// askBlockSchema is the schema of an ask block: its fields.
var askBlockSchema = &hcl.BodySchema{
	// message is required, with a message of its own (HCL's says only
	// that it is).
	Attributes: []hcl.AttributeSchema{{Name: "message"}, {Name: "id"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "field", LabelNames: []string{"name"}}},
}

// askFieldExtras are the attributes a form field has beyond a param's;
// a multi-select's enum is its choices, not a param's list of lists.
var (
	askFieldExtras      = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "enum_titles"}, {Name: "enum_names"}}}
	askMultiFieldExtras = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "enum_titles"}, {Name: "enum_names"}, {Name: "enum"}}}
)

// multiSelect reports whether a field block declares type = list(string).
func multiSelect(b *hcl.Block) bool {
	attrs, _ := b.Body.JustAttributes()
	a, ok := attrs["type"]
	if !ok {
		return false
	}
	t, d := ParseType(a.Expr)
	return !d.HasErrors() && t != nil && t.Kind == KindList && t.Elem != nil && t.Elem.Kind == KindString
}

// AnswersType is the object type of the "answer" variable.
func (a *Ask) AnswersType() cty.Type {
	attrs := make(map[string]cty.Type, len(a.Fields))
	for _, f := range a.Fields {
		attrs[f.Name] = f.Type.Cty()
	}
	return cty.Object(attrs)
}

// decodeAsk decodes an ask block. eval has "param" for the message's
// references; names are the declared params.
func decodeAsk(block *hcl.Block, eval, static *hcl.EvalContext, names []string) (*Ask, hcl.Diagnostics) {
	content, diags := block.Body.Content(askBlockSchema)
	a := &Ask{DeclRange: block.DefRange, ID: "ask"}
	diags = append(diags, stringAttr(content.Attributes, "id", static, &a.ID)...)
	if a.ID == "" || len(a.ID) > 64 {
		diags = append(diags, rangeDiag(content.Attributes["id"], "Invalid id", "id names the form in the requests of clients of the 2026-07-28 protocol: give a short name (1 to 64 bytes), as in id = \"booking\", or leave it out (the default is \"ask\")."))
	}
	if m, ok := content.Attributes["message"]; ok {
		a.Message = m.Expr
		refs := checkExprRefs(m.Expr, "param", names)
		diags = append(diags, refs...)
		if !refs.HasErrors() {
			v, d := m.Expr.Value(eval)
			diags = append(diags, d...)
			if !d.HasErrors() && !stringable(v) {
				diags = append(diags, rangeDiag(m, "Invalid message", fmt.Sprintf("message is the text the user is shown, a string; this is %s.", attr.WantName(v.Type()))))
			}
		}
	} else {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing message",
			Detail:   "An ask block needs a message: the text the user is shown above the form, saying what is asked and why, as in message = \"When should the table for ${param.people} be booked?\". Add it.",
			Subject:  block.DefRange.Ptr(),
		})
	}
	props := map[string]*jsonschema.Schema{}
	s := &jsonschema.Schema{Type: "object", Properties: props}
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		name := b.Labels[0]
		if prev, dup := seen[name]; dup {
			diags = append(diags, duplicate("field", name, b.DefRange, prev, uniqueIn("field", "an ask block's form")))
			continue
		}
		seen[name] = b.DefRange
		extraSchema := askFieldExtras
		multi := multiSelect(b)
		if multi {
			extraSchema = askMultiFieldExtras
		}
		extras, rest, d := b.Body.PartialContent(extraSchema)
		diags = append(diags, d...)
		p, d, _ := decodeParam(&hcl.Block{Type: b.Type, Labels: b.Labels, Body: rest, DefRange: b.DefRange, TypeRange: b.TypeRange, LabelRanges: b.LabelRanges}, static)
		diags = append(diags, d...)
		if p == nil || d.HasErrors() {
			continue
		}
		if multi {
			var choices []string
			diags = append(diags, stringListAttr(extras.Attributes, "enum", static, &choices)...)
			for _, c := range choices {
				p.Choices = append(p.Choices, cty.StringVal(c))
			}
		}
		fs, d := askFieldSchema(b, p, extras.Attributes, static)
		diags = append(diags, d...)
		if fs == nil {
			continue
		}
		a.Fields = append(a.Fields, p)
		props[name] = fs
		s.PropertyOrder = append(s.PropertyOrder, name)
		if p.Required {
			s.Required = append(s.Required, name)
		}
	}
	if len(content.Blocks) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Empty form",
			Detail:   "An ask block has at least one field, as in field \"time\" { type = string }. To ask only yes or no, use confirm = \"...\" on the tool instead.",
			Subject:  block.DefRange.Ptr(),
		})
	}
	// Rendered by jsonschema's own encoder, which writes every keyword
	// (SchemaJSON writes only those param schemas use); once, at load.
	raw, err := json.Marshal(s)
	if err != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid form", Detail: fmt.Sprintf("The form's schema cannot be rendered: %v.", err), Subject: block.DefRange.Ptr()})
	}
	a.Schema = raw
	return a, diags
}

// askFieldSchema is a form field's schema. Forms are flat: a field is a
// string, number, integer or bool, or a list of strings with an enum (a
// multi-select). enum_titles shows titles for the enum values (oneOf or
// anyOf with const and title); enum_names is the older enumNames form.
func askFieldSchema(b *hcl.Block, p *Param, extras hcl.Attributes, static *hcl.EvalContext) (*jsonschema.Schema, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	multi := p.Type.Kind == KindList && p.Type.Elem != nil && p.Type.Elem.Kind == KindString
	enum := p.Enum
	if multi {
		enum = p.Choices
	}
	switch {
	case p.Type.Kind == KindString, p.Type.Kind == KindNumber, p.Type.Kind == KindInteger, p.Type.Kind == KindBool:
	case multi && len(enum) == 0:
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Multi-select without enum",
			Detail:   "A list(string) field is a multi-select: give it the choices with enum = [\"a\", \"b\"].",
			Subject:  b.DefRange.Ptr(),
		}}
	case multi:
	default:
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Field type not allowed in a form",
			Detail:   "Forms are flat: a field is a string, number, integer or bool, or a list(string) with enum (a multi-select). Split the value into several fields.",
			Subject:  b.DefRange.Ptr(),
		}}
	}
	s := p.schema()
	var titles, names []string
	diags = append(diags, stringListAttr(extras, "enum_titles", static, &titles)...)
	diags = append(diags, stringListAttr(extras, "enum_names", static, &names)...)
	check := func(name string, list []string) bool {
		a := extras[name]
		switch {
		case a == nil:
			return false
		case len(enum) == 0 || (p.Type.Kind != KindString && !multi):
			diags = append(diags, rangeDiag(a, "Titles without enum", name+" names the values of a string enum (or a multi-select's). Add enum = [...], or remove "+name+"."))
		case len(list) != len(enum):
			diags = append(diags, rangeDiag(a, "Titles do not match enum", fmt.Sprintf("%s has %d titles for %d enum values; give one title per value, in the same order.", name, len(list), len(enum))))
		default:
			return true
		}
		return false
	}
	okTitles, okNames := check("enum_titles", titles), check("enum_names", names)
	if okTitles && okNames {
		diags = append(diags, rangeDiag(extras["enum_names"], "Two kinds of titles", "Use enum_titles (the current form) or enum_names (the older one clients may still expect), not both."))
		return nil, diags
	}
	var choices []*jsonschema.Schema
	if okTitles {
		for i, e := range enum {
			var c any = e.AsString()
			choices = append(choices, &jsonschema.Schema{Const: &c, Title: titles[i]})
		}
	}
	switch {
	case multi:
		items := &jsonschema.Schema{Type: "string"}
		if okTitles {
			items = &jsonschema.Schema{AnyOf: choices} // the spec's titled multi-select has no type
		} else {
			for _, e := range enum {
				items.Enum = append(items.Enum, e.AsString())
			}
		}
		s.Items, s.Enum = items, nil
	case okTitles:
		s.OneOf, s.Enum = choices, nil
	case okNames:
		s.Extra = map[string]any{"enumNames": names}
	}
	return s, diags
}
