package exec

import (
	"bytes"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/redact"
)

// lastWords is the end of what a failed command printed, for its error:
// its standard error, or its standard output when that is empty (some
// programs report errors there); decoded, scrubbed and with secrets
// hidden. "" when it printed nothing.
//
// The secrets are masked before the end is cut from the rest (see
// RedactTail), so that one the cut falls inside is masked whole, and so is
// the end of one the kept tail starts inside.
func (e *Exec) lastWords(ectx *hcl.EvalContext, stderr *stderrWriter, stdout *capWriter, argv []string, stdin *string) string {
	tail, cut := stderr.tail.bytes(), stderr.tail.dropped()
	if len(bytes.TrimSpace(tail)) == 0 {
		tail, cut = stdout.end(stderrKeep)
	}
	if e.charset != nil {
		tail = e.decode(tail, false)
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(tail), "\uFFFD"))
	if s == "" {
		return ""
	}
	s = e.scrub(ectx, s)
	return lastPart(redact.RedactTail(s, stderrShown, e.cutSecrets(ectx, argv, stdin), cut))
}

// cutSecrets are the secrets masked in a text cut from a command's
// output: those of secrets, and the values of the parameters marked
// sensitive, which scrub masks whole but not cut.
func (e *Exec) cutSecrets(ectx *hcl.EvalContext, argv []string, stdin *string) []string {
	return append(e.secrets(ectx, argv, stdin), e.scrubValues(ectx)...)
}

// scrub replaces the values of sensitive parameters in msg, which quotes
// the command's output, so that messages never show them.
func (e *Exec) scrub(ectx *hcl.EvalContext, msg string) string {
	for _, s := range e.scrubValues(ectx) {
		msg = strings.ReplaceAll(msg, s, redact.SensitiveMark)
	}
	return msg
}

// scrubValues are the values scrub masks: those of the call's parameters
// marked sensitive, as they are passed to the command.
func (e *Exec) scrubValues(ectx *hcl.EvalContext) []string {
	if ectx == nil {
		return nil
	}
	params, ok := ectx.Variables["param"]
	if !ok {
		return nil
	}
	params, _ = params.UnmarkDeep()
	if !params.IsKnown() || params.IsNull() || !params.Type().IsObjectType() {
		return nil
	}
	var out []string
	for name, info := range e.params {
		if !info.Sensitive || !params.Type().HasAttribute(name) {
			continue
		}
		v := params.GetAttr(name)
		if !v.IsKnown() || v.IsNull() || !v.Type().IsPrimitiveType() {
			continue
		}
		if s, problem := argString(v); problem == "" && len(s) >= 4 {
			out = append(out, s)
		}
	}
	return out
}

// sensitiveValues are the values of the call's parameters marked sensitive.
func (e *Exec) sensitiveValues(ectx *hcl.EvalContext) []string {
	return adapters.SensitiveParamValues(ectx, adapters.SensitiveNames(e.params))
}

// secrets returns the values hidden from what a call reports: the secret
// environment variables (see envSecrets), those the block reads with env()
// (see adapters.EnvCredentialNames), the command's elements wrapped
// in sensitive(...) and the credentials inside the others (see
// ValueSecrets), and the stdin wrapped in sensitive(...).
func (e *Exec) secrets(ectx *hcl.EvalContext, argv []string, stdin *string) []string {
	out := append(e.envSecrets(ectx), adapters.EnvCredentials(ectx, e.envCreds)...)
	for i, a := range argv {
		out = append(out, redact.Named("", []string{a}, slices.Contains(e.sensitiveArgs, i))...)
	}
	out = append(out, adapters.SensitiveArgValues(ectx, e.sensitiveExprs)...)
	if stdin != nil && e.stdin != nil && adapters.CallsSensitive(e.stdin) {
		out = append(out, *stdin)
	}
	return out
}

// envSecrets returns the values of the child's environment variables that
// hold credentials: named like them (API_TOKEN, AWS_SECRET_ACCESS_KEY, ...)
// or wrapped in sensitive(...) in the block's env, and the credentials
// inside the others (the password of a DATABASE_URL, see ValueSecrets);
// with inherit_env, those of the host's variables too.
func (e *Exec) envSecrets(ectx *hcl.EvalContext) []string {
	var out []string
	extra := e.envConst
	if !e.envKnown && e.env != nil {
		if v, diags := e.env.Value(ectx); !diags.HasErrors() {
			extra, _ = envMap(v)
		}
	}
	marked := map[string]bool{}
	if e.env != nil {
		marked = adapters.MarkedSensitive(e.env)
	}
	for k, v := range extra {
		if v != nil {
			out = append(out, redact.Named(redact.EnvSecretName(k), []string{*v}, marked[k])...)
		}
	}
	if e.inheritEnv {
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				out = append(out, redact.Named(redact.EnvSecretName(k), []string{v}, false)...)
			}
		}
	}
	return out
}
