package host

import (
	"reflect"
	"sync"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
)

// backendRefs counts, for each compiled backend, the loaded configs that
// hold it. A reload takes the tools whose blocks did not change from the
// config in service (thcl.Options.Previous), backends and all, so that
// one backend may belong to the registry in service and to one or more
// retired ones still finishing calls: it is closed when the last of them
// is closed, never while a registry still serves with it.
var backendRefs = struct {
	mu sync.Mutex
	n  map[adapters.Backend]int
}{n: map[adapters.Backend]int{}}

// configBackends calls fn with every backend of cfg (nil-safe), once each
// for a backend that several blocks share.
func configBackends(cfg *thcl.Config, fn func(adapters.Backend)) {
	if cfg == nil {
		return
	}
	seen := map[adapters.Backend]bool{}
	visit := func(b adapters.Backend) {
		if b == nil {
			return
		}
		if countable(b) {
			if seen[b] {
				return
			}
			seen[b] = true
		}
		fn(b)
	}
	for _, t := range cfg.Tools {
		visit(t.Backend)
	}
	for _, r := range cfg.Resources {
		visit(r.Backend)
	}
	for _, r := range cfg.ResourceTemplates {
		visit(r.Backend)
	}
}

// countable reports whether b can be a map key: every backend is a
// pointer, but a backend that is not is closed as before, uncounted.
func countable(b adapters.Backend) bool {
	return reflect.TypeOf(b).Comparable()
}

// retainBackends counts cfg as a holder of each of its backends.
func retainBackends(cfg *thcl.Config) {
	backendRefs.mu.Lock()
	defer backendRefs.mu.Unlock()
	configBackends(cfg, func(b adapters.Backend) {
		if countable(b) {
			backendRefs.n[b]++
		}
	})
}

// releaseBackends takes cfg off the holders of its backends, and closes
// those it held last. A backend never counted (a config not from Load)
// is closed.
func releaseBackends(cfg *thcl.Config) {
	var closing []adapters.Backend
	backendRefs.mu.Lock()
	configBackends(cfg, func(b adapters.Backend) {
		if !countable(b) {
			closing = append(closing, b)
			return
		}
		if n := backendRefs.n[b] - 1; n > 0 {
			backendRefs.n[b] = n
			return
		}
		delete(backendRefs.n, b)
		closing = append(closing, b)
	})
	backendRefs.mu.Unlock()
	for _, b := range closing {
		_ = b.Close()
	}
}

// releaseOnce releases r's config's hold on its backends (closeTools) the
// first time only. A load with errors releases its config at once, and
// whoever asked for it closes the registry again: a second release would
// count down, and close, the backends the tools it took unchanged share
// with the registry in service.
func (r *Registry) releaseOnce() {
	if r.released.CompareAndSwap(false, true) {
		closeTools(r.Config)
	}
}
