package cli

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// addStateKeyFlag declares --state-key-env on serve's flag set.
func addStateKeyFlag(fs *flag.FlagSet) *string {
	return fs.String("state-key-env", "", fmt.Sprintf("the environment variable that holds the key (%d bytes or more, as made by openssl rand -base64 32) that signs the approvals (confirm, ask) asked of 2026-07-28 clients: replicas behind a load balancer need the same key to take each other's answers; without it, each process makes a random key of its own", host.MinStateKeyLen))
}

// stateKeyOption turns --state-key-env NAME into the server option that
// gives the key, or nil without the flag. Without it, serving HTTP a
// config whose tools ask the user logs one warning: replicas cannot take
// each other's approvals then.
func stateKeyOption(name string, http bool, cfg *thcl.Config, logger *slog.Logger) (host.ServerOption, error) {
	if name == "" {
		if http && asksUser(cfg) {
			logger.Warn("approvals asked of 2026-07-28 clients (confirm, ask) are signed with a random key of this process, so another replica behind a load balancer cannot take their answers; give every replica the same key with --state-key-env")
		}
		return nil, nil
	}
	if !envName(name) {
		return nil, flagError{errors.New("--state-key-env takes the name of the environment variable that holds the key, as in --state-key-env TOOLHOST_STATE_KEY, and what it was given is no variable's name (it is not repeated here, in case it is the key): write the name without $")}
	}
	howTo := fmt.Sprintf("export %s=$(openssl rand -base64 32)", name)
	key, err := envFlagValue("state-key-env", name, fmt.Sprintf("a secret of %d bytes or more, the same on every replica", host.MinStateKeyLen), howTo)
	if err != nil {
		return nil, err
	}
	if len(key) < host.MinStateKeyLen {
		return nil, fmt.Errorf("--state-key-env %s: the key in %s is %d bytes long, too short to sign approvals safely; set it to a secret of %d bytes or more (as in %s)", name, name, len(key), host.MinStateKeyLen, howTo)
	}
	return host.StateKey([]byte(key)), nil
}

// asksUser reports whether a tool of cfg asks the user (confirm or ask).
func asksUser(cfg *thcl.Config) bool {
	for _, t := range cfg.Tools {
		if t.Confirm != nil || t.Ask != nil {
			return true
		}
	}
	return false
}
