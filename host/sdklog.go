package host

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
)

// sdkWording is the slog.Handler under the SDK's logger: it rewords the
// SDK's messages that speak of its own Go API (an option to set in a
// program, an internal package), which an operator of toolhost can do
// nothing with, in toolhost's terms. The record keeps its time, level and
// attributes; a message it does not know passes unchanged.
type sdkWording struct {
	slog.Handler
}

func (h sdkWording) Handle(ctx context.Context, r slog.Record) error {
	if msg, attrs, ok := rewordSDKMessage(r.Message); ok {
		nr := slog.NewRecord(r.Time, r.Level, msg, r.PC)
		nr.AddAttrs(attrs...)
		r.Attrs(func(a slog.Attr) bool {
			nr.AddAttrs(a)
			return true
		})
		r = nr
	}
	return h.Handler.Handle(ctx, r)
}

func (h sdkWording) WithAttrs(a []slog.Attr) slog.Handler {
	return sdkWording{h.Handler.WithAttrs(a)}
}

func (h sdkWording) WithGroup(name string) slog.Handler {
	return sdkWording{h.Handler.WithGroup(name)}
}

// The SDK's stateful rejection (mcp/streamable.go, go-sdk v1.8.0), logged
// when the handler of sessions refuses a request of the sessionless
// protocol (toolhost sends it only those that name a session): "rejecting request with protocol version %q: this server is
// stateful; set StreamableHTTPOptions.Stateless = true to accept it".
const (
	sdkStatefulPrefix = "rejecting request with protocol version "
	sdkStatefulSuffix = ": this server is stateful; set StreamableHTTPOptions.Stateless = true to accept it"
)

// rewordSDKMessage is toolhost's wording of an SDK log message, with the
// attributes it adds; ok is false for a message it does not reword. The
// match is exact, but for the values the SDK puts into the message.
func rewordSDKMessage(msg string) (reworded string, attrs []slog.Attr, ok bool) {
	if mid, found := strings.CutPrefix(msg, sdkStatefulPrefix); found {
		quoted, found := strings.CutSuffix(mid, sdkStatefulSuffix)
		version, err := strconv.Unquote(quoted)
		if !found || err != nil {
			return "", nil, false
		}
		reworded = fmt.Sprintf("refused a request of protocol version %q sent in a session (with an Mcp-Session-Id header): that version has no sessions; "+
			"the client should send such requests without the header (toolhost serves them beside the sessions), or initialize with an earlier version to use its session", version)
		return reworded, []slog.Attr{slog.String("protocol_version", version)}, true
	}
	// The SDK's connection reports an internal error of its JSON-RPC layer
	// (mcp/transport.go, go-sdk v1.8.0) as "jsonrpc2 internal error", the
	// name of an SDK-internal package; the "error" attribute says what.
	if msg == "jsonrpc2 internal error" {
		return "internal error in the JSON-RPC connection of a session", nil, true
	}
	return "", nil, false
}
