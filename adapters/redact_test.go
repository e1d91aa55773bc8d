package adapters

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

func TestSensitiveName(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "X-Api-Key": true,
		"access_token": true, "client_secret": true, "X-Session-Id": true,
		"Accept": false, "Content-Type": false, "User-Agent": false, "q": false, "limit": false,
	} {
		if got := SensitiveName(name); got != want {
			t.Errorf("SensitiveName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		msg     string
		secrets []string
		want    string
	}{
		{"got Bearer s3cr3t-t0ken-value back", []string{"Bearer s3cr3t-t0ken-value"}, "got (redacted) back"},
		{"unknown token s3cr3t-t0ken-value", []string{"Bearer s3cr3t-t0ken-value"}, "unknown token (redacted)"},
		{"cookie sid=abcdef123456 rejected", []string{"sid=abcdef123456; theme=dark"}, "cookie sid=(redacted) rejected"},
		{"short abc stays", []string{"abc"}, "short abc stays"},
		{"Bearer is a word", []string{"Bearer s3cr3t-t0ken-value"}, "Bearer is a word"},
		{`bad key "s3cr3t-t0ken"`, []string{"s3cr3t-t0ken\n"}, `bad key "(redacted)"`},
		{fmt.Sprintf("bad key %q", "pa\"ss\nw0rd!"), []string{"pa\"ss\nw0rd!"}, `bad key "(redacted)"`},
		{`{"error":"bad key pa\u003css\u003ew0rd"}`, []string{"pa<ss>w0rd"}, `{"error":"bad key (redacted)"}`},
		{"GET /x?key=a%2Bb%2Fc%3D%3D9z failed", []string{"a+b/c==9z"}, "GET /x?key=(redacted) failed"},
		{`token "\u5bc6\u7801-secret"`, []string{"密码-secret"}, `token "(redacted)"`},
		{"a    b", []string{"    "}, "a    b"},
	} {
		if got := Redact(tc.msg, tc.secrets); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// TestHTTPErrorsRedactSecrets: an upstream that echoes the credential in an
// error body does not get it into the tool error.
func TestHTTPErrorsRedactSecrets(t *testing.T) {
	const token = "tok_9f8e7d6c5b4a3210"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "bad credentials %q key=%s pin=%s custom=%s", r.Header.Get("Authorization"), r.URL.Query().Get("api_key"), r.URL.Query().Get("pin"), r.Header.Get("X-Custom"))
	}))
	defer srv.Close()
	env := function.New(&function.Spec{
		Params: []function.Parameter{{Name: "name", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(map[string]string{"API_TOKEN": token, "API_KEY": "key_abcdefgh12345", "CUSTOM": "custom-credential-77"}[args[0].AsString()]), nil
		},
	})
	src := fmt.Sprintf(`http {
  url     = %q
  headers = { Authorization = "Bearer ${env("API_TOKEN")}", "X-Custom" = sensitive(env("CUSTOM")) }
  query   = { api_key = env("API_KEY"), pin = param.pin }
}
`, srv.URL)
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ptype := cty.Object(map[string]cty.Type{"pin": cty.String})
	funcs := map[string]function.Function{"env": env, "sensitive": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "v", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
	})}
	b, diags := compileHTTP(f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &CompileContext{
		Eval:   &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{"param": cty.UnknownVal(ptype)}},
		Params: map[string]ParamInfo{"pin": {Sensitive: true}},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, err := b.Call(context.Background(), &Input{Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{
		"param": cty.ObjectVal(map[string]cty.Value{"pin": cty.StringVal("9876-5432")})}}})
	if err == nil {
		t.Fatal("a 401 was not an error")
	}
	for _, secret := range []string{token, "key_abcdefgh12345", "9876-5432", "custom-credential-77"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error leaks %q: %s", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "(redacted)") {
		t.Errorf("error = %s", err)
	}
}

// TestExecErrorsRedactEnvSecrets: a command that prints its credential on
// failure does not get it into the tool error.
func TestExecErrorsRedactEnvSecrets(t *testing.T) {
	src := `exec {
  command = ["sh", "-c", "echo \"auth failed for $API_TOKEN and $OTHER\" >&2; exit 1"]
  env     = { API_TOKEN = "tok-abcdef0123456789", OTHER = sensitive("other-credential-99") }
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
	})}
	b, diags := compileExec(f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &CompileContext{
		Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.EmptyObject)}},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, err := b.Call(context.Background(), &Input{Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}}})
	if err == nil {
		t.Fatal("exit 1 was not an error")
	}
	for _, secret := range []string{"tok-abcdef0123456789", "other-credential-99"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error leaks %q: %s", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "auth failed for (redacted)") {
		t.Errorf("error = %s", err)
	}
}

// TestSensitiveNameWords: a name is a credential's by its words, so that
// the short marks (pat, pw, sig, key) are found as words and not inside
// others (PATH, KEYBOARD, SIGNAL).
func TestSensitiveNameWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"GITHUB_PAT", true}, {"PASSPHRASE", true}, {"JWT", true}, {"X-Jwt", true}, {"PW", true}, {"PASS", true},
		{"X-Pass", true}, {"MY_CREDS", true}, {"sig", true}, {"code", true}, {"Code", true}, {"DB_PWD", true}, {"Pwd", true},
		{"PASSWORD2", true}, {"dbPassword", true}, {"apiKey", true}, {"XAuthToken", true}, {"AccessKeyId", true},
		{"x-apikey", true}, {"SLACK_WEBHOOK_URL", true}, {"X-Hub-Signature-256", true}, {"SENTRY_DSN", true},
		{"X-Amz-Security-Token", true}, {"Set-Cookie", true}, {"oauth_verifier", true}, {"SMTP_PASSWD", true},
		{"private_key", true}, {"X-Passcode", true}, {"Authentication", true}, {"db_pswd", true}, {"X-Session-Id", true}, {"auth", true}, {"BasicAuth", true}, {"sid", true},
		{"PATH", false}, {"PATTERN", false}, {"KEYBOARD", false}, {"PASSTHROUGH", false}, {"SIGNAL", false},
		{"GIT_AUTHOR_NAME", false}, {"keyword", false}, {"country_code", false}, {"status_code", false},
		{"monkey", false}, {"BYPASS", false}, {"COMPASS", false}, {"DATABASE_URL", false}, {"HOME", false},
		{"USER", false}, {"Content-Type", false}, {"Accept", false}, {"q", false}, {"limit", false}, {"SPATIAL", false},
		// The second review's names, and their classes.
		{"X-Pin", true}, {"pin", true}, {"PIN", true}, {"API_PIN", true}, {"cardPin", true}, {"PIN_CODE", true}, {"pincode", true},
		{"X-Privkey", true}, {"SSH_PRIVKEY", true}, {"priv_key", true}, {"X-Authorisation", true}, {"authorisation", true},
		{"AUTHORISATION", true}, {"X-Csrf", true}, {"CSRF", true}, {"_csrf", true}, {"X-XSRF-TOKEN", true}, {"csrfmiddleware", true},
		{"X-Ticket", true}, {"ticket", true}, {"RECOVERY_CODE", true}, {"RECOVERY_CODES", true}, {"recoveryCodes", true},
		{"BACKUP_CODES", true}, {"SEED_PHRASE", true}, {"seedPhrase", true}, {"WALLET_SEED_WORDS", true}, {"MNEMONIC", true},
		{"wallet_mnemonic", true}, {"HOTP_SECRET", true}, {"X-Otp", true},
		{"PINNED", false}, {"SPINE", false}, {"PING_URL", false}, {"SPIN", false}, {"pinned_version", false},
		{"RANDOM_SEED", false}, {"SEED", false}, {"RECOVERY_MODE", false}, {"BACKUP_DIR", false}, {"PHRASE", false},
		{"TICKETS_URL", false}, {"HTTP_STATUS_CODE", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SensitiveName(tc.name); got != tc.want {
				t.Errorf("SensitiveName(%q) = %v, want %v (words %q)", tc.name, got, tc.want, slices.Collect(nameWords(tc.name)))
			}
		})
	}
}

// Tokens of the known formats, made up for the tests.
const (
	testGitHubToken = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	testGitHubPAT   = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	testSlackToken  = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	testAWSKey      = "AKIA" + "IOSFODNN7EXAMPLE"
	testJWT         = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	testSlackHook   = "https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
	testDiscordHook = "https://discord.com/api/webhooks/" + "123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
)

// TestValueSecrets: the credentials inside a value are found by their
// form: URL userinfo, connection-string and query-string keys named like
// credentials, and tokens of known formats.
func TestValueSecrets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, value string
		want        []string
	}{
		{"URL userinfo", "postgres://app:s3cretpw@db.internal:5432/app", []string{"s3cretpw"}},
		{"URL userinfo, escaped", "mysql://root:p%40ss%3Aword@db/x", []string{"p%40ss%3Aword"}},
		{"URL with a key for user", "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/1", []string{"0123456789abcdef0123456789abcdef"}},
		{"URL with a user name", "postgres://postgres@db/app", nil},
		{"ADO.NET", "Server=db;Database=app;User Id=app;Password=hunter2hunter2;", []string{"hunter2hunter2"}},
		{"ODBC", "DRIVER={ODBC Driver 18};SERVER=db;UID=app;PWD=Tr0ub4dor&3x", []string{"Tr0ub4dor&3x"}},
		{"ODBC braces", "Driver={x};Server=db;Uid=app;Pwd={p;w d};", []string{"p;w d"}},
		{"ADO.NET quoted", `Server=db;Password='a;b c d';`, []string{"a;b c d"}},
		{"libpq", "host=db port=5432 user=app password=correcthorse dbname=app", []string{"correcthorse"}},
		{"Azure SAS URL", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2030-01-01&sig=AbCdEf%2Bsig%3D", []string{"AbCdEf%2Bsig%3D"}},
		{"OAuth callback", "https://app.example/cb?code=4%2F0AX4XfWh&state=xyz", []string{"4%2F0AX4XfWh"}},
		{"GitHub token", "token " + testGitHubToken, []string{testGitHubToken}},
		{"GitHub fine-grained token", testGitHubPAT, []string{testGitHubPAT}},
		{"Slack token", testSlackToken, []string{testSlackToken}},
		{"AWS key id", "id=" + testAWSKey, []string{testAWSKey}},
		{"JWT", "jwt: " + testJWT, []string{testJWT}},
		{"Slack webhook", testSlackHook, []string{testSlackHook}},
		{"Discord webhook", testDiscordHook, []string{testDiscordHook}},
		{"Bearer", "Authorization: Bearer abc.DEF-123_456", []string{"abc.DEF-123_456"}},
		{"Bearer and words", `WWW-Authenticate: Bearer error="invalid_token"; Bearer authentication required`, nil},
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----", []string{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"}},
		{"URL with a password only", "redis://:r3dis-pass@cache:6379/0", []string{"r3dis-pass"}},
		{"JSON", `{"user": "app", "password": "js0n-p\"ss"}`, []string{`js0n-p\"ss`}},
		{"npm token", "//registry.npmjs.org/:_authToken=npm_" + "abcdefghijklmnopqrstuvwxyz0123456789", []string{"npm_abcdefghijklmnopqrstuvwxyz0123456789"}},
		{"Teams webhook", "https://contoso.webhook.office.com/webhookb2/abc@def/IncomingWebhook/123/456", []string{"https://contoso.webhook.office.com/webhookb2/abc@def/IncomingWebhook/123/456"}},
		{"Basic credentials", "Authorization: Basic dXNlcjpodW50ZXIy", []string{"dXNlcjpodW50ZXIy"}},
		{"Basic and words", "Basic authentication required", nil},
		{"plain URL", "https://example.com/search?q=go&page=2", nil},
		{"connection string without a password", "Server=db;Database=app;User Id=app", nil},
		{"PATH", "/usr/local/bin:/usr/bin:/bin", nil},
		{"words", "the key to the token is a passphrase", nil},
		// The second review's formats, and others of their class.
		{"npmrc _authToken", "//registry.npmjs.org/:_authToken=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", []string{"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"}},
		{"npmrc _auth", "//npm.example.com/:_auth=\"dXNlcjpodW50ZXIy\"\nemail=app@example.com", []string{"dXNlcjpodW50ZXIy"}},
		{"npmrc _password", "//npm.example.com/:username=app\n//npm.example.com/:_password=aHVudGVyMg==", []string{"aHVudGVyMg=="}},
		{"npmrc global _auth", "_auth = dXNlcjpodW50ZXIy", []string{"dXNlcjpodW50ZXIy"}},
		{"npmrc placeholder", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}", nil},
		{"Google OAuth", "token ya29.a0AfH6SMBx3kQ-abcdefghijklmnopqrstuv", []string{"ya29.a0AfH6SMBx3kQ-abcdefghijklmnopqrstuv"}},
		{"Docker PAT", "dckr_pat_2b3e36beeb386dfdaacb9b46004ccb7c", []string{"dckr_pat_2b3e36beeb386dfdaacb9b46004ccb7c"}},
		{"Vault service token", "X-Vault-Token: hvs.CAESIJlU3sQ0aR1lS2bZr3aJ4c5d", []string{"hvs.CAESIJlU3sQ0aR1lS2bZr3aJ4c5d"}},
		{"Vault batch token", "hvb.AAAAAQJmY2Y0NWE1ZS1mYjE3LTFlYTgtYmI", []string{"hvb.AAAAAQJmY2Y0NWE1ZS1mYjE3LTFlYTgtYmI"}},
		{"Grafana service account", "glsa_pITqM4bKjPXwE2nCTW0fvUdvD0tLD4Ee_7b9d1c2e", []string{"glsa_pITqM4bKjPXwE2nCTW0fvUdvD0tLD4Ee_7b9d1c2e"}},
		{"Anthropic", "x-api: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", []string{"sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"}},
		{"Slack app token", "xapp-1-A0123456789-0123456789012-abcdef", []string{"xapp-1-A0123456789-0123456789012-abcdef"}},
		{"HubSpot", "pat-na1-11111111-2222-3333-4444-555555555555", []string{"pat-na1-11111111-2222-3333-4444-555555555555"}},
		{"GitLab runner", "glrt-abcdefghijklmnopqrst12", []string{"glrt-abcdefghijklmnopqrst12"}},
		{"Databricks", "dapi0123456789abcdef0123456789abcdef", []string{"dapi0123456789abcdef0123456789abcdef"}},
		{"Telegram bot", "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1 failed", []string{"123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"}},
		{"look-alikes", "ya29.short hvs.x glsa_ dckr_pat_ key-value pat-na1- dapi the sk-ant- a_auth=x", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ValueSecrets(tc.value)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ValueSecrets(%q) = %q, want %q", tc.value, got, tc.want)
			}
		})
	}
}

// TestRedactFormats: a credential known by its form is masked in any
// message, whoever sent it.
func TestRedactFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ msg, want string }{
		{"push failed for " + testGitHubToken + ": bad credentials", "push failed for (redacted): bad credentials"},
		{"connect postgres://app:s3cretpw@db/app: refused", "connect postgres://app:(redacted)@db/app: refused"},
		{"POST " + testSlackHook + " 404", "POST (redacted) 404"},
		{`{"token":"` + testJWT + `"}`, `{"token":"(redacted)"}`},
		{"Bearer is a word", "Bearer is a word"},
		{"GET https://acct.blob.core.windows.net/c/f?sv=2022&sig=AbCdEf%2Bsig%3D&se=1 403", "GET https://acct.blob.core.windows.net/c/f?sv=2022&sig=(redacted)&se=1 403"},
		{"https://example.com/search?q=secret+keys&page=2 failed", "https://example.com/search?q=secret+keys&page=2 failed"},
		{"password=hunter2 stays: only forms are known", "password=hunter2 stays: only forms are known"},
		{"npm ERR! 401 //registry.example.com/:_authToken=0f1e2d3c-4b5a-6978 rejected", "npm ERR! 401 //registry.example.com/:_authToken=(redacted) rejected"},
		{"vault: hvs.CAESIJlU3sQ0aR1lS2bZr3aJ4c5d denied", "vault: (redacted) denied"},
	} {
		if got := Redact(tc.msg, nil); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// TestHTTPErrorsRedactByRule: an upstream that echoes what it was sent in
// an error body gets none of the credentials into the tool error, for
// each class of the rule: names, values inside values, and forms.
func TestHTTPErrorsRedactByRule(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		if _, p, ok := r.BasicAuth(); ok {
			fmt.Fprintf(w, "denied password %s", p)
			return
		}
		what := r.URL.Query().Get("echo")
		v := r.URL.Query().Get(what)
		if h := r.Header.Get(what); h != "" {
			v = h
		}
		fmt.Fprintf(w, "denied %s=%s", what, v)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	for _, tc := range []struct {
		name, url, attrs, secret string
	}{
		{"query sig", srv.URL + "/blob", `query = { echo = "sig", sig = env("SAS") }`, "sv2022AbCdEfsig"},
		{"query code", srv.URL + "/cb", `query = { echo = "code", code = env("SAS") }`, "sv2022AbCdEfsig"},
		{"sig in the url", srv.URL + `/blob?sv=2022&echo=sig&sig=${env("SAS")}`, ``, "sv2022AbCdEfsig"},
		{"header X-Jwt", srv.URL, `query = { echo = "X-Jwt" }
headers = { "X-Jwt" = env("SAS") }`, "sv2022AbCdEfsig"},
		{"header X-Pass", srv.URL, `query = { echo = "X-Pass" }
headers = { "X-Pass" = env("SAS") }`, "sv2022AbCdEfsig"},
		{"header GitHub token under a plain name", srv.URL, `query = { echo = "X-Upstream" }
headers = { "X-Upstream" = "token ${env("GH")}" }`, testGitHubToken},
		{"query webhook under a plain name", srv.URL, `query = { echo = "target", target = env("HOOK") }`, testSlackHook},
		{"query connection string", srv.URL, `query = { echo = "dsn_info", dsn_info = "Server=db;Password=${env("SAS")}" }`, "sv2022AbCdEfsig"},
		{"url userinfo", `http://app:${env("SAS")}@` + u.Host, ``, "sv2022AbCdEfsig"},
		{"header X-Pin", srv.URL, `query = { echo = "X-Pin" }
headers = { "X-Pin" = env("SAS") }`, "sv2022AbCdEfsig"},
		{"header X-Privkey", srv.URL, `query = { echo = "X-Privkey" }
headers = { "X-Privkey" = env("SAS") }`, "sv2022AbCdEfsig"},
		{"header X-Authorisation", srv.URL, `query = { echo = "X-Authorisation" }
headers = { "X-Authorisation" = env("SAS") }`, "sv2022AbCdEfsig"},
		{"header X-Csrf", srv.URL, `query = { echo = "X-Csrf" }
headers = { "X-Csrf" = env("SAS") }`, "sv2022AbCdEfsig"},
		{"header X-Ticket", srv.URL, `query = { echo = "X-Ticket" }
headers = { "X-Ticket" = env("SAS") }`, "sv2022AbCdEfsig"},
		{"query pin", srv.URL, `query = { echo = "pin", pin = env("SAS") }`, "sv2022AbCdEfsig"},
		{"query authorisation", srv.URL, `query = { echo = "authorisation", authorisation = env("SAS") }`, "sv2022AbCdEfsig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tt := httpTestTool{env: map[string]string{"SAS": "sv2022AbCdEfsig", "GH": testGitHubToken, "HOOK": testSlackHook}}
			h := tt.mustCompile(t, "http {\n  url = \""+tc.url+"\"\n  "+tc.attrs+"\n}\n")
			_, err := tt.call(context.Background(), h, nil)
			if err == nil {
				t.Fatal("a 403 was not an error")
			}
			if strings.Contains(err.Error(), tc.secret) || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "(redacted)") {
				t.Errorf("error = %s", err)
			}
		})
	}
}

// TestExecErrorsRedactByRule: a command that prints its credentials on
// stderr gets none of them into the tool error, for each class of the
// rule, and what is no credential (PATH, the working directory in PWD)
// stays.
func TestExecErrorsRedactByRule(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
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
		{"Slack webhook", `NOTIFY_URL = "` + testSlackHook + `"`, "$NOTIFY_URL", testSlackHook, ""},
		{"token not in the environment", ``, testGitHubToken, testGitHubToken, ""},
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
