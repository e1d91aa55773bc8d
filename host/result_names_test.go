package host

import (
	"encoding/json"
	"testing"
)

// TestFieldNameAsMarshal: the key MapOutput writes for a result field is
// what json.Marshal writes for its name, escapes and replacement
// characters included.
func TestFieldNameAsMarshal(t *testing.T) {
	for _, name := range []string{
		"id", "", "a b", "<b>&", `q"uote\`, "café", "cafe\u0301", "line\u2028sep\u2029", "tab\there", "nul\x00", "bad\xffutf8", "del\x7f",
	} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(name)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, ':')
			if got := appendFieldName([]byte("{"), name); string(got) != "{"+string(want) {
				t.Errorf("appendFieldName(%q) = %s, want {%s", name, got, want)
			}
		})
	}
}
