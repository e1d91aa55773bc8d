package http

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
)

// bigItems is a JSON array of about 10 MB of objects with ten fields.
func bigItems() []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; b.Len() < 10_000_000-400; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item %d","price":%d.5,"stock":%d,"tags":["a","b","c"],"owner":{"id":%d,"name":"someone"},"description":"a description of the item that goes on for a while","created":"2026-11-29T08:00:00Z","updated":"2026-11-29T08:00:00Z","url":"https://example.com/items/%d"}`, i, i, i%100, i%7, i%13, i)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// BenchmarkSelect10MB projects a 10 MB JSON array down to two fields of
// each object (the select block's choices), as a call's output, without
// the request.
func BenchmarkSelect10MB(b *testing.B) {
	body := bigItems()
	p := &projection{param: "fields", choices: []string{"id", "name", "price"}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var outLen int
	for b.Loop() {
		out, err := p.apply(&adapters.Output{Body: body, MIMEType: "application/json"}, []string{"id", "price"}, "", maxMaxResponse)
		if err != nil {
			b.Fatal(err)
		}
		outLen = len(out.Body)
	}
	b.ReportMetric(float64(outLen), "out-bytes")
}

// BenchmarkSelect10MBCall is BenchmarkSelect10MB through a whole call to
// a loopback upstream sending the 10 MB.
func BenchmarkSelect10MBCall(b *testing.B) {
	body := bigItems()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	for _, tc := range []struct{ name, arg string }{{"whole", ""}, {"projected", "id,price"}} {
		b.Run(tc.name, func(b *testing.B) {
			tt := testTool{params: map[string]cty.Type{"fields": cty.String}}
			h, diags := tt.compile(b, fmt.Sprintf("http {\n url = %q\n select {\n param = \"fields\"\n gjson = true\n }\n}", srv.URL))
			if diags.HasErrors() {
				b.Fatal(diags.Error())
			}
			args := map[string]cty.Value{}
			if tc.arg != "" {
				args["fields"] = cty.StringVal("#.{" + tc.arg + "}")
			}
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := tt.call(context.Background(), h, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCache compares a call answered from the cache with one sent
// to a loopback upstream (a miss: the cache is on, and each call's
// argument is new).
func BenchmarkCache(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"temperature":21.5,"city":"Lisbon","wind":{"speed":12,"direction":"NW"}}`)
	}))
	defer srv.Close()
	tt := testTool{params: map[string]cty.Type{"q": cty.String}}
	src := fmt.Sprintf("http {\n url = %q\n query = { q = param.q }\n cache {\n ttl = \"1h\"\n max_entries = 100000\n }\n}", srv.URL)
	b.Run("hit", func(b *testing.B) {
		h, _ := tt.compile(b, src)
		args := map[string]cty.Value{"q": cty.StringVal("lisbon")}
		if _, err := tt.call(context.Background(), h, args); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tt.call(context.Background(), h, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("miss", func(b *testing.B) {
		h, _ := tt.compile(b, src)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if _, err := tt.call(context.Background(), h, map[string]cty.Value{"q": cty.StringVal(fmt.Sprint(i))}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCallDoc is one call of a tool whose url interpolates a
// parameter, against a loopback upstream answering 2 KB of JSON: the
// backend's own work per call, without the host's.
func BenchmarkCallDoc(b *testing.B) {
	doc := []byte(`{"id":"abc","name":"A product","price":12.5,"owner":{"login":"someone"},"description":"` + strings.Repeat("Lorem ipsum dolor sit amet. ", 70) + `"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	}))
	defer srv.Close()
	tt := testTool{params: map[string]cty.Type{"id": cty.String}}
	h, diags := tt.compile(b, fmt.Sprintf("http {\n url = \"%s/doc/${param.id}\"\n timeout = \"10s\"\n}", srv.URL))
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	args := map[string]cty.Value{"id": cty.StringVal("abc")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tt.call(context.Background(), h, args); err != nil {
			b.Fatal(err)
		}
	}
}
