package host

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	ident "github.com/toolhost/toolhost/internal/identity"
)

// TestCallOutcome: a result without error is ok whatever its context; an
// error result is cancelled when the call's context ended, else error.
func TestCallOutcome(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name    string
		ctx     context.Context
		isError bool
		want    string
	}{
		{"ok", context.Background(), false, "ok"},
		{"ok after the context ended", done, false, "ok"},
		{"error", context.Background(), true, "error"},
		{"cancelled", done, true, "cancelled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := callOutcome(c.ctx, &mcp.CallToolResult{IsError: c.isError}); got != c.want {
				t.Errorf("callOutcome = %q, want %q", got, c.want)
			}
		})
	}
}

// TestChosenClaims: the claims named that the token has, a claim named
// like a credential masked; nil without any.
func TestChosenClaims(t *testing.T) {
	c := &ident.Caller{Subject: "ann", Claims: map[string]any{"email": "ann@example.com", "groups": []any{"ops"}, "api_token": "s3cr3t"}}
	cases := []struct {
		names []string
		want  map[string]any
	}{
		{nil, nil},
		{[]string{"missing"}, nil},
		{[]string{"email", "groups", "missing"}, map[string]any{"email": "ann@example.com", "groups": []any{"ops"}}},
		{[]string{"api_token"}, map[string]any{"api_token": "(sensitive value)"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.names, ","), func(t *testing.T) {
			if got := chosenClaims(c, tc.names); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("chosenClaims = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAuditArguments: arguments shown whole stay JSON; cut ones are text.
func TestAuditArguments(t *testing.T) {
	cases := []struct {
		shown string
		json  bool
	}{
		{`{"a":1}`, true},
		{`{"a":"xxxx ... (cut; 5000 bytes in all)`, false},
	}
	for _, c := range cases {
		t.Run(c.shown, func(t *testing.T) {
			_, isJSON := auditArguments(c.shown).(json.RawMessage)
			if isJSON != c.json {
				t.Errorf("auditArguments(%q) is JSON: %v, want %v", c.shown, isJSON, c.json)
			}
		})
	}
}

// TestLogDiagnostics: one record per diagnostic, with its place when it
// has one, at error or warn by its severity.
func TestLogDiagnostics(t *testing.T) {
	rng := &hcl.Range{Filename: "tools.hcl", Start: hcl.Pos{Line: 3, Column: 5}}
	cases := []struct {
		name string
		diag *hcl.Diagnostic
		want map[string]any
	}{
		{"error with a place", &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Bad", Detail: "Fix it.", Subject: rng},
			map[string]any{"level": "ERROR", "msg": "config error", "file": "tools.hcl", "line": 3.0, "col": 5.0, "severity": "error", "summary": "Bad", "detail": "Fix it."}},
		{"warning without a place", &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Odd"},
			map[string]any{"level": "WARN", "msg": "config warning", "severity": "warning", "summary": "Odd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			LogDiagnostics(slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}})), hcl.Diagnostics{c.diag})
			var got map[string]any
			if err := json.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatalf("%v: %q", err, b.String())
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("record %v, want %v", got, c.want)
			}
		})
	}
}

// TestCallerOf: a task's context keeps the request's caller and session,
// and neither its other values nor its end.
func TestCallerOf(t *testing.T) {
	type otherKey struct{}
	caller := &ident.Caller{Subject: "ann"}
	cases := []struct {
		name    string
		ctx     context.Context
		subject string
		session string
	}{
		{"no caller, no session", context.Background(), "", ""},
		{"caller and session", context.WithValue(ident.NewContext(context.Background(), caller), sessionKey{}, "s1"), "ann", "s1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, cancel := context.WithCancel(context.WithValue(c.ctx, otherKey{}, 1))
			run := callerOf(req)
			cancel()
			if run.Err() != nil {
				t.Error("the task's context ended with the request's")
			}
			if run.Value(otherKey{}) != nil {
				t.Error("the task's context has another value of the request's")
			}
			subject := ""
			if got := ident.FromContext(run); got != nil {
				subject = got.Subject
			}
			session, _ := run.Value(sessionKey{}).(string)
			if subject != c.subject || session != c.session {
				t.Errorf("caller %q, session %q; want %q, %q", subject, session, c.subject, c.session)
			}
		})
	}
}
