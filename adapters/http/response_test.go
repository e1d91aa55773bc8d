package http

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/jsondepth"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

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
		{"octet-stream nested too deep stays bytes", nil, `{"a":` + strings.Repeat("[", jsondepth.Max) + strings.Repeat("]", jsondepth.Max) + `}`, "application/octet-stream", "", "application/octet-stream"},
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
