package tasks

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Opener opens a store from the value of --task-store (a URL whose scheme
// the opener was registered for) with the given limits.
type Opener func(ctx context.Context, rawURL string, o Options) (Store, error)

var (
	openersMu sync.Mutex
	openers   = map[string]Opener{}
)

// Register makes Open hand values with that URL scheme (as "redis" for
// redis://...) to open. A backend package calls it from its init, and the
// command imports the package for its effect. Registering a scheme twice
// panics.
func Register(scheme string, open Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	scheme = strings.ToLower(scheme)
	if _, dup := openers[scheme]; dup {
		panic("tasks: store scheme " + scheme + " registered twice")
	}
	openers[scheme] = open
}

// Open opens the store spec names: "" or "memory" is a new in-memory
// store; a URL is opened by the opener registered for its scheme. An
// unknown value is an error that names the values there are.
func Open(ctx context.Context, spec string, o Options) (Store, error) {
	if spec == "" || spec == "memory" {
		return NewMemory(o), nil
	}
	u, err := url.Parse(spec)
	if err != nil && strings.Contains(spec, "://") {
		// The parser's error quotes the URL, password and all.
		return nil, fmt.Errorf("--task-store is not a valid URL (it is not repeated here, as it may hold a password): percent-encode the characters / ? # @ %% and spaces in the user name and the password (%%2F, %%3F, %%23, %%40, %%25, %%20; a password made by openssl rand -base64 often has / or +, and + is fine), and check the host:port")
	}
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("--task-store is neither \"memory\" nor a URL with a scheme; use \"memory\" or one of: %s", schemes())
	}
	openersMu.Lock()
	open := openers[strings.ToLower(u.Scheme)]
	openersMu.Unlock()
	if open == nil {
		return nil, fmt.Errorf("--task-store %q: this build has no task store for %s:// URLs; use \"memory\" or one of: %s", u.Redacted(), u.Scheme, schemes())
	}
	return open(ctx, spec, o)
}

// schemes lists the values --task-store takes, for error messages.
func schemes() string {
	openersMu.Lock()
	defer openersMu.Unlock()
	var s []string
	for k := range openers {
		s = append(s, k+"://...")
	}
	slices.Sort(s)
	if len(s) == 0 {
		return "(no other store is built in)"
	}
	return strings.Join(s, ", ")
}
