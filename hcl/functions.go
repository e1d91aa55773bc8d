package hcl

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/evalcap"
	"github.com/toolhost/toolhost/internal/files"
	"github.com/toolhost/toolhost/internal/regular"
)

// EnvLookup reads an environment variable; tests and reloads can replace it.
type EnvLookup func(name string) (string, bool)

// Functions returns the function library of the language. env reads
// variables through lookup (os.LookupEnv when nil). The functions that can
// build a value much larger than their arguments (replace, format, join,
// ...) are evalcap's: they refuse to build one over evalcap.MaxValue,
// whatever a caller passes.
func Functions(lookup EnvLookup) map[string]function.Function {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	fns := baseFunctions(lookup)
	maps.Copy(fns, evalcap.Functions())
	return fns
}

// baseFunctions is the function library before evalcap's guards.
func baseFunctions(lookup EnvLookup) map[string]function.Function {
	return map[string]function.Function{
		"env":          envFunc(lookup),
		"now":          nowFunc,
		"timestamp":    nowFunc,
		"urlencode":    urlEncodeFunc,
		"sensitive":    sensitiveFunc,
		"claim":        claimNowhere,
		"base64encode": base64EncodeFunc,
		"base64decode": base64DecodeFunc,

		"abs":             stdlib.AbsoluteFunc,
		"ceil":            stdlib.CeilFunc,
		"chomp":           stdlib.ChompFunc,
		"coalesce":        stdlib.CoalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"floor":           stdlib.FloorFunc,
		"format":          stdlib.FormatFunc,
		"formatdate":      stdlib.FormatDateFunc,
		"formatlist":      stdlib.FormatListFunc,
		"indent":          stdlib.IndentFunc,
		"index":           stdlib.IndexFunc,
		"join":            stdlib.JoinFunc,
		"jsondecode":      stdlib.JSONDecodeFunc,
		"jsonencode":      stdlib.JSONEncodeFunc,
		"keys":            stdlib.KeysFunc,
		"length":          lengthFunc,
		"lookup":          stdlib.LookupFunc,
		"lower":           stdlib.LowerFunc,
		"max":             stdlib.MaxFunc,
		"merge":           stdlib.MergeFunc,
		"min":             stdlib.MinFunc,
		"parseint":        stdlib.ParseIntFunc,
		"range":           stdlib.RangeFunc,
		"regex":           stdlib.RegexFunc,
		"regexall":        stdlib.RegexAllFunc,
		"regex_replace":   stdlib.RegexReplaceFunc,
		"replace":         stdlib.ReplaceFunc,
		"reverse":         stdlib.ReverseListFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"split":           stdlib.SplitFunc,
		"strlen":          stdlib.StrlenFunc,
		"strrev":          stdlib.ReverseFunc,
		"substr":          stdlib.SubstrFunc,
		"timeadd":         stdlib.TimeAddFunc,
		"title":           stdlib.TitleFunc,
		"trim":            stdlib.TrimFunc,
		"trimprefix":      stdlib.TrimPrefixFunc,
		"trimspace":       stdlib.TrimSpaceFunc,
		"trimsuffix":      stdlib.TrimSuffixFunc,
		"upper":           stdlib.UpperFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,
		"tostring":        stdlib.MakeToFunc(cty.String),
		"tonumber":        stdlib.MakeToFunc(cty.Number),
		"tobool":          stdlib.MakeToFunc(cty.Bool),
		"setintersection": stdlib.SetIntersectionFunc,
		"try":             tryfunc.TryFunc,
		"can":             tryfunc.CanFunc,
	}
}

// lengthFunc is cty's length, whose error for a string (Terraform's
// length counts its characters; JavaScript's and Python's too) says to
// use strlen, and for an object, to count its keys.
var lengthFunc = function.New(&function.Spec{
	Description: stdlib.LengthFunc.Description(),
	Params:      stdlib.LengthFunc.Params(),
	Type: func(args []cty.Value) (cty.Type, error) {
		// As stdlib.LengthFunc's Type and Impl, which are not exported:
		// calling the function itself would check and convert the
		// arguments a second time, on every call of a tool that uses it.
		switch ty := args[0].Type(); {
		case ty == cty.String:
			return cty.NilType, function.NewArgErrorf(0, "length counts the elements of a list, set, map or tuple, and this is a string; for the number of characters in a string, use strlen(...)")
		case ty.IsObjectType():
			return cty.NilType, function.NewArgErrorf(0, "length counts the elements of a list, set, map or tuple, and this is an object; for the number of its attributes, use length(keys(...))")
		case !(ty.IsTupleType() || ty.IsListType() || ty.IsMapType() || ty.IsSetType() || ty == cty.DynamicPseudoType):
			return cty.NilType, function.NewArgErrorf(0, "collection must be a list, a map or a tuple")
		}
		return cty.Number, nil
	},
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder { return b.NotNull() },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0].Length(), nil
	},
})

// envFunc is env(NAME[, DEFAULT]): the variable's value, the default when it
// is unset, and an error naming the variable when it is unset with no default.
func envFunc(lookup EnvLookup) function.Function {
	return newEnvFunc(lookup, false)
}

// newEnvFunc builds env(). A lenient env returns an unknown string, in place
// of the error, for a variable that is unset with no default: expressions
// evaluated when a tool is called are compiled with it, so that the unset
// variable is a warning at load (see envWarnings) and an isError result at
// call time, when the strict env runs.
func newEnvFunc(lookup EnvLookup, lenient bool) function.Function {
	return function.New(&function.Spec{
		Description: "Reads an environment variable, with an optional default.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam:    &function.Parameter{Name: "default", Type: cty.String, AllowNull: true},
		Type:        function.StaticReturnType(cty.String),
		RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
			return b.NotNull()
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, function.NewArgErrorf(2, "env takes a name and at most one default value")
			}
			name := args[0].AsString()
			if v, ok := lookup(name); ok {
				return cty.StringVal(v), nil
			}
			if len(args) == 2 && !args[1].IsNull() {
				return args[1], nil
			}
			if lenient {
				return cty.UnknownVal(cty.String).RefineNotNull(), nil
			}
			return cty.NilVal, &funcError{
				msg:     fmt.Sprintf("the environment variable %s is not set; set it, or give a default as env(%q, \"value\")", name, name),
				summary: "Environment variable not set",
				detail:  fmt.Sprintf("The environment variable %s is not set, and env(%q) has no default. Set %s in the environment toolhost runs in, or give env() a default, as in env(%q, \"value\").", name, name, name, name),
			}
		},
	})
}

// CompileFunctions is the function library for compiling expressions that
// are evaluated when a tool is called (backend blocks, result paths): as
// Functions, except that env() of a variable that is unset with no default
// is unknown, not an error, and that now() and timestamp() are unknown: the
// time of the load is not the time of a call, so a value that uses them
// must not look constant to the compiler (an exec command with now() in it
// was run with the time of the load at every call).
func CompileFunctions(lookup EnvLookup) map[string]function.Function {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	fns := Functions(lookup)
	fns["env"] = newEnvFunc(lookup, true)
	fns["now"] = compileNowFunc
	fns["timestamp"] = compileNowFunc
	fns[adapters.ClaimFunc] = claimAtCompile
	return fns
}

// compileNowFunc is now() at compile time: a string not known until a call.
var compileNowFunc = function.New(&function.Spec{
	Description: nowFunc.Description(),
	Type:        function.StaticReturnType(cty.String),
	Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.UnknownVal(cty.String), nil
	},
})

// maxExampleFile is the largest file file() reads.
const maxExampleFile = 10 << 20

// fileFunc is file(PATH): the text of a file, relative to baseDir (the
// directory of the config file) and confined to it with os.Root, so that
// neither ".." nor a symbolic link reads outside. It is available in example
// blocks, for recorded responses.
func fileFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Description: "Reads a text file, relative to the config file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			b, err := readConfined(baseDir, p)
			if err != nil {
				// The detail is the whole sentence, without HCL's
				// "Invalid value for "path" parameter" before it.
				return cty.NilVal, &funcError{msg: err.Error(), summary: "Cannot read file", detail: fmt.Sprintf("file() cannot read %q: %s.", p, err)}
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

// funcError is an error of one of the language's own functions that says
// all there is to say: fixFunctionDiags makes it the whole diagnostic, in
// place of HCL's "Error in function call" and "Call to function ...
// failed". Elsewhere (a call-time error) its message is msg.
type funcError struct {
	msg, summary, detail string
	// arg is the argument the diagnostic points at.
	arg int
}

func (e *funcError) Error() string { return e.msg }

// fixFunctionDiags rewrites the diagnostics of failed calls of the
// language's own functions (env, file) with their own summary and detail,
// pointing at the argument, and adds the HCL name to HCL's "no function
// named" when the name is another language's (functionAliases).
func fixFunctionDiags(diags hcl.Diagnostics) {
	for _, d := range diags {
		// HCL's unknown function, when HCL found nothing close: the name
		// another language gives a function HCL has.
		if d.Summary == "Call to unknown function" {
			if rest, ok := strings.CutPrefix(d.Detail, "There is no function named \""); ok {
				if name, ok := strings.CutSuffix(rest, "\"."); ok && functionAlias(name) != "" {
					d.Detail += fmt.Sprintf(" HCL calls it %q.", functionAlias(name))
				}
			}
			continue
		}
		extra, ok := hcl.DiagnosticExtra[hclsyntax.FunctionCallDiagExtra](d)
		if !ok {
			continue
		}
		var fe *funcError
		if !errors.As(extra.FunctionCallError(), &fe) {
			continue
		}
		d.Summary, d.Detail = fe.summary, fe.detail
		if call, ok := d.Expression.(*hclsyntax.FunctionCallExpr); ok && fe.arg < len(call.Args) {
			d.Subject = call.Args[fe.arg].Range().Ptr()
			d.Context = call.Range().Ptr()
		}
	}
}

// readConfined reads the text file p inside dir. Its errors are sentences
// that say what to do.
func readConfined(dir, p string) ([]byte, error) {
	if p == "" {
		return nil, errors.New("the path is empty; give a file's path relative to the config file, such as \"testdata/response.json\"")
	}
	// On Windows, a path rooted without a drive (/etc/hostname, \x) is
	// not absolute to filepath.IsAbs, but it is meant as one.
	if filepath.IsAbs(p) || filepath.VolumeName(p) == "" && os.IsPathSeparator(p[0]) {
		return nil, fmt.Errorf("%s is an absolute path; give a path relative to the config file's directory (%s), such as \"testdata/response.json\"", p, dirNote(dir))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("the config file's directory %s cannot be opened: %v", dir, err)
	}
	defer root.Close()
	f, err := regular.OpenIn(root, filepath.FromSlash(p))
	if err != nil {
		var nr *regular.NotRegularError
		switch {
		case errors.As(err, &nr) && nr.Mode.IsDir():
			return nil, fmt.Errorf("%s is a directory; give the path of a file", p)
		case errors.As(err, &nr):
			return nil, fmt.Errorf("%s is %s, not a regular file; file() reads only regular files, which it can read without waiting (a FIFO would wait for a writer): give the path of a text file", p, regular.Kind(nr.Mode))
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("there is no file %s in %s, the config file's directory, which file() paths are relative to (not the working directory); correct the path, or put the file there", p, dirNote(dir))
		case strings.Contains(err.Error(), "escapes"):
			return nil, fmt.Errorf("%s is outside the config file's directory (%s); file() reads only files in it and below", p, dirNote(dir))
		}
		return nil, fmt.Errorf("cannot read %s: %v", p, files.Bare(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", p, files.Bare(err))
	}
	if info.Size() > maxExampleFile {
		return nil, fmt.Errorf("%s has %d bytes, more than file() reads (%d)", p, info.Size(), maxExampleFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxExampleFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", p, files.Bare(err))
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%s is not UTF-8 text; file() reads text only", p)
	}
	return b, nil
}

// dirNote names a directory in a message, as an absolute path: a relative
// one, "." above all, would not say which directory was searched.
func dirNote(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// nowFunc is now() (and timestamp()): the current time in RFC 3339, in the
// host's local zone, ready for formatdate.
var nowFunc = function.New(&function.Spec{
	Description: "The current date and time, as an RFC 3339 timestamp.",
	Type:        function.StaticReturnType(cty.String),
	Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.StringVal(time.Now().Format(time.RFC3339)), nil
	},
})

var urlEncodeFunc = function.New(&function.Spec{
	Description: "Encodes a string for a URL query.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(url.QueryEscape(args[0].AsString())), nil
	},
})

var base64EncodeFunc = function.New(&function.Spec{
	Description: "Encodes a string in base64.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

var base64DecodeFunc = function.New(&function.Spec{
	Description: "Decodes a base64 string.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "not valid base64: %s", err)
		}
		if !utf8.Valid(b) {
			return cty.NilVal, function.NewArgErrorf(0, "the decoded bytes are not UTF-8 text; base64decode returns text only")
		}
		return cty.StringVal(string(b)), nil
	},
})

// StaticEval is the evaluation context for expressions evaluated when the
// config is loaded: functions only, no variables.
func StaticEval(lookup EnvLookup) *hcl.EvalContext {
	return &hcl.EvalContext{Functions: Functions(lookup)}
}

// functionAliases are the names other languages give to functions HCL has
// under another name, too far from it for suggest.Closest to find: a call of
// one is told the HCL name. An array, not a map: it is static data, which
// costs a start nothing, and it is read only when a config has an error.
var functionAliases = [...]struct{ from, to string }{
	{"upcase", "upper"},
	{"uppercase", "upper"},
	{"toupper", "upper"},
	{"to_upper", "upper"},
	{"toUpperCase", "upper"},
	{"strtoupper", "upper"},
	{"downcase", "lower"},
	{"lowercase", "lower"},
	{"tolower", "lower"},
	{"to_lower", "lower"},
	{"toLowerCase", "lower"},
	{"strtolower", "lower"},
	{"capitalize", "title"},
	{"titlecase", "title"},
	{"ucwords", "title"},
	{"len", "length"},
	{"size", "length"},
	{"count", "length"},
	{"strip", "trimspace"},
	{"chop", "chomp"},
	{"int", "parseint"},
	{"atoi", "parseint"},
	{"parseInt", "parseint"},
	{"to_i", "parseint"},
	{"sprintf", "format"},
	{"printf", "format"},
	{"fmt", "format"},
	{"strftime", "formatdate"},
	{"date", "formatdate"},
	{"date_format", "formatdate"},
	{"json", "jsonencode"},
	{"tojson", "jsonencode"},
	{"to_json", "jsonencode"},
	{"stringify", "jsonencode"},
	{"json_encode", "jsonencode"},
	{"dumps", "jsonencode"},
	{"fromjson", "jsondecode"},
	{"from_json", "jsondecode"},
	{"parse_json", "jsondecode"},
	{"json_decode", "jsondecode"},
	{"loads", "jsondecode"},
	{"gsub", "replace"},
	{"sub", "replace"},
	{"replace_all", "replace"},
	{"replaceAll", "replace"},
	{"str_replace", "replace"},
	{"includes", "contains"},
	{"in_array", "contains"},
	{"substring", "substr"},
	{"implode", "join"},
	{"explode", "split"},
	{"encodeURIComponent", "urlencode"},
	{"quote_plus", "urlencode"},
	{"escape", "urlencode"},
	{"ifnull", "coalesce"},
	{"nvl", "coalesce"},
	{"default", "coalesce"},
}

// functionAlias is the HCL name of another language's name for a
// function, or "".
func functionAlias(name string) string {
	for _, a := range functionAliases {
		if a.from == name {
			return a.to
		}
	}
	return ""
}

// sensitiveFunc is sensitive(VALUE): the value unchanged. Used in an http
// block's headers or query, it marks the value as a credential, redacted
// from every error message, whatever the header's name.
var sensitiveFunc = function.New(&function.Spec{
	Description: "Marks a header or query value as a credential; returns it unchanged.",
	Params:      []function.Parameter{{Name: "value", Type: cty.String, AllowNull: true}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0], nil
	},
})
