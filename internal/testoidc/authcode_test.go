package testoidc

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// noRedirects is a client that returns redirects instead of following
// them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// answer is a decoded JSON answer and its status.
type answer struct {
	status int
	body   map[string]any
}

func postForm(t *testing.T, u string, form url.Values) answer {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode}
	if err := json.NewDecoder(resp.Body).Decode(&a.body); err != nil {
		t.Fatalf("POST %s: %d, not JSON: %v", u, resp.StatusCode, err)
	}
	return a
}

// TestAuthorizationCode: a client registered dynamically gets a code for
// its redirect URI, and a token for it only with the PKCE verifier of its
// challenge, once; requests that are not right are refused as OAuth says.
func TestAuthorizationCode(t *testing.T) {
	is := Start(t, "")
	const redirect = "http://127.0.0.1:1/callback"
	const resource = "https://tools.example.com/mcp"
	resp, err := http.Post(is.URL+"/register", "application/json",
		strings.NewReader(`{"redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	err = json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated || reg.ClientID == "" || reg.ClientSecret != "" {
		t.Fatalf("register: %d %+v %v", resp.StatusCode, reg, err)
	}
	const verifier = "a-verifier-of-enough-length-for-pkce-0123456789"
	sum := sha256.Sum256([]byte(verifier))
	authorize := func(q url.Values) *http.Response {
		t.Helper()
		base := url.Values{"client_id": {reg.ClientID}, "redirect_uri": {redirect}, "response_type": {"code"},
			"code_challenge": {b64(sum[:])}, "code_challenge_method": {"S256"}, "state": {"st"}, "resource": {resource}, "scope": {"mcp"}}
		for k, v := range q {
			base[k] = v
		}
		resp, err := noRedirects.Get(is.URL + "/authorize?" + base.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	code := func() string {
		t.Helper()
		resp := authorize(nil)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || loc == nil || loc.Query().Get("state") != "st" || loc.Query().Get("code") == "" {
			t.Fatalf("authorize: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		return loc.Query().Get("code")
	}
	exchange := func(code, verifier string) answer {
		t.Helper()
		return postForm(t, is.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {reg.ClientID},
			"code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}})
	}

	t.Run("the wrong verifier", func(t *testing.T) {
		if a := exchange(code(), "another-verifier"); a.status != http.StatusBadRequest || a.body["error"] != "invalid_grant" {
			t.Fatalf("%+v", a)
		}
	})
	t.Run("the right verifier, once", func(t *testing.T) {
		c := code()
		a := exchange(c, verifier)
		tok, _ := a.body["access_token"].(string)
		if a.status != http.StatusOK || tok == "" || a.body["scope"] != "mcp" {
			t.Fatalf("%+v", a)
		}
		var claims map[string]any
		if err := json.Unmarshal(mustB64(t, strings.Split(tok, ".")[1]), &claims); err != nil {
			t.Fatal(err)
		}
		if claims["aud"] != resource || claims["sub"] != Approver || claims["iss"] != is.URL {
			t.Fatalf("claims %v", claims)
		}
		if a := exchange(c, verifier); a.status != http.StatusBadRequest || a.body["error"] != "invalid_grant" {
			t.Fatalf("the code again: %+v", a)
		}
	})
	for _, tc := range []struct {
		name   string
		q      url.Values
		status int
		error  string // in the redirect; "" for none
	}{
		{"a redirect URI not registered", url.Values{"redirect_uri": {"http://127.0.0.1:1/elsewhere"}}, http.StatusBadRequest, ""},
		{"an unknown client", url.Values{"client_id": {"nobody"}}, http.StatusBadRequest, ""},
		{"no PKCE", url.Values{"code_challenge": {""}}, http.StatusFound, "invalid_request"},
		{"plain PKCE", url.Values{"code_challenge_method": {"plain"}}, http.StatusFound, "invalid_request"},
		{"the implicit grant", url.Values{"response_type": {"token"}}, http.StatusFound, "unsupported_response_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := authorize(tc.q)
			loc, _ := url.Parse(resp.Header.Get("Location"))
			if resp.StatusCode != tc.status || (tc.error == "") != (loc.String() == "") ||
				loc.Query().Get("error") != tc.error || loc.Query().Get("code") != "" {
				t.Fatalf("%d, Location %q", resp.StatusCode, loc)
			}
		})
	}
	t.Run("client_credentials of a public client", func(t *testing.T) {
		a := postForm(t, is.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {reg.ClientID}})
		if a.status != http.StatusBadRequest || a.body["error"] != "unauthorized_client" {
			t.Fatalf("%+v", a)
		}
	})
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
