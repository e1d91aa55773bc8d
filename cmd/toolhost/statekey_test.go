package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// confirmConfig has a tool that asks the user to confirm.
const confirmConfig = `
tool "deploy" {
  confirm = "Deploy?"
  template { text = "deployed" }
}
`

// TestServeStateKeyEnv: --state-key-env refuses a variable that is not
// set, empty or too short, saying how to make a key; serving HTTP a config
// that asks the user without it warns that replicas cannot share
// approvals, and with a good key it does not.
func TestServeStateKeyEnv(t *testing.T) {
	cfg := writeConfig(t, confirmConfig)
	for _, tc := range []struct {
		name string
		env  []string
		arg  string
		code int
		want string
	}{
		{"unset", nil, "TOOLHOST_NO_SUCH_KEY", 1, "TOOLHOST_NO_SUCH_KEY is not set; set it to a secret of 32 bytes or more"},
		{"empty", []string{"TOOLHOST_EMPTY_KEY="}, "TOOLHOST_EMPTY_KEY", 1, "TOOLHOST_EMPTY_KEY is empty"},
		{"short", []string{"TOOLHOST_SHORT_KEY=abc"}, "TOOLHOST_SHORT_KEY", 1, "is 3 bytes long, too short"},
		{"not a name", nil, "$KEY", 2, "no variable's name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binPath, "serve", "--listen", "127.0.0.1:0", "--state-key-env", tc.arg, cfg)
			cmd.Env = append(os.Environ(), tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code || !strings.Contains(stderr.String(), tc.want) || !strings.Contains(stderr.String(), "openssl rand -base64 32") && tc.code == 1 {
				t.Fatalf("exit %v, stderr %q; want exit %d, %q and how to make a key", err, stderr.String(), tc.code, tc.want)
			}
		})
	}
	const warning = "give every replica the same key with --state-key-env"
	if s := startHTTPServe(t, nil, cfg); !strings.Contains(s.Log(), warning) {
		t.Fatalf("without --state-key-env, log %q; want the warning", s.Log())
	}
	key := "TOOLHOST_STATE_KEY=" + strings.Repeat("s", 44)
	if s := startHTTPServe(t, []string{key}, "--state-key-env", "TOOLHOST_STATE_KEY", cfg); strings.Contains(s.Log(), warning) {
		t.Fatalf("with --state-key-env, log %q; want no warning", s.Log())
	}
}
