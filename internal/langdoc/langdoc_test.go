package langdoc

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestParse reads the parts of a text, and refuses a text that is not in
// the format, saying where.
func TestParse(t *testing.T) {
	d, err := Parse("x.md", "The summary.\n\nIntro.\n\n@attr a | string | \"x\"\nA's text.\n\n@attr b | number | required\n\n@func f\nF.\n\n@block inner\nWhat inner is.\n\n@notes\nAfter.\n")
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary != "The summary." || d.Intro != "Intro." || d.Notes != "After." || d.Blocks["inner"] != "What inner is." {
		t.Errorf("parsed %+v", d)
	}
	if a := d.Attr("a"); a == nil || a.Type != "string" || a.Default != `"x"` || a.Required || a.Description != "A's text." {
		t.Errorf("attribute a is %+v", a)
	}
	if b := d.Attr("b"); b == nil || !b.Required || b.Default != "" {
		t.Errorf("attribute b is %+v", b)
	}
	if f := d.Attr("f"); f == nil || f.Description != "F." {
		t.Errorf("function f is %+v", f)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"no summary", "@attr a | string\n", "first line must be the block's summary"},
		{"no type", "S.\n@attr a\n", "x.md:2: write an attribute as"},
		{"twice", "S.\n@attr a | string\n@attr a | bool\n", `x.md:3: the attribute "a" is documented twice`},
		{"block twice", "S.\n@block b\n@block b\n", `x.md:3: the block "b" is documented twice`},
		{"unknown", "S.\n@attribute a\n", `x.md:2: "@attribute a" is not a directive`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.md", tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestCheck finds each way a text and a schema can disagree.
func TestCheck(t *testing.T) {
	schema := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "a"}, {Name: "b", Required: true}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "inner"}},
	}
	inner := &Block{ID: "x.inner", Type: "inner", Schema: &hcl.BodySchema{}, Doc: MustParse("inner.md", "Inner.\n")}
	for _, tc := range []struct{ name, text, want string }{
		{"agree", "S.\n@attr a | string\n@attr b | bool\n@block inner\nI.\n", ""},
		{"attribute without text", "S.\n@attr a | string\n@block inner\nI.\n", `the attribute "b" is in the decoder's schema but not documented`},
		{"text without attribute", "S.\n@attr a | string\n@attr b | bool\n@attr c | bool\n@block inner\nI.\n", `the attribute "c" is documented but the decoder's schema has no such attribute`},
		{"block without text", "S.\n@attr a | string\n@attr b | bool\n", `the nested block "inner" is in the decoder's schema but not documented`},
		{"text without block", "S.\n@attr a | string\n@attr b | bool\n@block inner\nI.\n@block gone\nG.\n", `the nested block "gone" is documented but the decoder's schema has no such block`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Block{ID: "x", Type: "x", Schema: schema, Doc: MustParse("x.md", tc.text), Nested: []*Block{inner}}
			errs := Check(b)
			if tc.want == "" {
				if len(errs) > 0 {
					t.Errorf("Check = %v, want none", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Errorf("Check = %v, want one error with %q", errs, tc.want)
			}
		})
	}
	t.Run("block of the schema missing from the tree", func(t *testing.T) {
		b := &Block{ID: "x", Type: "x", Schema: schema, Doc: MustParse("x.md", "S.\n@attr a | string\n@attr b | bool\n")}
		errs := Check(b)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), `the nested block "inner" of the decoder's schema has no description`) {
			t.Errorf("Check = %v", errs)
		}
	})
	t.Run("no text", func(t *testing.T) {
		errs := Check(&Block{ID: "x", Type: "x", Schema: &hcl.BodySchema{}})
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "block x has no text") {
			t.Errorf("Check = %v", errs)
		}
	})
}
