package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// hotTitles are the fixture's topics, in Chinese, hottest first.
var hotTitles = []string{"神舟飞船成功发射", "全国多地迎来降雪", "新能源汽车销量创新高", "高校毕业生就业季", "春节档电影预售开启"}

// upstream serves the two JSON shapes the examples read: the vvhan hot list,
// encoded in GBK as some Chinese APIs do, and wttr.in's j1 weather.
func upstream(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/hotlist/baiduRD", func(w http.ResponseWriter, r *http.Request) {
		var data []map[string]any
		for i, title := range hotTitles {
			data = append(data, map[string]any{
				"index": i + 1, "title": title, "desc": "描述", "hot": fmt.Sprintf("%d万", 900-i*10),
				"url": "https://www.baidu.com/s?wd=" + title, "mobilUrl": "https://m.baidu.com/s?word=" + title,
			})
		}
		body, _ := json.Marshal(map[string]any{"success": true, "name": "百度热点", "subtitle": "指数", "update_time": "2025-04-25 16:36:39", "data": data})
		gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes(body)
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json;charset=GBK")
		w.Write(gbk)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		city := strings.TrimPrefix(r.URL.Path, "/")
		if r.URL.Query().Get("format") != "j1" {
			http.Error(w, "want format=j1", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"current_condition":[{"temp_C":"21","temp_F":"70","humidity":"40","weatherDesc":[{"value":"Sunny"}]}],"nearest_area":[{"areaName":[{"value":%q}]}]}`, city)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// copyExamples copies examples/ into a temp dir, so tools that write
// (create_file) write there.
func copyExamples(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk("../../examples", func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../../examples", p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "tools.hcl")
}

func TestExampleHTTPTools(t *testing.T) {
	up := upstream(t)
	cfg := copyExamples(t)
	env := append(os.Environ(), "HOTLIST_BASE_URL="+up.URL, "WEATHER_BASE_URL="+up.URL)
	run := func(args ...string) (map[string]any, string) {
		t.Helper()
		cmd := exec.Command(binPath, append([]string{"call", cfg}, args...)...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, stderr.String()
		}
		var m map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
			t.Fatalf("call output is not JSON: %q", stdout.String())
		}
		return m, stderr.String()
	}
	t.Run("hot list GBK", func(t *testing.T) {
		out, stderr := run("getBaiduHotspot", "limit=3")
		if out == nil {
			t.Fatalf("call failed: %s", stderr)
		}
		if out["updated_at"] != "2025-04-25 16:36:39" {
			t.Errorf("updated_at = %v", out["updated_at"])
		}
		topics := out["topics"].([]any)
		if len(topics) != 3 {
			t.Fatalf("got %d topics, want 3: %v", len(topics), topics)
		}
		for i, tp := range topics {
			m := tp.(map[string]any)
			if m["title"] != hotTitles[i] || m["index"] != float64(i+1) {
				t.Errorf("topic %d = %v, want title %q", i, m, hotTitles[i])
			}
			if _, extra := m["mobilUrl"]; extra {
				t.Errorf("topic %d kept an undeclared attribute: %v", i, m)
			}
		}
	})
	t.Run("hot list default limit", func(t *testing.T) {
		out, stderr := run("getBaiduHotspot")
		if out == nil {
			t.Fatalf("call failed: %s", stderr)
		}
		if n := len(out["topics"].([]any)); n != len(hotTitles) {
			t.Errorf("default limit 10 over %d topics gave %d", len(hotTitles), n)
		}
	})
	t.Run("weather", func(t *testing.T) {
		out, stderr := run("get_weather", "city=北京", "unit=fahrenheit")
		if out == nil {
			t.Fatalf("call failed: %s", stderr)
		}
		if out["temperature"] != float64(70) || out["humidity"] != float64(40) || out["conditions"] != "Sunny" || out["city"] != "北京" {
			t.Errorf("weather = %v", out)
		}
	})
	t.Run("weather path param escaped", func(t *testing.T) {
		out, stderr := run("get_weather", "city=../api/hotlist/baiduRD")
		if out == nil {
			t.Fatalf("call failed: %s", stderr)
		}
		if out["city"] != "../api/hotlist/baiduRD" {
			t.Errorf("the city did not stay one path segment: %v", out)
		}
	})
	t.Run("upstream down", func(t *testing.T) {
		cmd := exec.Command(binPath, "call", cfg, "getBaiduHotspot")
		cmd.Env = append(os.Environ(), "HOTLIST_BASE_URL=http://127.0.0.1:1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil {
			t.Fatal("call against a closed port succeeded")
		}
		if !strings.Contains(stderr.String(), "getBaiduHotspot: ") || !strings.Contains(stderr.String(), "127.0.0.1") {
			t.Errorf("stderr = %q", stderr.String())
		}
	})
}
