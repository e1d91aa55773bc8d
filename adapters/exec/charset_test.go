package exec

import (
	"testing"
)

// TestDefaultCharsetFor decodes output as it is decoded when an exec block
// sets no charset and the system writes in a code page: from the code
// page, or as a byte order mark at its start says.
func TestDefaultCharsetFor(t *testing.T) {
	tests := []struct {
		desc string
		cp   uint32
		out  string
		cut  bool // output cut at max_output
		want string
	}{
		{"GBK", 936, "\xc4\xe3\xba\xc3", false, "你好"},
		{"GBK cut inside a character", 936, "\xc4\xe3\xba", true, "你"},
		{"GB18030", 54936, "\x81\x30\x81\x30", false, "\u0080"},
		{"Big5", 950, "\xa4\xa4\xa4\xe5", false, "中文"},
		{"Shift_JIS", 932, "\x93\xfa\x96\x7b", false, "日本"},
		{"IBM 437", 437, "caf\x82 \xb0", false, "café ░"},
		{"IBM 850", 850, "caf\x82 \xd5", false, "café ı"},
		{"Windows-1252", 1252, "caf\xe9 \x80", false, "café €"},
		{"Windows-1251", 1251, "\xcf\xf0\xe8", false, "При"},
		{"UTF-8 code page", 65001, "café 你好", false, "café 你好"},
		{"UTF-8 code page keeps bad bytes for the warning", 65001, "a\xffb", false, "a\xffb"},
		{"unknown code page passes through", 37, "a\xffb", false, "a\xffb"},
		{"no code page passes through", 0, "café", false, "café"},
		{"UTF-16LE with a BOM", 936, "\xff\xfe\x60\x4f\x7d\x59\r\x00\n\x00", false, "你好\r\n"},
		{"UTF-16LE with a BOM, UTF-8 code page", 65001, "\xff\xfeh\x00i\x00", false, "hi"},
		{"UTF-16LE with a BOM, cut", 437, "\xff\xfeh\x00i\x00!", true, "hi"},
		{"UTF-16BE with a BOM", 1252, "\xfe\xff\x00h\x00i", false, "hi"},
		{"UTF-8 with a BOM", 936, "\xef\xbb\xbf你好", false, "你好"},
		{"BOM only at the start", 1252, "a\xff\xfeb", false, "aÿþb"},
		{"empty", 936, "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			e := &Exec{charset: defaultCharsetFor(tt.cp)}
			if got := string(e.decode([]byte(tt.out), tt.cut)); got != tt.want {
				t.Errorf("decode(%q, cut=%v) from code page %d = %q, want %q", tt.out, tt.cut, tt.cp, got, tt.want)
			}
		})
	}
}
