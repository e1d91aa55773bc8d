package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResultErrorsHideSecrets: an upstream or a command that echoes a
// credential in a successful output whose result mapping then fails must
// not get the credential into the error message: the message quotes the
// output, and the secrets the call sent are redacted from it as from
// every other error.
func TestResultErrorsHideSecrets(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// Echo what the request carried where a number is expected.
		echo := r.Header.Get("Authorization") + r.Header.Get("X-Custom") + r.URL.Query().Get("q")
		if r.URL.Path == "/text" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "you sent "+echo)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"value": echo})
	}))
	defer upstream.Close()

	cfg := fmt.Sprintf(`
tool "auth_header" {
  http {
    url     = "%[1]s/json"
    headers = { Authorization = "Bearer ${env("TOOLHOST_TEST_UNSET_TOKEN", "tok-HEADER-1234567")}" }
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
tool "marked_header" {
  http {
    url     = "%[1]s/text"
    headers = { X-Custom = sensitive("tok-MARKED-7654321") }
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
tool "sensitive_param" {
  param "q" {
    type      = string
    sensitive = true
  }
  http {
    url   = "%[1]s/json"
    query = { q = param.q }
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
tool "exec_env" {
  exec {
    `+helperCommand(`"print"`, `"token "`, `"printenv"`, `"T"`, `"echo"`)+`
    env     = { T = sensitive("tok-ENV-99999999") }
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
tool "exec_param" {
  param "pw" {
    type      = string
    sensitive = true
  }
  exec {
    `+helperCommand(`"echo"`, `"{\"value\": \"${param.pw}\"}"`)+`
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
`, upstream.URL)
	reg := loadSource(t, cfg)

	for _, tc := range []struct {
		tool, args, want string
	}{
		{"auth_header", `{}`, `result field "value"`},
		{"marked_header", `{}`, "not JSON"},
		{"sensitive_param", `{"q": "tok-PARAM-31415926"}`, `result field "value"`},
		{"exec_env", `{}`, "not JSON"},
		{"exec_param", `{"pw": "tok-EXECPARAM-2718281"}`, `result field "value"`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res, err := reg.CallTool(context.Background(), tc.tool, []byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(text, tc.want) {
				t.Fatalf("isError=%v %q; want an error containing %q", res.IsError, text, tc.want)
			}
			if strings.Contains(text, "tok-") {
				t.Errorf("the error quotes a secret: %q", text)
			}
		})
	}
}

// TestResultPreviewSecretAtCut: the start of an output that a result
// mapping's error quotes is cut after the secrets are masked, so an output
// that puts one across the cut, at any offset, shows no piece of it.
func TestResultPreviewSecretAtCut(t *testing.T) {
	const secret = "Zq9Xw2Lp7Rt4Vn8Ks3Hd6Fg1Jm5Cb0Ny"
	cfg := fmt.Sprintf(`
tool "text" {
  param "n" { type = number }
  exec {
    `+helperCommand(`"repeat"`, `tostring(param.n)`, `"b"`, `"printenv"`, `"T"`, `"print"`, `" tail"`)+`
    env     = { T = sensitive(%[1]q) }
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
tool "field" {
  param "n" { type = number }
  exec {
    `+helperCommand(`"print"`, `"{\"value\": \""`, `"repeat"`, `tostring(param.n)`, `"b"`, `"printenv"`, `"T"`, `"print"`, `" tail\"}"`)+`
    env     = { T = sensitive(%[1]q) }
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
`, secret)
	reg := loadSource(t, cfg)
	for _, tc := range []struct {
		tool string
		cut  int // where the preview cuts the output
		want string
	}{
		{"text", 120, "not JSON"},
		{"field", shortenMax - 1, "expected number"}, // after the value's quote
	} {
		for _, off := range []int{1, 2, 9, 20, len(secret) - 1} {
			t.Run(fmt.Sprintf("%s offset %d", tc.tool, off), func(t *testing.T) {
				res, err := reg.CallTool(context.Background(), tc.tool, []byte(fmt.Sprintf(`{"n": %d}`, tc.cut-off)))
				if err != nil {
					t.Fatal(err)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if !res.IsError || !strings.Contains(text, tc.want) || !strings.Contains(text, "bbbb") {
					t.Fatalf("isError=%v %q; want an error containing %q", res.IsError, text, tc.want)
				}
				for i := 0; i+2 <= len(secret); i++ {
					if strings.Contains(text, secret[i:i+2]) {
						t.Errorf("the error shows %q of the secret: %q", secret[i:i+2], text)
						break
					}
				}
			})
		}
	}
}
