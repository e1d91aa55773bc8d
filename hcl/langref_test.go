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
