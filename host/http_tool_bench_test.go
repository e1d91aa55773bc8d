package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
)

// httpToolBenchConfig is bench/backends.hcl's http tools: a 2 KB JSON
// document mapped through five result fields, and the same as text.
const httpToolBenchConfig = `
tool "doc" {
  description = "A 2 KB JSON document, mapped"
  param "id" {
    type = string
  }
  http {
    url     = "${env("BENCH_DOCS")}/doc/${param.id}"
    timeout = "10s"
  }
  result {
    field "id" {
      path = "id"
      type = string
    }
    field "name" {
      path = "name"
      type = string
    }
    field "price" {
      path = "price"
      type = number
    }
    field "owner" {
      path = "owner.login"
      type = string
    }
    field "skus" {
      path = "items.#.sku"
      type = list(string)
    }
  }
}

tool "doc_text" {
  description = "The same 2 KB JSON document, as it came"
  param "id" {
    type = string
  }
  http {
    url     = "${env("BENCH_DOCS")}/doc/${param.id}"
    timeout = "10s"
  }
}
`

// BenchmarkCallHTTPTool is a call of an http tool to a loopback upstream
// answering 2 KB of JSON, as the stdio connection makes it: the registry's
// call (arguments, the request, the result block) and the encoding of
// its result. The backends case of bench/driver measures the same over
// real processes.
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
	path := filepath.Join(b.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(httpToolBenchConfig), 0o644); err != nil {
		b.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
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
