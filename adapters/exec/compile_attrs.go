package exec

import (
	"fmt"
	"mime"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/charset"
	"github.com/toolhost/toolhost/internal/suggest"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/text/encoding"
)

// timeout reads the timeout attribute a into e.
func (c *compiler) timeout(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	d, diags, ok := c.Duration(a, attr.DurationRange{Max: MaxExecTimeout, Example: `"30s"`, Examples: `"30s", "2m" or "1h"`})
	if ok {
		e.timeout = d
	}
	return diags
}

// killTimeout reads the kill_timeout attribute a into e.
func (c *compiler) killTimeout(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	d, diags, ok := c.Duration(a, attr.DurationRange{Max: MaxExecKillTimeout, Zero: true, Example: `"1s"`, Examples: `"1s", "500ms" or "10s"`})
	if ok {
		e.killTimeout = d
	}
	return diags
}

// killSignals are the signals kill_signal may name: those a program
// may catch to clean up and exit. SIGKILL is what kill_timeout leads to.
var killSignals = []string{"SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"}

// killSignal reads the signal that asks a stopped command to exit. A name
// is taken in any case, with or without its "SIG".
func (c *compiler) killSignal(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"SIGINT"`)
	if !ok {
		return diags
	}
	if v.IsNull() || v.Type() != cty.String {
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid kill_signal",
			Detail: fmt.Sprintf("The kill_signal must be a signal name, and this is %s. Write one of %s, such as kill_signal = \"SIGINT\".",
				attr.TypeName(v.Type()), adapters.QuoteList(killSignals)),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	given := v.AsString()
	name := strings.ToUpper(strings.TrimSpace(given))
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if slices.Contains(killSignals, name) {
		e.killSignal = name
		return diags
	}
	detail := fmt.Sprintf("%q is not a signal kill_signal can send. Write one of %s.", given, adapters.QuoteList(killSignals))
	switch {
	case name == "SIGKILL" || name == "SIG9":
		detail = `SIGKILL cannot be caught, so a command has no chance to clean up: it is what kill_timeout leads to. ` +
			`To kill a stopped command at once, write kill_timeout = "0s" and leave kill_signal out.`
	case strings.TrimPrefix(name, "SIG") != "" && strings.Trim(strings.TrimPrefix(name, "SIG"), "0123456789") == "":
		detail = fmt.Sprintf("%q is a number; kill_signal takes a name, as numbers differ between systems. Write one of %s.", given, adapters.QuoteList(killSignals))
	default:
		if s := suggest.Closest(name, killSignals); s != "" {
			detail += fmt.Sprintf(" Did you mean %q?", s)
		}
	}
	return append(diags, &hcl.Diagnostic{
		Severity:   hcl.DiagError,
		Summary:    "Unknown kill_signal",
		Detail:     detail,
		Subject:    a.Expr.Range().Ptr(),
		Expression: a.Expr,
	})
}

// charset reads the encoding of the command's text output.
func (c *compiler) charset(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"gbk"`)
	if !ok {
		return diags
	}
	var enc encoding.Encoding
	if v.Type() == cty.String {
		enc, ok = charset.ByLabel(v.AsString())
	}
	if v.Type() != cty.String || !ok {
		return append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Unknown charset",
			Detail:     charset.UnknownDetail(charsetText(v), "the command writes"),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if !charset.IsUTF8(enc) {
		e.charset = enc
	}
	return diags
}

// maxOutput reads the max_output attribute a into e.
func (c *compiler) maxOutput(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	n, diags, ok := c.ByteCount(a, MaxExecMaxOutput, "64 MiB")
	if ok {
		e.maxOutput = n
	}
	return diags
}

// dir reads the dir attribute a into e, relative to the config file's
// directory.
func (c *compiler) dir(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"scripts"`)
	if !ok {
		return diags
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil || sv.AsString() == "" || strings.ContainsRune(sv.AsString(), 0) {
		detail := "The dir argument is empty."
		if err != nil {
			detail = fmt.Sprintf("The dir argument must be a string, and this is %s.", attr.TypeName(v.Type()))
		} else if sv.AsString() != "" {
			detail = "The dir argument contains a NUL character."
		}
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid dir",
			Detail: detail + " Write the working directory of the command as a path, absolute or relative to the configuration file, " +
				`such as dir = "scripts", or remove the argument to run in the configuration file's directory.`,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	d := sv.AsString()
	if !filepath.IsAbs(d) && c.CC.BaseDir != "" {
		d = filepath.Join(c.CC.BaseDir, d)
	}
	e.dir = filepath.Clean(d)
	return diags
}

// inheritEnv reads the inherit_env attribute a into e.
func (c *compiler) inheritEnv(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	return c.Boolean(a, &e.inheritEnv, "Write inherit_env = true to pass the host's whole environment to the command.")
}

// stderrLog decodes stderr_log: the MCP logging level at which the
// command's standard error lines are sent to the client.
func (c *compiler) stderrLog(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"info"`)
	if !ok {
		return diags
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil || !adapters.ValidLogLevel(sv.AsString()) {
		given := attr.TypeName(v.Type())
		if err == nil {
			given = fmt.Sprintf("%q", sv.AsString())
		}
		detail := fmt.Sprintf("stderr_log is the MCP logging level at which the command's standard error lines reach the client, one of %s; this is %s.", adapters.QuoteList(adapters.LogLevels), given)
		if err == nil {
			if s := suggest.Closest(sv.AsString(), adapters.LogLevels); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
		}
		return append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Invalid stderr_log",
			Detail:     detail,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	e.stderrLog = sv.AsString()
	return diags
}

// mimeType decodes mime_type, the media type of binary output.
func (c *compiler) mimeType(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"image/png"`)
	if !ok {
		return diags
	}
	sv, err := convert.Convert(v, cty.String)
	if err == nil {
		if mt, _, perr := mime.ParseMediaType(sv.AsString()); perr == nil && strings.Contains(mt, "/") {
			e.mimeType = mt
			return diags
		}
	}
	return append(diags, &hcl.Diagnostic{
		Severity:   hcl.DiagError,
		Summary:    "Invalid mime_type",
		Detail:     "mime_type must be a media type such as \"image/png\" or \"audio/wav\".",
		Subject:    a.Expr.Range().Ptr(),
		Expression: a.Expr,
	})
}

// env compiles the env attribute a into e: a map of names, fixed when the
// config loads, to string values, kept whole when they do not depend on
// arguments.
func (c *compiler) env(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	e.env = a.Expr
	const example = `{ LANG = "C.UTF-8" }`
	if diags := envArgRefs(a); diags.HasErrors() {
		return diags
	}
	v, diags := c.Value(a.Expr)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	ty := v.Type()
	if !(ty == cty.DynamicPseudoType || ty.IsObjectType() || ty.IsMapType()) || (v.IsKnown() && v.IsNull()) {
		what := "null"
		if !v.IsNull() {
			what = attr.TypeName(ty)
		}
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid env",
			Detail: fmt.Sprintf("The env argument must be an object of environment variables, and this is %s. "+
				"Write names and string values, such as env = %s.", what, example),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if ty.IsMapType() && !argType(ty.ElementType()) {
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid env",
			Detail: fmt.Sprintf("The env argument is a map of %s, and environment values must be strings. "+
				"Write names and string values, such as env = %s.", ty.ElementType().FriendlyName(), example),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if !v.IsKnown() {
		return diags
	}

	// Ranges of the items, when the object is written out.
	keyRange := map[string]hcl.Range{}
	valRange := map[string]hcl.Range{}
	if oc, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range oc.Items {
			kv, kd := item.KeyExpr.Value(c.Eval)
			if kd.HasErrors() || !kv.IsKnown() || kv.IsNull() || kv.Type() != cty.String {
				continue
			}
			keyRange[kv.AsString()] = item.KeyExpr.Range()
			valRange[kv.AsString()] = item.ValueExpr.Range()
		}
	}
	rangeOf := func(m map[string]hcl.Range, k string) *hcl.Range {
		if r, ok := m[k]; ok {
			return &r
		}
		return a.Expr.Range().Ptr()
	}
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := k.AsString()
		if problem := envNameProblem(name); problem != "" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid environment variable name",
				Detail: fmt.Sprintf("The name %q %s. Use a name of letters, digits and underscores, such as LANG or MY_TOOL_MODE.",
					name, problem),
				Subject:    rangeOf(keyRange, name),
				Expression: a.Expr,
			})
		}
		if val.IsKnown() && !val.IsNull() {
			if problem := argProblem(val); problem != "" {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid env",
					Detail: fmt.Sprintf("The value of environment variable %s %s, and it must be a string. "+
						"Write a string value, such as env = %s.", name, problem, example),
					Subject:    rangeOf(valRange, name),
					Expression: a.Expr,
				})
			}
		} else if !val.IsKnown() && !argType(val.Type()) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid env",
				Detail: fmt.Sprintf("The value of environment variable %s is %s, and it must be a string. "+
					"Write a string value, such as env = %s.", name, attr.TypeName(val.Type()), example),
				Subject:    rangeOf(valRange, name),
				Expression: a.Expr,
			})
		}
	}
	if diags.HasErrors() {
		return diags
	}
	if v.IsWhollyKnown() {
		env, err := envMap(v)
		if err == nil {
			e.envConst = env
			e.envKnown = true
		}
	}
	return diags
}

// stdin compiles the stdin attribute a into e: a string, kept when it
// does not depend on arguments.
func (c *compiler) stdin(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	e.stdin = a.Expr
	v, diags := c.Value(a.Expr)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	if !argType(v.Type()) {
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid stdin",
			Detail: fmt.Sprintf("The stdin argument is fed to the command's standard input and must be a string, and this is %s. "+
				"Write a string, such as stdin = param.text, or use jsonencode(...) to pass structured data.", attr.TypeName(v.Type())),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if d := c.stdinScript(a.Expr); d != nil {
		return append(diags, d)
	}
	if v.IsWhollyKnown() {
		s := ""
		if !v.IsNull() {
			s, _ = argString(v)
		}
		e.stdinConst = &s
	}
	return diags
}

// envArgRefs refuses an env whose names depend on the arguments, and
// arguments in the variables that choose the code that runs: a model that
// picks PATH or LD_PRELOAD picks the program, which must be fixed in the
// configuration.
func envArgRefs(a *hcl.Attribute) hcl.Diagnostics {
	const fix = "Write env as an object with literal names, and use parameters only in the values of other variables, such as env = { GREETING = param.text }."
	oc, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		if !refsArgs(a.Expr) {
			return nil
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Environment names must be constant",
			Detail: "This env is computed from parameters, so the model calling the tool would choose the names of the command's environment variables " +
				"(PATH, LD_PRELOAD, ...), and with them the program that runs. " + fix,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}}
	}
	var diags hcl.Diagnostics
	for _, item := range oc.Items {
		name := hcl.ExprAsKeyword(item.KeyExpr)
		if name == "" {
			if refsArgs(item.KeyExpr) {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Name must be constant",
					Detail: "An environment variable name is fixed when the config loads, so it cannot refer to param: the model calling the tool would choose " +
						"which variable it sets (PATH, LD_PRELOAD, ...), and with it the program that runs. " + fix,
					Subject:    item.KeyExpr.Range().Ptr(),
					Expression: a.Expr,
				})
				continue
			}
			if kv, kd := item.KeyExpr.Value(nil); !kd.HasErrors() && kv.IsKnown() && !kv.IsNull() && kv.Type() == cty.String {
				name = kv.AsString()
			}
		}
		if why := programEnv(name); why != "" && refsArgs(item.ValueExpr) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Parameter chooses the program",
				Detail: fmt.Sprintf("The environment variable %s chooses the code the command runs (%s), so its value cannot refer to param: "+
					"the model calling the tool would choose the program. Write a constant value, or leave it out.%s", name, why, programEnvHint(name)),
				Subject:    item.ValueExpr.Range().Ptr(),
				Expression: a.Expr,
			})
		}
	}
	return diags
}

// envNameProblem says what is wrong with an environment variable name, or
// returns "".
func envNameProblem(name string) string {
	switch {
	case name == "":
		return "is empty"
	case strings.ContainsAny(name, "=\x00"):
		return `contains "=" or a NUL character`
	}
	return ""
}
