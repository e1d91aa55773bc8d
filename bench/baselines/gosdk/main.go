// Command gosdk is the benchmark's Go SDK baseline: a minimal stdio MCP
// server written directly on the official Go SDK, the way a user would
// write the benchmark's tools by hand (typed handlers with mcp.AddTool, the
// SDK's own StdioTransport, net/http with the default keep-alive client).
//
// Tools (the same in every baseline and in bench/tools.hcl):
//
//	say_hello {name}  "hello NAME"
//	fetch     {id}    GET $BENCH_UPSTREAM/small/ID, the body as text
//	slow      {id}    GET $BENCH_UPSTREAM/slow/ID (the upstream waits 100 ms)
//	big       {}      GET $BENCH_UPSTREAM/big (10 MB of JSON): the item count
//	                  and the items whose score is 999, as structured content
//	echo      {text}  runs printf %s TEXT, its output as text
//
// -tools N adds N generated tools (tool_0 ...) for the cold-start case.
//
// -examples serves instead the definitions of examples/tools.hcl, written
// by hand (examples.go), for the cold-start case; run it in examples/.
//
// -http ADDR serves the same tools over streamable HTTP at ADDR/mcp, with
// the SDK's mcp.NewStreamableHTTPHandler (sessions; -stateless for
// Stateless: true) instead of stdio (http.go).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type helloIn struct {
	Name string `json:"name" jsonschema:"The name to greet"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"An id"`
}

type echoIn struct {
	Text string `json:"text"`
}

type bigIn struct{}

type item struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type bigOut struct {
	Count int    `json:"count"`
	Top   []item `json:"top"`
}

type genIn struct {
	Name  string `json:"name" jsonschema:"A name"`
	Count int    `json:"count,omitempty"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	extra := flag.Int("tools", 0, "generated tools to add")
	examples := flag.Bool("examples", false, "serve the definitions of examples/tools.hcl instead (run it in examples/)")
	listen := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: no sessions (StreamableHTTPOptions.Stateless)")
	flag.Parse()
	if *examples {
		serve(examplesServer())
		return
	}
	upstream := os.Getenv("BENCH_UPSTREAM")
	// The default transport keeps 2 idle connections per host: at 64 calls
	// in flight it would open and close connections until the ephemeral
	// ports run out. A hand-written server worth comparing with keeps a
	// pool as large as its concurrency, as toolhost does.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64
	client := &http.Client{Timeout: 10 * time.Second, Transport: transport}

	get := func(ctx context.Context, url string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("upstream returned %s", resp.Status)
		}
		return io.ReadAll(resp.Body)
	}

	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-baseline", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "say_hello", Description: "Returns a friendly greeting"},
		func(ctx context.Context, req *mcp.CallToolRequest, in helloIn) (*mcp.CallToolResult, any, error) {
			return text("hello " + in.Name), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fetch", Description: "A small JSON document"},
		func(ctx context.Context, req *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			body, err := get(ctx, upstream+"/small/"+in.ID)
			if err != nil {
				return nil, nil, err
			}
			return text(string(body)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "A slow upstream"},
		func(ctx context.Context, req *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			body, err := get(ctx, upstream+"/slow/"+in.ID)
			if err != nil {
				return nil, nil, err
			}
			return text(string(body)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Extracts from a large document"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, bigOut, error) {
			body, err := get(ctx, upstream+"/big")
			if err != nil {
				return nil, bigOut{}, err
			}
			var doc struct {
				Items []struct {
					ID    int    `json:"id"`
					Name  string `json:"name"`
					Score int    `json:"score"`
				} `json:"items"`
			}
			if err := json.Unmarshal(body, &doc); err != nil {
				return nil, bigOut{}, err
			}
			out := bigOut{Count: len(doc.Items), Top: []item{}}
			for _, it := range doc.Items {
				if it.Score == 999 {
					out.Top = append(out.Top, item{ID: it.ID, Name: it.Name})
				}
			}
			return nil, out, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo input"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			var out bytes.Buffer
			cmd := exec.CommandContext(ctx, "printf", "%s", in.Text)
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				return nil, nil, err
			}
			return text(out.String()), nil, nil
		})
	for i := 0; i < *extra; i++ {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("tool_%d", i), Description: fmt.Sprintf("Generated tool %d", i)},
			func(ctx context.Context, req *mcp.CallToolRequest, in genIn) (*mcp.CallToolResult, any, error) {
				return text(fmt.Sprintf("tool says hello %s x%d", in.Name, in.Count)), nil, nil
			})
	}
	if *listen != "" {
		serveHTTP(s, *listen, *stateless)
		return
	}
	serve(s)
}

// serve runs s over stdin and stdout until the client goes.
func serve(s *mcp.Server) {
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && err != io.EOF {
		log.Print(err)
	}
}
