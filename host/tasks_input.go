package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/tasks"
)

// taskPeer is the Peer of a call run as a task. Nobody waits on a stream
// for its log lines or progress, so they go nowhere; a question for the
// user (confirm, ask) parks the task in input_required with the question
// in inputRequests, until tasks/update brings the answer (SEP-2663).
type taskPeer struct {
	th *taskHost
	id string
	// canElicit: the client declared elicitation when it made the call.
	canElicit bool
}

var _ Peer = (*taskPeer)(nil)

func (p *taskPeer) Log(context.Context, mcp.LoggingLevel, string, string) {}

func (p *taskPeer) Progress(context.Context, float64, float64, string) {}

func (p *taskPeer) WantsProgress() bool { return false }

func (p *taskPeer) CanElicit() bool { return p.canElicit }

// Elicit puts the question among the task's inputRequests and waits for
// its answer: told at once by a tasks/update on this replica, found by
// polling the store when another replica took it.
func (p *taskPeer) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	key := "elicit-" + rand.Text()[:12]
	all, err := json.Marshal(mcp.InputRequestMap{key: params})
	if err != nil {
		return nil, err
	}
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(all, &entry); err != nil {
		return nil, err
	}
	wake := p.th.inputWaiter(p.id)
	defer p.th.dropInputWaiter(p.id)
	store := p.th.store
	if _, err := store.Update(context.Background(), p.id, func(t *tasks.Task) error {
		if t.Status.Terminal() {
			return tasks.ErrTerminal
		}
		reqs := decodeInputMap(t.InputRequests)
		reqs[key] = entry[key]
		t.InputRequests, _ = json.Marshal(reqs)
		t.Status = tasks.InputRequired
		return nil
	}); err != nil {
		return nil, fmt.Errorf("the question could not be put to the client: %w", err)
	}
	poll := time.NewTicker(taskPollInterval)
	defer poll.Stop()
	for {
		var answer json.RawMessage
		_, err := store.Update(context.Background(), p.id, func(t *tasks.Task) error {
			resps := decodeInputMap(t.InputResponses)
			answer = resps[key]
			if answer == nil {
				return errNotAnswered
			}
			delete(resps, key)
			t.InputResponses = encodeInputMap(resps)
			return nil
		})
		switch {
		case err == nil:
			var res mcp.ElicitResult
			if err := json.Unmarshal(answer, &res); err != nil {
				return nil, fmt.Errorf("the client's answer is not an elicitation result: %w", err)
			}
			return &res, nil
		case !errors.Is(err, errNotAnswered):
			return nil, err
		}
		select {
		case <-ctx.Done():
			p.withdraw(key)
			return nil, context.Cause(ctx)
		case <-wake:
		case <-poll.C:
		}
	}
}

// errNotAnswered ends an Update that found no answer yet.
var errNotAnswered = errors.New("not answered yet")

// withdraw takes back a question nobody answered in time: the task works
// on (to its end) without it.
func (p *taskPeer) withdraw(key string) {
	_, _ = p.th.store.Update(context.Background(), p.id, func(t *tasks.Task) error {
		if t.Status.Terminal() {
			return tasks.ErrTerminal
		}
		reqs := decodeInputMap(t.InputRequests)
		delete(reqs, key)
		t.InputRequests = encodeInputMap(reqs)
		if len(reqs) == 0 {
			t.Status = tasks.Working
		}
		return nil
	})
}

// decodeInputMap decodes an inputRequests or inputResponses object; empty
// or broken JSON is an empty map.
func decodeInputMap(raw json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// encodeInputMap encodes m, or nil when it is empty.
func encodeInputMap(m map[string]json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

// inputWaiter returns the channel a tasks/update for task id on this
// replica signals.
func (th *taskHost) inputWaiter(id string) chan struct{} {
	th.mu.Lock()
	defer th.mu.Unlock()
	c := make(chan struct{}, 1)
	th.waiting[id] = c
	return c
}

// dropInputWaiter forgets the channel of task id.
func (th *taskHost) dropInputWaiter(id string) {
	th.mu.Lock()
	delete(th.waiting, id)
	th.mu.Unlock()
}

// update answers tasks/update: the responses to questions the task asks
// are handed to it, others are ignored (the extension says so of
// responses to requests a task did not make, or already answered).
func (th *taskHost) update(ctx context.Context, id string, params json.RawMessage) *jsonrpc.Error {
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tasks/update takes inputResponses, an object of the answers by the keys of the task's inputRequests."}
	}
	_, err := th.store.Update(ctx, id, func(t *tasks.Task) error {
		if t.Status.Terminal() {
			return tasks.ErrTerminal
		}
		reqs, resps := decodeInputMap(t.InputRequests), decodeInputMap(t.InputResponses)
		for k, v := range p.InputResponses {
			if _, asked := reqs[k]; asked {
				if msg := answerProblem(k, v); msg != "" {
					return answerError(msg)
				}
				delete(reqs, k)
				resps[k] = v
			}
		}
		t.InputRequests, t.InputResponses = encodeInputMap(reqs), encodeInputMap(resps)
		if len(reqs) == 0 && t.Status == tasks.InputRequired {
			t.Status = tasks.Working
		}
		return nil
	})
	var bad answerError
	switch {
	case errors.Is(err, tasks.ErrTerminal):
	case errors.As(err, &bad):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: string(bad)}
	case err != nil:
		return th.lookupError(id, err)
	}
	th.mu.Lock()
	c := th.waiting[id]
	th.mu.Unlock()
	if c != nil {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	return nil
}

// answerError is why tasks/update refuses an answer: the answer is not an
// elicitation result, and the question stays asked.
type answerError string

func (e answerError) Error() string { return string(e) }

// answerProblem says why raw, the answer tasks/update brings to the
// question key, is not an elicitation result, or "".
func answerProblem(key string, raw json.RawMessage) string {
	var res struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	what := fmt.Sprintf("tasks/update: the answer to %q", shortName(key))
	if json.Unmarshal(raw, &res) != nil {
		return what + " is not an object; send {\"action\": \"accept\", \"content\": {...}} (or the action \"decline\" or \"cancel\"), as elicitation/create is answered."
	}
	switch res.Action {
	case "accept", "decline", "cancel":
	default:
		return what + fmt.Sprintf(" has the action %q; it must be \"accept\", \"decline\" or \"cancel\".", shortName(res.Action))
	}
	if c := bytes.TrimSpace(res.Content); len(c) > 0 && c[0] != '{' && !bytes.Equal(c, []byte("null")) {
		return what + " has a content that is not an object; send the form's fields as an object, such as {\"name\": \"Ann\"} ({} for a confirmation)."
	}
	return ""
}
