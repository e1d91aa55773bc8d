package bridge

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/redact"
)

// logCall logs, at debug, a call read from the server: its id, method and
// params, masked as the host masks a tools/call's (see host.LogMask). It
// returns the mask, for the outcome; nil when the log is not at debug.
func (s *session) logCall(ctx context.Context, id json.RawMessage, data map[string]json.RawMessage) *redact.LogMask {
	if !s.log.Enabled(ctx, slog.LevelDebug) {
		return nil
	}
	var method string
	_ = json.Unmarshal(data["method"], &method)
	t, _ := s.c.Server.Registry().Tool(method)
	mask := host.LogMask(t)
	s.log.Debug("frame in", "call_id", idText(id), "method", method, "params", mask.Show(data["params"]))
	return mask
}

// logOutcome logs, at debug, the outcome of a call before it is sent, with
// what mask masked in the call masked in it too.
func (s *session) logOutcome(mask *redact.LogMask, id json.RawMessage, method string, out outcome) {
	if mask == nil {
		return
	}
	if out.Success {
		s.log.Debug("frame out", "call_id", idText(id), "method", method, "data", mask.Show(out.Data))
		return
	}
	s.log.Debug("frame out", "call_id", idText(id), "method", method, "error", mask.Show([]byte(out.Error)))
}
