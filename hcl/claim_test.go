package hcl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestClaimValue converts claims as JSON decodes them, and as verifiers
// may hold them, to HCL values as jsondecode makes them, within the caps.
func TestClaimValue(t *testing.T) {
	deep := any("x")
	for range MaxClaimDepth + 1 {
		deep = []any{deep}
	}
	tests := []struct {
		name  string
		claim any
		want  cty.Value
		err   string
	}{
		{"string", "ann@example.com", cty.StringVal("ann@example.com"), ""},
		{"number", float64(3), cty.NumberIntVal(3), ""},
		{"json.Number", json.Number("12.5"), cty.NumberFloatVal(12.5), ""},
		{"bool", true, cty.True, ""},
		{"null", nil, cty.NullVal(cty.DynamicPseudoType), ""},
		{"list", []any{"ops", "dev"}, cty.ListVal([]cty.Value{cty.StringVal("ops"), cty.StringVal("dev")}), ""},
		{"mixed list", []any{"ops", float64(1)}, cty.TupleVal([]cty.Value{cty.StringVal("ops"), cty.NumberIntVal(1)}), ""},
		{"a number past float64, as its text", json.Number("1e999"), cty.StringVal("1e999"), ""},
		{"empty list", []any{}, cty.EmptyTupleVal, ""},
		{"a verifier's []string", []string{"ops"}, cty.ListVal([]cty.Value{cty.StringVal("ops")}), ""},
		{"object", map[string]any{"name": "acme", "ids": []any{float64(1)}}, cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("acme"), "ids": cty.ListVal([]cty.Value{cty.NumberIntVal(1)})}), ""},
		{"too large", strings.Repeat("a", MaxClaimBytes), cty.NilVal, `the claim "c" of the caller's token has more than the 65536 bytes a tool reads`},
		{"too many small values", make([]any, MaxClaimBytes/8), cty.NilVal, "has more than the 65536 bytes"},
		{"too deep", deep, cty.NilVal, `the claim "c" of the caller's token nests deeper than the 32 levels a tool reads`},
		{"not JSON", func() {}, cty.NilVal, "is not a JSON value"},
		{"a large foreign value", []string{strings.Repeat("a", MaxClaimBytes)}, cty.NilVal, "has more than the 65536 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ClaimValue("c", tc.claim)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.RawEquals(tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}
