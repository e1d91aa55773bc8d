package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ctyjson "github.com/zclconf/go-cty/cty/json"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestDecodeArgsMixedAny gives collections of any (list(any), set(any),
// map(any), and a list of objects with an any attribute) items of
// different JSON types: cty's collections hold one type, so the items are
// converted to one (numbers and bools to strings, as HCL does), or the
// call is refused when no type holds them all; none of it panics.
func TestDecodeArgsMixedAny(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(path, []byte(`
tool "mixed" {
  param "l" {
    type     = list(any)
    required = false
  }
  param "s" {
    type     = set(any)
    required = false
  }
  param "m" {
    type     = map(any)
    required = false
  }
  param "o" {
    type     = list(object({k = any}))
    required = false
  }
  template {
    text = "x"
  }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	defer r.Close()
	tool := mustTool(t, r, "mixed")
	for _, tc := range []struct {
		args, want, err string
	}{
		{`{"l":[1,"x",null,true]}`, `"l":["1","x",null,"true"]`, ""},
		{`{"s":[1,"1"]}`, "", "duplicate"},
		{`{"m":{"a":1,"b":"x"}}`, `"m":{"a":"1","b":"x"}`, ""},
		{`{"o":[{"k":1},{"k":"x"}]}`, `"o":[{"k":"1"},{"k":"x"}]`, ""},
		{`{"l":[1,{"a":1}]}`, "", "types that differ"},
		{`{"m":{"a":[1],"b":"x"}}`, "", "types that differ"},
		// Items of many different types: objects of different attributes
		// become maps, up to maxItemTypes types; beyond, the call is
		// refused rather than compare every type with every other.
		{`{"l":[` + distinctObjects(maxItemTypes) + `]}`, `"l":[{"k0":1},`, ""},
		{`{"l":[` + distinctObjects(maxItemTypes+1) + `]}`, "", "more than 64 different types"},
		// Many items of a few types: each type is unified once.
		{`{"l":[` + strings.Repeat(`1,"x",true,`, 20000) + `null]}`, `"l":["1","x","true","1",`, ""},
	} {
		got, err := DecodeArgs(tool, []byte(tc.args))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("DecodeArgs(%s) = %v, want an error with %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("DecodeArgs(%s): %v", tc.args, err)
			continue
		}
		b, _ := ctyjson.Marshal(got, got.Type())
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("DecodeArgs(%s) = %s, want %s in it", tc.args, b, tc.want)
		}
	}
}

// distinctObjects is n JSON objects, each with an attribute of its own:
// {"k0":1},{"k1":1},...
func distinctObjects(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"k%d":1}`, i)
	}
	return strings.Join(items, ",")
}
