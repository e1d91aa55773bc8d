// Command floor is the benchmark's floor: a hand-written JSON-RPC loop over
// stdio that answers the benchmark's tools with as little work as it can
// (one small envelope decode per message, responses appended by hand, no
// schema validation, no MCP library). It is what the pipe and the JSON cost
// at least; it is not a correct MCP server in general.
//
// It serves the same tools as bench/baselines/gosdk (see there). Template
// calls are answered inline; calls that wait (http, exec) each run in a
// goroutine, so slow upstreams do not block the loop.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type args struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Text string `json:"text"`
}

var (
	outMu    sync.Mutex
	out      = os.Stdout
	upstream = os.Getenv("BENCH_UPSTREAM")
	client   = &http.Client{Timeout: 10 * time.Second, Transport: pooled()}
	toolList []byte
)

// pooled is the default transport with a pool of idle connections as large
// as the concurrency (the default keeps 2 per host).
func pooled() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}

func write(b []byte) {
	outMu.Lock()
	_, _ = out.Write(b)
	outMu.Unlock()
}

func result(id json.RawMessage, res []byte) []byte {
	b := make([]byte, 0, 64+len(res))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, res...)
	return append(b, "}\n"...)
}

func textResult(id json.RawMessage, text string, isError bool) []byte {
	q, _ := json.Marshal(text)
	b := make([]byte, 0, 64+len(q))
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = append(b, q...)
	b = append(b, `}]`...)
	if isError {
		b = append(b, `,"isError":true`...)
	}
	b = append(b, '}')
	return result(id, b)
}

func errorReply(id json.RawMessage, code int, msg string) []byte {
	q, _ := json.Marshal(msg)
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, q))
}

func get(url string) ([]byte, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("upstream returned %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

func call(id json.RawMessage, p callParams, a args) {
	switch p.Name {
	case "fetch", "slow":
		path := "/small/"
		if p.Name == "slow" {
			path = "/slow/"
		}
		body, err := get(upstream + path + a.ID)
		if err != nil {
			write(textResult(id, err.Error(), true))
			return
		}
		write(textResult(id, string(body), false))
	case "big":
		body, err := get(upstream + "/big")
		if err != nil {
			write(textResult(id, err.Error(), true))
			return
		}
		count := gjson.GetBytes(body, "items.#").Int()
		top := gjson.GetBytes(body, "items.#(score==999)#.{id,name}").Raw
		sc := []byte(`{"count":` + strconv.FormatInt(count, 10) + `,"top":` + top + `}`)
		q, _ := json.Marshal(string(sc))
		b := append([]byte(`{"content":[{"type":"text","text":`), q...)
		b = append(b, `}],"structuredContent":`...)
		b = append(b, sc...)
		b = append(b, '}')
		write(result(id, b))
	case "echo":
		var buf bytes.Buffer
		cmd := exec.Command("printf", "%s", a.Text)
		cmd.Stdout = &buf
		if err := cmd.Run(); err != nil {
			write(textResult(id, err.Error(), true))
			return
		}
		write(textResult(id, buf.String(), false))
	default:
		write(errorReply(id, -32602, "unknown tool "+p.Name))
	}
}

func main() {
	extra := flag.Int("tools", 0, "generated tools to add")
	flag.Parse()

	var list bytes.Buffer
	list.WriteString(`{"tools":[`)
	list.WriteString(`{"name":"say_hello","description":"Returns a friendly greeting","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},`)
	list.WriteString(`{"name":"fetch","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},`)
	list.WriteString(`{"name":"slow","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},`)
	list.WriteString(`{"name":"big","inputSchema":{"type":"object"}},`)
	list.WriteString(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)
	for i := 0; i < *extra; i++ {
		fmt.Fprintf(&list, `,{"name":"tool_%d","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`, i)
	}
	list.WriteString(`]}`)
	toolList = list.Bytes()

	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	var wg sync.WaitGroup
	for {
		line, err := r.ReadSlice('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var env envelope
			if jerr := json.Unmarshal(line, &env); jerr != nil {
				write(errorReply(nil, -32700, "Parse error"))
			} else {
				handle(env, &wg)
			}
		}
		if err == bufio.ErrBufferFull {
			write(errorReply(nil, -32600, "message too long"))
			for err == bufio.ErrBufferFull {
				_, err = r.ReadSlice('\n')
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			break
		}
	}
	wg.Wait()
}

func handle(env envelope, wg *sync.WaitGroup) {
	if len(env.ID) == 0 {
		return // a notification
	}
	switch env.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(env.Params, &p)
		v, _ := json.Marshal(p.ProtocolVersion)
		write(result(env.ID, []byte(`{"protocolVersion":`+string(v)+`,"capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1.0.0"}}`)))
	case "ping":
		write(result(env.ID, []byte(`{}`)))
	case "tools/list":
		write(result(env.ID, toolList))
	case "tools/call":
		var p callParams
		var a args
		if json.Unmarshal(env.Params, &p) != nil || (len(p.Arguments) > 0 && json.Unmarshal(p.Arguments, &a) != nil) {
			write(errorReply(env.ID, -32602, "invalid params"))
			return
		}
		if p.Name == "say_hello" {
			write(textResult(env.ID, "hello "+a.Name, false))
			return
		}
		id := append(json.RawMessage(nil), env.ID...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(id, p, a)
		}()
	default:
		write(errorReply(env.ID, -32601, "Method not found"))
	}
}
