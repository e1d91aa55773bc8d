package attr

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// DurationRange is what a duration argument, such as timeout, may be.
type DurationRange struct {
	// Min and Max bound the duration, both included. A Min of zero means
	// more than zero, unless Zero is set.
	Min, Max time.Duration
	// Zero allows zero when Min is zero, as a kill_timeout of "0s".
	Zero bool
	// Example is a value in range, as `"30s"`, and Examples a few, as
	// `"30s", "2m" or "1h"`: all in range, so that the fix a message
	// suggests is one that loads.
	Example, Examples string
}

// Duration reads v, the constant value of a, as a duration string in r.
// On failure it returns diagnostics naming a: "Invalid NAME" for a value
// that is not a duration (with a "Did you mean" in seconds for a bare
// number), "NAME out of range" for one out of r (the name capitalised
// when it is one word, as "Timeout out of range").
func Duration(a *hcl.Attribute, v cty.Value, r DurationRange) (time.Duration, hcl.Diagnostics) {
	invalid := func(summary, detail string) (time.Duration, hcl.Diagnostics) {
		return 0, hcl.Diagnostics{{
			Severity:   hcl.DiagError,
			Summary:    summary,
			Detail:     detail,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}}
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil || sv.IsNull() {
		return invalid("Invalid "+a.Name, fmt.Sprintf("The %s must be a duration string, and this is %s. "+
			`Write a number with a unit, such as %s.`, a.Name, TypeName(v.Type()), r.Examples))
	}
	s := sv.AsString()
	d, err := time.ParseDuration(s)
	if err != nil {
		hint := durationHint(s)
		if d, err := time.ParseDuration(strings.TrimSpace(s) + "s"); err != nil || d < r.Min || d > r.Max {
			hint = "" // the seconds it would be are out of range too
		}
		return invalid("Invalid "+a.Name, fmt.Sprintf(`%q is not a duration. Write a number with a unit, such as %s `+
			`(units are ms, s, m and h).%s`, s, r.Examples, hint))
	}
	if d < r.Min || (d == 0 && !r.Zero) || d > r.Max {
		low := "more than zero"
		switch {
		case r.Min > 0:
			low = "at least " + DurationText(r.Min)
		case r.Zero:
			low = "zero or more"
		}
		title := a.Name
		if !strings.Contains(title, "_") {
			title = strings.ToUpper(title[:1]) + title[1:]
		}
		return invalid(title+" out of range", fmt.Sprintf("The %s is %s, and it must be %s and at most %s. "+
			`Write a duration in that range, such as %s.`, a.Name, DurationText(d), low, DurationText(r.Max), r.Example))
	}
	return d, nil
}

// durationHint suggests, for a duration written as a bare number, the same
// number in seconds: ` Did you mean "5s"?` for "5"; "" otherwise.
func durationHint(s string) string {
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", strings.TrimSpace(s)+"s")
}

// DurationText formats d for messages, without zero minutes and seconds:
// "1h" and "10m", not "1h0m0s" and "10m0s".
func DurationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
