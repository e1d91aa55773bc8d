package host

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testoidc"
)

// exchangeAudience is the audience of the upstream's tokens, which the
// test issuer exchanges callers' tokens for.
const exchangeAudience = "https://api.example.com"

// exchangeConfig is a config whose auth block trusts is and exchanges
// tokens as the client toolhost (its secret the expression secret), with a tool whose upstream takes
// exchanged tokens and one that asks for an audience is refuses.
func exchangeConfig(is *testoidc.Issuer, upstream, secret string) string {
	return fmt.Sprintf(`
server {
  name    = "exchange-test"
  version = "1.0.0"
  auth {
    issuer                 = %[1]q
    audience               = %[2]q
    exchange_client_id     = "toolhost"
    exchange_client_secret = %[5]s
  }
}
tool "items" {
  description = "Lists the caller's items upstream"
  http {
    url = "%[3]s/items"
    token_exchange {
      audience = %[4]q
      scope    = "read"
    }
  }
}
tool "elsewhere" {
  description = "Reaches an upstream the issuer does not exchange tokens for"
  http {
    url = "%[3]s/other"
    token_exchange { audience = "https://other.example.com" }
  }
}
tool "cleartext" {
  description = "Reaches an upstream over plain http on the network"
  http {
    url = "http://api.example.com/items"
    token_exchange { audience = %[4]q }
  }
}
`, is.URL, authAudience, upstream, exchangeAudience, secret)
}

// jwtClaims decodes the payload of the JWT tok, unverified.
func jwtClaims(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("%q is not a JWT", tok)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTokenExchangeOverHTTP calls http tools with token_exchange over real
// HTTP, with a real issuer on loopback: the upstream gets a token the
// issuer exchanged for the caller's (for its audience, with the caller's
// subject), never the caller's own; one exchange serves the calls of a
// caller until the token nears its expiry; a refused exchange is a clear
// error; no token shows in the server's log, traffic included; and over
// stdio, with no caller, the tool is refused.
func TestTokenExchangeOverHTTP(t *testing.T) {
	t.Setenv("EXCHANGE_SECRET", "s3cret-of-toolhost")
	is := testoidc.Start(t, authAudience)
	is.AddClient("toolhost", "s3cret-of-toolhost")
	is.AllowExchange(exchangeAudience)
	up := newUpstreamRecorder(t)
	e := startHTTPConfig(t, HTTPOptions{}, exchangeConfig(is, up.srv.URL, `env("EXCHANGE_SECRET")`))
	connect := func(t *testing.T, token string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		tr := &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}
		cs, err := c.Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	anaToken := is.Mint(testoidc.Token{Claims: is.Claims("ana", nil)})
	bobToken := is.Mint(testoidc.Token{Claims: is.Claims("bob", nil)})
	ana, bob := connect(t, anaToken), connect(t, bobToken)
	secrets := []string{anaToken, bobToken, "s3cret-of-toolhost"} // and the exchanged tokens

	t.Run("exchanged token upstream", func(t *testing.T) {
		for _, tc := range []struct {
			name, sub, callerToken string
			cs                     *mcp.ClientSession
			exchanges              int
		}{
			{"first call of ana", "ana", anaToken, ana, 1},
			{"second call of ana, from the cache", "ana", anaToken, ana, 1},
			{"bob, an exchange of his own", "bob", bobToken, bob, 2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := callText(t, tc.cs, "items", nil); got != "ok" {
					t.Fatalf("items: %q", got)
				}
				auth := up.last(t).Header.Get("Authorization")
				tok, ok := strings.CutPrefix(auth, "Bearer ")
				if !ok || tok == tc.callerToken || strings.Contains(auth, tc.callerToken) {
					t.Fatalf("upstream got Authorization %q, want an exchanged bearer token, not the caller's", auth)
				}
				secrets = append(secrets, tok)
				c := jwtClaims(t, tok)
				act, _ := c["act"].(map[string]any)
				if c["aud"] != exchangeAudience || c["sub"] != tc.sub || c["scope"] != "read" || act["sub"] != "toolhost" {
					t.Errorf("exchanged token's claims %v, want aud %s, sub %s, scope read, act toolhost", c, exchangeAudience, tc.sub)
				}
				if n := is.Exchanges(); n != tc.exchanges {
					t.Errorf("%d exchanges, want %d", n, tc.exchanges)
				}
			})
		}
	})

	t.Run("refused exchange", func(t *testing.T) {
		up.mu.Lock()
		before := len(up.reqs)
		up.mu.Unlock()
		res, err := ana.CallTool(context.Background(), &mcp.CallToolParams{Name: "elsewhere"})
		if err != nil {
			t.Fatal(err)
		}
		text := testconfig.ResultText(res)
		for _, want := range []string{`"elsewhere"`, `the token exchange for the audience "https://other.example.com"`, "was refused by the issuer", "invalid_target"} {
			if !res.IsError || !strings.Contains(text, want) {
				t.Errorf("elsewhere: isError=%v %q, want it to say %q", res.IsError, text, want)
			}
		}
		if strings.Contains(text, anaToken) || strings.Contains(text, "s3cret") {
			t.Errorf("the error holds the caller's token or the client's secret: %q", text)
		}
		up.mu.Lock()
		after := len(up.reqs)
		up.mu.Unlock()
		if after != before {
			t.Errorf("the upstream got a request after a refused exchange")
		}
	})

	t.Run("cleartext upstream", func(t *testing.T) {
		before := is.Exchanges()
		res, err := ana.CallTool(context.Background(), &mcp.CallToolParams{Name: "cleartext"})
		if err != nil {
			t.Fatal(err)
		}
		if text := testconfig.ResultText(res); !res.IsError || !strings.Contains(text, "in the clear") {
			t.Errorf("cleartext: isError=%v %q, want it refused", res.IsError, text)
		}
		if is.Exchanges() != before {
			t.Errorf("a token was exchanged for an upstream it would not be sent to")
		}
	})

	t.Run("nothing logged", func(t *testing.T) {
		log := e.log.String()
		if !strings.Contains(log, "rpc out") {
			t.Fatal("the server logged no traffic: the check below would prove nothing")
		}
		for _, s := range secrets {
			if strings.Contains(log, s) {
				t.Errorf("the server log holds a token or secret (%d bytes)", len(s))
			}
		}
	})

	t.Run("stdio", func(t *testing.T) {
		p := startStdio(t, loadSource(t, exchangeConfig(is, up.srv.URL, `"s3cret-of-toolhost"`)))
		p.initialize()
		text := stdioToolError(t, p, 2, "items")
		if !strings.Contains(text, "token_exchange") || !strings.Contains(text, "this call comes with no token") {
			t.Fatalf("tools/call over stdio: %q", text)
		}
	})
}

// stdioToolError calls the tool name, without arguments, as request id
// over the stdio peer p, and returns the text of its isError result.
func stdioToolError(t *testing.T, p *stdioPeer, id int, name string) string {
	t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, name))
	r := p.next()
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || !res.IsError || len(res.Content) != 1 {
		t.Fatalf("tools/call %s: %s, want one isError text", name, r.line)
	}
	return res.Content[0].Text
}
