package http

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
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
func (tt testTool) compile(t *testing.T, src string) (*HTTP, hcl.Diagnostics) {
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

func TestHTTPRequests(t *testing.T) {
	tricky := "He said \"hi\"\nline two\t北京 \u2028 😀 \\ </script>"
	tests := []struct {
		name   string
		params map[string]cty.Type
		block  string
		args   map[string]cty.Value
		check  func(t *testing.T, r testRequest)
	}{
		{
			name:   "GET with headers",
			params: map[string]cty.Type{"city": cty.String},
			block: `http {
  url     = "${env("BASE")}/api/hotlist/baiduRD"
  headers = {
    Accept      = "application/json"
    "X-City"    = param.city
    "X-Api-Key" = env("API_KEY")
    "X-Opt"     = null
  }
}`,
			args: map[string]cty.Value{"city": cty.StringVal("Zürich")},
			check: func(t *testing.T, r testRequest) {
				if r.method != "GET" || r.requestURI != "/api/hotlist/baiduRD" {
					t.Errorf("request = %s %s", r.method, r.requestURI)
				}
				for name, want := range map[string]string{"Accept": "application/json", "X-City": "Zürich", "X-Api-Key": "k-123", "User-Agent": "toolhost"} {
					if got := r.header.Get(name); got != want {
						t.Errorf("header %s = %q, want %q", name, got, want)
					}
				}
				if _, ok := r.header["X-Opt"]; ok {
					t.Errorf("null header X-Opt was sent")
				}
			},
		},
		{
			name:   "query encoding",
			params: map[string]cty.Type{"city": cty.String, "limit": cty.Number, "opt": cty.String, "tags": cty.List(cty.String)},
			block: `http {
  url   = "${env("BASE")}/search?fixed=1"
  query = {
    q     = param.city
    limit = param.limit
    opt   = param.opt
    tag   = param.tags
    lang  = "zh-CN"
  }
}`,
			args: map[string]cty.Value{
				"city":  cty.StringVal("a&b=c d/é?#"),
				"limit": cty.NumberIntVal(10),
				"tags":  cty.ListVal([]cty.Value{cty.StringVal("x y"), cty.StringVal("z")}),
			},
			check: func(t *testing.T, r testRequest) {
				want := url.Values{"fixed": {"1"}, "q": {"a&b=c d/é?#"}, "limit": {"10"}, "tag": {"x y", "z"}, "lang": {"zh-CN"}}
				if fmt.Sprint(r.query) != fmt.Sprint(want) {
					t.Errorf("query = %v, want %v", r.query, want)
				}
				if _, ok := r.query["opt"]; ok {
					t.Errorf("null query parameter opt was sent")
				}
			},
		},
		{
			name:   "template param in query part is query-escaped",
			params: map[string]cty.Type{"q": cty.String},
			block: `http {
  url = "${env("BASE")}/search?q=${param.q}&lang=en"
}`,
			args: map[string]cty.Value{"q": cty.StringVal("a&lang=xx b/c")},
			check: func(t *testing.T, r testRequest) {
				if got := r.query["q"]; len(got) != 1 || got[0] != "a&lang=xx b/c" {
					t.Errorf("q = %q", got)
				}
				if got := r.query["lang"]; len(got) != 1 || got[0] != "en" {
					t.Errorf("lang = %q", got)
				}
			},
		},
		{
			name:   "POST JSON body",
			params: map[string]cty.Type{"city": cty.String, "days": cty.Number},
			block: `http {
  method = "post"
  url    = "${env("BASE")}/forecast"
  body   = jsonencode({ city = param.city, days = param.days })
}`,
			args: map[string]cty.Value{"city": cty.StringVal(tricky), "days": cty.NumberIntVal(3)},
			check: func(t *testing.T, r testRequest) {
				if r.method != "POST" {
					t.Errorf("method = %s", r.method)
				}
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
				var got struct {
					City string
					Days int
				}
				if err := json.Unmarshal(r.body, &got); err != nil {
					t.Fatalf("body is not JSON: %v: %s", err, r.body)
				}
				if got.City != tricky || got.Days != 3 {
					t.Errorf("body decoded to %+v", got)
				}
			},
		},
		{
			name:   "content_type and constant body",
			params: map[string]cty.Type{},
			block: `http {
  method       = "PUT"
  url          = "${env("BASE")}/notes"
  body         = "plain text"
  content_type = "text/plain; charset=utf-8"
}`,
			check: func(t *testing.T, r testRequest) {
				if r.method != "PUT" || string(r.body) != "plain text" || r.header.Get("Content-Type") != "text/plain; charset=utf-8" {
					t.Errorf("got %s %q with Content-Type %q", r.method, r.body, r.header.Get("Content-Type"))
				}
			},
		},
		{
			name:   "path param with slash, dots, question mark and hash stays one segment",
			params: map[string]cty.Type{"name": cty.String},
			block: `http {
  url = "${env("BASE")}/users/${param.name}/profile"
}`,
			args: map[string]cty.Value{"name": cty.StringVal("../a/b?c=d#e f")},
			check: func(t *testing.T, r testRequest) {
				if want := "/users/..%2Fa%2Fb%3Fc=d%23e%20f/profile"; r.requestURI != want {
					t.Errorf("request URI = %q, want %q", r.requestURI, want)
				}
				if len(r.query) != 0 {
					t.Errorf("query = %v, want none", r.query)
				}
			},
		},
		{
			name:   "path param that is a dot segment is escaped",
			params: map[string]cty.Type{"name": cty.String},
			block: `http {
  url = "${env("BASE")}/users/${param.name}/profile"
}`,
			args: map[string]cty.Value{"name": cty.StringVal("..")},
			check: func(t *testing.T, r testRequest) {
				if want := "/users/%2E%2E/profile"; r.requestURI != want {
					t.Errorf("request URI = %q, want %q", r.requestURI, want)
				}
			},
		},
		{
			name:   "url as a whole expression",
			params: map[string]cty.Type{"target": cty.String},
			block: `http {
  url         = param.target
  allow_hosts = ["127.0.0.1"]
}`,
			check: func(t *testing.T, r testRequest) {
				if r.requestURI != "/whole?x=1" {
					t.Errorf("request URI = %q", r.requestURI)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, last := testRecorder(t, "application/json; charset=utf-8", `{"ok":true}`)
			tt := testTool{params: tc.params, env: map[string]string{"BASE": srv.URL, "API_KEY": "k-123"}}
			h := tt.mustCompile(t, tc.block)
			args := tc.args
			if _, ok := tc.params["target"]; ok {
				args = map[string]cty.Value{"target": cty.StringVal(srv.URL + "/whole?x=1")}
			}
			out, err := tt.call(context.Background(), h, args)
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if string(out.Body) != `{"ok":true}` || out.MIMEType != "application/json" || out.Truncated {
				t.Errorf("output = %q %q %v", out.Body, out.MIMEType, out.Truncated)
			}
			tc.check(t, last())
		})
	}
}

func TestHTTPCharsets(t *testing.T) {
	const zh = "北京今日热榜：天气晴，气温 25°C。"
	const zhTW = "臺北今日熱門：天氣晴朗。"
	const ja = "東京の天気は晴れです。"
	tests := []struct {
		name        string
		enc         encoding.Encoding // nil: send text as is
		text        string
		contentType string
		charsetAttr string
		wantMIME    string
	}{
		{"gbk", simplifiedchinese.GBK, zh, "text/plain; charset=gbk", "", "text/plain"},
		{"gb18030", simplifiedchinese.GB18030, zh + " 𠀀", "application/json; charset=GB18030", "", "application/json"},
		{"gb2312 label", simplifiedchinese.GBK, zh, "text/html; charset=\"gb2312\"", "", "text/html"},
		{"big5", traditionalchinese.Big5, zhTW, "text/plain; charset=big5", "", "text/plain"},
		{"shift_jis", japanese.ShiftJIS, ja, "text/plain; charset=Shift_JIS", "", "text/plain"},
		{"charset attribute overrides a missing charset", simplifiedchinese.GBK, zh, "application/json", "gbk", "application/json"},
		{"charset attribute overrides a wrong charset", simplifiedchinese.GB18030, zh, "text/plain; charset=utf-8", "gb18030", "text/plain"},
		{"utf-8 stays byte-exact", nil, "\ufeff" + zh + "\u2028", "text/plain; charset=utf-8", "", "text/plain"},
		// A byte order mark says what the text is, whatever the label:
		// Windows PowerShell 5 saves JSON as UTF-16 with one.
		{"utf-16le with a BOM and no charset", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "\ufeff" + `{"city":"` + zh + `"}`, "application/json", "", "application/json"},
		{"utf-16be with a BOM labelled utf-16", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "\ufeff" + zh, "text/plain; charset=utf-16", "", "text/plain"},
		{"utf-8 with a BOM labelled gbk", nil, "\ufeff" + zh, "text/plain; charset=gbk", "", "text/plain"},
		{"no content type", nil, zh, "", "", ""},
		{"JSON labelled octet-stream is JSON", nil, `{"city":"` + zh + `"}`, "application/octet-stream", "", "application/json"},
		// Nesting deeper than JSON readers go is not read as JSON: deep
		// enough, it would overflow gjson's validator, ending the process.
		{"octet-stream nested too deep stays bytes", nil, `{"a":` + strings.Repeat("[", adapters.MaxJSONDepth) + strings.Repeat("]", adapters.MaxJSONDepth) + `}`, "application/octet-stream", "", "application/octet-stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := []byte(tc.text)
			if tc.enc != nil {
				var err error
				if raw, err = tc.enc.NewEncoder().Bytes([]byte(tc.text)); err != nil {
					t.Fatal(err)
				}
				if string(raw) == tc.text {
					t.Fatal("fixture was not re-encoded")
				}
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{tc.contentType}
				w.Write(raw)
			}))
			defer srv.Close()
			attr := ""
			if tc.charsetAttr != "" {
				attr = fmt.Sprintf("charset = %q", tc.charsetAttr)
			}
			tt := testTool{env: map[string]string{"BASE": srv.URL}}
			h := tt.mustCompile(t, fmt.Sprintf("http {\n  url = \"${env(\"BASE\")}/x\"\n  %s\n}\n", attr))
			out, err := tt.call(context.Background(), h, nil)
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if string(out.Body) != tc.text {
				t.Errorf("body = %q, want %q", out.Body, tc.text)
			}
			if out.MIMEType != tc.wantMIME {
				t.Errorf("MIME type = %q, want %q", out.MIMEType, tc.wantMIME)
			}
		})
	}
}

func TestHTTPCallErrors(t *testing.T) {
	gbkBody, _ := simplifiedchinese.GBK.NewEncoder().String("  服务维护中，请稍后再试\n")
	tests := []struct {
		name    string
		handler http.HandlerFunc
		params  map[string]cty.Type
		args    map[string]cty.Value
		extra   string // attributes added to the block
		path    string // url path, may use params
		want    []string
		notWant []string
	}{
		{
			name: "non-2xx with body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, "\n  maintenance until 10:00  \n")
			},
			want: []string{"upstream returned HTTP 503 Service Unavailable: maintenance until 10:00"},
		},
		{
			name: "non-2xx body is cut at 200 bytes",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, strings.Repeat("x", 150)+strings.Repeat("é", 100))
			},
			want:    []string{"upstream returned HTTP 404 Not Found: " + strings.Repeat("x", 150) + strings.Repeat("é", 25)},
			notWant: []string{strings.Repeat("é", 26)},
		},
		{
			name: "non-2xx body is decoded",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=gbk")
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, gbkBody)
			},
			want: []string{"upstream returned HTTP 502 Bad Gateway: 服务维护中，请稍后再试"},
		},
		{
			name: "body over max_response",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, strings.Repeat("a", 1025))
			},
			extra: "max_response = 1024",
			want:  []string{"response body larger than 1024 bytes (max_response)"},
		},
		{
			name: "endless body stops at max_response",
			handler: func(w http.ResponseWriter, r *http.Request) {
				chunk := []byte(strings.Repeat("z", 4096))
				for r.Context().Err() == nil { // until the client hangs up
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			},
			extra: "max_response = 65536",
			want:  []string{"response body larger than 65536 bytes (max_response)"},
		},
		{
			name: "body shorter than its Content-Length",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "1000")
				io.WriteString(w, `{"city":"Beijing",`)
				// The handler returns: the server closes the connection.
			},
			want:    []string{"the response from 127.0.0.1:", "was cut off", "before the whole body arrived (Content-Length 1000, 18 bytes came)", "try again"},
			notWant: []string{"unexpected EOF"},
		},
		{
			name: "redirect to ftp refused",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "ftp://files.example.com/pub", http.StatusFound)
			},
			want: []string{`was redirected to a "ftp" URL; only http and https are followed`},
		},
		{
			name: "redirect to file refused",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
			},
			want:    []string{`was redirected to a "file" URL; only http and https are followed`},
			notWant: []string{"root:"},
		},
		{
			name: "redirect loop over the limit",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/x", http.StatusFound)
			},
			extra: "max_redirects = 3",
			want:  []string{"redirected more than 3 times (max_redirects)"},
		},
		{
			name: "redirect with max_redirects 0",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/y", http.StatusMovedPermanently)
			},
			extra: "max_redirects = 0",
			want:  []string{"max_redirects is 0"},
		},
		{
			name:    "header with CRLF from a param",
			handler: func(w http.ResponseWriter, r *http.Request) { t.Error("request was sent") },
			params:  map[string]cty.Type{"token": cty.String},
			args:    map[string]cty.Value{"token": cty.StringVal("secret-value\r\nX-Injected: 1")},
			extra:   `headers = { "X-Token" = param.token }`,
			want:    []string{`header "X-Token"`, "line break", "refused"},
			notWant: []string{"secret-value", "Injected"},
		},
		{
			name:    "null path param",
			handler: func(w http.ResponseWriter, r *http.Request) { t.Error("request was sent") },
			params:  map[string]cty.Type{"id": cty.String},
			path:    "/items/${param.id}",
			want:    []string{`url: the url needs the argument "id", and it is null (absent); pass a value for it, or give the param a default`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			path := tc.path
			if path == "" {
				path = "/x"
			}
			tt := testTool{params: tc.params, env: map[string]string{"BASE": srv.URL}}
			if tt.params == nil {
				tt.params = map[string]cty.Type{}
			}
			h := tt.mustCompile(t, fmt.Sprintf("http {\n  url = \"${env(\"BASE\")}%s\"\n  %s\n}\n", path, tc.extra))
			_, err := tt.call(context.Background(), h, tc.args)
			if err == nil {
				t.Fatal("Call succeeded, want an error")
			}
			t.Logf("error: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q contains %q", err, w)
				}
			}
		})
	}
}

// TestHTTPHostNotResolved: a name that does not resolve (.invalid never
// does, RFC 2606) is named without the port, which is not part of it.
func TestHTTPHostNotResolved(t *testing.T) {
	tt := testTool{}
	h := tt.mustCompile(t, `http { url = "http://no-such-host.invalid:8931/x" }`)
	_, err := tt.call(context.Background(), h, nil)
	if err == nil || err.Error() != "could not resolve host no-such-host.invalid; check the url" {
		t.Fatalf("err = %v", err)
	}
}

func TestHTTPConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	tt := testTool{env: map[string]string{"BASE": base}}
	h := tt.mustCompile(t, `http { url = "${env("BASE")}/x" }`)
	_, err := tt.call(context.Background(), h, nil)
	if err == nil {
		t.Fatal("Call succeeded against a closed server")
	}
	host := strings.TrimPrefix(base, "http://")
	if !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("error %q should name %s and say refused", err, host)
	}
	if strings.Contains(err.Error(), "dial tcp") || strings.Contains(err.Error(), `Get "`) {
		t.Errorf("error %q carries the wrapped Go error chain", err)
	}
}

// testSlowServer answers after sleep, or when the client goes away.
func testSlowServer(t *testing.T, sleep time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(sleep):
			io.WriteString(w, "late")
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPTimeoutAndCancel(t *testing.T) {
	const sleep = 5 * time.Second
	tests := []struct {
		name    string
		timeout string
		cancel  time.Duration // cancel the call's context after this; 0: never
		want    string
	}{
		{name: "timeout fires", timeout: "200ms", want: "timed out after 200ms (timeout)"},
		{name: "context cancellation aborts", timeout: "1m", cancel: 200 * time.Millisecond, want: "canceled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := testSlowServer(t, sleep)
			tt := testTool{env: map[string]string{"BASE": srv.URL}}
			h := tt.mustCompile(t, fmt.Sprintf("http {\n  url = \"${env(\"BASE\")}/slow\"\n  timeout = %q\n}\n", tc.timeout))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel > 0 {
				time.AfterFunc(tc.cancel, cancel)
			}
			start := time.Now()
			_, err := tt.call(ctx, h, nil)
			elapsed := time.Since(start)
			if err == nil {
				t.Fatal("Call succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if host := strings.TrimPrefix(srv.URL, "http://"); !strings.Contains(err.Error(), host) {
				t.Errorf("error %q does not name the host %s", err, host)
			}
			if elapsed >= sleep {
				t.Errorf("Call returned after %s, not before the server's sleep of %s ended", elapsed, sleep)
			}
		})
	}
}

func TestHTTPRedirects(t *testing.T) {
	t.Run("followed within the limit", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/a":
				http.Redirect(w, r, "/b", http.StatusFound)
			case "/b":
				http.Redirect(w, r, "/c", http.StatusFound)
			default:
				io.WriteString(w, "arrived")
			}
		}))
		defer srv.Close()
		tt := testTool{env: map[string]string{"BASE": srv.URL}}
		h := tt.mustCompile(t, `http {
  url           = "${env("BASE")}/a"
  max_redirects = 2
}`)
		out, err := tt.call(context.Background(), h, nil)
		if err != nil || string(out.Body) != "arrived" {
			t.Fatalf("Call = %v, %v", out, err)
		}
	})

	t.Run("https to http refused", func(t *testing.T) {
		var plainHits atomic.Int32
		plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			plainHits.Add(1)
			io.WriteString(w, "downgraded")
		}))
		defer plain.Close()
		secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, plain.URL+"/landing", http.StatusFound)
		}))
		defer secure.Close()
		tt := testTool{env: map[string]string{"BASE": secure.URL}}
		h := tt.mustCompile(t, `http { url = "${env("BASE")}/start" }`)
		// Test only: trust the test server's certificate.
		h.client.SetTransport(secure.Client().Transport)
		_, err := tt.call(context.Background(), h, nil)
		if err == nil || !strings.Contains(err.Error(), "redirected from https to http") {
			t.Fatalf("Call error = %v, want the downgrade refused", err)
		}
		if n := plainHits.Load(); n != 0 {
			t.Errorf("plain server got %d requests", n)
		}
	})

	t.Run("http to https refused", func(t *testing.T) {
		var secureHits atomic.Int32
		secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			secureHits.Add(1)
			io.WriteString(w, "upgraded")
		}))
		defer secure.Close()
		plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, secure.URL+"/landing", http.StatusMovedPermanently)
		}))
		defer plain.Close()
		tt := testTool{env: map[string]string{"BASE": plain.URL}}
		h := tt.mustCompile(t, `http { url = "${env("BASE")}/start" }`)
		h.client.SetTransport(secure.Client().Transport)
		_, err := tt.call(context.Background(), h, nil)
		want := "redirected from http to https (" + secure.URL + "); redirects never change the scheme"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Call error = %v, want %q", err, want)
		}
		if n := secureHits.Load(); n != 0 {
			t.Errorf("https server got %d requests", n)
		}
	})

	t.Run("a refused connection after a redirect names where it went", func(t *testing.T) {
		// A port nothing listens on: a server started and closed.
		gone := httptest.NewServer(http.NotFoundHandler())
		goneHost := gone.Listener.Addr().String()
		gone.Close()
		first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://"+goneHost+"/there", http.StatusFound)
		}))
		defer first.Close()
		tt := testTool{env: map[string]string{"BASE": first.URL}}
		h := tt.mustCompile(t, `http { url = "${env("BASE")}/here" }`)
		_, err := tt.call(context.Background(), h, nil)
		want := "connection to " + goneHost + " (redirected from " + first.Listener.Addr().String() + ") refused"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Call error = %v, want %q", err, want)
		}
	})

	// Headers are kept only while the redirect stays on the same host
	// and port: another port on the same machine is another service.
	leaving := []struct {
		name  string
		other func(u string) string // the redirect's target, from the other server's URL
	}{
		{name: "other host name", other: func(u string) string { return strings.Replace(u, "127.0.0.1", "localhost", 1) }},
		{name: "other port on the same host", other: func(u string) string { return u }},
	}
	for _, tc := range leaving {
		t.Run("headers dropped when leaving the host/"+tc.name, func(t *testing.T) {
			other, last := testRecorder(t, "text/plain", "elsewhere")
			otherURL := tc.other(other.URL)
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, otherURL+"/there", http.StatusFound)
			}))
			defer first.Close()
			tt := testTool{env: map[string]string{"BASE": first.URL}}
			h := tt.mustCompile(t, `http {
  url     = "${env("BASE")}/here?q=1"
  headers = { "X-Api-Key" = "secret", Authorization = "Bearer secret", Accept = "text/plain" }
}`)
			if _, err := tt.call(context.Background(), h, nil); err != nil {
				t.Fatalf("Call: %v", err)
			}
			r := last()
			for _, name := range []string{"X-Api-Key", "Authorization", "Referer"} {
				if v := r.header.Get(name); v != "" {
					t.Errorf("%s was forwarded to %s: %q", name, otherURL, v)
				}
			}
			if r.header.Get("Accept") != "text/plain" {
				t.Errorf("Accept = %q, want it kept", r.header.Get("Accept"))
			}
		})
	}

	t.Run("headers kept on the same host and port", func(t *testing.T) {
		var got http.Header
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/here" {
				http.Redirect(w, r, "/there", http.StatusFound)
				return
			}
			got = r.Header.Clone()
		}))
		defer srv.Close()
		tt := testTool{env: map[string]string{"BASE": srv.URL}}
		h := tt.mustCompile(t, `http {
  url     = "${env("BASE")}/here"
  headers = { "X-Api-Key" = "secret" }
}`)
		if _, err := tt.call(context.Background(), h, nil); err != nil {
			t.Fatalf("Call: %v", err)
		}
		if got.Get("X-Api-Key") != "secret" {
			t.Errorf("X-Api-Key = %q after a redirect on the same host, want it kept", got.Get("X-Api-Key"))
		}
	})
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
	for i := range 20 {
		if _, err := tt.call(context.Background(), h, map[string]cty.Value{"q": cty.StringVal(fmt.Sprint(i))}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n := newConns.Load(); n < 1 || n > 2 {
		t.Errorf("20 sequential calls opened %d connections, want 1 (or 2)", n)
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

func TestHTTPCompileDiagnostics(t *testing.T) {
	params := map[string]cty.Type{"city": cty.String, "token": cty.String}
	tests := []struct {
		name string
		src  string
		// want lists, per expected error, its summary, a part of its
		// detail, and the source text its subject covers (a part of it).
		want [][3]string
	}{
		{
			name: "unknown attribute",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  methd = \"GET\"\n}\n",
			want: [][3]string{{"Unsupported argument", `Did you mean "method"?`, "methd"}},
		},
		{
			// The model would choose the names: Host, Cookie, ...
			name: "header names from a param",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  headers = { for k in [param.city] : k => \"x\" }\n}\n",
			want: [][3]string{{"Header names must be constant", "(Host, Cookie", "for k in [param.city]"}},
		},
		{
			name: "missing url",
			src:  "http {\n  method = \"GET\"\n}\n",
			want: [][3]string{{"Missing required argument", "Add it to the http block", "http"}},
		},
		{
			name: "query name from a param",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  query = { (param.q) = \"1\" }\n}\n",
			want: [][3]string{{"Name must be constant", "a map parameter whole, as in query = param.filters", "(param.q)"}},
		},
		{
			name: "header name from a param",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  headers = { (param.q) = \"1\" }\n}\n",
			want: [][3]string{{"Name must be constant", "Write the name literally", "(param.q)"}},
		},
		{
			name: "bad method",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  method = \"FETCH\"\n}\n",
			want: [][3]string{{"Invalid HTTP method", "Use one of GET", `"FETCH"`}},
		},
		{
			name: "bad duration",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  timeout = \"10 seconds\"\n}\n",
			want: [][3]string{{"Invalid timeout", `number with a unit, such as "10s"`, `"10 seconds"`}},
		},
		{
			name: "duration without unit",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  timeout = 10\n}\n",
			want: [][3]string{{"Invalid timeout", `Did you mean "10s"?`, `10`}},
		},
		{
			name: "timeout out of range",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  timeout = \"11m\"\n}\n",
			want: [][3]string{{"Timeout out of range", "at most 10m", `"11m"`}},
		},
		{
			name: "undeclared param",
			src:  "http {\n  url = \"https://api.example.com/w/${param.cty}\"\n}\n",
			want: [][3]string{{"Reference to undeclared parameter", `Did you mean "city"?`, "param.cty"}},
		},
		{
			name: "undeclared param in a header",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  headers = { \"X-Token\" = param.tokn }\n}\n",
			want: [][3]string{{"Reference to undeclared parameter", `Did you mean "token"?`, "param.tokn"}},
		},
		{
			name: "param in a constant-only attribute",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  timeout = param.city\n}\n",
			want: [][3]string{{"Argument must be constant", "cannot refer to param", "param.city"}},
		},
		{
			name: "param in the method",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  method = param.city\n}\n",
			want: [][3]string{{"Argument must be constant", "method", "param.city"}},
		},
		{
			name: "param in the host",
			src:  "http {\n  url = \"https://${param.city}.example.com/w\"\n}\n",
			want: [][3]string{{"Parameter in URL host", "path or the query", "param.city"}},
		},
		{
			name: "param right after the host",
			src:  "http {\n  url = \"${env(\"BASE\", \"https://api.example.com\")}${param.city}\"\n}\n",
			want: [][3]string{{"Parameter in URL host", "another server", "param.city"}},
		},
		{
			name: "unsupported scheme",
			src:  "http {\n  url = \"ftp://files.example.com/x\"\n}\n",
			want: [][3]string{{"Invalid url", "http:// or https://", `"ftp://files.example.com/x"`}},
		},
		{
			name: "unsupported scheme before a param",
			src:  "http {\n  url = \"file://host/${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `"file"`, "file://"}},
		},
		{
			// Not "Parameter in URL host": the parameter is in the path of
			// a url that lacks its scheme.
			name: "no scheme before a param",
			src:  "http {\n  url = \"api.example.com/weather?q=${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `begins "api.example.com/weather?q=", with no scheme; it must start with http:// or https://, as in "https://api.example.com/weather?q=..."`, "api.example.com"}},
		},
		{
			name: "no scheme before a param in the path",
			src:  "http {\n  url = \"localhost:8080/items/${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `begins "localhost:8080/items/", with no scheme`, "localhost:8080"}},
		},
		{
			// url.Parse reads "localhost" as the scheme.
			name: "host and port without scheme",
			src:  "http {\n  url = \"localhost:8080/x\"\n}\n",
			want: [][3]string{{"Invalid url", `no scheme: "localhost:8080/x"; it must start with http:// or https://, as in "https://localhost:8080/x"`, "localhost:8080/x"}},
		},
		{
			// url.Parse: "first path segment in URL cannot contain colon".
			name: "address and port without scheme",
			src:  "http {\n  url = \"127.0.0.1:8080/x\"\n}\n",
			want: [][3]string{{"Invalid url", `no scheme: "127.0.0.1:8080/x"`, "127.0.0.1:8080/x"}},
		},
		{
			// Diagnostics redact env values: the message names the
			// variable that holds the url without a scheme.
			name: "no scheme in an environment variable",
			src:  "http {\n  url = \"${env(\"NO_SCHEME\")}/x\"\n}\n",
			want: [][3]string{{"Invalid url", `The url is built with env("NO_SCHEME"): check that the variable, when set, holds a full URL`, "NO_SCHEME"}},
		},
		{
			name: "no scheme in an environment variable before a param",
			src:  "http {\n  url = \"${env(\"NO_SCHEME\")}/x/${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `The url is built with env("NO_SCHEME")`, "NO_SCHEME"}},
		},
		{
			name: "space before the url",
			src:  "http {\n  url = \" https://api.example.com/x\"\n}\n",
			want: [][3]string{{"Invalid url", "spaces or line breaks before or after it; remove them", "https://api.example.com/x"}},
		},
		{
			name: "content type without a subtype",
			src:  "http {\n  method = \"POST\"\n  url = \"https://api.example.com/w\"\n  body = \"x\"\n  content_type = \"json\"\n}\n",
			want: [][3]string{{"Invalid content type", `"json" is not a valid media type (type/subtype). Did you mean "application/json"?`, `"json"`}},
		},
		{
			name: "header value with a newline",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  headers = { \"X-A\" = \"a\\nb\" }\n}\n",
			want: [][3]string{{"Invalid header value", "line break", `"a\nb"`}},
		},
		{
			name: "bad header name",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  headers = { \"X A\" = \"1\" }\n}\n",
			want: [][3]string{{"Invalid header name", "not a valid header name", `"X A"`}},
		},
		{
			name: "body with HEAD",
			src:  "http {\n  method = \"HEAD\"\n  url = \"https://api.example.com/w\"\n  body = \"x\"\n}\n",
			want: [][3]string{{"Body not allowed", "HEAD", `"x"`}},
		},
		{
			name: "body must be a string",
			src:  "http {\n  method = \"POST\"\n  url = \"https://api.example.com/w\"\n  body = { city = param.city }\n}\n",
			want: [][3]string{{"Invalid body", "jsonencode", "city = param.city"}},
		},
		{
			name: "unknown charset and bad max_response",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  charset = \"klingon\"\n  max_response = 0\n  max_redirects = 1.5\n}\n",
			want: [][3]string{
				{"Unknown charset", "gbk", `"klingon"`},
				{"max_response out of range", "between 1", "0"},
				{"Whole number required", "fractions", "1.5"},
			},
		},
		{
			name: "max_response with a unit",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  max_response = \"10MB\"\n}\n",
			want: [][3]string{{"Incorrect attribute value type", "For 10 MiB, write max_response = 10485760, without quotes.", `"10MB"`}},
		},
		{
			name: "all problems collected",
			src:  "http {\n  method = \"GETT\"\n  url = \"https://api.example.com/${param.cty}\"\n  timeout = \"soon\"\n  bogus = 1\n}\n",
			want: [][3]string{
				{"Unsupported argument", "bogus", "bogus"},
				{"Invalid HTTP method", `Did you mean "GET"?`, `"GETT"`},
				{"Reference to undeclared parameter", `Did you mean "city"?`, "param.cty"},
				{"Invalid timeout", "duration", `"soon"`},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := testTool{params: params, env: map[string]string{"NO_SCHEME": "127.0.0.1:8080"}}
			h, diags := tt.compile(t, tc.src)
			if h != nil {
				t.Errorf("compile returned a backend despite errors")
			}
			var errs hcl.Diagnostics
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					errs = append(errs, d)
				}
			}
			for _, d := range diags {
				t.Logf("%s", d)
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(tc.want), errs.Error())
			}
			for _, want := range tc.want {
				found := false
				for _, d := range errs {
					if d.Summary != want[0] {
						continue
					}
					found = true
					if !strings.Contains(d.Detail, want[1]) {
						t.Errorf("%s: detail %q does not contain %q", d.Summary, d.Detail, want[1])
					}
					if d.Subject == nil {
						t.Errorf("%s: no subject", d.Summary)
						continue
					}
					if got := string(d.Subject.SliceBytes([]byte(tc.src))); !strings.Contains(got, want[2]) {
						t.Errorf("%s: subject covers %q, want it to cover %q", d.Summary, got, want[2])
					}
				}
				if !found {
					t.Errorf("no %q error in:\n%s", want[0], errs.Error())
				}
			}
		})
	}
}

func TestHTTPCompileWarnings(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the summary of the one warning; "" for none
	}{
		{"content_type without body", "http {\n  url = \"https://api.example.com/w\"\n  content_type = \"text/plain\"\n}\n", "content_type without body"},
		{"body without method", "http {\n  url = \"https://api.example.com/w\"\n  body = jsonencode({ a = 1 })\n}\n", "Body sent with GET"},
		{"body with GET written out", "http {\n  method = \"GET\"\n  url = \"https://api.example.com/w\"\n  body = jsonencode({ a = 1 })\n}\n", ""},
		{"body with POST", "http {\n  method = \"POST\"\n  url = \"https://api.example.com/w\"\n  body = jsonencode({ a = 1 })\n}\n", ""},
		{"null body without method", "http {\n  url = \"https://api.example.com/w\"\n  body = null\n}\n", ""},
		// Placeholders as OpenAPI, Postman and Express write them.
		{"OpenAPI placeholder", "http {\n  url = \"https://api.example.com/items/{id}\"\n}\n", "Placeholder without ${...}: The url sends {id} as it is written, not the value of the parameter \"id\""},
		{"Postman placeholder", "http {\n  url = \"https://api.example.com/items/{{ id }}?q=${param.q}\"\n}\n", "Placeholder without ${...}: The url sends {{ id }} as it is written"},
		{"Express placeholder", "http {\n  url = \"https://api.example.com:8443/items/:id/tags\"\n}\n", "Placeholder without ${...}: The url sends :id as it is written"},
		{"braces naming no parameter", "http {\n  url = \"https://api.example.com/items/{other}/:x/${param.id}\"\n}\n", ""},
		{"a literal ${id}", "http {\n  url = \"https://api.example.com/items/$${id}\"\n}\n", ""},
		// A url cannot hold a null: an optional parameter without a
		// default fails every call that leaves it out.
		{"optional param in the url", "http {\n  url = \"https://api.example.com/items/${param.opt}\"\n}\n",
			"Optional parameter in url: The parameter \"opt\" is optional and has no default, so every call without it fails"},
		{"optional param in the url's query", "http {\n  url = \"https://api.example.com/items?o=${param.opt}\"\n}\n",
			"Optional parameter in url: pass it in the query argument, which leaves a null out"},
		{"optional param with its null handled", "http {\n  url = \"https://api.example.com/items/${param.opt != null ? param.opt : \"all\"}\"\n}\n", ""},
		{"optional param in query", "http {\n  url = \"https://api.example.com/items\"\n  query = { o = param.opt }\n}\n", ""},
		{"required param in the url", "http {\n  url = \"https://api.example.com/items/${param.id}\"\n}\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := testTool{params: map[string]cty.Type{"id": cty.String, "q": cty.String, "opt": cty.String}, optional: []string{"opt"}}
			h, diags := tt.compile(t, tc.src)
			if h == nil || diags.HasErrors() {
				t.Fatalf("diags = %v", diags)
			}
			if tc.want == "" {
				if len(diags) != 0 {
					t.Fatalf("diags = %v, want none", diags)
				}
				return
			}
			summary, detail, _ := strings.Cut(tc.want, ": ")
			if len(diags) != 1 || diags[0].Summary != summary || !strings.Contains(diags[0].Detail, detail) || diags[0].Severity != hcl.DiagWarning {
				t.Fatalf("diags = %v, want one warning %q", diags, tc.want)
			}
			if d := diags[0]; strings.HasPrefix(detail, "The url sends ") {
				// The subject is the placeholder itself.
				written, _, _ := strings.Cut(strings.TrimPrefix(detail, "The url sends "), " as it is written")
				if got := string(d.Subject.SliceBytes([]byte(tc.src))); got != written {
					t.Errorf("subject covers %q, want %q", got, written)
				}
			}
		})
	}
}

func TestHTTPURLHelpers(t *testing.T) {
	positions := []struct {
		prefix string
		want   int
	}{
		{"", inAuthority},
		{"https", inAuthority},
		{"https://", inAuthority},
		{"https://api.example.com", inAuthority},
		{"https://user@api.example.com:8080", inAuthority},
		{"https://api.example.com/", inPath},
		{"https://api.example.com/a/b-", inPath},
		{"https://api.example.com?", inQuery},
		{"https://api.example.com/a?x=", inQuery},
		{"https://api.example.com/a#", inQuery},
	}
	for _, tc := range positions {
		t.Run("position "+tc.prefix, func(t *testing.T) {
			if got := urlPosition(tc.prefix); got != tc.want {
				t.Errorf("urlPosition(%q) = %d, want %d", tc.prefix, got, tc.want)
			}
		})
	}

	dots := []struct {
		name   string
		s      string
		ranges [][2]int
		want   string
	}{
		{"literal dot segments stay", "http://h/a/../b", nil, "http://h/a/../b"},
		{"param dot segment", "http://h/a/../b", [][2]int{{11, 13}}, "http://h/a/%2E%2E/b"},
		{"param completes a dot segment", "http://h/a/../b", [][2]int{{12, 13}}, "http://h/a/%2E%2E/b"},
		{"param single dot at the end", "http://h/a/.", [][2]int{{11, 12}}, "http://h/a/%2E"},
		{"param dots in a longer segment stay", "http://h/a/..x/b", [][2]int{{11, 14}}, "http://h/a/..x/b"},
		{"query untouched", "http://h/a/..?x=..", [][2]int{{11, 13}}, "http://h/a/%2E%2E?x=.."},
	}
	for _, tc := range dots {
		t.Run(tc.name, func(t *testing.T) {
			if got := escapeDotSegments(tc.s, tc.ranges); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHTTPURLCheckedAtCallTime(t *testing.T) {
	srv, _ := testRecorder(t, "text/plain", "ok")
	tests := []struct {
		name  string
		url   string
		hosts string               // allow_hosts, if any
		vars  map[string]cty.Value // besides param; unknown when compiling
		param string
		want  string // error; "" for success
	}{
		{name: "whole expression with http", url: "param.p", hosts: `["127.0.0.1"]`, param: srv.URL + "/a", want: ""},
		{name: "whole expression to a host not allowed", url: "param.p", hosts: `["127.0.0.1"]`, param: "http://evil.example.com/a", want: "evil.example.com"},
		{name: "whole expression with ftp", url: "param.p", hosts: `["files.example.com"]`, param: "ftp://files.example.com/x", want: `url: the url scheme "ftp" is not supported`},
		{name: "whole expression without scheme", url: "param.p", hosts: `["files.example.com"]`, param: "files.example.com/x", want: "url: the url has no scheme"},
		{
			name:  "param in host found only at call time",
			url:   `"${upstream}${param.p}"`,
			vars:  map[string]cty.Value{"upstream": cty.StringVal(srv.URL)},
			param: ".evil.example.com/x",
			want:  "url: a parameter value would land in the scheme or host part",
		},
		{
			name:  "param in path after a value known at call time",
			url:   `"${upstream}/${param.p}"`,
			vars:  map[string]cty.Value{"upstream": cty.StringVal(srv.URL)},
			param: "a/b",
			want:  "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  url = %s\n}\n", tc.url)
			if tc.hosts != "" {
				src = fmt.Sprintf("http {\n  url = %s\n  allow_hosts = %s\n}\n", tc.url, tc.hosts)
			}
			file, diags := hclsyntax.ParseConfig([]byte(src), "tool.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			content, _ := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "http"}}})
			paramType := cty.Object(map[string]cty.Type{"p": cty.String})
			compileVars := map[string]cty.Value{"param": cty.UnknownVal(paramType)}
			callVars := map[string]cty.Value{"param": cty.ObjectVal(map[string]cty.Value{"p": cty.StringVal(tc.param)})}
			for n, v := range tc.vars {
				compileVars[n] = cty.UnknownVal(v.Type())
				callVars[n] = v
			}
			b, diags := compile(content.Blocks[0], &adapters.CompileContext{
				Eval:   &hcl.EvalContext{Variables: compileVars},
				Params: map[string]adapters.ParamInfo{"p": {}},
			})
			if diags.HasErrors() {
				t.Fatalf("compile: %s", diags.Error())
			}
			defer b.Close()
			_, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Variables: callVars}})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Call: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Call error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHTTPURLHostFromParamRefused checks that a url whose host a parameter
// could choose is refused at load, unless allow_hosts limits the hosts.
func TestHTTPURLHostFromParamRefused(t *testing.T) {
	tests := []struct {
		name  string
		attrs string
		want  string // summary of the error; "" for none
	}{
		{name: "bare reference", attrs: `url = param.p`, want: "URL chosen by a parameter"},
		{name: "template of one parameter", attrs: `url = "${param.p}"`, want: "URL chosen by a parameter"},
		{name: "parameter in the host", attrs: `url = "https://${param.p}.example.com/x"`, want: "Parameter in URL host"},
		{name: "format", attrs: `url = format("https://%s/x", param.p)`, want: "URL chosen by a parameter"},
		{name: "conditional", attrs: `url = param.p == "a" ? "https://a.example.com" : "https://b.example.com"`, want: "URL chosen by a parameter"},
		{name: "conditional template", attrs: `url = "${param.p == "a" ? "https://a.example.com" : "https://b.example.com"}/x"`, want: "Parameter in URL host"},
		{name: "bare reference with allow_hosts", attrs: "url = param.p\n  allow_hosts = [\"api.example.com\"]", want: ""},
		{name: "bare reference with deny_private only", attrs: "url = param.p\n  deny_private = true", want: "URL chosen by a parameter"},
		{name: "parameter in the path", attrs: `url = "https://api.example.com/items/${param.p}"`, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  %s\n}\n", tc.attrs)
			file, diags := hclsyntax.ParseConfig([]byte(src), "tool.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			content, _ := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "http"}}})
			paramType := cty.Object(map[string]cty.Type{"p": cty.String})
			b, diags := compile(content.Blocks[0], &adapters.CompileContext{
				Eval: &hcl.EvalContext{
					Variables: map[string]cty.Value{"param": cty.UnknownVal(paramType)},
					Functions: map[string]function.Function{"format": stdlib.FormatFunc},
				},
				Params: map[string]adapters.ParamInfo{"p": {}},
			})
			if b != nil {
				defer b.Close()
			}
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("compile: %s", diags.Error())
				}
				return
			}
			if !diags.HasErrors() || diags[0].Summary != tc.want {
				t.Fatalf("compile diagnostics = %v, want %q", diags, tc.want)
			}
			if d := diags[0]; d.Subject == nil || d.Subject.Start.Line != 2 {
				t.Errorf("subject = %v, want the url on line 2", d.Subject)
			}
		})
	}
}

// TestHTTPUndeclaredCharset: GBK bytes sent without a charset are an error
// that says how to fix it, not text full of replacement characters; the
// charset attribute fixes it.
func TestHTTPUndeclaredCharset(t *testing.T) {
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(`{"title":"百度热点"}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.URL.Query().Get("ct"))
		w.Write(gbk)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name, ct, extra, want string
		wantErr               bool
	}{
		{"no charset", "application/json", "", "declares no other charset", true},
		{"utf-8 declared", "application/json; charset=utf-8", "", "declares charset utf-8, which it does not hold to", true},
		{"charset attribute", "application/json", `charset = "gbk"`, `{"title":"百度热点"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  url = %q\n  %s\n}\n", srv.URL+"/?ct="+url.QueryEscape(tc.ct), tc.extra)
			f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			block := f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock()
			b, diags := compile(block, &adapters.CompileContext{Eval: &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.EmptyObject)}}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			out, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}}})
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), `charset = "gbk"`) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want advice to set charset, and %q", err, tc.want)
				}
				return
			}
			if err != nil || string(out.Body) != tc.want {
				t.Fatalf("got %q, %v", out.Body, err)
			}
		})
	}
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

// TestHTTPAcceptEncodingHeader: a tool whose headers ask for compression
// themselves (copied from a browser or curl: Accept-Encoding: gzip, deflate,
// br) turns off the transport's own gzip decoding. A gzip body is decoded
// all the same, max_response counting the decoded bytes; an encoding
// toolhost does not decode is an error that names it and the fix, never
// compressed bytes read as text (which used to advise setting charset).
func TestHTTPAcceptEncodingHeader(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		io.WriteString(w, s)
		w.Close()
		return b.Bytes()
	}
	tests := []struct {
		name     string
		encoding string
		body     []byte
		extra    string
		status   int      // default 200
		want     string   // the body, on success
		errs     []string // in the error, else
	}{
		{name: "gzip", encoding: "gzip", body: gz(`{"city":"北京"}`), want: `{"city":"北京"}`},
		{name: "x-gzip", encoding: "x-gzip", body: gz(`{"a":1}`), want: `{"a":1}`},
		{name: "identity", encoding: "identity", body: []byte(`{"a":1}`), want: `{"a":1}`},
		{name: "gzip over max_response once decoded", encoding: "gzip", body: gz(strings.Repeat("x", 1<<20)), extra: "max_response = 4096",
			errs: []string{"response body larger than 4096 bytes (max_response)"}},
		{name: "not gzip", encoding: "gzip", body: []byte("plain, not gzip at all"),
			errs: []string{"Content-Encoding gzip", "not valid gzip"}},
		{name: "brotli", encoding: "br", body: []byte{0x1b, 0x03, 0x00, 0xf8},
			errs: []string{`compressed with "br" (Content-Encoding)`, "remove Accept-Encoding from headers"}},
		{name: "brotli error response", encoding: "br", body: []byte{0x1b, 0x03, 0x00, 0xf8}, status: http.StatusBadGateway,
			errs: []string{"upstream returned HTTP 502 Bad Gateway"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept-Encoding") != "gzip, deflate, br" {
					t.Errorf("Accept-Encoding = %q, want the header's", r.Header.Get("Accept-Encoding"))
				}
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Encoding", tc.encoding)
				w.WriteHeader(cmp.Or(tc.status, http.StatusOK))
				w.Write(tc.body)
			}))
			defer srv.Close()
			tt := testTool{env: map[string]string{"BASE": srv.URL}}
			h := tt.mustCompile(t, fmt.Sprintf("http {\n  url = \"${env(\"BASE\")}/x\"\n  headers = { \"Accept-Encoding\" = \"gzip, deflate, br\" }\n  %s\n}\n", tc.extra))
			out, err := tt.call(context.Background(), h, nil)
			if tc.errs != nil {
				if err == nil {
					t.Fatalf("Call = %q, want an error", out.Body)
				}
				for _, w := range tc.errs {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if string(out.Body) != tc.want || out.MIMEType != "application/json" {
				t.Errorf("Call = %q (%s), want %q (application/json)", out.Body, out.MIMEType, tc.want)
			}
		})
	}
}

// TestHTTPMislabelledGzip: an upstream that says Content-Encoding gzip on a
// body it did not compress, to a tool whose headers ask for no encoding
// (the transport asked for gzip), gets an error that says so: not advice to
// remove a header the tool does not have, and not "cut off" for a body
// shorter than a gzip header.
func TestHTTPMislabelledGzip(t *testing.T) {
	for _, body := range []string{"plain, not gzip at all", `{"a":5}`} {
		t.Run(body, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write([]byte(body))
			}))
			defer srv.Close()
			tt := testTool{env: map[string]string{"BASE": srv.URL}}
			h := tt.mustCompile(t, "http {\n  url = \"${env(\"BASE\")}/x\"\n}\n")
			out, err := tt.call(context.Background(), h, nil)
			if err == nil {
				t.Fatalf("Call = %q, want an error", out.Body)
			}
			want := "says Content-Encoding gzip but is not valid gzip"
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "check the upstream") || strings.Contains(err.Error(), "Accept-Encoding") {
				t.Errorf("error %q: want %q and advice to check the upstream, not to remove Accept-Encoding", err, want)
			}
		})
	}
}
