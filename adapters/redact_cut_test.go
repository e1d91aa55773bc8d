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
)

// cutSecret is a secret none of whose pieces of cutPiece bytes is found in
// the rest of the messages of these tests.
const cutSecret = "Zq9Xw2Lp7Rt4Vn8Ks3Hd6Fg1Jm5Cb0Ny"

// cutPiece is the length of the pieces of a secret a message must not show.
const cutPiece = 2

// leakedPiece returns a piece of secret that msg shows, or "".
func leakedPiece(msg, secret string) string {
	for i := 0; i+cutPiece <= len(secret); i++ {
		if p := secret[i : i+cutPiece]; strings.Contains(msg, p) {
			return p
		}
	}
	return ""
}

// TestRedactHeadTail: a text is masked before it is cut, so a secret the cut
// falls inside is masked whole, at every offset; what a text already cut
// ends (or starts) with of a secret is masked, however short; and the cut
// never leaves half of a mask.
func TestRedactHeadTail(t *testing.T) {
	t.Parallel()
	secrets := []string{cutSecret}
	for off := -2; off <= len(cutSecret)+2; off++ {
		t.Run(fmt.Sprintf("head offset %d", off), func(t *testing.T) {
			msg := strings.Repeat("a", 100-off) + cutSecret + " and more"
			got := redactHeadText(msg, 100, secrets, false)
			if p := leakedPiece(got, cutSecret); p != "" || len(got) > 100 || strings.Contains(got, "(red") && !strings.Contains(got, "(redacted)") {
				t.Errorf("RedactHead = %q", got)
			}
		})
		t.Run(fmt.Sprintf("tail offset %d", off), func(t *testing.T) {
			msg := "before " + cutSecret + strings.Repeat("b", 100-len(cutSecret)+off)
			got := redactTailText(msg, 100, secrets, false)
			if p := leakedPiece(got, cutSecret); p != "" || len(got) > 100 || strings.Contains(got, "acted)") && !strings.Contains(got, "(redacted)") {
				t.Errorf("RedactTail = %q", got)
			}
		})
	}
	for k := 1; k < len(cutSecret); k++ {
		t.Run(fmt.Sprintf("cut text ends with %d bytes of a secret", k), func(t *testing.T) {
			msg := "xxxx " + cutSecret[:k]
			if got, want := redactHeadText(msg, 100, secrets, true), "xxxx (redacted)"; got != want {
				t.Errorf("RedactHead = %q, want %q", got, want)
			}
			if got := redactHeadText(msg, 100, secrets, false); got != msg {
				t.Errorf("RedactHead of a whole text = %q, want it as it is", got)
			}
		})
		t.Run(fmt.Sprintf("cut text starts with %d bytes of a secret", k), func(t *testing.T) {
			msg := cutSecret[len(cutSecret)-k:] + " xxxx"
			if got, want := redactTailText(msg, 100, secrets, true), "(redacted) xxxx"; got != want {
				t.Errorf("RedactTail = %q, want %q", got, want)
			}
		})
	}
	for _, tc := range []struct{ msg, want string }{
		{"push failed for ghp_aB3dE", "push failed for (redacted)"},
		{"npm ERR! //registry.example.com/:_authToken=0f", "npm ERR! //registry.example.com/:(redacted)"},
		{"token eyJhbGciOi", "token (redacted)"},
		{"no token here, just words", "no token here, just words"},
		{"ghp_ then words", "ghp_ then words"},
	} {
		t.Run("a cut text ends with the start of a token: "+tc.msg, func(t *testing.T) {
			if got := redactHeadText(tc.msg, 100, nil, true); got != tc.want {
				t.Errorf("RedactHead = %q, want %q", got, tc.want)
			}
			if got := redactHeadText(tc.msg, 100, nil, false); got != tc.msg {
				t.Errorf("RedactHead of a whole text = %q, want it as it is", got)
			}
		})
	}
	t.Run("a secret longer than the lookahead", func(t *testing.T) {
		long := strings.Repeat("Q7w", maxRedactLookahead)
		msg := strings.Repeat("a", 50) + long
		got := redactHeadText(msg, 100, []string{long}, false)
		if got != strings.Repeat("a", 50)+"(redacted)" {
			t.Errorf("RedactHead = %.200q", got)
		}
	})
	t.Run("a token of a known format", func(t *testing.T) {
		tok := "ghp_" + strings.Repeat("x1Y2", 10)
		for off := 1; off < len(tok); off += 5 {
			got := redactHeadText(strings.Repeat("a ", 50-off/2)+tok+" end", 100, nil, false)
			if strings.Contains(got, "ghp_") || strings.Contains(got, "x1Y2") {
				t.Errorf("offset %d: RedactHead = %q", off, got)
			}
		}
	})
}

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
`, srv.URL, cutSecret)
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ptype := cty.Object(map[string]cty.Type{"pad": cty.String})
	b, diags := compileHTTP(f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &CompileContext{
		Eval:   &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.UnknownVal(ptype)}},
		Params: map[string]ParamInfo{"pad": {}},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// "bad request /" + pad + "?access_token=": the token starts at
	// len(pad) + 27.
	for _, off := range []int{1, 2, 5, 10, 20, len(cutSecret) - 2, len(cutSecret) - 1, len(cutSecret)} {
		t.Run(fmt.Sprintf("offset %d", off), func(t *testing.T) {
			pad := strings.Repeat("a", httpErrorSnippetBytes-27-off+1)
			_, err := b.Call(context.Background(), &Input{Eval: &hcl.EvalContext{Variables: map[string]cty.Value{
				"param": cty.ObjectVal(map[string]cty.Value{"pad": cty.StringVal(pad)})}}})
			if err == nil {
				t.Fatal("a 400 was not an error")
			}
			if p := leakedPiece(err.Error(), cutSecret); p != "" || !strings.Contains(err.Error(), "access_token=") {
				t.Errorf("the error shows %q: %s", p, err)
			}
		})
	}
}

// TestExecCutOutputSecretAtCut runs real commands that print a secret
// across each cut of their standard error: the end of it in a failed
// command's error, a line forwarded at stderr_log cut at execStderrLine, a
// progress message cut there, and a line longer than what is read of it,
// whose end the error's tail shows. No piece of the secret is shown, at
// any offset.
func TestExecCutOutputSecretAtCut(t *testing.T) {
	t.Parallel()
	offsets := []int{1, 2, 7, 16, len(cutSecret) - 1}
	for _, tc := range []struct {
		name   string
		script string // prints to standard error; $1 is a number of bytes
		n      func(off int) int
		check  func(t *testing.T, err error, rec *recorder)
	}{
		{"error tail", `printf 'x %s ' "$TOKEN" >&2; head -c "$1" /dev/zero | tr '\0' b >&2; exit 1`,
			func(off int) int { return execStderrShown - len(cutSecret) + off },
			func(t *testing.T, err error, _ *recorder) {
				if err == nil || !strings.Contains(err.Error(), "bbbb") {
					t.Fatalf("err = %v", err)
				}
				if p := leakedPiece(err.Error(), cutSecret); p != "" {
					t.Errorf("the error shows %q: %s", p, err)
				}
			}},
		{"stderr_log line", `head -c "$1" /dev/zero | tr '\0' b >&2; printf '%s tail\n' "$TOKEN" >&2`,
			func(off int) int { return execStderrLine - off },
			func(t *testing.T, err error, rec *recorder) {
				if err != nil {
					t.Fatal(err)
				}
				logs := strings.Join(rec.events, "\n")
				if !strings.HasPrefix(logs, "log info bbbb") {
					t.Fatalf("logs = %.200q", logs)
				}
				if p := leakedPiece(logs, cutSecret); p != "" {
					t.Errorf("the log shows %q: %.100q", p, logs[max(0, len(logs)-100):])
				}
			}},
		{"progress message", `printf '::progress 5/10 ' >&2; head -c "$1" /dev/zero | tr '\0' b >&2; printf '%s tail\n' "$TOKEN" >&2`,
			func(off int) int { return execStderrLine - off },
			func(t *testing.T, err error, rec *recorder) {
				if err != nil {
					t.Fatal(err)
				}
				logs := strings.Join(rec.events, "\n")
				if !strings.Contains(logs, "progress 5/10 bbbb") {
					t.Fatalf("events = %.200q", logs)
				}
				if p := leakedPiece(logs, cutSecret); p != "" {
					t.Errorf("the progress shows %q: %.100q", p, logs[max(0, len(logs)-100):])
				}
			}},
		{"line longer than what is read", `head -c "$1" /dev/zero | tr '\0' b >&2; printf '%s tail\n' "$TOKEN" >&2; exit 1`,
			func(off int) int { return execStderrLineRead - off },
			func(t *testing.T, err error, rec *recorder) {
				if err == nil || !strings.Contains(err.Error(), "bbbb") {
					t.Fatalf("err = %v", err)
				}
				if p := leakedPiece(err.Error(), cutSecret); p != "" {
					t.Errorf("the error shows %q: %s", p, err)
				}
				if p := leakedPiece(strings.Join(rec.events, "\n"), cutSecret); p != "" {
					t.Errorf("the log shows %q", p)
				}
			}},
	} {
		for _, off := range offsets {
			t.Run(fmt.Sprintf("%s offset %d", tc.name, off), func(t *testing.T) {
				t.Parallel()
				f := defaultExecFixture()
				e := f.mustCompile(t, fmt.Sprintf(`command = ["sh", "-c", %q, "sh", tostring(param.n)]
env = { TOKEN = %q }
stderr_log = "info"`, tc.script, cutSecret))
				rec := &recorder{}
				in := f.input(map[string]cty.Value{"n": cty.NumberIntVal(int64(tc.n(off)))})
				in.Report = rec
				_, err := e.Call(context.Background(), in)
				tc.check(t, err, rec)
			})
		}
	}
}

// redactHeadText is the text of RedactHead.
func redactHeadText(msg string, n int, secrets []string, cut bool) string {
	s, _ := RedactHead(msg, n, secrets, cut)
	return s
}

// redactTailText is the text of RedactTail.
func redactTailText(msg string, n int, secrets []string, cut bool) string {
	s, _ := RedactTail(msg, n, secrets, cut)
	return s
}
