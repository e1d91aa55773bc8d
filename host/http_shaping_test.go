package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	ident "github.com/toolhost/toolhost/internal/identity"
)

// TestHTTPSelectStructuredContent checks that a tool's select parameter
// is a parameter of its input schema, and that the text content and the
// structured content of a call both hold what the model picked.
func TestHTTPSelectStructuredContent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"tea","price":3,"stock":12,"notes":"`+strings.Repeat("long ", 1000)+`"}`)
	}))
	defer srv.Close()
	reg := loadSourceWith(t, fmt.Sprintf(`
tool "item" {
  description = "An item of the shop."
  param "fields" {
    type        = list(string)
    description = "The fields to return: name, price or stock; all when left out."
    required    = false
  }
  http {
    url = %q
    select {
      param   = "fields"
      choices = ["name", "price", "stock"]
    }
  }
  result {
    field "name" {
      path     = "name"
      type     = string
      optional = true
    }
    field "price" {
      path     = "price"
      type     = number
      optional = true
    }
  }
}
`, srv.URL), nil)
	var schema string
	for _, decl := range reg.Config.Tools {
		schema = string(decl.InputSchemaJSON)
	}
	if !strings.Contains(schema, `"items":{"type":"string","enum":["name","price","stock"]}`) {
		t.Errorf("input schema %s does not list the choices as the items' enum", schema)
	}
	res, err := reg.CallTool(context.Background(), "item", json.RawMessage(`{"fields":["price"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("call failed: %+v", res.Content)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if string(structured) != `{"price":3}` {
		t.Errorf("structuredContent = %s, want {\"price\":3}", structured)
	}
	text, _ := json.Marshal(res.Content)
	if strings.Contains(string(text), "tea") || strings.Contains(string(text), "long") {
		t.Errorf("content holds what the model did not pick: %s", text)
	}
}

// TestHTTPCachedResourceHints checks that a resource read from an http
// block with a cache says its ttl to the client, and that a read by a
// caller is private.
func TestHTTPCachedResourceHints(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		fmt.Fprint(w, "fresh")
	}))
	defer srv.Close()
	reg := loadSourceWith(t, fmt.Sprintf(`
resource "news" {
  uri = "news:///today"
  http {
    url = %q
    cache {
      ttl = "1m"
    }
  }
}
`, srv.URL), nil)
	res, err := reg.ReadResource(context.Background(), "news:///today")
	if err != nil {
		t.Fatal(err)
	}
	if res.TTLMs != 60000 || res.CacheScope != "" {
		t.Errorf("first read: ttlMs %d, cacheScope %q; want 60000 and the default", res.TTLMs, res.CacheScope)
	}
	res, err = reg.ReadResource(context.Background(), "news:///today")
	if err != nil {
		t.Fatal(err)
	}
	if res.TTLMs <= 0 || res.TTLMs > 60000 {
		t.Errorf("second read: ttlMs %d, want what is left of the minute", res.TTLMs)
	}
	alice := ident.NewContext(context.Background(), &ident.Caller{Subject: "alice"})
	res, err = reg.ReadResource(alice, "news:///today")
	if err != nil {
		t.Fatal(err)
	}
	if res.CacheScope != "private" {
		t.Errorf("read by a caller: cacheScope %q, want private", res.CacheScope)
	}
	if got := n.Load(); got != 2 {
		t.Errorf("upstream saw %d requests, want 2: one for no caller, one for alice", got)
	}
}
