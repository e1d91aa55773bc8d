package hcl

import (
	"testing"
	"time"
)

func TestProgressHeartbeat(t *testing.T) {
	tests := []struct {
		value   string
		want    time.Duration
		summary string
		detail  string
	}{
		{`"200ms"`, 200 * time.Millisecond, "", ""},
		{`"1m"`, time.Minute, "", ""},
		{`""`, 0, "", ""},
		{`"10ms"`, 0, "progress_heartbeat out of range", "at least 50ms and at most 1m"},
		{`"2m"`, 0, "progress_heartbeat out of range", `such as "1s"`},
		{`"soon"`, 0, "Invalid progress_heartbeat", `"soon" is not a duration`},
		{`5`, 0, "Invalid progress_heartbeat", `Did you mean "5s"?`},
		{`param.x`, 0, "Argument must be constant", "cannot refer to param"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			cfg, diags := loadString(t, "server {\n  progress_heartbeat = "+tt.value+"\n}\n", nil)
			if tt.summary == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected errors: %s", diags)
				}
				if got := cfg.Server.ProgressHeartbeat; got != tt.want {
					t.Errorf("ProgressHeartbeat = %s, want %s", got, tt.want)
				}
				return
			}
			if !hasDiag(diags, tt.summary, tt.detail) {
				t.Errorf("want a %q error with %q, got %s", tt.summary, tt.detail, diags)
			}
		})
	}
}
