package host

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// openListen counts a subscriptions/listen stream that ss opens, or
// refuses it when ss has maxSessionListens open.
func (s *Server) openListen(ss *mcp.ServerSession) error {
	s.listensMu.Lock()
	defer s.listensMu.Unlock()
	if n := s.listens[ss]; n >= maxSessionListens {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("this session has %d subscriptions/listen streams open, as many as toolhost allows one session; cancel one (notifications/cancelled) before opening another, or ask for all the notifications you want in one stream", n)}
	}
	if s.listens == nil {
		s.listens = map[*mcp.ServerSession]int{}
	}
	s.listens[ss]++
	return nil
}

// listening reports whether ss has a subscriptions/listen stream open.
func (s *Server) listening(ss *mcp.ServerSession) bool {
	s.listensMu.Lock()
	defer s.listensMu.Unlock()
	return s.listens[ss] > 0
}

// closeListen counts a subscriptions/listen stream of ss that ended.
func (s *Server) closeListen(ss *mcp.ServerSession) {
	s.listensMu.Lock()
	defer s.listensMu.Unlock()
	if s.listens[ss]--; s.listens[ss] <= 0 {
		delete(s.listens, ss)
	}
}

// subscribeHandler accepts a subscription to a resource the config serves
// (see Registry.unsubscribable), within the limits on subscriptions; the
// client is notified when a reload changes it. A session subscribes once to
// a URI, however often it asks, as the SDK keeps it.
func (s *Server) subscribeHandler(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri, ss := req.Params.URI, req.Session
	if ss == nil {
		return nil // not through a session: nothing to keep
	}
	if len(uri) > maxResourceURI {
		// checkRequest refused it already; kept in case the SDK
		// subscribes by another way.
		return uriTooLong("subscriptions/listen", "notifications.resourceSubscriptions", uri)
	}
	reg := s.use()
	why := reg.unsubscribable(uri)
	reg.release()
	if why != "" {
		return &jsonrpc.Error{Code: mcp.CodeResourceNotFound,
			Message: fmt.Sprintf("cannot subscribe to %q: %s; subscribe to a URI that resources/list gives, or that a template of resources/templates/list makes", shortURI(uri), why),
			Data:    uriData(uri)}
	}
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	mine := s.subs[ss]
	if _, ok := mine[uri]; ok {
		return nil
	}
	if len(mine) >= maxSessionSubscriptions {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("cannot subscribe to %q: this session is subscribed to %d resources, as many as toolhost allows one session; unsubscribe (resources/unsubscribe) from those you no longer follow", shortURI(uri), len(mine)),
			Data:    uriData(uri)}
	}
	if s.nsubs >= maxSubscriptions {
		s.logger.Warn("a subscription was refused: the sessions hold as many as toolhost allows", "max_subscriptions", maxSubscriptions)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("cannot subscribe to %q: the server's sessions hold %d subscriptions, as many as toolhost allows in all; try again later, and unsubscribe from resources you no longer follow", shortURI(uri), s.nsubs),
			Data:    uriData(uri)}
	}
	if s.subsBytes+len(uri) > maxSubscriptionBytes {
		s.logger.Warn("a subscription was refused: the URIs the sessions are subscribed to add up to as many bytes as toolhost allows", "max_subscription_bytes", maxSubscriptionBytes)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("cannot subscribe to %q: the URIs the server's sessions are subscribed to add up to %d bytes, and this one would take them past the %d toolhost allows in all; try again later, and unsubscribe from resources you no longer follow", shortURI(uri), s.subsBytes, maxSubscriptionBytes),
			Data:    uriData(uri)}
	}
	if mine == nil {
		if s.subs == nil {
			s.subs, s.subscribed = map[*mcp.ServerSession]map[string]struct{}{}, map[string]int{}
		}
		mine = map[string]struct{}{}
		s.subs[ss] = mine
		// Kept, empty, once the session has unsubscribed from everything,
		// so that one goroutine a session waits for its end.
		go s.endSubscriptions(ss)
	}
	mine[uri] = struct{}{}
	s.subscribed[uri]++
	s.nsubs++
	s.subsBytes += len(uri)
	return nil
}

func (s *Server) unsubscribeHandler(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	s.forget(req.Session, req.Params.URI)
	return nil
}

// forget drops a session's subscription to uri, if it has one. The caller
// holds subsMu.
func (s *Server) forget(ss *mcp.ServerSession, uri string) {
	mine := s.subs[ss]
	if _, ok := mine[uri]; !ok {
		return
	}
	delete(mine, uri)
	s.nsubs--
	s.subsBytes -= len(uri)
	if n := s.subscribed[uri]; n > 1 {
		s.subscribed[uri] = n - 1
	} else {
		delete(s.subscribed, uri)
	}
}

// endSubscriptions waits for a session that subscribed to end (a DELETE,
// an idle timeout, a closed connection or stdin) and drops its
// subscriptions: toolhost's, and the URIs the SDK would keep. The SDK
// forgets an ended session, but keeps each URI it was subscribed to, with
// no subscriber; its handling of resources/unsubscribe deletes a URI left
// with none.
func (s *Server) endSubscriptions(ss *mcp.ServerSession) {
	_ = ss.Wait()
	s.subsMu.Lock()
	uris := slices.Collect(maps.Keys(s.subs[ss]))
	for _, uri := range uris {
		s.forget(ss, uri)
	}
	s.subsMu.Unlock()
	// The SDK's handling calls unsubscribeHandler first, which finds
	// nothing left to forget.
	for _, uri := range uris {
		_, _ = s.sdkHandler(context.Background(), "resources/unsubscribe", &mcp.UnsubscribeRequest{
			Session: ss, Params: &mcp.UnsubscribeParams{URI: uri}})
	}
	s.subsMu.Lock()
	delete(s.subs, ss)
	s.subsMu.Unlock()
}

// shortURI is uri cut to a length a message can quote: at most
// maxQuotedURI bytes of valid UTF-8, and "..." when cut.
func shortURI(uri string) string {
	if len(uri) <= maxQuotedURI {
		return strings.ToValidUTF8(uri, "\uFFFD")
	}
	return strings.ToValidUTF8(uri[:maxQuotedURI], "\uFFFD") + "..."
}

// maxQuotedURI is the most bytes of a client's resource URI an error quotes.
const maxQuotedURI = 200

// uriData is the data of an error about a resource URI, as the SDK's
// "Resource not found" has it: {"uri": ...}, shortened as in the message.
func uriData(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": shortURI(uri)})
	return b
}

// subscribedURIs lists the resource URIs with subscribers.
func (s *Server) subscribedURIs() []string {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	uris := make([]string, 0, len(s.subscribed))
	for u := range s.subscribed {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	return uris
}
