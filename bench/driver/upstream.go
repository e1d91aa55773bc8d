package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// bigBodySize is the size in bytes of the /big document.
const bigBodySize = 10_000_000

// upstream is the loopback HTTP server the http tools call: keep-alive, in
// the driver's process, listening on 127.0.0.1 only.
type upstream struct {
	srv     *http.Server
	url     string
	big     []byte
	bigTop  int // items with score 999 in big
	bigSize int // items in big
}

func startUpstream() (*upstream, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	u := &upstream{url: "http://" + ln.Addr().String()}
	u.big, u.bigSize, u.bigTop = bigDocument(bigBodySize)
	mux := http.NewServeMux()
	small := func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/small/"), "/slow/")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"ok":true,"items":[1,2,3]}`, id)
	}
	mux.HandleFunc("/small/", small)
	mux.HandleFunc("/slow/", func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(100 * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		small(w, r)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(u.big)))
		_, _ = w.Write(u.big)
	})
	u.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 5 * time.Minute}
	go func() { _ = u.srv.Serve(ln) }()
	return u, nil
}

func (u *upstream) close() { _ = u.srv.Close() }

// bigDocument builds a JSON document of about size bytes:
// {"items":[{"id":0,"name":"item-0","score":0,"tags":[...],"text":"..."},...]}
// Every thousandth item has score 999.
func bigDocument(size int) (doc []byte, items, top int) {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString(`{"source":"toolhost-bench","items":[`)
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		score := i % 1000
		if score == 999 {
			top++
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","score":%d,"tags":["alpha","beta"],"text":"Lorem ipsum dolor sit amet, consectetur adipiscing elit %d."}`, i, i, score, i)
		items++
	}
	b.WriteString(`]}`)
	for b.Len() < size {
		b.WriteByte(' ')
	}
	return b.Bytes(), items, top
}
