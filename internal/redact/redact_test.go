package redact

import (
	"fmt"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
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
		// What masking left in place is no secret to mask again.
		{"a mask in a pair", "user=app pw=(sensitive value) token=(redacted)", nil},
		{"a mask in JSON", `{"password": "(sensitive value)"}`, nil},
		{"Azure SAS URL", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2030-01-01&sig=AbCdEf%2Bsig%3D", []string{"AbCdEf%2Bsig%3D"}},
		{"OAuth callback", "https://app.example/cb?code=4%2F0AX4XfWh&state=xyz", []string{"4%2F0AX4XfWh"}},
		{"GitHub token", "token " + testconfig.GitHubToken, []string{testconfig.GitHubToken}},
		{"GitHub fine-grained token", testconfig.GitHubPAT, []string{testconfig.GitHubPAT}},
		{"Slack token", testconfig.SlackToken, []string{testconfig.SlackToken}},
		{"AWS key id", "id=" + testconfig.AWSKey, []string{testconfig.AWSKey}},
		{"JWT", "jwt: " + testconfig.JWT, []string{testconfig.JWT}},
		{"Slack webhook", testconfig.SlackHook, []string{testconfig.SlackHook}},
		{"Discord webhook", testconfig.DiscordHook, []string{testconfig.DiscordHook}},
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
		{"push failed for " + testconfig.GitHubToken + ": bad credentials", "push failed for (redacted): bad credentials"},
		{"connect postgres://app:s3cretpw@db/app: refused", "connect postgres://app:(redacted)@db/app: refused"},
		{"POST " + testconfig.SlackHook + " 404", "POST (redacted) 404"},
		{`{"token":"` + testconfig.JWT + `"}`, `{"token":"(redacted)"}`},
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
