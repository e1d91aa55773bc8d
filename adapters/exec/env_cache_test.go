//go:build unix

package exec

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestExecEnvironmentFollowsHost checks that a tool whose env is the same
// for every call, whose environment buildEnv takes again from the call
// before, still gives each command toolhost's environment as it is when
// the call starts.
func TestExecEnvironmentFollowsHost(t *testing.T) {
	// t.Setenv rules out t.Parallel.
	f := defaultFixture()
	for _, tt := range []struct {
		name, body string
	}{
		{"inherit_env", `command = ["env"]
inherit_env = true
env = { FOO = "bar" }`},
		{"minimal", `command = ["env"]
env = { FOO = "bar" }`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := f.mustCompile(t, tt.body)
			for _, v := range []string{"one", "two", "", "two"} {
				want := "LC_TOOLHOST_ENV_TEST=" + v
				if v == "" {
					want = ""
					t.Setenv("LC_TOOLHOST_ENV_TEST", "x")
					if err := os.Unsetenv("LC_TOOLHOST_ENV_TEST"); err != nil {
						t.Fatal(err)
					}
				} else {
					t.Setenv("LC_TOOLHOST_ENV_TEST", v)
				}
				for range 2 {
					out, err := f.call(t, context.Background(), e, nil)
					if err != nil {
						t.Fatalf("call: %v", err)
					}
					lines := strings.Split(string(out.Body), "\n")
					got := ""
					for _, l := range lines {
						if strings.HasPrefix(l, "LC_TOOLHOST_ENV_TEST=") {
							got = l
						}
					}
					if got != want {
						t.Errorf("the command's environment has %q, want %q", got, want)
					}
					if !strings.Contains(string(out.Body), "FOO=bar\n") {
						t.Errorf("the command's environment lacks FOO=bar:\n%s", out.Body)
					}
				}
			}
		})
	}
}
