package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
)

// BenchmarkCallHTTPTool is a call of bench/backends.hcl's http tools (a
// 2 KB JSON document, mapped through five result fields, and the same as
// text) to a loopback upstream, as the stdio connection makes it: the
// registry's call (arguments, the request, the result block) and the
// encoding of its result. The backends case of bench/driver measures the
// same over real processes.
func BenchmarkCallHTTPTool(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`{"id":"abc","name":"A product with a long enough name","price":12.5,"currency":"EUR","owner":{"login":"someone","id":42},"items":[`)
	for i := range 16 {
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"sku":"sku-%d","qty":%d,"note":"an item of the order, with a short note"}`, i, i+1)
	}
	doc.WriteString(`],"description":"` + strings.Repeat("Lorem ipsum dolor sit amet. ", 40) + `"}`)
	body := []byte(doc.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	b.Setenv("BENCH_DOCS", srv.URL)
	r, diags := Load([]string{filepath.Join("..", "bench", "backends.hcl")}, nil)
	if diags.HasErrors() {
		b.Fatal(thcl.FormatDiagnostics(diags))
	}
	defer r.Close()
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, tool := range []string{"doc", "doc_text"} {
		b.Run(tool, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				res, err := r.CallTool(ctx, tool, json.RawMessage(`{"id":"abc"}`))
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				if _, err := marshalResult(res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
