package redact

import (
	"strings"
	"testing"
)

// TestLogMask: what a debug log line shows of a message.
func TestLogMask(t *testing.T) {
	long := strings.Repeat("x", MaxLogged+100)
	for _, tc := range []struct {
		name    string
		mask    LogMask
		msg     string
		want    string // the line shows it
		notWant []string
	}{
		{"a sensitive argument", LogMask{Sensitive: map[string]bool{"pin": true}, ArgumentsKey: "arguments"},
			`{"name":"t","arguments":{"pin":"9876-5432","user":"ann"}}`, `"pin":"(sensitive value)"`, []string{"9876-5432"}},
		{"a sensitive argument that is an object", LogMask{Sensitive: map[string]bool{"creds": true}},
			`{"creds":{"a":"first-secret","b":["second-secret"]},"note":"first-secret"}`, `"creds":"(sensitive value)","note":"(redacted)"`,
			[]string{"first-secret", "second-secret"}},
		{"a key named like a credential", LogMask{},
			`{"headers":{"Authorization":"Bearer abcdefgh12345678"},"q":"x"}`, `"Authorization":"(redacted)"`, []string{"abcdefgh12345678"}},
		{"a schema's password property is shown", LogMask{},
			`{"inputSchema":{"properties":{"password":{"type":"string"}}}}`, `"password":{"type":"string"}`, nil},
		{"a credential by its form", LogMask{},
			`{"url":"postgres://app:s3cr3t-pass@db/x"}`, `(redacted)`, []string{"s3cr3t-pass"}},
		{"a known secret", LogMask{Secrets: []string{"echoed-value"}},
			`{"content":[{"text":"you sent echoed-value"}]}`, `you sent (redacted)`, []string{"echoed-value"}},
		{"a line that is not JSON", LogMask{},
			`garbage{ token=ghp_abcdefghijklmnopqrstuvwxyz0123456789`, `garbage{`, []string{"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
		{"a long message", LogMask{}, `{"a":"` + long + `"}`, "(cut; 2156 bytes in all)", []string{long}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.mask.Show([]byte(tc.msg))
			if !strings.Contains(got, tc.want) {
				t.Errorf("Show(%s) = %s, want it to hold %s", tc.msg, got, tc.want)
			}
			for _, s := range tc.notWant {
				if strings.Contains(got, s) {
					t.Errorf("Show(%s) = %s shows %s", tc.msg, got, s)
				}
			}
			if len(got) > MaxLogged+64 {
				t.Errorf("Show gave %d bytes, past the cap", len(got))
			}
		})
	}
}
