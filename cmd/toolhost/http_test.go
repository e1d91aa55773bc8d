package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// httpServe is a running "toolhost serve --listen".
type httpServe struct {
	*testconfig.Served
	t *testing.T
}

// startHTTPServe starts the binary with --listen 127.0.0.1:0 and waits
// until it serves.
func startHTTPServe(t *testing.T, env []string, args ...string) *httpServe {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	ownGroup(cmd)
	cmd.Env = append(os.Environ(), env...)
	return &httpServe{Served: testconfig.StartHTTP(t, cmd), t: t}
}

// connect connects an SDK client over streamable HTTP, or over SSE.
func (s *httpServe) connect(sse bool, opts *mcp.ClientOptions, hc *http.Client) *mcp.ClientSession {
	s.t.Helper()
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: s.Base + "/mcp", HTTPClient: hc}
	if sse {
		tr = &mcp.SSEClientTransport{Endpoint: s.Base + "/sse", HTTPClient: hc}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts).Connect(context.Background(), tr, nil)
	if err != nil {
		s.t.Fatalf("connect (sse=%v): %v", sse, err)
	}
	s.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func toolText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if res.IsError || len(res.Content) == 0 {
		// The text comes last on the line: CI's wine leg looks for a
		// failure ending in wine's "Internal error." to rerun a package.
		t.Fatalf("call %s: isError=%v, %d content items: %s", name, res.IsError, len(res.Content), testconfig.ResultText(res))
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestServeHTTP: serve --listen serves streamable HTTP and SSE clients and
// the health endpoints, and SIGTERM lets the calls in flight finish before
// the process exits 0.
func TestServeHTTP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := "sessions"
		var args []string
		if stateless {
			name, args = "stateless", []string{"--stateless"}
		}
		t.Run(name, func(t *testing.T) {
			s := startHTTPServe(t, nil, append(args, writeConfig(t, testConfig))...)
			for _, path := range []string{"/healthz", "/readyz"} {
				resp, err := http.Get(s.Base + path)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: %s %s", path, resp.Status, b)
				}
			}
			streamable := s.connect(false, nil, nil)
			sse := s.connect(true, nil, nil)
			if got := toolText(t, streamable, "hello", map[string]any{"name": "http"}); got != "hello http" {
				t.Fatalf("hello = %q", got)
			}
			if got := toolText(t, sse, "hello", map[string]any{"name": "sse"}); got != "hello sse" {
				t.Fatalf("hello = %q", got)
			}

			// SIGTERM with a call in flight on each transport.
			type answer struct {
				text string
				err  error
			}
			answers := make(chan answer, 2)
			for _, cs := range []*mcp.ClientSession{streamable, sse} {
				go func() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 1}})
					if err == nil && (res.IsError || len(res.Content) == 0) {
						err = errors.New("error result")
					}
					a := answer{err: err}
					if err == nil {
						a.text = res.Content[0].(*mcp.TextContent).Text
					}
					answers <- a
				}()
			}
			testconfig.WaitFor(t, "both calls run", func() bool { return s.inFlight() == 2 })
			sendStop(t, s.Cmd)
			for range 2 {
				if a := <-answers; a.err != nil || a.text != "slept" {
					t.Fatalf("call in flight at SIGTERM: %q, %v", a.text, a.err)
				}
			}
			<-s.Exited
			if s.Err != nil {
				t.Fatalf("exit: %v\n%s", s.Err, s.Log())
			}
			for _, want := range []string{`msg="shutting down" calls_in_flight=2`, `msg="HTTP server stopped"`} {
				if !strings.Contains(s.Log(), want) {
					t.Errorf("stderr lacks %q", want)
				}
			}
			if strings.Contains(s.Log(), "shutdown timeout reached") {
				t.Error("the shutdown waited for its deadline")
			}
		})
	}
}

// inFlight reads the number of calls in flight from /readyz.
func (s *httpServe) inFlight() int {
	s.t.Helper()
	resp, err := http.Get(s.Base + "/readyz")
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		InFlight int `json:"calls_in_flight"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		s.t.Fatal(err)
	}
	return st.InFlight
}

// TestServeHTTPReload: an edit of the config reaches every connected client
// as tools/list_changed: a streamable session and an SSE session at once,
// and in stateless mode two 2026-07-28 clients listening for
// notifications.
func TestServeHTTPReload(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := "sessions"
		var args []string
		if stateless {
			name, args = "stateless", []string{"--stateless"}
		}
		t.Run(name, func(t *testing.T) {
			cfg := writeConfig(t, toolConfig("alpha"))
			s := startHTTPServe(t, nil, append(args, cfg)...)
			var notified []chan struct{}
			opts := func() *mcp.ClientOptions {
				ch := make(chan struct{}, 10)
				notified = append(notified, ch)
				return &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} }}
			}
			clients := []*mcp.ClientSession{s.connect(false, opts(), nil), s.connect(!stateless, opts(), nil)}
			for _, cs := range clients {
				if got := toolText(t, cs, "alpha", nil); got != "I am alpha" {
					t.Fatalf("alpha = %q", got)
				}
			}
			if err := os.WriteFile(cfg, []byte(toolConfig("alpha", "beta")), 0o644); err != nil {
				t.Fatal(err)
			}
			for i, ch := range notified {
				select {
				case <-ch:
				case <-time.After(15 * time.Second):
					t.Fatalf("client %d got no tools/list_changed", i)
				}
			}
			for _, cs := range clients {
				if got := toolText(t, cs, "beta", nil); got != "I am beta" {
					t.Fatalf("beta = %q", got)
				}
			}
		})
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeHTTPAuth: with --auth-token-env, clients need the token; the
// token never reaches the log.
func TestServeHTTPAuth(t *testing.T) {
	const token = "e2e-token-0123456789"
	s := startHTTPServe(t, []string{"TOOLHOST_TEST_TOKEN=" + token}, "--auth-token-env", "TOOLHOST_TEST_TOKEN", writeConfig(t, testConfig))
	resp, err := http.Post(s.Base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer realm="toolhost"` {
		t.Fatalf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	hc := &http.Client{Transport: bearerTransport{token}}
	for _, sse := range []bool{false, true} {
		if got := toolText(t, s.connect(sse, nil, hc), "hello", map[string]any{"name": "auth"}); got != "hello auth" {
			t.Fatalf("hello = %q", got)
		}
	}
	if strings.Contains(s.Log(), token) {
		t.Fatal("the token is in the log")
	}
}

// TestServeHTTPFlags: misused HTTP flags are refused before anything
// starts, with the fix.
func TestServeHTTPFlags(t *testing.T) {
	cfg := writeConfig(t, testConfig)
	tests := []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"stateless without listen", nil, []string{"--stateless", cfg}, 2, "--stateless only applies when serving over HTTP: add --listen"},
		{"bad listen", nil, []string{"--listen", "nowhere", cfg}, 2, "give an address as in 127.0.0.1:8080"},
		{"token variable unset", nil, []string{"--listen", "127.0.0.1:0", "--auth-token-env", "TOOLHOST_NO_SUCH_VAR", cfg}, 1, "TOOLHOST_NO_SUCH_VAR is not set"},
		{"token variable empty", []string{"TOOLHOST_EMPTY_VAR="}, []string{"--listen", "127.0.0.1:0", "--auth-token-env", "TOOLHOST_EMPTY_VAR", cfg}, 1, "TOOLHOST_EMPTY_VAR is empty"},
		{"allowed host as URL", nil, []string{"--listen", "127.0.0.1:0", "--allowed-hosts", "https://mcp.example.com", cfg}, 2, "not a URL"},
		{"allowed origin without scheme", nil, []string{"--listen", "127.0.0.1:0", "--allowed-origins", "app.example.com", cfg}, 2, "scheme://host[:port]"},
		{"max sessions zero", nil, []string{"--listen", "127.0.0.1:0", "--max-sessions", "0", cfg}, 2, "--max-sessions 0: give the most sessions open at once, 1 or more"},
		{"duration without unit", nil, []string{"--listen", "127.0.0.1:0", "--shutdown-timeout", "30", cfg}, 2, `invalid value "30" for flag -shutdown-timeout: a duration needs a unit: give 30s for 30 seconds`},
		// -1 is not told to write -1s, which is refused too.
		{"negative duration without unit", nil, []string{"--listen", "127.0.0.1:0", "--request-timeout", "-1", cfg}, 2, `invalid value "-1" for flag -request-timeout: a duration cannot be negative: give one with a unit, as in 30s`},
		{"duration misspelt", nil, []string{"--listen", "127.0.0.1:0", "--session-idle-timeout", "5min", cfg}, 2, "give a duration as a number with a unit (ms, s, m or h), as in 30s"},
		{"max sessions without listen", nil, []string{"--max-sessions", "5", cfg}, 2, "--max-sessions only applies when serving over HTTP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binPath, append([]string{"serve"}, tt.args...)...)
			cmd.Env = append(os.Environ(), tt.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %v, stderr %q; want exit %d and %q", err, stderr.String(), tt.code, tt.want)
			}
		})
	}
	// --auth-token-env $VAR gives the token, not its variable's name: the
	// error names the variable and does not repeat the token.
	const token = "e2eSecret0123456789abcdef"
	for _, tc := range []struct{ name, arg, want string }{
		{"token given, exported", token, "TOOLHOST_TOKEN_VALUE has it as its value"},
		{"token given, not a name", token + "+/=", "what it was given is no variable's name"},
		{"dollar sign", "$TOOLHOST_TOKEN_VALUE", "give the variable's name without the $: --auth-token-env TOOLHOST_TOKEN_VALUE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binPath, "serve", "--listen", "127.0.0.1:0", "--auth-token-env", tc.arg, cfg)
			cmd.Env = append(os.Environ(), "TOOLHOST_TOKEN_VALUE="+token)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.want) || strings.Contains(stderr.String(), token) {
				t.Fatalf("exit %v, stderr %q; want exit 2 and %q, without the token", err, stderr.String(), tc.want)
			}
		})
	}
	t.Run("port in use", func(t *testing.T) {
		s := startHTTPServe(t, nil, cfg)
		addr := strings.TrimPrefix(s.Base, "http://")
		cmd := exec.Command(binPath, "serve", "--listen", addr, cfg)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "cannot listen on "+addr) ||
			!strings.Contains(stderr.String(), "choose another port") {
			t.Fatalf("exit %v, stderr %q", err, stderr.String())
		}
	})
	// Addresses that no port would fix get advice about the address.
	for _, tc := range []struct{ addr, want string }{
		{"nosuchhost.invalid:8080", "the host name does not resolve"},
		{"192.0.2.1:8080", "the host is not an address of this machine"}, // TEST-NET-1
	} {
		t.Run(tc.addr, func(t *testing.T) {
			cmd := exec.Command(binPath, "serve", "--listen", tc.addr, cfg)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), tc.want) || strings.Contains(stderr.String(), "choose another port") {
				t.Fatalf("exit %v, stderr %q; want exit 1 and %q", err, stderr.String(), tc.want)
			}
		})
	}
}

// yamlBlock returns the lines nested under the first "key:" line of doc
// (a structural look at YAML without a YAML library): the lines after it
// that are indented more than it.
func yamlBlock(doc, key string) []string {
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		trimmed := strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(l), "- "), " ")
		if trimmed != key+":" && !strings.HasPrefix(trimmed, key+": ") {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " -"))
		var out []string
		for _, m := range lines[i+1:] {
			if strings.TrimSpace(m) == "" {
				out = append(out, "")
				continue
			}
			if len(m)-len(strings.TrimLeft(m, " ")) <= indent {
				break
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}

// yamlItems returns the scalar items of a block sequence, comments dropped.
func yamlItems(block []string) []string {
	var out []string
	for _, l := range block {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "- "); ok {
			out = append(out, strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
	return out
}

func yamlHas(block []string, line string) bool {
	for _, l := range block {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// TestDeployExamples checks examples/deploy: the Kubernetes manifests (two
// or more stateless replicas, probes on /healthz and /readyz, the
// ConfigMap mounted where the config path points, a config that is valid)
// and the Dockerfile (static, non-root, the config where the manifests
// mount it). Docker and a cluster are not needed.
func TestDeployExamples(t *testing.T) {
	b, err := os.ReadFile("../../examples/deploy/kubernetes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, d := range strings.Split(string(b), "\n---\n") {
		m := regexp.MustCompile(`(?m)^kind: (\w+)$`).FindStringSubmatch(d)
		if m == nil {
			t.Fatalf("a document without kind:\n%s", d)
		}
		docs[m[1]] = d
	}
	for _, kind := range []string{"ConfigMap", "Deployment", "Service"} {
		if docs[kind] == "" {
			t.Fatalf("no %s in kubernetes.yaml", kind)
		}
	}
	dep := docs["Deployment"]

	t.Run("replicas", func(t *testing.T) {
		m := regexp.MustCompile(`(?m)^  replicas: (\d+)$`).FindStringSubmatch(dep)
		if m == nil {
			t.Fatal("no replicas")
		}
		if n, _ := strconv.Atoi(m[1]); n < 2 {
			t.Fatalf("replicas: %d; want 2 or more", n)
		}
	})
	args := yamlItems(yamlBlock(dep, "args"))
	t.Run("args", func(t *testing.T) {
		if len(args) < 2 || args[0] != "serve" {
			t.Fatalf("args %q: want serve ...", args)
		}
		for _, want := range []string{"--stateless", "--listen", "--auth-token-env"} {
			if !slices.Contains(args, want) {
				t.Errorf("args %q lack %s", args, want)
			}
		}
	})
	config := args[len(args)-1]
	t.Run("probes", func(t *testing.T) {
		if !yamlHas(yamlBlock(dep, "readinessProbe"), "path: /readyz") {
			t.Error("readinessProbe is not on /readyz")
		}
		if !yamlHas(yamlBlock(dep, "livenessProbe"), "path: /healthz") {
			t.Error("livenessProbe is not on /healthz")
		}
		listen := args[slices.Index(args, "--listen")+1]
		if !strings.HasSuffix(listen, ":8080") || !yamlHas(yamlBlock(dep, "ports"), "containerPort: 8080") {
			t.Errorf("--listen %s and the container port differ", listen)
		}
	})
	t.Run("config volume", func(t *testing.T) {
		cmName := regexp.MustCompile(`(?m)^  name: (\S+)$`).FindStringSubmatch(docs["ConfigMap"])[1]
		mounts := yamlBlock(dep, "volumeMounts")
		dir := config[:strings.LastIndex(config, "/")]
		if !yamlHas(mounts, "mountPath: "+dir) || !yamlHas(mounts, "- name: config") {
			t.Fatalf("the config %s is not in a mounted volume: %q", config, mounts)
		}
		if !yamlHas(yamlBlock(dep, "configMap"), "name: "+cmName) {
			t.Fatalf("the config volume is not the ConfigMap %s", cmName)
		}
		if strings.Contains(dep, "subPath:") {
			t.Fatal("a subPath mount never sees ConfigMap edits")
		}
		file := config[strings.LastIndex(config, "/")+1:]
		if !yamlHas(yamlBlock(docs["ConfigMap"], "data"), file+": |") {
			t.Fatalf("the ConfigMap has no %s", file)
		}
	})
	t.Run("config is valid", func(t *testing.T) {
		var src strings.Builder
		for _, l := range yamlBlock(docs["ConfigMap"], "tools.hcl") {
			src.WriteString(strings.TrimPrefix(l, "    ") + "\n")
		}
		out, err := exec.Command(binPath, "validate", writeConfig(t, src.String())).CombinedOutput()
		if err != nil {
			t.Fatalf("toolhost validate: %v\n%s", err, out)
		}
	})
	t.Run("Dockerfile", func(t *testing.T) {
		b, err := os.ReadFile("../../examples/deploy/Dockerfile")
		if err != nil {
			t.Fatal(err)
		}
		d := string(b)
		for _, want := range []string{"CGO_ENABLED=0", "--platform=$BUILDPLATFORM", "GOARCH=${TARGETARCH}", "-trimpath", "distroless/static", "USER 65532:65532", `"/etc/toolhost/tools.hcl"`, `"--listen", "0.0.0.0:8080"`} {
			if !strings.Contains(d, want) {
				t.Errorf("Dockerfile lacks %s", want)
			}
		}
		if config != "/etc/toolhost/tools.hcl" {
			t.Errorf("the manifests' config %s is not the image's /etc/toolhost/tools.hcl", config)
		}
	})
}

// mcpPost posts a JSON-RPC body to /mcp as a streamable client does.
func (s *httpServe) mcpPost(body string, hdr map[string]string, chunked bool) *http.Response {
	s.t.Helper()
	var rd io.Reader = strings.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // no length: sent chunked
	}
	req, err := http.NewRequest(http.MethodPost, s.Base+"/mcp", rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readToEnd reads a response body to its end, failing when it does not
// end within the deadline.
func readToEnd(t *testing.T, r io.Reader) string {
	t.Helper()
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	select {
	case b := <-done:
		return string(b)
	case <-time.After(15 * time.Second):
		t.Fatal("the response did not end")
		return ""
	}
}
