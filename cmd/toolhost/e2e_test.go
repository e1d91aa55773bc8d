package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// binPath is the toolhost binary built once for the end-to-end tests.
var binPath string

func TestMain(m *testing.M) {
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == "toolhost" {
		main() // the copy of this test binary that buildToolhost made
	}
	testconfig.RunProgram()
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == helperName {
		os.Exit(testconfig.Run(os.Args[1:])) // the copy of this test binary that copySelf made
	}
	dir, err := os.MkdirTemp("", "toolhost-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "toolhost")
	if runtime.GOOS == "windows" {
		binPath += ".exe"
	}
	if err := buildToolhost(binPath); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := copySelf(filepath.Join(dir, helperName+filepath.Ext(binPath))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildToolhost builds toolhost at path with the go command; where there
// is none (a Windows test binary run under wine on Linux), it copies this
// test binary there instead, whose TestMain runs main when it is called
// toolhost.
func buildToolhost(path string) error {
	if _, err := exec.LookPath("go"); err != nil {
		return copySelf(path)
	}
	out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
	if err != nil {
		return fmt.Errorf("building toolhost: %v\n%s", err, out)
	}
	return nil
}

// copySelf writes a copy of this test binary at path.
func copySelf(path string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o755)
}

// helperName is the name of the copy of this test binary that TestMain
// writes beside the toolhost binary, on the scripts' PATH: called so, it
// runs as a program of the steps its arguments name (testconfig.Run, with
// the file steps of helper_files_test.go), which the scripts' configs run on every
// platform instead of sh, echo or cat.
const helperName = "toolhost-helper"

// writeConfig writes an HCL config into a fresh directory and returns its path.
func writeConfig(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var testConfig = `
server {
  name    = "e2e"
  version = "9.9.9"
}
tool "hello" {
  description = "greets"
  param "name" { type = string }
  template { text = "hello ${param.name}" }
}
tool "slow" {
  description = "sleeps, then answers"
  param "seconds" {
    type    = number
    default = 1
  }
  exec {
    command = ` + slowCommand + `
    timeout = "20s"
  }
}
tool "fail" {
  description = "exits 3"
  exec { command = ` + failCommand + ` }
}
`

// session is a running "toolhost serve" with pipes to its stdin and stdout.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *bytes.Buffer
	mu     sync.Mutex
}

func startServe(t *testing.T, args ...string) *session {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve"}, args...)...)
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 100), stderr: &bytes.Buffer{}}
	cmd.Stderr = &lockedWriter{w: s.stderr, mu: &s.mu}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			s.mu.Lock()
			t.Logf("server stderr:\n%s", s.stderr.String())
			s.mu.Unlock()
		}
	})
	return s
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("writing to server: %v", err)
	}
}

func (s *session) sendJSON(v any) {
	s.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(string(b))
}

// recv returns the next message from stdout, which must be a JSON object.
func (s *session) recv() map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatal("server closed stdout")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("stdout carried a line that is not a JSON object: %q", line)
		}
		return m
	case <-time.After(30 * time.Second):
		s.t.Fatal("no message from the server within 30s")
	}
	return nil
}

func (s *session) initialize(version string) map[string]any {
	s.t.Helper()
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"},
	}})
	resp := s.recv()
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return resp
}

func call(id int, tool string, args map[string]any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}
}

func idOf(m map[string]any) any { return m["id"] }

func resultText(t *testing.T, m map[string]any) (string, bool) {
	t.Helper()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("expected a result, got %v", m)
	}
	content := res["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		b.WriteString(c.(map[string]any)["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}

func TestProtocolVersions(t *testing.T) {
	cfg := writeConfig(t, testConfig)
	for _, tc := range []struct{ asked, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"1999-01-01", "2025-11-25"},
	} {
		t.Run(tc.asked, func(t *testing.T) {
			s := startServe(t, cfg)
			resp := s.initialize(tc.asked)
			res := resp["result"].(map[string]any)
			if got := res["protocolVersion"]; got != tc.want {
				t.Fatalf("protocolVersion = %v, want %v", got, tc.want)
			}
			info := res["serverInfo"].(map[string]any)
			if info["name"] != "e2e" || info["version"] != "9.9.9" {
				t.Fatalf("serverInfo = %v", info)
			}
			caps := res["capabilities"].(map[string]any)
			for _, k := range []string{"tools", "resources", "prompts", "logging"} {
				if _, ok := caps[k]; !ok {
					t.Errorf("capability %s missing in %v", k, caps)
				}
			}
			s.sendJSON(call(1, "hello", map[string]any{"name": "世界"}))
			if text, isErr := resultText(t, s.recv()); text != "hello 世界" || isErr {
				t.Fatalf("hello = %q isError=%v", text, isErr)
			}
		})
	}
}

// TestMalformedInputKeepsServing sends broken lines between good requests:
// each broken line is answered with the prescribed error and the server goes
// on to answer the next request.
func TestMalformedInputKeepsServing(t *testing.T) {
	cfg := writeConfig(t, testConfig)
	s := startServe(t, "--max-message-size", "4096", cfg)
	s.initialize("2025-06-18")
	for i, tc := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not JSON", "garbage{", -32700, nil},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}", -32700, nil},
		{"binary", "\x00\x01\x02\x03", -32700, nil},
		{"no method", `{"jsonrpc":"2.0","id":77}`, -32600, float64(77)},
		{"wrong version", `{"jsonrpc":"1.0","id":78,"method":"ping"}`, -32600, float64(78)},
		{"batch", `[{"jsonrpc":"2.0","id":79,"method":"ping"}]`, -32600, nil},
		// An oversized request is answered under its id when the start
		// of the line has it, as clients write it, before the params.
		{"oversized", `{"jsonrpc":"2.0","id":80,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8000) + `"}}`, -32600, float64(80)},
		{"oversized past the read buffer", `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("x", 200000) + `"}}`, -32600, "big"},
		{"oversized, the id at the end", `{"jsonrpc":"2.0","method":"ping","params":{"pad":"` + strings.Repeat("x", 200000) + `"},"id":82}`, -32600, nil},
		{"oversized, an id in the params only", `{"jsonrpc":"2.0","method":"ping","params":{"id":83,"pad":"` + strings.Repeat("x", 8000) + `"}}`, -32600, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":81,"method":"no/such"}`, -32601, float64(81)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.send(tc.line)
			resp := s.recv()
			e, ok := resp["error"].(map[string]any)
			if !ok {
				t.Fatalf("expected an error response, got %v", resp)
			}
			if e["code"] != tc.code {
				t.Errorf("code = %v, want %v (%v)", e["code"], tc.code, e["message"])
			}
			if idOf(resp) != tc.id {
				t.Errorf("id = %v, want %v", idOf(resp), tc.id)
			}
			s.sendJSON(call(100+i, "hello", map[string]any{"name": "again"}))
			resp = s.recv()
			if text, _ := resultText(t, resp); text != "hello again" {
				t.Fatalf("after %s the server answered %v", tc.name, resp)
			}
		})
	}
}

// TestSlowToolDoesNotBlock starts a slow call and then a fast one: the fast
// one is answered first.
func TestSlowToolDoesNotBlock(t *testing.T) {
	cfg := writeConfig(t, testConfig)
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.sendJSON(call(1, "slow", map[string]any{"seconds": 2}))
	s.sendJSON(call(2, "hello", map[string]any{"name": "fast"}))
	first := s.recv()
	if idOf(first) != float64(2) {
		t.Fatalf("first reply was for id %v, want the fast call (2): %v", idOf(first), first)
	}
	second := s.recv()
	if text, _ := resultText(t, second); idOf(second) != float64(1) || text != "slept" {
		t.Fatalf("second reply = %v", second)
	}
}

// TestRepliesAfterStdinCloses pipes requests and closes stdin at once, as
// `printf ... | toolhost serve` does: every request read is answered.
func TestRepliesAfterStdinCloses(t *testing.T) {
	cfg := writeConfig(t, testConfig)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":1}}}` + "\n")
	for i := 2; i <= 20; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"n%d"}}}`+"\n", i, i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "serve", cfg)
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	seen := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		if id, ok := m["id"].(float64); ok {
			seen[id] = true
		}
	}
	for i := 0; i <= 20; i++ {
		if !seen[float64(i)] {
			t.Errorf("no reply for id %d; stdout:\n%s", i, out)
		}
	}
}

func TestToolErrorsAreResults(t *testing.T) {
	cfg := writeConfig(t, testConfig)
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	for i, tc := range []struct {
		name string
		args map[string]any
		tool string
		want string
	}{
		{"missing argument", map[string]any{}, "hello", `"name"`},
		{"wrong type", map[string]any{"name": 5}, "hello", "must be a string"},
		{"extra argument", map[string]any{"name": "x", "nme": "y"}, "hello", `"nme"`},
		{"non-zero exit", nil, "fail", "status 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.sendJSON(call(i+1, tc.tool, tc.args))
			text, isErr := resultText(t, s.recv())
			if !isErr || !strings.Contains(text, tc.want) {
				t.Fatalf("got isError=%v %q, want an error containing %q", isErr, text, tc.want)
			}
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		s.sendJSON(call(50, "nope", nil))
		resp := s.recv()
		e, ok := resp["error"].(map[string]any)
		if !ok || e["code"] != float64(-32602) {
			t.Fatalf("unknown tool: %v", resp)
		}
	})
}

func TestCLI(t *testing.T) {
	good := writeConfig(t, testConfig)
	bad := writeConfig(t, `tool "x" {
  description = "bad"
  param "a" { type = strng }
  template { text = "${param.b}" }
}
`)
	// A JSON Schema 2020-12 input_schema, and one that cannot be used.
	schema2020 := filepath.Join("..", "..", "host", "testdata", "inputschema2020.hcl")
	badSchema := writeConfig(t, `tool "s" {
  input_schema = {
    type       = "object"
    properties = { a = { type = "string", minLength = "x" } }
  }
  template { text = "x" }
}
`)
	// A tool that reads a claim of the caller's token, with and without
	// the auth block that verifies one.
	const whoami = "tool \"whoami\" {\n  template { text = \"${claim(\"email\")}\" }\n}\n"
	claims := writeConfig(t, "server {\n  auth {\n    issuer   = \"https://login.example.com\"\n    audience = \"https://tools.example.com/mcp\"\n  }\n}\n"+whoami)
	claimsNoAuth := writeConfig(t, whoami)
	// An http tool that exchanges the caller's token for its upstream.
	exchange := writeConfig(t, "server {\n  auth {\n    issuer   = \"https://login.example.com\"\n    audience = \"https://tools.example.com/mcp\"\n"+
		"    exchange_client_id     = \"toolhost\"\n    exchange_client_secret = \"s3cret\"\n  }\n}\n"+
		"tool \"items\" {\n  http {\n    url = \"https://api.example.com/items\"\n    token_exchange { audience = \"https://api.example.com\" }\n  }\n}\n")
	empty := t.TempDir()
	fresh := t.TempDir()
	messy := writeConfig(t, "tool \"m\" {\ndescription=\"x\"\n  template { text = \"y\" }\n}\n")
	for _, tc := range []struct {
		name       string
		dir        string
		args       []string
		code       int
		stdout     string
		stderr     string
		stdoutNone bool
	}{
		// What a bug report needs: the Go it was built with and the platform.
		{name: "version", args: []string{"version"}, stdout: "toolhost 0.1.0 ("},
		{name: "version build", args: []string{"version"}, stdout: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"},
		{name: "version help", args: []string{"version", "-h"}, stderr: "Usage: toolhost version", stdoutNone: true},
		{name: "version extra argument", args: []string{"version", "x"}, code: 2, stderr: "takes no arguments", stdoutNone: true},
		{name: "no command", args: nil, code: 2, stderr: "Usage"},
		{name: "unknown command", args: []string{"serv"}, code: 2, stderr: `unknown command "serv"; did you mean serve?`, stdoutNone: true},
		{name: "unknown command far from any", args: []string{"zzzzzz"}, code: 2, stderr: "Usage:", stdoutNone: true},
		{name: "validate good", args: []string{"validate", good}, stdout: "valid (3 tools"},
		{name: "validate bad", args: []string{"validate", bad}, code: 1, stderr: "tools.hcl line 3", stdoutNone: true},
		{name: "validate reports all", args: []string{"validate", bad}, code: 1, stderr: `The parameter "b" is not declared`},
		{name: "validate suggestion", args: []string{"validate", bad}, code: 1, stderr: `Did you mean "string"?`},
		{name: "validate no args", dir: empty, args: []string{"validate"}, code: 1, stderr: "toolhost validate: no config given, and there is no tools.hcl in the current directory"},
		{name: "validate missing", args: []string{"validate", filepath.Join(empty, "nope.hcl")}, code: 1, stderr: "Config not found"},
		{name: "call", args: []string{"call", good, "hello", "name=世界"}, stdout: "hello 世界"},
		{name: "call json", args: []string{"call", good, "hello", "--json", `{"name":"j"}`}, stdout: "hello j"},
		{name: "call bad arg", args: []string{"call", good, "hello", "name=1", "extra=2"}, code: 1, stderr: `"extra"`, stdoutNone: true},
		{name: "call unknown tool", args: []string{"call", good, "nope"}, code: 1, stderr: "the tools are: hello, slow, fail"},
		{name: "inspect", args: []string{"inspect", "--json", good}, stdout: `"additionalProperties": false`},
		{name: "serve without config", dir: empty, args: []string{"serve"}, code: 1, stderr: "or write a starter config with: toolhost init"},
		{name: "serve help", args: []string{"serve", "-h"}, stderr: "Usage: toolhost serve", stdoutNone: true},
		{name: "validate help", args: []string{"validate", "--help"}, stderr: "Usage: toolhost validate", stdoutNone: true},
		{name: "call help", args: []string{"call", "-h"}, stderr: "Usage: toolhost call"},
		{name: "help call", args: []string{"help", "call"}, stdout: "Usage: toolhost call CONFIG TOOL"},
		{name: "help serve", args: []string{"help", "serve"}, stdout: "-listen"},
		{name: "help bridge", args: []string{"help", "bridge"}, stdout: "framed"},
		{name: "help help", args: []string{"help", "help"}, stdout: "Run 'toolhost COMMAND -h'"},
		{name: "help unknown", args: []string{"help", "serv"}, code: 2, stderr: `toolhost help: unknown command "serv"; did you mean serve?`, stdoutNone: true},
		{name: "help two", args: []string{"help", "call", "serve"}, code: 2, stderr: `toolhost help takes one command (got "call serve")`, stdoutNone: true},
		{name: "validate 2020-12 schema", args: []string{"validate", schema2020}, stdout: "valid, 1 warning (1 tool"},
		{name: "validate unusable schema", args: []string{"validate", badSchema}, code: 1, stderr: "tools.hcl line 4", stdoutNone: true},
		{name: "validate unusable schema says where", args: []string{"validate", badSchema}, code: 1, stderr: "At /properties/a/minLength: minLength is a count"},
		{name: "inspect 2020-12 schema", args: []string{"inspect", "--json", schema2020}, stdout: `"$anchor": "addressDef"`},
		{name: "inspect 2020-12 schema text", args: []string{"inspect", schema2020}, stdout: "arguments: as its input_schema says (toolhost inspect --json shows it); its properties: address, billing,"},
		{name: "call 2020-12 schema", args: []string{"call", schema2020, "contact", "contactMethod=phone", "phone=555"}, stdout: "555|-|-"},
		{name: "call 2020-12 schema refused", args: []string{"call", schema2020, "contact", "contactMethod=phone", "email=a@b.example"}, code: 1, stderr: `invalid argument "phone": is required but missing (required, in then)`},
		{name: "inspect no args", dir: empty, args: []string{"inspect"}, code: 1, stderr: "toolhost inspect: no config given, and there is no tools.hcl in the current directory"},
		{name: "serve bad flag", args: []string{"serve", "--nope", good}, code: 2, stderr: "toolhost serve: unknown flag --nope; toolhost serve has the flags below.\nUsage: toolhost serve", stdoutNone: true},
		{name: "read flag it lacks", args: []string{"read", "--offline", good, "file:///x"}, code: 2, stderr: "toolhost read: unknown flag --offline; toolhost read has the flags below.\nUsage: toolhost read", stdoutNone: true},
		{name: "fmt bad flag one dash", args: []string{"fmt", "-zz"}, code: 2, stderr: "toolhost fmt: unknown flag -zz;", stdoutNone: true},
		{name: "serve flag close to one", args: []string{"serve", "--listne", "127.0.0.1:0", good}, code: 2, stderr: "toolhost serve: unknown flag --listne; did you mean --listen?", stdoutNone: true},
		{name: "serve max message size 0", args: []string{"serve", "--max-message-size", "0", good}, code: 2, stderr: "--max-message-size 0: give the largest inbound message as a number of bytes above 0"},
		{name: "serve max message size negative", args: []string{"serve", "--max-message-size=-5", good}, code: 2, stderr: "--max-message-size -5"},
		{name: "serve task store unknown scheme", args: []string{"serve", "--task-store", "nosuch://h/0", good}, code: 2, stderr: `--task-store "nosuch://h/0": this build has no task store for nosuch:// URLs; use "memory"`},
		{name: "serve task store not a URL", args: []string{"serve", "--task-store", "memroy", good}, code: 2, stderr: `--task-store is neither "memory" nor a URL`},
		{name: "serve log level warning", args: []string{"serve", "--log-level", "warning", "--watch=false", good}, stdoutNone: true},
		{name: "call log level warn", args: []string{"call", "--log-level", "warn", good, "hello", "name=w"}, stdout: "hello w"},
		{name: "serve invalid config", args: []string{"serve", bad}, code: 1, stderr: "Invalid type", stdoutNone: true},
		{name: "validate claims", args: []string{"validate", claims}, stdout: "valid (1 tool"},
		{name: "validate claims without auth", args: []string{"validate", claimsNoAuth}, code: 1, stderr: "claim() without auth", stdoutNone: true},
		{name: "inspect claims", args: []string{"inspect", claims}, stdout: "reads the caller's token: claims email (a call without them is refused, and so is every call over stdio)"},
		{name: "inspect token exchange", args: []string{"inspect", exchange}, stdout: "sends its upstream a token the issuer exchanges for the caller's (token_exchange; every call over stdio is refused)"},
		{name: "inspect token exchange client", args: []string{"inspect", exchange}, stdout: "; token exchange (RFC 8693) as the client toolhost"},
		{name: "call claims", args: []string{"call", claims, "whoami"}, code: 1, stderr: "this call comes with no token"},
		{name: "init", dir: fresh, args: []string{"init"}, stdout: "Wrote tools.hcl"},
		{name: "fmt check", args: []string{"fmt", "-check", good}, stdoutNone: true},
		{name: "fmt check messy", args: []string{"fmt", "-check", messy}, code: 1, stdout: "tools.hcl"},
		{name: "fmt messy", args: []string{"fmt", messy}, stdout: "tools.hcl"},
		{name: "fmt check formatted", args: []string{"fmt", "-check", messy}, stdoutNone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binPath, tc.args...)
			cmd.Dir = tc.dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.stderr)
			}
			if tc.stdoutNone && stdout.Len() > 0 {
				t.Errorf("stdout should be empty, got %q", stdout.String())
			}
		})
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestStatelessProtocol speaks the sessionless 2026-07-28 protocol: no
// initialize; the version and client info travel in each request's _meta.
func TestStatelessProtocol(t *testing.T) {
	cfg := writeConfig(t, testConfig)
	s := startServe(t, cfg)
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "e2e", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": map[string]any{"_meta": meta}})
	res := s.recv()["result"].(map[string]any)
	versions := fmt.Sprint(res["supportedVersions"])
	for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		if !strings.Contains(versions, v) {
			t.Errorf("supportedVersions %s lacks %s", versions, v)
		}
	}
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": "hello", "arguments": map[string]any{"name": "新"}, "_meta": meta}})
	if text, isErr := resultText(t, s.recv()); text != "hello 新" || isErr {
		t.Fatalf("stateless call = %q (isError %v)", text, isErr)
	}
}

// needSymlinks skips a test that makes symbolic links under wine, where
// os.Symlink returns nil and creates nothing; it runs everywhere else.
func needSymlinks(t *testing.T) {
	t.Helper()
	if testconfig.UnderWine() {
		t.Skip("wine 8 cannot make symbolic links: os.Symlink returns nil and creates nothing")
	}
}
