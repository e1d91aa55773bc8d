package http

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

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
		h.client.Transport = secure.Client().Transport
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
		h.client.Transport = secure.Client().Transport
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
