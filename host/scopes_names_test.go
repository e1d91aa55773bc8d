package host

import (
	"io"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestScopesNamesInErrors: the errors that list names (an unknown tool
// or prompt, with the close one; a completion of an unknown prompt or
// template; an unknown group) name only what the caller's token lets it
// see: a caller without the scopes is not told the hidden names that
// its lists leave out.
func TestScopesNamesInErrors(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authServer(is)+`
tool "status" {
  template { text = "up" }
}
tool "secret_reset" {
  scopes = ["admin"]
  template { text = "reset" }
}
prompt "secret_prompt" {
  scopes = ["admin"]
  message "user" { text = "hi" }
}
resource_template "secret_logs" {
  uri_template = "secretlogs:///{name}"
  scopes       = ["admin"]
  template { text = "log" }
}
group "secret_group" {
  tools  = ["secret_reset"]
  scopes = ["admin"]
}
`)
	requests := []struct{ method, name, params string }{
		{"tools/call", "secret_rese", `"name":"secret_rese","arguments":{}`},
		{"prompts/get", "secret_promp", `"name":"secret_promp"`},
		{"completion/complete", "", `"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}`},
		{"completion/complete", "", `"ref":{"type":"ref/resource","uri":"nope:///{x}"},"argument":{"name":"x","value":""}`},
	}
	for _, tc := range []struct {
		name, scope string
		hidden      bool
	}{
		{"without the scope", "", true},
		{"with the scope", "admin", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := is.Mint(testoidc.Token{Claims: is.Claims("ann", map[string]any{"scope": tc.scope})})
			for _, rq := range requests {
				hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": rq.method, "Authorization": "Bearer " + tok}
				if rq.name != "" {
					hdr["Mcp-Name"] = rq.name
				}
				resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"`+rq.method+`","params":{`+newMeta+`,`+rq.params+`}}`, hdr)
				_, code, msg := httpOutcome(t, rq.method, resp)
				resp.Body.Close()
				if code == 0 {
					t.Fatalf("%s %s: no error", rq.method, rq.params)
				}
				if namesHidden(msg) != tc.hidden {
					t.Errorf("%s %s: %q, want the hidden names named: %v", rq.method, rq.params, msg, !tc.hidden)
				}
			}
			resp := rawPost(t, e.base+"/mcp/secret_grou", initializeBody, map[string]string{"Authorization": "Bearer " + tok})
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 404 || namesHidden(string(body)) != tc.hidden {
				t.Errorf("an unknown group: %s %s, want the hidden group named: %v", resp.Status, body, !tc.hidden)
			}
		})
	}
}

// namesHidden reports whether msg names none of the items and groups
// TestScopesNamesInErrors hides.
func namesHidden(msg string) bool {
	for _, n := range []string{"secret_reset", "secret_prompt", "secretlogs:", "secret_group"} {
		if strings.Contains(msg, `"`+n) || strings.Contains(msg, " "+n) {
			return false
		}
	}
	return true
}
