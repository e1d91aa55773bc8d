package exec

import (
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/adapters"
)

// SizeCapSetting names the setting that caps a command's output.
func (e *Exec) SizeCapSetting() string { return "max_output in its exec block" }

// OutputName names what an exec tool's output is.
func (e *Exec) OutputName() string { return "the command's standard output" }

// CheckAnswer refuses an answer that would pass for an option: an answer
// is one argv element, like a parameter.
func (e *Exec) CheckAnswer(name, value string) error {
	if strings.HasPrefix(value, "-") {
		return fmt.Errorf("the user's answer %q may not start with \"-\": the command would read it as an option", name)
	}
	return nil
}

// DescribeOutput says what the command's output is (see OutputDescriber).
func (e *Exec) DescribeOutput() string {
	switch {
	case !e.binary:
		return "text"
	case e.mimeType != "":
		return "the command's bytes, as " + e.mimeType
	}
	return "the command's bytes, of the media type they are sniffed as"
}

var (
	_ adapters.OutputDescriber = (*Exec)(nil)
	_ adapters.SizeCapper      = (*Exec)(nil)
	_ adapters.OutputNamer     = (*Exec)(nil)
	_ adapters.AnswerChecker   = (*Exec)(nil)
)
