package adapters

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
