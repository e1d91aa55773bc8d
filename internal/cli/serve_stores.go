package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/tasks"

	// The Redis task store, for --task-store redis://... and rediss://...
	_ "github.com/toolhost/toolhost/internal/tasks/redisstore"
)

// storeFlags are serve's flags for what it keeps of calls beyond one
// request: the task store (--task-store, --task-store-env) and the key
// that signs approvals (--state-key-env).
type storeFlags struct {
	taskStore, taskStoreEnv, stateKeyEnv *string
}

// addStoreFlags declares the store flags on serve's flag set.
func addStoreFlags(fs *flag.FlagSet) *storeFlags {
	return &storeFlags{
		taskStore:    fs.String("task-store", "memory", "where the tasks of tools with task support are kept (calls run in the background for clients of the tasks extension): memory, in this process; or the URL of a store shared by replicas"),
		stateKeyEnv:  addStateKeyFlag(fs),
		taskStoreEnv: fs.String("task-store-env", "", "the environment variable that holds the task store's URL, as --task-store takes it: a password in the URL then stays off the command line, where other local users can see it"),
	}
}

// stores is what serve opened from its store flags.
type stores struct {
	flags  *storeFlags
	spec   string
	limits tasks.Options
	store  tasks.Store
}

// open opens the task store the flags name. A problem is written to
// stderr, and code is the exit code then (ExitOK otherwise).
func (f *storeFlags) open(ctx context.Context, fs *flag.FlagSet, stderr io.Writer) (_ *stores, code int) {
	spec, err := taskStoreSpec(fs, *f.taskStore, *f.taskStoreEnv)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: %s\n", err)
		if errors.As(err, new(flagError)) {
			return nil, ExitUsage
		}
		return nil, ExitFailure
	}
	limits := tasks.Options{}.WithDefaults()
	store, err := tasks.Open(ctx, spec, limits)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: %s\n", err)
		return nil, ExitUsage
	}
	return &stores{flags: f, spec: spec, limits: limits, store: store}, ExitOK
}

// close closes the task store.
func (s *stores) close() { s.store.Close() }

// serverOptions are the server options of the stores for the config cfg:
// the task store, the key that signs approvals, and the guard that makes
// them single-use in a store shared by replicas. It warns of what
// replicas do not share, when serve listens.
func (s *stores) serverOptions(httpOpts *host.HTTPOptions, cfg *thcl.Config, logger *slog.Logger, stderr io.Writer) (_ []host.ServerOption, code int) {
	warnUnsharedTasks(s.spec, httpOpts, cfg, logger)
	opts := []host.ServerOption{host.Tasks(host.TaskOptions{Store: s.store, Limits: s.limits})}
	stateKey, err := stateKeyOption(*s.flags.stateKeyEnv, httpOpts != nil, cfg, logger)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: %s\n", err)
		if errors.As(err, new(flagError)) {
			return nil, ExitUsage
		}
		return nil, ExitFailure
	}
	if stateKey != nil {
		opts = append(opts, stateKey)
	}
	if guard := stateGuardOption(s.store); guard != nil {
		opts = append(opts, guard)
	}
	return opts, ExitOK
}

// taskStoreSpec is the task store serve opens: the value of the variable
// that --task-store-env names, when given, or else --task-store's.
func taskStoreSpec(fs *flag.FlagSet, spec, name string) (string, error) {
	if name == "" {
		return spec, nil
	}
	both := false
	fs.Visit(func(fl *flag.Flag) { both = both || fl.Name == "task-store" })
	if both {
		return "", flagError{errors.New("--task-store and --task-store-env both name the task store: give one (--task-store-env keeps a password off the command line)")}
	}
	if !envName(name) {
		return "", flagError{errors.New("--task-store-env takes the name of the environment variable that holds the store's URL, as in --task-store-env TOOLHOST_TASK_STORE, and what it was given is no variable's name (it is not repeated here, in case it holds a password): write the name without $")}
	}
	return envFlagValue("task-store-env", name, "the task store's URL", fmt.Sprintf("export %s=redis://toolhost:PASSWORD@redis.internal:6379/0", name))
}

// envFlagValue is the value, spaces trimmed, of the environment variable
// name that the flag --flagName names, or the error that says it is not
// set or is empty: set it to what (as in howTo, a shell line).
func envFlagValue(flagName, name, what, howTo string) (string, error) {
	v, set := os.LookupEnv(name)
	switch v = strings.TrimSpace(v); {
	case !set:
		return "", fmt.Errorf("--%s %s: the environment variable %s is not set; set it to %s (as in %s), or drop --%s", flagName, name, name, what, howTo, flagName)
	case v == "":
		return "", fmt.Errorf("--%s %s: the environment variable %s is empty; set it to %s (as in %s)", flagName, name, name, what, howTo)
	}
	return v, nil
}

// stateGuardOption is the server option that makes approvals single-use
// in the task store, when the store can (a store shared by replicas, such
// as Redis), or nil: then each process remembers the approvals used in it.
func stateGuardOption(store tasks.Store) host.ServerOption {
	if g, ok := store.(host.StateGuard); ok {
		return host.UseStateGuard(g)
	}
	return nil
}

// warnUnsharedTasks warns, when serve --listen --stateless keeps tasks in
// its own memory and the config has tools that run as tasks, that replicas
// behind a load balancer do not share them: a tasks/get that reaches
// another replica finds no such task.
func warnUnsharedTasks(spec string, httpOpts *host.HTTPOptions, cfg *thcl.Config, logger *slog.Logger) {
	if httpOpts == nil || !httpOpts.Stateless || spec != "memory" || cfg == nil {
		return
	}
	n := 0
	for _, t := range cfg.Tools {
		if t.Task != "" {
			n++
		}
	}
	if n > 0 {
		logger.Warn("tasks are kept in this process's memory (--task-store memory): with several --stateless replicas behind a load balancer, a task is known only to the replica that created it; give every replica the same --task-store redis://... (or --task-store-env)", "task_tools", n)
	}
}
