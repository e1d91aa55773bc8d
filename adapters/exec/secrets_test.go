//go:build unix

package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// TestExecCutOutputSecretAtCut runs real commands that print a secret
// across each cut of their standard error: the end of it in a failed
// command's error, a line forwarded at stderr_log cut at stderrLine, a
// progress message cut there, and a line longer than what is read of it,
// whose end the error's tail shows. No piece of the secret is shown, at
// any offset.
func TestExecCutOutputSecretAtCut(t *testing.T) {
	t.Parallel()
	offsets := []int{1, 2, 7, 16, len(testconfig.CutSecret) - 1}
	for _, tc := range []struct {
		name   string
		script string // prints to standard error; $1 is a number of bytes
		n      func(off int) int
		check  func(t *testing.T, err error, rec *recorder)
	}{
		{"error tail", `printf 'x %s ' "$TOKEN" >&2; head -c "$1" /dev/zero | tr '\0' b >&2; exit 1`,
			func(off int) int { return stderrShown - len(testconfig.CutSecret) + off },
			func(t *testing.T, err error, _ *recorder) {
				if err == nil || !strings.Contains(err.Error(), "bbbb") {
					t.Fatalf("err = %v", err)
				}
				if p := testconfig.LeakedPiece(err.Error(), testconfig.CutSecret); p != "" {
					t.Errorf("the error shows %q: %s", p, err)
				}
			}},
		{"stderr_log line", `head -c "$1" /dev/zero | tr '\0' b >&2; printf '%s tail\n' "$TOKEN" >&2`,
			func(off int) int { return stderrLine - off },
			func(t *testing.T, err error, rec *recorder) {
				if err != nil {
					t.Fatal(err)
				}
				logs := strings.Join(rec.events, "\n")
				if !strings.HasPrefix(logs, "log info bbbb") {
					t.Fatalf("logs = %.200q", logs)
				}
				if p := testconfig.LeakedPiece(logs, testconfig.CutSecret); p != "" {
					t.Errorf("the log shows %q: %.100q", p, logs[max(0, len(logs)-100):])
				}
			}},
		{"progress message", `printf '::progress 5/10 ' >&2; head -c "$1" /dev/zero | tr '\0' b >&2; printf '%s tail\n' "$TOKEN" >&2`,
			func(off int) int { return stderrLine - off },
			func(t *testing.T, err error, rec *recorder) {
				if err != nil {
					t.Fatal(err)
				}
				logs := strings.Join(rec.events, "\n")
				if !strings.Contains(logs, "progress 5/10 bbbb") {
					t.Fatalf("events = %.200q", logs)
				}
				if p := testconfig.LeakedPiece(logs, testconfig.CutSecret); p != "" {
					t.Errorf("the progress shows %q: %.100q", p, logs[max(0, len(logs)-100):])
				}
			}},
		{"line longer than what is read", `head -c "$1" /dev/zero | tr '\0' b >&2; printf '%s tail\n' "$TOKEN" >&2; exit 1`,
			func(off int) int { return stderrLineRead - off },
			func(t *testing.T, err error, rec *recorder) {
				if err == nil || !strings.Contains(err.Error(), "bbbb") {
					t.Fatalf("err = %v", err)
				}
				if p := testconfig.LeakedPiece(err.Error(), testconfig.CutSecret); p != "" {
					t.Errorf("the error shows %q: %s", p, err)
				}
				if p := testconfig.LeakedPiece(strings.Join(rec.events, "\n"), testconfig.CutSecret); p != "" {
					t.Errorf("the log shows %q", p)
				}
			}},
	} {
		for _, off := range offsets {
			t.Run(fmt.Sprintf("%s offset %d", tc.name, off), func(t *testing.T) {
				t.Parallel()
				f := defaultFixture()
				e := f.mustCompile(t, fmt.Sprintf(`command = ["sh", "-c", %q, "sh", tostring(param.n)]
env = { TOKEN = %q }
stderr_log = "info"`, tc.script, testconfig.CutSecret))
				rec := &recorder{}
				in := f.input(map[string]cty.Value{"n": cty.NumberIntVal(int64(tc.n(off)))})
				in.Report = rec
				_, err := e.Call(context.Background(), in)
				tc.check(t, err, rec)
			})
		}
	}
}

// TestExecErrorsRedactEnvSecrets: a command that prints its credential on
// failure does not get it into the tool error: a credential by its name
// in env, marked sensitive, or read with env() from a variable named like
// one, under a name that says nothing (TOK) or as an argument.
func TestExecErrorsRedactEnvSecrets(t *testing.T) {
	src := `exec {
  command = ["sh", "-c", "echo \"auth failed for $API_TOKEN and $OTHER and $TOK and $1\" >&2; exit 1", "sh", env("DB_PASSWORD")]
  env     = { API_TOKEN = "tok-abcdef0123456789", OTHER = sensitive("other-credential-99"), TOK = env("SERVICE_TOKEN") }
}
`
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	funcs := map[string]function.Function{"sensitive": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "v", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
	}), "env": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "name", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(map[string]string{"SERVICE_TOKEN": "svc-credential-42", "DB_PASSWORD": "db-credential-43"}[args[0].AsString()]), nil
		},
	})}
	b, diags := compile(f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &adapters.CompileContext{
		Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.EmptyObject)}},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}}})
	if err == nil {
		t.Fatal("exit 1 was not an error")
	}
	for _, secret := range []string{"tok-abcdef0123456789", "other-credential-99", "svc-credential-42", "db-credential-43"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error leaks %q: %s", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "auth failed for (redacted)") {
		t.Errorf("error = %s", err)
	}
}

// TestExecErrorsRedactByRule: a command that prints its credentials on
// stderr gets none of them into the tool error, for each class of the
// rule, and what is no credential (PATH, the working directory in PWD)
// stays.
func TestExecErrorsRedactByRule(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	for _, tc := range []struct {
		name, env, print, secret, keep string
	}{
		{"GITHUB_PAT", `GITHUB_PAT = "pat-0123456789abcdef"`, "$GITHUB_PAT", "pat-0123456789abcdef", ""},
		{"PASSPHRASE", `PASSPHRASE = "correct horse battery"`, "$PASSPHRASE", "correct horse battery", ""},
		{"JWT", `JWT = "jwt-value-0123456789"`, "$JWT", "jwt-value-0123456789", ""},
		{"PW", `PW = "pw-hunter2"`, "$PW", "pw-hunter2", ""},
		{"PASS", `PASS = "pass-hunter2"`, "$PASS", "pass-hunter2", ""},
		{"MY_CREDS", `MY_CREDS = "user:creds-hunter2"`, "$MY_CREDS", "creds-hunter2", ""},
		{"DATABASE_URL", `DATABASE_URL = "postgres://app:dbpw-hunter2@db.internal/app"`, "$DATABASE_URL", "dbpw-hunter2", "db.internal"},
		{"Password= connection string", `CONN = "Server=db.internal;User Id=app;Password=connpw-hunter2;"`, "$CONN", "connpw-hunter2", "db.internal"},
		{"Pwd= connection string", `ODBC = "DRIVER=x;SERVER=db.internal;UID=app;Pwd=odbcpw-hunter2"`, "$ODBC", "odbcpw-hunter2", "db.internal"},
		{"Slack webhook", `NOTIFY_URL = "` + testconfig.SlackHook + `"`, "$NOTIFY_URL", testconfig.SlackHook, ""},
		{"token not in the environment", ``, testconfig.GitHubToken, testconfig.GitHubToken, ""},
		{"PIN", `PIN = "pin-value-1234"`, "$PIN", "pin-value-1234", ""},
		{"API_PIN", `API_PIN = "apipin-5678"`, "$API_PIN", "apipin-5678", ""},
		{"SSH_PRIVKEY", `SSH_PRIVKEY = "privkey-material-99"`, "$SSH_PRIVKEY", "privkey-material-99", ""},
		{"CSRF", `CSRF = "csrf-value-4321"`, "$CSRF", "csrf-value-4321", ""},
		{"RECOVERY_CODES", `RECOVERY_CODES = "rc-aaaa-bbbb rc-cccc-dddd"`, "$RECOVERY_CODES", "rc-aaaa-bbbb", ""},
		{"SEED_PHRASE", `SEED_PHRASE = "abandon ability able about above absent"`, "$SEED_PHRASE", "abandon ability able", ""},
		{"MNEMONIC", `MNEMONIC = "zoo zebra zero zone"`, "$MNEMONIC", "zoo zebra zero zone", ""},
		{"AUTHORISATION", `AUTHORISATION = "authorisation-value-1"`, "$AUTHORISATION", "authorisation-value-1", ""},
		{"npmrc in a value", `NPMRC = "//registry.npmjs.org/:_authToken=0f1e2d3c-4b5a-6978-8796"`, "$NPMRC", "0f1e2d3c-4b5a-6978-8796", "registry.npmjs.org"},
		{"Google OAuth token in a value", `GCLOUD = "access ya29.a0AfH6SMBx3kQ-abcdefghijklmnopqrstuv"`, "$GCLOUD", "ya29.a0AfH6SMBx3kQ", ""},
		{"random seed stays", `RANDOM_SEED = "20240601"`, "$RANDOM_SEED", "", "20240601"},
		{"a switch stays", `PIN_MEMORY = "true", AUTH_ENABLED = "false"`, "$PIN_MEMORY $AUTH_ENABLED", "", "true false"},
		{"PATH and PWD stay", `PATH = "/usr/local/bin:/usr/bin:/bin", KEYBOARD = "us-intl-layout"`, "$PATH $PWD $KEYBOARD", "", "/usr/local/bin:/usr/bin:/bin /"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := fmt.Sprintf("command = [\"sh\", \"-c\", \"cd / && echo \\\"failed: %s\\\" >&2; exit 1\"]\nenv = { %s }", tc.print, tc.env)
			e := f.mustCompile(t, body)
			_, err := f.call(t, context.Background(), e, nil)
			if err == nil {
				t.Fatal("exit 1 was not an error")
			}
			msg := err.Error()
			if tc.secret != "" && (strings.Contains(msg, tc.secret) || !strings.Contains(msg, "(redacted)")) {
				t.Errorf("error = %s", msg)
			}
			if !strings.Contains(msg, tc.keep) {
				t.Errorf("error = %s, want it to keep %q", msg, tc.keep)
			}
		})
	}
}
