package http

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/plainhttp"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// testEnvFunc is an env(name, [default]) function reading vars.
func testEnvFunc(vars map[string]string) function.Function {
	return function.New(&function.Spec{
		Params:   []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam: &function.Parameter{Name: "default", Type: cty.String},
		Type:     function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if v, ok := vars[args[0].AsString()]; ok {
				return cty.StringVal(v), nil
			}
			if len(args) > 1 {
				return args[1], nil
			}
			return cty.StringVal(""), nil
		},
	})
}

// testFuncs is the function library of the tests.
func testFuncs(env map[string]string) map[string]function.Function {
	return map[string]function.Function{
		"jsonencode": stdlib.JSONEncodeFunc,
		"env":        testEnvFunc(env),
	}
}

// testTool is a tool's parameters and environment for compiling.
type testTool struct {
	params map[string]cty.Type
	env    map[string]string
	// optional are the params a call may leave out, with no default.
	optional []string
}

// compile parses src, which holds an http block, and compiles the block.
func (tt testTool) compile(t testing.TB, src string) (*HTTP, hcl.Diagnostics) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "tool.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	content, diags := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "http"}}})
	if diags.HasErrors() || len(content.Blocks) != 1 {
		t.Fatalf("want one http block: %s", diags.Error())
	}
	infos := map[string]adapters.ParamInfo{}
	for n := range tt.params {
		infos[n] = adapters.ParamInfo{Optional: slices.Contains(tt.optional, n)}
	}
	cc := &adapters.CompileContext{
		BaseDir:  t.TempDir(),
		ToolName: "weather",
		Params:   infos,
		Eval: &hcl.EvalContext{
			Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.Object(tt.params))},
			Functions: testFuncs(tt.env),
		},
	}
	kind, ok := adapters.Lookup("http")
	if !ok {
		t.Fatal(`backend kind "http" is not registered`)
	}
	b, diags := kind.Compile(content.Blocks[0], cc)
	if b == nil {
		return nil, diags
	}
	h := b.(*HTTP)
	t.Cleanup(func() { h.Close() })
	return h, diags
}

// mustCompile is compile failing the test on error diagnostics.
func (tt testTool) mustCompile(t *testing.T, src string) *HTTP {
	t.Helper()
	h, diags := tt.compile(t, src)
	if diags.HasErrors() {
		t.Fatalf("compile: %s", diags.Error())
	}
	return h
}

// call runs h with args; parameters without an argument are null.
func (tt testTool) call(ctx context.Context, h *HTTP, args map[string]cty.Value) (*adapters.Output, error) {
	vals := map[string]cty.Value{}
	for n, ty := range tt.params {
		if v, ok := args[n]; ok {
			vals[n] = v
		} else {
			vals[n] = cty.NullVal(ty)
		}
	}
	param := cty.EmptyObjectVal
	if len(vals) > 0 {
		param = cty.ObjectVal(vals)
	}
	return h.Call(ctx, &adapters.Input{Eval: &hcl.EvalContext{
		Variables: map[string]cty.Value{"param": param},
		Functions: testFuncs(tt.env),
	}})
}

// testRequest is what a test server saw of a request.
type testRequest struct {
	method     string
	requestURI string
	query      url.Values
	header     http.Header
	body       []byte
}

// testRecorder is a server recording the last request and answering
// with a fixed response.
func testRecorder(t *testing.T, contentType, body string) (*httptest.Server, func() testRequest) {
	t.Helper()
	var mu sync.Mutex
	var last testRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		last = testRequest{r.Method, r.RequestURI, r.URL.Query(), r.Header.Clone(), b}
		mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() testRequest {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

func TestHTTPRegistered(t *testing.T) {
	k, ok := adapters.Lookup("http")
	if !ok || k.Summary == "" || k.Compile == nil {
		t.Fatalf("Lookup(http) = %+v, %v", k, ok)
	}
}

func TestHTTPConnectionReuse(t *testing.T) {
	var newConns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"n":1}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			newConns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tt := testTool{params: map[string]cty.Type{"q": cty.String}, env: map[string]string{"BASE": srv.URL}}
	h := tt.mustCompile(t, `http {
  url   = "${env("BASE")}/items/${param.q}"
  query = { q = param.q }
}`)
	fast0, left0 := sharedPlain.Sent()
	for i := range 20 {
		if _, err := tt.call(context.Background(), h, map[string]cty.Value{"q": cty.StringVal(fmt.Sprint(i))}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n := newConns.Load(); n < 1 || n > 2 {
		t.Errorf("20 sequential calls opened %d connections, want 1 (or 2)", n)
	}
	// Plain http:// goes over plainhttp's fast path where it runs (Unix, Windows),
	// else over net/http.
	fast, left := sharedPlain.Sent()
	fast, left = fast-fast0, left-left0
	if want := uint64(20); plainhttp.Available && (fast != want || left != 0) || !plainhttp.Available && left != want {
		t.Errorf("of 20 calls %d went by plainhttp's fast path and %d by net/http", fast, left)
	}
}

func TestHTTPConcurrentCalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Query().Get("q"))
	}))
	defer srv.Close()
	tt := testTool{params: map[string]cty.Type{"q": cty.String}, env: map[string]string{"BASE": srv.URL}}
	h := tt.mustCompile(t, `http {
  url   = "${env("BASE")}/echo"
  query = { q = param.q }
}`)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			want := fmt.Sprintf("call %d ✓", i)
			out, err := tt.call(context.Background(), h, map[string]cty.Value{"q": cty.StringVal(want)})
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			if string(out.Body) != want {
				t.Errorf("call %d got %q", i, out.Body)
			}
		})
	}
	wg.Wait()
}

// TestHTTPCloseOfUnusedBackend checks that closing a backend that never
// sent a request leaves the shared transport as it is: CloseIdleConnections
// would make net/http set up HTTP/2 on it (half a megabyte, at every exit
// and reload) to close nothing. It runs in a fresh process, where nothing
// has used the transport yet.
func TestHTTPCloseOfUnusedBackend(t *testing.T) {
	if os.Getenv("TOOLHOST_TEST_CLOSE_UNUSED") == "1" {
		h, diags := testTool{}.compile(t, `http { url = "http://127.0.0.1:1/x" }`)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		if _, ok := sharedTransport.TLSNextProto["h2"]; ok {
			t.Fatal("Close of an unused backend set up HTTP/2 on the shared transport")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHTTPCloseOfUnusedBackend$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TOOLHOST_TEST_CLOSE_UNUSED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
