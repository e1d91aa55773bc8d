package host

import "context"

// The contexts of a call on the direct path. A call took three: the
// direct path's own (which notifications/cancelled cancels), callContext's
// (which ends with ctx or with Shutdown), and callContext's AfterFunc on
// the server's life, each registered with its parent under the parent's
// lock: a twentieth of the server's CPU for a template call
// (BENCHMARKS.md, "The stdio template call (issue 38, round three)").
// The direct path now derives its calls from a context of the connection
// that ends with the server's life already (lifeBound), and callContext
// makes no context of its own for a call under one: a call has one
// context of its own, and Shutdown reaches it through the connection's.

// lifeKey marks a context made by lifeBound; its value is the server
// whose life the context ends with.
type lifeKey struct{}

// lifeBound returns a context of ctx that also ends when Shutdown ends
// s's calls, with its reason as the cause, and the function that releases
// it (ending the context). callContext takes a context under it as one
// that ends with Shutdown already.
func (s *Server) lifeBound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, lifeKey{}, s))
	stop := context.AfterFunc(s.life, func() { cancel(context.Cause(s.life)) })
	return ctx, func() { stop(); cancel(context.Canceled) }
}

// endsWithLife reports whether ctx ends with s's life already (it is
// under a context of lifeBound), while that life has not ended: a call
// that begins after Shutdown is to be ended before anything runs, and
// lifeBound's AfterFunc ends its contexts on a goroutine of its own.
func (s *Server) endsWithLife(ctx context.Context) bool {
	return s.life.Err() == nil && ctx.Value(lifeKey{}) == s
}
