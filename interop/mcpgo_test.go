package interop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// mcpgoTimeout bounds the requests of each subtest of TestMCPGo.
const mcpgoTimeout = 30 * time.Second

// mcpgoConfig is the config TestMCPGo serves: a template tool, an exec
// tool with a result block, an exec tool that fails, a resource and a
// prompt. The exec tools run the test binary as a program (testconfig).
func mcpgoConfig() string {
	return `server {
  name    = "mcpgo"
  version = "1.0.0"
}

tool "greet" {
  description = "Greets someone."
  param "name" {
    type = string
  }
  template {
    text = "hello ${param.name}"
  }
}

tool "measure" {
  description = "Measures a word."
  param "word" {
    type = string
  }
  exec {
    command = ` + testconfig.ProgramList(`"print"`, `jsonencode({ word = param.word, length = strlen(param.word) })`) + `
  }
  result {
    field "word" {
      path = "word"
      type = string
    }
    field "length" {
      path = "length"
      type = integer
    }
  }
}

tool "broken" {
  description = "Always fails."
  exec {
    command = ` + testconfig.ProgramList(`"stderr"`, `"the disk is full"`, `"exit"`, `"3"`) + `
  }
}

resource "note" {
  uri       = "file:///note.md"
  mime_type = "text/markdown"
  file      = "note.md"
}

prompt "review" {
  description = "Reviews a topic."
  arg "topic" {
    required = true
  }
  message "user" {
    text = "Review ${arg.topic}, please."
  }
}
`
}

// mcpgoNote is the text of the resource of mcpgoConfig.
const mcpgoNote = "# Note\n\nWritten for mcp-go.\n"

// TestMCPGo drives a real toolhost with mcp-go (github.com/mark3labs/mcp-go),
// a client library independent of the SDK toolhost is built on, with its
// default options (it negotiates the newest protocol it knows): over stdio,
// over streamable HTTP in the default mode and with --stateless; and, in the
// default mode, pinned to 2025-11-25, with a session. Each lists
// the tools, calls a template tool and an exec tool with a result block,
// reads a resource, gets a prompt and sees a failing tool's error result,
// and logs the protocol version it ended up with.
func TestMCPGo(t *testing.T) {
	bin := buildToolhost(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(cfg, []byte(mcpgoConfig()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "note.md"), []byte(mcpgoNote), 0o644); err != nil {
		t.Fatal(err)
	}

	// Each row connects with mcp-go's defaults, but the last, which pins
	// 2025-11-25, the newest protocol with sessions: in the default mode
	// session clients and sessionless ones are served side by side.
	for _, tt := range []struct {
		name    string
		connect func(t *testing.T) *client.Client
		version string // the protocol mcp-go should end up with
	}{
		{"stdio", func(t *testing.T) *client.Client { return mcpgoStdio(t, bin, cfg) }, "2026-07-28"},
		{"http", func(t *testing.T) *client.Client { return mcpgoHTTP(t, bin, nil, cfg) }, "2026-07-28"},
		{"http stateless", func(t *testing.T) *client.Client { return mcpgoHTTP(t, bin, nil, "--stateless", cfg) }, "2026-07-28"},
		{"http session", func(t *testing.T) *client.Client {
			return mcpgoHTTP(t, bin, []client.ClientOption{client.WithProtocolVersion("2025-11-25")}, cfg)
		}, "2025-11-25"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.connect(t)
			ctx, cancel := context.WithTimeout(context.Background(), mcpgoTimeout)
			defer cancel()
			init := mcp.InitializeRequest{}
			init.Params.ClientInfo = mcp.Implementation{Name: "toolhost-interop", Version: "1"}
			res, err := c.Initialize(ctx, init)
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			t.Logf("mcp-go uses protocol %s with %s %s", c.ProtocolVersion(), res.ServerInfo.Name, res.ServerInfo.Version)
			if c.ProtocolVersion() != tt.version {
				t.Errorf("mcp-go uses protocol %s, want %s", c.ProtocolVersion(), tt.version)
			}
			mcpgoSession(t, ctx, c)
		})
	}
}

// mcpgoStdio returns an mcp-go client of toolhost serve cfg, a
// subprocess it talks to over pipes, started; toolhost's log goes to the
// test's.
func mcpgoStdio(t *testing.T, bin, cfg string) *client.Client {
	t.Helper()
	stderr := &lineLogger{t: t}
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, []string{"serve", cfg}, transport.WithCommandStderrWriter(stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close() // waits for the process, and so for its last log line
		stderr.flush()
	})
	return c
}

// mcpgoHTTP starts toolhost serve --listen 127.0.0.1:0 with args and
// returns an mcp-go client of its /mcp endpoint with opts, started.
func mcpgoHTTP(t *testing.T, bin string, opts []client.ClientOption, args ...string) *client.Client {
	t.Helper()
	s := testconfig.ServeHTTP(t, bin, args...)
	tr, err := transport.NewStreamableHTTP(s.Base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, opts...)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// mcpgoSession checks what every transport serves to an initialized c.
func mcpgoSession(t *testing.T, ctx context.Context, c *client.Client) {
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"broken", "greet", "measure"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tools/list names %v, want %v", names, want)
	}

	for _, tc := range []struct {
		name       string
		tool       string
		args       map[string]any
		text       string // the text item
		structured string // structuredContent as JSON, "" for none
		isError    bool
	}{
		{"template", "greet", map[string]any{"name": "mcp-go"}, "hello mcp-go", "", false},
		{"exec with result", "measure", map[string]any{"word": "toolhost"}, `{"word":"toolhost","length":8}`, `{"length":8,"word":"toolhost"}`, false},
		{"failing exec", "broken", nil, "command exited with status 3: the disk is full", "", true},
	} {
		t.Run("call "+tc.name, func(t *testing.T) {
			req := mcp.CallToolRequest{}
			req.Params.Name = tc.tool
			req.Params.Arguments = tc.args
			res, err := c.CallTool(ctx, req)
			if err != nil {
				t.Fatalf("tools/call %s: %v", tc.tool, err)
			}
			text := ""
			if len(res.Content) == 1 {
				if tx, ok := mcp.AsTextContent(res.Content[0]); ok {
					text = tx.Text
				}
			}
			if res.IsError != tc.isError || text != tc.text {
				t.Errorf("tools/call %s: isError %v, content %+v; want isError %v and the text %q", tc.tool, res.IsError, res.Content, tc.isError, tc.text)
			}
			structured := ""
			if res.StructuredContent != nil {
				b, err := json.Marshal(res.StructuredContent)
				if err != nil {
					t.Fatal(err)
				}
				structured = string(b)
			}
			if structured != tc.structured {
				t.Errorf("tools/call %s: structuredContent %s, want %s", tc.tool, structured, tc.structured)
			}
		})
	}

	t.Run("read resource", func(t *testing.T) {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "file:///note.md"
		res, err := c.ReadResource(ctx, req)
		if err != nil {
			t.Fatalf("resources/read: %v", err)
		}
		if len(res.Contents) != 1 {
			t.Fatalf("resources/read: %d contents, want 1", len(res.Contents))
		}
		tc, ok := mcp.AsTextResourceContents(res.Contents[0])
		if !ok || tc.Text != mcpgoNote || tc.MIMEType != "text/markdown" {
			t.Errorf("resources/read: %+v, want the note as text/markdown", res.Contents[0])
		}
	})

	t.Run("get prompt", func(t *testing.T) {
		req := mcp.GetPromptRequest{}
		req.Params.Name = "review"
		req.Params.Arguments = map[string]string{"topic": "the interop test"}
		res, err := c.GetPrompt(ctx, req)
		if err != nil {
			t.Fatalf("prompts/get: %v", err)
		}
		text := ""
		if len(res.Messages) == 1 {
			if tx, ok := mcp.AsTextContent(res.Messages[0].Content); ok {
				text = tx.Text
			}
		}
		if text != "Review the interop test, please." {
			t.Errorf("prompts/get: %+v, want one message saying to review the interop test", res.Messages)
		}
	})
}
