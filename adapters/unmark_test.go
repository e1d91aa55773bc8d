package adapters

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestUnmark checks that Unmark leaves no mark on a primitive value, nor
// anywhere in a collection, and keeps the value itself.
func TestUnmark(t *testing.T) {
	for _, c := range []struct {
		name string
		in   cty.Value
		want cty.Value
	}{
		{"plain string", cty.StringVal("a"), cty.StringVal("a")},
		{"marked string", cty.StringVal("a").Mark("sensitive"), cty.StringVal("a")},
		{"marked number", cty.NumberIntVal(3).Mark("sensitive"), cty.NumberIntVal(3)},
		{"list with a marked element", cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b").Mark("sensitive")}).Mark("outer"),
			cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})},
		{"object with a marked attribute", cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v").Mark("sensitive")}),
			cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v")})},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Unmark(c.in)
			if got.ContainsMarked() {
				t.Errorf("Unmark(%#v) still holds a mark: %#v", c.in, got)
			}
			if !got.RawEquals(c.want) {
				t.Errorf("Unmark(%#v) = %#v, want %#v", c.in, got, c.want)
			}
		})
	}
}
