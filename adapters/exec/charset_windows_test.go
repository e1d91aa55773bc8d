package exec

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestExecWindowsCharset runs a program (the test binary, writing the
// bytes of "你好，世界" in GBK or UTF-16) and reads its output as UTF-8:
// GBK as the exec block's charset says, UTF-16 from its byte order mark
// when the block names no charset.
func TestExecWindowsCharset(t *testing.T) {
	tests := []struct {
		desc    string
		enc     encoding.Encoding // of the program's output
		charset string            // the exec block's charset; "" sets none
	}{
		{"GBK with charset", simplifiedchinese.GBK, `charset = "gbk"`},
		{"GBK with a code page label", simplifiedchinese.GBK, `charset = "cp936"`},
		{"UTF-16 with a BOM, no charset", unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), ""},
	}
	f := defaultFixture()
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			b, err := tt.enc.NewEncoder().Bytes([]byte("你好，世界"))
			if err != nil {
				t.Fatal(err)
			}
			e := f.mustCompile(t, fmt.Sprintf("command = %s\ninherit_env = true\n%s",
				testconfig.ProgramList(`"bytes"`, strconv.Quote(hex.EncodeToString(b))), tt.charset))
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
