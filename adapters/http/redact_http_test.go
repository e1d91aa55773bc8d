package http

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// TestHTTPErrorSnippetSecretAtCut: an upstream that echoes the request's
// URL in its error body, with a path from a parameter that moves the access
// token across the cut of the body's excerpt, never gets a piece of it into
// the error.
func TestHTTPErrorSnippetSecretAtCut(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "bad request %s", r.URL.RequestURI())
	}))
	defer srv.Close()
	src := fmt.Sprintf(`http {
  url   = "%s/${param.pad}"
  query = { access_token = %q }
}
`, srv.URL, testconfig.CutSecret)
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ptype := cty.Object(map[string]cty.Type{"pad": cty.String})
	b, diags := compile(f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &adapters.CompileContext{
		Eval:   &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.UnknownVal(ptype)}},
		Params: map[string]adapters.ParamInfo{"pad": {}},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// "bad request /" + pad + "?access_token=": the token starts at
	// len(pad) + 27.
	for _, off := range []int{1, 2, 5, 10, 20, len(testconfig.CutSecret) - 2, len(testconfig.CutSecret) - 1, len(testconfig.CutSecret)} {
		t.Run(fmt.Sprintf("offset %d", off), func(t *testing.T) {
			pad := strings.Repeat("a", errorSnippetBytes-27-off+1)
			_, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Variables: map[string]cty.Value{
				"param": cty.ObjectVal(map[string]cty.Value{"pad": cty.StringVal(pad)})}}})
			if err == nil {
				t.Fatal("a 400 was not an error")
			}
			if p := testconfig.LeakedPiece(err.Error(), testconfig.CutSecret); p != "" || !strings.Contains(err.Error(), "access_token=") {
				t.Errorf("the error shows %q: %s", p, err)
			}
		})
	}
}

// TestHTTPErrorsRedactSecrets: an upstream that echoes the credential in an
// error body does not get it into the tool error, also one read with env()
// from a variable named like a credential into a query parameter q.
func TestHTTPErrorsRedactSecrets(t *testing.T) {
	const token = "tok_9f8e7d6c5b4a3210"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "bad credentials %q key=%s pin=%s custom=%s q=%s", r.Header.Get("Authorization"), r.URL.Query().Get("api_key"), r.URL.Query().Get("pin"), r.Header.Get("X-Custom"), r.URL.Query().Get("q"))
	}))
	defer srv.Close()
	env := function.New(&function.Spec{
		Params: []function.Parameter{{Name: "name", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(map[string]string{"API_TOKEN": token, "API_KEY": "key_abcdefgh12345", "CUSTOM": "custom-credential-77", "SERVICE_SECRET": "svc-credential-42"}[args[0].AsString()]), nil
		},
	})
	src := fmt.Sprintf(`http {
  url     = %q
  headers = { Authorization = "Bearer ${env("API_TOKEN")}", "X-Custom" = sensitive(env("CUSTOM")) }
  query   = { api_key = env("API_KEY"), pin = param.pin, q = env("SERVICE_SECRET") }
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
	b, diags := compile(f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &adapters.CompileContext{
		Eval:   &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{"param": cty.UnknownVal(ptype)}},
		Params: map[string]adapters.ParamInfo{"pin": {Sensitive: true}},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{
		"param": cty.ObjectVal(map[string]cty.Value{"pin": cty.StringVal("9876-5432")})}}})
	if err == nil {
		t.Fatal("a 401 was not an error")
	}
	for _, secret := range []string{token, "key_abcdefgh12345", "9876-5432", "custom-credential-77", "svc-credential-42"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error leaks %q: %s", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "(redacted)") {
		t.Errorf("error = %s", err)
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
headers = { "X-Upstream" = "token ${env("GH")}" }`, testconfig.GitHubToken},
		{"query webhook under a plain name", srv.URL, `query = { echo = "target", target = env("HOOK") }`, testconfig.SlackHook},
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
			tt := testTool{env: map[string]string{"SAS": "sv2022AbCdEfsig", "GH": testconfig.GitHubToken, "HOOK": testconfig.SlackHook}}
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

// TestHTTPSensitiveAnywhere: a value wrapped in sensitive(...) inside
// headers or query that are not a plain object (a conditional, where no
// name can be told at load) is still kept out of the tool's error.
func TestHTTPSensitiveAnywhere(t *testing.T) {
	const secret = "custom-credential-77"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "bad: custom=%s q=%s", r.Header.Get("X-Custom"), r.URL.Query().Get("q"))
	}))
	defer srv.Close()
	funcs := map[string]function.Function{"sensitive": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "v", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
	})}
	for _, tc := range []struct{ name, attr string }{
		{"headers in a conditional", `headers = true ? { "X-Custom" = sensitive("` + secret + `") } : {}`},
		{"query in a conditional", `query = param.on ? { q = sensitive("` + secret + `") } : {}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  url = %q\n  %s\n}\n", srv.URL, tc.attr)
			f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			ptype := cty.Object(map[string]cty.Type{"on": cty.Bool})
			b, diags := compile(f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &adapters.CompileContext{
				Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{"param": cty.UnknownVal(ptype)}},
			})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			_, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Functions: funcs, Variables: map[string]cty.Value{
				"param": cty.ObjectVal(map[string]cty.Value{"on": cty.True})}}})
			if err == nil || !strings.Contains(err.Error(), "400") {
				t.Fatalf("the call: %v, want the 400", err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error leaks the sensitive value: %s", err)
			}
		})
	}
}
