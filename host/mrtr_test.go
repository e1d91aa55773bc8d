package host

import (
	"context"
	"encoding/json"
	"log/slog"
	"mime"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mrtrConfig has a tool that confirms, one that asks a form, and one that
// does both (two rounds).
var mrtrConfig = `
tool "deploy" {
  param "env" { type = string }
  confirm = "Deploy to ${param.env}?"
  template { text = "deployed ${param.env}" }
}
tool "book" {
  ask {
    message = "When?"
    field "time" { type = string }
  }
  template { text = "booked ${answer.time}" }
}
tool "both" {
  confirm = "Go on?"
  ask {
    id      = "details"
    message = "Which color?"
    field "color" { type = string }
  }
  template { text = "painted ${answer.color}" }
}
`

// testClock is a clock a test moves forward.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// startReplica starts a stateless HTTP server of src that signs states
// with key and tells time by clock: one replica behind a load balancer,
// made with opts besides.
func startReplica(t *testing.T, src string, key []byte, clock *testClock, opts ...ServerOption) string {
	t.Helper()
	reg := loadHTTPRegistry(t, src)
	log := &httpLog{}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := NewServer(reg, logger, append([]ServerOption{StateKey(key)}, opts...)...)
	srv.states.now = clock.now
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs, err := NewHTTPServer(srv, HTTPOptions{Addr: ln.Addr().String(), Logger: logger, Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Registry().Retire()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// mrtrReply is the part of a tools/call reply these tests look at.
type mrtrReply struct {
	Result struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
		IsError       bool                       `json:"isError"`
		Content       []struct{ Text string }    `json:"content"`
	} `json:"result"`
	Error *jsonrpc.Error `json:"error"`
}

// text is the reply's first text item.
func (r *mrtrReply) text() string {
	if len(r.Result.Content) == 0 {
		return ""
	}
	return r.Result.Content[0].Text
}

// newCallLine is a tools/call of the 2026-07-28 protocol, with the
// capability to elicit; extra are more params (inputResponses,
// requestState, or a _meta of its own).
func newCallLine(t *testing.T, tool string, args map[string]any, extra map[string]any) string {
	t.Helper()
	params := map[string]any{
		"name":      tool,
		"arguments": args,
		"_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    "2026-07-28",
			mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}},
		},
	}
	for k, v := range extra {
		params[k] = v
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// callNew sends newCallLine's request to url over HTTP.
func callNew(t *testing.T, url, tool string, args map[string]any, extra map[string]any) *mrtrReply {
	t.Helper()
	resp := rawPost(t, url, newCallLine(t, tool, args, extra), map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool})
	var raw []byte
	var err error
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
		raw, err = json.Marshal(newSSEReader(resp.Body).message(t))
	} else {
		err = json.NewDecoder(resp.Body).Decode((*json.RawMessage)(&raw))
	}
	if err != nil {
		t.Fatal(err)
	}
	var r mrtrReply
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("reply %s: %v", raw, err)
	}
	return &r
}

// askedFor checks that r is an input-required result with one input
// request, key, and returns its state.
func askedFor(t *testing.T, r *mrtrReply, key string) string {
	t.Helper()
	if r.Error != nil || r.Result.ResultType != "input_required" || r.Result.InputRequests[key] == nil || r.Result.RequestState == "" || len(r.Result.InputRequests) != 1 {
		t.Fatalf("got %+v, error %v; want an input-required result asking %q, with a state", r.Result, r.Error, key)
	}
	return r.Result.RequestState
}

// answer is the params of a retry: the state, and one answer.
func answer(state, key, action string, content map[string]any) map[string]any {
	res := map[string]any{"action": action}
	if content != nil {
		res["content"] = content
	}
	return map[string]any{"requestState": state, "inputResponses": map[string]any{key: res}}
}

// TestMRTRReplicas: two stateless replicas that share a state key, with no
// affinity: a 2026-07-28 call of a tool with confirm or ask is answered
// with an input-required result on one replica, and the retry with the
// answer runs the tool on the other. A state that was altered, signed
// with another key, issued for other arguments or another tool, expired,
// or used before is refused with an invalid-params error; a declined
// confirmation does not run the tool.
func TestMRTRReplicas(t *testing.T) {
	key := []byte(strings.Repeat("k", MinStateKeyLen))
	clock := &testClock{t: time.Now()}
	r1 := startReplica(t, mrtrConfig, key, clock)
	r2 := startReplica(t, mrtrConfig, key, clock)
	other := startReplica(t, mrtrConfig, []byte(strings.Repeat("o", MinStateKeyLen)), clock)
	prod := map[string]any{"env": "prod"}

	t.Run("confirm across replicas", func(t *testing.T) {
		state := askedFor(t, callNew(t, r1, "deploy", prod, nil), inputKeyConfirm)
		r := callNew(t, r2, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil))
		if r.Error != nil || r.Result.IsError || r.text() != "deployed prod" {
			t.Fatalf("retry on replica 2: %+v, error %v; want the tool's output", r.Result, r.Error)
		}
	})
	t.Run("form across replicas", func(t *testing.T) {
		state := askedFor(t, callNew(t, r1, "book", nil, nil), "ask")
		r := callNew(t, r2, "book", nil, answer(state, "ask", "accept", map[string]any{"time": "19:30"}))
		if r.Error != nil || r.Result.IsError || r.text() != "booked 19:30" {
			t.Fatalf("retry on replica 2: %+v, error %v; want the tool's output", r.Result, r.Error)
		}
	})
	t.Run("confirm then form, three replicas", func(t *testing.T) {
		state := askedFor(t, callNew(t, r1, "both", nil, nil), inputKeyConfirm)
		state2 := askedFor(t, callNew(t, r2, "both", nil, answer(state, inputKeyConfirm, "accept", nil)), "details")
		r := callNew(t, r1, "both", nil, answer(state2, "details", "accept", map[string]any{"color": "red"}))
		if r.Error != nil || r.Result.IsError || r.text() != "painted red" {
			t.Fatalf("last round: %+v, error %v; want the tool's output", r.Result, r.Error)
		}
	})
	t.Run("no answer asks again", func(t *testing.T) {
		state := askedFor(t, callNew(t, r1, "deploy", prod, nil), inputKeyConfirm)
		askedFor(t, callNew(t, r2, "deploy", prod, map[string]any{"requestState": state, "inputResponses": map[string]any{"other": map[string]any{"action": "accept"}}}), inputKeyConfirm)
	})
	t.Run("declined", func(t *testing.T) {
		state := askedFor(t, callNew(t, r1, "deploy", prod, nil), inputKeyConfirm)
		r := callNew(t, r2, "deploy", prod, answer(state, inputKeyConfirm, "decline", nil))
		if r.Error != nil || !r.Result.IsError || !strings.Contains(r.text(), "the user declined") {
			t.Fatalf("declined: %+v, error %v; want the refusal", r.Result, r.Error)
		}
	})

	refused := []struct {
		name string
		// retry makes the retry from a fresh state of deploy(prod) and
		// returns the reply.
		retry func(t *testing.T, state string) *mrtrReply
		want  string
	}{
		{"tampered", func(t *testing.T, state string) *mrtrReply {
			b := []byte(state)
			b[10] ^= 1
			return callNew(t, r2, "deploy", prod, answer(string(b), inputKeyConfirm, "accept", nil))
		}, "altered"},
		{"appended to", func(t *testing.T, state string) *mrtrReply {
			return callNew(t, r2, "deploy", prod, answer(state+"-TAMPERED", inputKeyConfirm, "accept", nil))
		}, "altered"},
		{"another key", func(t *testing.T, state string) *mrtrReply {
			return callNew(t, other, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil))
		}, "--state-key-env"},
		{"other arguments", func(t *testing.T, state string) *mrtrReply {
			return callNew(t, r2, "deploy", map[string]any{"env": "dev"}, answer(state, inputKeyConfirm, "accept", nil))
		}, "other arguments"},
		{"another tool", func(t *testing.T, state string) *mrtrReply {
			return callNew(t, r2, "book", nil, answer(state, "ask", "accept", map[string]any{"time": "now"}))
		}, "another tool"},
		{"expired", func(t *testing.T, state string) *mrtrReply {
			clock.advance(StateTTL + time.Second)
			return callNew(t, r2, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil))
		}, "expired"},
		{"replayed on the same replica", func(t *testing.T, state string) *mrtrReply {
			if r := callNew(t, r2, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil)); r.Error != nil || r.text() != "deployed prod" {
				t.Fatalf("first use: %+v, error %v", r.Result, r.Error)
			}
			return callNew(t, r2, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil))
		}, "used already"},
		{"too long", func(t *testing.T, state string) *mrtrReply {
			return callNew(t, r2, "deploy", prod, answer(strings.Repeat("A", maxRequestState+1), inputKeyConfirm, "accept", nil))
		}, "more than"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			state := askedFor(t, callNew(t, r1, "deploy", prod, nil), inputKeyConfirm)
			r := tc.retry(t, state)
			if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, tc.want) {
				t.Fatalf("got %+v, error %v; want an invalid-params error containing %q", r.Result, r.Error, tc.want)
			}
		})
	}
}

// TestMRTRStdio: over stdio too, a 2026-07-28 call is answered with an
// input-required result, and the retry with the answer runs the tool.
func TestMRTRStdio(t *testing.T) {
	p := startStdio(t, loadHTTPRegistry(t, mrtrConfig))
	prod := map[string]any{"env": "prod"}
	p.send(newCallLine(t, "deploy", prod, nil))
	var r mrtrReply
	if err := json.Unmarshal([]byte(p.next().line), &r); err != nil {
		t.Fatal(err)
	}
	state := askedFor(t, &r, inputKeyConfirm)
	p.send(newCallLine(t, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil)))
	r = mrtrReply{}
	if err := json.Unmarshal([]byte(p.next().line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil || r.text() != "deployed prod" {
		t.Fatalf("retry: %+v, error %v; want the tool's output", r.Result, r.Error)
	}
}

// TestMRTROldSession: a client of an older protocol, with a session, is
// still asked through server-to-client elicitation, and the tool runs on
// its answer.
func TestMRTROldSession(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, mrtrConfig)
	asked := make(chan string, 1)
	cs := e.connect(&mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- r.Params.Message
		return &mcp.ElicitResult{Action: "accept"}, nil
	}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if got := callText(t, cs, "deploy", map[string]any{"env": "prod"}); got != "deployed prod" {
		t.Fatalf("deploy = %q", got)
	}
	select {
	case q := <-asked:
		if q != "Deploy to prod?" {
			t.Fatalf("asked %q", q)
		}
	default:
		t.Fatal("the user was not asked through elicitation")
	}
}

// TestMRTRNoElicitation: a 2026-07-28 client that does not declare
// elicitation gets what a session's client without it gets: the refusal
// that says the client cannot ask, not an input-required result.
func TestMRTRNoElicitation(t *testing.T) {
	url := startReplica(t, mrtrConfig, nil, &testClock{t: time.Now()})
	meta := map[string]any{"_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientCapabilities: map[string]any{"sampling": map[string]any{}},
	}}
	r := callNew(t, url, "deploy", map[string]any{"env": "prod"}, meta)
	if r.Error != nil || r.Result.ResultType == "input_required" || !r.Result.IsError || !strings.Contains(r.text(), "does not support elicitation") {
		t.Fatalf("got %+v, error %v; want the refusal for a client that cannot be asked", r.Result, r.Error)
	}
}

// TestMemoryStateGuard: a nonce is let through once; a full guard drops
// the expired entries, and refuses while none has expired.
func TestMemoryStateGuard(t *testing.T) {
	clock := &testClock{t: time.Now()}
	g := &memoryStateGuard{seen: map[string]time.Time{}, max: 2, now: clock.now}
	ctx := context.Background()
	until := clock.now().Add(time.Minute)
	for _, tc := range []struct {
		nonce string
		first bool
		full  bool
	}{
		{"a", true, false},
		{"a", false, false},
		{"b", true, false},
		{"c", false, true},
	} {
		first, err := g.FirstUse(ctx, tc.nonce, until)
		if first != tc.first || (err != nil) != tc.full {
			t.Fatalf("FirstUse(%s) = %v, %v; want %v, error %v", tc.nonce, first, err, tc.first, tc.full)
		}
	}
	clock.advance(2 * time.Minute)
	if first, err := g.FirstUse(ctx, "c", clock.now().Add(time.Minute)); !first || err != nil {
		t.Fatalf("after the others expired: %v, %v", first, err)
	}
	if len(g.seen) != 1 {
		t.Fatalf("%d entries kept, want the one unexpired", len(g.seen))
	}
}
