package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestExamplesServeOffline serves the project's examples with serve
// --offline, their upstreams pointed at a loopback server that counts
// requests: the Baidu hot list (the seed's PowerShell server, whose
// mock-data switch this stands in for) answers from its recorded example,
// marked in _meta, serve says at start which tools answer so, and the
// upstream gets no request.
func TestExamplesServeOffline(t *testing.T) {
	var hits atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "offline tests send no request", http.StatusTeapot)
	}))
	defer up.Close()
	t.Setenv("HOTLIST_BASE_URL", up.URL)
	t.Setenv("WEATHER_BASE_URL", up.URL)
	s := startServe(t, "--offline", "--watch=false", copyExamples(t))
	s.initialize("2025-06-18")
	tests := []struct {
		args    map[string]any
		topics  int
		example string
		matched bool
	}{
		{args: map[string]any{"limit": 3}, topics: 3, example: "top three", matched: true},
		{args: map[string]any{}, topics: 4, example: "top three", matched: false}, // limit 10 over the 4 recorded
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			s.sendJSON(call(i+1, "getBaiduHotspot", tt.args))
			res, _ := s.recv()["result"].(map[string]any)
			sc, _ := res["structuredContent"].(map[string]any)
			topics, _ := sc["topics"].([]any)
			if res == nil || res["isError"] == true || len(topics) != tt.topics || sc["updated_at"] != "2025-04-25 16:36:39" {
				t.Fatalf("result %v, want %d topics", res, tt.topics)
			}
			if first := topics[0].(map[string]any)["title"]; first != "神舟二十号发射圆满成功" {
				t.Errorf("first topic %v", first)
			}
			meta, _ := res["_meta"].(map[string]any)
			want := map[string]any{"example": tt.example, "argumentsMatched": tt.matched}
			if got := meta["io.github.toolhost/offline"]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("_meta = %v, want %v", meta, want)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
	// The log reaches the test through stderr's pipe, on a goroutine of
	// its own: it may come after the answers.
	for _, want := range []string{`level=WARN msg="offline: http tools answer from their recorded examples`, "with_examples=2 without_examples=1 missing=get_weather_map running=7"} {
		testconfig.WaitFor(t, fmt.Sprintf("stderr says %q", want), func() bool { return strings.Contains(s.stderrText(), want) })
	}
}
