package host

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// StateTTL is how long the requestState of an input-required result
// (SEP-2322) stays good: the user has this long to answer a confirmation
// or a form asked of a 2026-07-28 client. Short, so that an approval
// cannot be kept and used much later, and long enough for a person.
const StateTTL = 5 * time.Minute

// MinStateKeyLen is the shortest key, in bytes, that signs requestStates:
// HMAC-SHA256 wants at least its output's length.
const MinStateKeyLen = 32

// Limits on what a retry of a 2026-07-28 call carries, so that a client
// cannot make the server hash or decode more than an answer needs.
const (
	// maxRequestState is the longest requestState taken, in bytes; the
	// states toolhost issues are under 200.
	maxRequestState = 1024
	// maxInputResponses is the most entries inputResponses may have; a
	// tool asks one question per round.
	maxInputResponses = 16
	// maxInputResponseBytes is the largest answer toolhost reads, in bytes
	// of JSON: a form's answers.
	maxInputResponseBytes = 64 << 10
	// maxStateGuardEntries is the most states the in-memory StateGuard
	// remembers as used; each is forgotten when it expires.
	maxStateGuardEntries = 100_000
)

// StateGuard makes each requestState single-use: FirstUse reports whether
// the nonce is seen for the first time, and remembers it until the time
// given, after which the state it belongs to has expired anyway. The
// default, NewMemoryStateGuard, remembers within one process; a store
// shared by replicas (such as Redis, SET NX with an expiry) makes states
// single-use across replicas. Give one with UseStateGuard.
type StateGuard interface {
	FirstUse(ctx context.Context, nonce string, until time.Time) (bool, error)
}

// memoryStateGuard is the in-memory StateGuard: a map from nonce to the
// time it may be forgotten, of at most max entries.
type memoryStateGuard struct {
	mu      sync.Mutex
	seen    map[string]time.Time
	max     int
	now     func() time.Time
	inserts int
}

// NewMemoryStateGuard returns a StateGuard that remembers used states in
// this process, at most 100,000 at once; it forgets each once it expires.
// When full of states that have not expired, it refuses new ones (a state
// is then refused, not let through twice).
func NewMemoryStateGuard() StateGuard {
	return &memoryStateGuard{seen: map[string]time.Time{}, max: maxStateGuardEntries, now: time.Now}
}

// errGuardFull is the error of a memoryStateGuard full of unexpired states.
var errGuardFull = errors.New("too many approvals were answered in the last few minutes for this server to remember them all; try again in a few minutes")

func (g *memoryStateGuard) FirstUse(_ context.Context, nonce string, until time.Time) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if u, ok := g.seen[nonce]; ok && now.Before(u) {
		return false, nil
	}
	g.inserts++
	if len(g.seen) >= g.max || g.inserts%1024 == 0 {
		for k, u := range g.seen {
			if !now.Before(u) {
				delete(g.seen, k)
			}
		}
	}
	if len(g.seen) >= g.max {
		return false, errGuardFull
	}
	g.seen[nonce] = until
	return true, nil
}

// stateSigner issues and checks the requestStates of a Server's
// input-required results: HMAC-SHA256 with key over a compact encoding of
// what the state binds (see mrtrState).
type stateSigner struct {
	// key returns the HMAC key: a random one is drawn at its first use
	// (a server whose tools never ask draws none, and a start does not
	// wait for crypto/rand's first read).
	key   func() []byte
	guard StateGuard
	now   func() time.Time
	// logger says why a state could not be checked as unused (the guard
	// failed); the client is told only that it could not be.
	logger *slog.Logger
}

// errGuardUnavailable is the error of a state that could not be checked
// as unused because the StateGuard failed: the server's trouble, not the
// client's state.
var errGuardUnavailable = errors.New("the server could not check that the requestState is unused (its shared store is unavailable), so nothing ran; try again later with the same answers")

// newStateSigner returns a signer with key, or a random key when key is
// nil, and guard, or an in-memory one when guard is nil; logger says why
// a state could not be checked.
func newStateSigner(key []byte, guard StateGuard, logger *slog.Logger) *stateSigner {
	keyOf := func() []byte { return key }
	if key == nil {
		keyOf = sync.OnceValue(func() []byte {
			k := make([]byte, MinStateKeyLen)
			if _, err := rand.Read(k); err != nil {
				panic(err) // crypto/rand does not fail on supported systems
			}
			return k
		})
	}
	if guard == nil {
		guard = NewMemoryStateGuard()
	}
	return &stateSigner{key: keyOf, guard: guard, now: time.Now, logger: logger}
}

// mrtrState is what a requestState binds: the tool, a hash of its
// canonical arguments, the input request issued (stage) and whether the
// confirmation was accepted in an earlier round, an expiry and a random
// nonce that makes it single-use.
type mrtrState struct {
	tool      [16]byte // sha256 of the tool's name, cut
	args      [32]byte // sha256 of the canonical arguments
	stage     byte     // the input request issued: stageConfirm or stageAsk
	confirmed bool     // the confirmation was accepted in an earlier round
	expires   int64    // unix seconds
	nonce     [16]byte
}

// The stages of a tool's approval, one input request each.
const (
	stageConfirm byte = 'c'
	stageAsk     byte = 'a'
)

// stateVersion is the first byte of every state's encoding, so that a
// later encoding can be told apart.
const stateVersion = 1

// stateLen is the length of a state's encoding before its MAC.
const stateLen = 1 + 16 + 32 + 1 + 1 + 8 + 16

func toolHash(name string) (h [16]byte) {
	sum := sha256.Sum256([]byte(name))
	copy(h[:], sum[:16])
	return h
}

// issue returns a signed state for stage of tool with the arguments hash
// args, good for StateTTL.
func (s *stateSigner) issue(tool string, args [32]byte, stage byte, confirmed bool) string {
	st := mrtrState{tool: toolHash(tool), args: args, stage: stage, confirmed: confirmed, expires: s.now().Add(StateTTL).Unix()}
	if _, err := rand.Read(st.nonce[:]); err != nil {
		panic(err)
	}
	b := make([]byte, 0, stateLen+sha256.Size)
	b = append(b, stateVersion)
	b = append(b, st.tool[:]...)
	b = append(b, st.args[:]...)
	b = append(b, st.stage)
	if st.confirmed {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(st.expires))
	b = append(b, st.nonce[:]...)
	b = append(b, s.mac(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *stateSigner) mac(b []byte) []byte {
	m := hmac.New(sha256.New, s.key())
	m.Write(b)
	return m.Sum(nil)
}

// errStateInvalid is the error of a requestState this server did not
// issue or that was altered (or signed with another key).
var errStateInvalid = errors.New("the requestState is not one this server issued, or it was altered (or it was issued by a replica with another --state-key-env key); call the tool again without inputResponses and requestState to be asked again")

// check verifies state for a call of tool with the arguments hash args,
// and marks it used. It returns the state, or an error that says why it
// is refused: altered, expired, for another tool or other arguments, or
// used before.
func (s *stateSigner) check(ctx context.Context, state, tool string, args [32]byte) (*mrtrState, error) {
	if len(state) > maxRequestState {
		return nil, fmt.Errorf("the requestState is %d bytes long, more than the %d a state of this server has; call the tool again without inputResponses and requestState to be asked again", len(state), maxRequestState)
	}
	b, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(b) != stateLen+sha256.Size || b[0] != stateVersion {
		return nil, errStateInvalid
	}
	body, sum := b[:stateLen], b[stateLen:]
	if !hmac.Equal(sum, s.mac(body)) {
		return nil, errStateInvalid
	}
	st := &mrtrState{}
	p := body[1:]
	copy(st.tool[:], p[:16])
	copy(st.args[:], p[16:48])
	st.stage, st.confirmed = p[48], p[49] == 1
	st.expires = int64(binary.BigEndian.Uint64(p[50:58]))
	copy(st.nonce[:], p[58:74])
	expires := time.Unix(st.expires, 0)
	switch {
	case st.tool != toolHash(tool):
		return nil, fmt.Errorf("the requestState was issued for another tool, not %s; send each tool's state back with a call of that tool", tool)
	case st.args != args:
		return nil, fmt.Errorf("the requestState was issued for a call of %s with other arguments: an approval holds only for the arguments it was asked for; call the tool again without inputResponses and requestState to be asked about these", tool)
	case !s.now().Before(expires):
		return nil, fmt.Errorf("the requestState expired (a state holds for %s): call the tool %s again without inputResponses and requestState to be asked again", StateTTL, tool)
	}
	first, err := s.guard.FirstUse(ctx, hex.EncodeToString(st.nonce[:]), expires)
	switch {
	case err != nil:
		if s.logger != nil {
			s.logger.Warn("a requestState could not be checked as unused, so its call was refused", "tool", tool, "error", err)
		}
		return nil, errGuardUnavailable
	case !first:
		return nil, fmt.Errorf("the requestState was used already: each answers one round once; call the tool %s again without inputResponses and requestState to be asked again", tool)
	}
	return st, nil
}

// argsHash is the sha256 of canon, the canonical arguments of a call.
func argsHash(canon []byte) [32]byte {
	return sha256.Sum256(bytes.TrimSpace(canon))
}
