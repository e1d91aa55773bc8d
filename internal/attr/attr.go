// Package attr reads the arguments of config blocks that are fixed when the
// config loads, with one wording for every block that has them: the
// config's own (package hcl) and the backends' (exec, http, template).
// It holds the check that a value is constant, durations, sizes in bytes
// and the names of types in messages. It imports no toolhost package.
package attr

import (
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// TypeName names a type with an article, for messages: "a string",
// "an object", "a list of number".
func TypeName(ty cty.Type) string {
	name := ty.FriendlyName()
	if strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// WantName names a type a value must have, as a config author writes it:
// "a string", "true or false".
func WantName(t cty.Type) string {
	switch {
	case t == cty.String:
		return "a string"
	case t == cty.Number:
		return "a number"
	case t == cty.Bool:
		return "true or false"
	}
	return t.FriendlyName()
}
