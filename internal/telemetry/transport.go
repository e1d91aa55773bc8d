package telemetry

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// Transport wraps base so that each request a traced call sends is an
// HTTP client span, its trace context sent upstream in the traceparent
// header (W3C Trace Context) unless OTEL_PROPAGATORS is none; a request of a call that is not traced goes
// straight to base. url.full has neither the query nor the user info,
// where configs put keys. CloseIdleConnections reaches base.
//
// Hand-written rather than otelhttp's: that one records the query of the
// URL, which may carry an API key from the config.
func Transport(base http.RoundTripper) http.RoundTripper { return &transport{base: base} }

// transport is the RoundTripper of Transport.
type transport struct{ base http.RoundTripper }

// RoundTrip sends req, within a client span when its call is traced.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := trace.SpanFromContext(req.Context())
	if !parent.IsRecording() {
		return t.base.RoundTrip(req)
	}
	return t.traced(req, parent)
}

// traced is RoundTrip of a traced call, within a span under parent. It is
// a function of its own so that an untraced request does not carry its
// large stack frame (nearly 1 KB) down the whole round trip.
func (t *transport) traced(req *http.Request, parent trace.Span) (*http.Response, error) {
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(req.Method),
		semconv.ServerAddress(req.URL.Hostname()),
		semconv.URLFull(bareURL(req.URL)),
	}
	if p, err := strconv.Atoi(req.URL.Port()); err == nil {
		attrs = append(attrs, semconv.ServerPort(p))
	}
	ctx, span := parent.TracerProvider().Tracer(scope).Start(req.Context(), req.Method,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	sp := &Span{span}
	// A RoundTripper must not change the request it is given.
	req = req.Clone(ctx)
	if ctx.Value(noPropagationKey{}) == nil {
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		sp.End(errorType(err))
		return nil, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
	errType := ""
	if resp.StatusCode >= 400 {
		errType = strconv.Itoa(resp.StatusCode)
	}
	sp.End(errType)
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the transport
// beneath, as http.Client.CloseIdleConnections expects.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// bareURL is u without its user info, query and fragment.
func bareURL(u *url.URL) string {
	b := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return b.String()
}

// errorType names an error of a round trip for error.type: a timeout,
// or the Go type of the error beneath url.Error and net.OpError (the
// message itself may name the URL).
func errorType(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return fmt.Sprintf("%T", oe.Err)
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return fmt.Sprintf("%T", ue.Err)
	}
	return fmt.Sprintf("%T", err)
}
