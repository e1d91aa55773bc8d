package exec

import (
	"context"
	"fmt"
	"os"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// charsetHelperEnv makes TestHelperCharsetOutput act as a program that
// prints "你好，世界" in the encoding it names: "gbk" or "utf-16" (with a
// byte order mark, as PowerShell writes).
const charsetHelperEnv = "TOOLHOST_TEST_CHARSET_HELPER"

// TestHelperCharsetOutput is not a test: re-executed by the tests below,
// with charsetHelperEnv set, it prints a text in that encoding and exits.
func TestHelperCharsetOutput(t *testing.T) {
	var enc interface{ Bytes([]byte) ([]byte, error) }
	switch os.Getenv(charsetHelperEnv) {
	case "":
		return
	case "gbk":
		enc = simplifiedchinese.GBK.NewEncoder()
	case "utf-16":
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder()
	}
	b, err := enc.Bytes([]byte("你好，世界"))
	if err != nil {
		os.Exit(2)
	}
	os.Stdout.Write(b)
	os.Exit(0)
}

// TestExecWindowsCharset runs a program (the test binary) that prints GBK
// or UTF-16 and reads its output as UTF-8: GBK as the exec block's charset
// says, UTF-16 from its byte order mark when the block names no charset.
func TestExecWindowsCharset(t *testing.T) {
	tests := []struct {
		desc    string
		helper  string
		charset string // the exec block's charset; "" sets none
	}{
		{"GBK with charset", "gbk", `charset = "gbk"`},
		{"GBK with a code page label", "gbk", `charset = "cp936"`},
		{"UTF-16 with a BOM, no charset", "utf-16", ""},
	}
	f := defaultFixture()
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			e := f.mustCompile(t, fmt.Sprintf("command = [%q, \"-test.run=^TestHelperCharsetOutput$\"]\ninherit_env = true\nenv = { %s = %q }\n%s",
				os.Args[0], charsetHelperEnv, tt.helper, tt.charset))
			out, err := f.call(t, context.Background(), e, nil)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got := string(out.Body); got != "你好，世界" {
				t.Errorf("output %q, want %q", got, "你好，世界")
			}
		})
	}
}
