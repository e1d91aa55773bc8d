package http

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
	"golang.org/x/text/encoding/simplifiedchinese"
)

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
				if accept := r.header.Get("Accept"); accept != "application/json" {
					t.Errorf("Accept = %q, want the body's media type", accept)
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
				if accept, ok := r.header["Accept"]; ok {
					t.Errorf("Accept = %q sent with a text body", accept)
				}
			},
		},
		{
			name:   "User-Agent and Accept of the headers kept",
			params: map[string]cty.Type{},
			block: `http {
  method  = "POST"
  url     = "${env("BASE")}/notes"
  body    = "{}"
  headers = { "User-Agent" = "agent/1", Accept = "text/csv" }
}`,
			check: func(t *testing.T, r testRequest) {
				if ua, accept := r.header.Get("User-Agent"), r.header.Get("Accept"); ua != "agent/1" || accept != "text/csv" {
					t.Errorf("User-Agent %q, Accept %q; want the headers' own", ua, accept)
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
