package cli

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/parallel"
)

// onlineTimeout bounds validate --online's checks of all tools together.
const onlineTimeout = 2 * time.Minute

// checkOnline is validate --online: every tool and resource whose backend
// can check itself against the live system it reaches
// (adapters.OnlineChecker: a sql block prepares its statement on its
// database) does, side by side. Nothing runs: a statement is prepared,
// never executed. A config with errors is checked as far as it loaded.
func checkOnline(ctx context.Context, reg *host.Registry) hcl.Diagnostics {
	if reg == nil || reg.Config == nil {
		return nil
	}
	var checkers []adapters.OnlineChecker
	for _, t := range reg.Config.Tools {
		if c, ok := t.Backend.(adapters.OnlineChecker); ok {
			checkers = append(checkers, c)
		}
	}
	for _, r := range reg.Config.Resources {
		if c, ok := r.Backend.(adapters.OnlineChecker); ok {
			checkers = append(checkers, c)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, onlineTimeout)
	defer cancel()
	found := make([]hcl.Diagnostics, len(checkers))
	parallel.For(len(checkers), 1, func(i int) { found[i] = checkers[i].CheckOnline(ctx) })
	var diags hcl.Diagnostics
	for _, d := range found {
		diags = append(diags, d...)
	}
	return diags
}
