package hcl

import (
	"testing"

	"github.com/toolhost/toolhost/internal/langdoc"
)

// TestLanguageTextsMatchSchemas fails when an attribute or nested block
// of a block's schema has no text in hcl/refdoc (or a text documents one
// that is gone), for the blocks of this package and of every backend.
func TestLanguageTextsMatchSchemas(t *testing.T) {
	for _, err := range langdoc.Check(Language()) {
		t.Error(err)
	}
}

// TestAskFieldAttributesDocumented checks the schema of a multi-select
// field, which the reference shows as a field's: its every attribute is
// a field's or a param's.
func TestAskFieldAttributesDocumented(t *testing.T) {
	for _, a := range askMultiFieldExtras.Attributes {
		if !schemaHas(askFieldExtras, a.Name) && !schemaHas(paramBlockSchema, a.Name) {
			t.Errorf("a multi-select field's attribute %q is neither a field's nor a param's: add it to askFieldExtras, or to the reference", a.Name)
		}
	}
}
