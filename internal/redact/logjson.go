package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MaxLogged is the most bytes of one message a log line shows; the rest
// is cut, with a note of the message's length.
const MaxLogged = 2048

// maxScanned is the longest string whose credentials by form (see
// ValueSecrets) LogMask looks for: longer ones (a file's contents) are
// masked only where they hold a secret already known.
const maxScanned = 64 << 10

// LogMask shows JSON messages in a log without their secrets: the values
// under keys named like credentials (see SensitiveName), the arguments of
// the parameters marked sensitive, and wherever they appear, the values
// so masked and the credentials known by their form. One LogMask serves
// a request and then its response, so that the response does not show
// what the request's sensitive arguments held.
type LogMask struct {
	// Sensitive names the arguments whose values are never shown: the
	// parameters marked sensitive of the tool or prompt called.
	Sensitive map[string]bool
	// ArgumentsKey is the key of the object that holds the arguments, as
	// in a tools/call's params; "" when the message is the arguments.
	ArgumentsKey string
	// Secrets are masked wherever they appear; Show adds those it finds.
	Secrets []string
}

// Show returns raw as a log line shows it: masked (see LogMask), compact,
// and cut to MaxLogged bytes with a note of its length. A message that is
// not JSON is shown masked of the secrets known and those of its form.
func (m *LogMask) Show(raw []byte) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	text := string(raw)
	if err := d.Decode(&v); err == nil {
		if obj, ok := v.(map[string]any); ok && m.ArgumentsKey != "" {
			if args, ok := obj[m.ArgumentsKey].(map[string]any); ok {
				m.walkArgs(args)
			}
			for k, e := range obj {
				if k != m.ArgumentsKey {
					obj[k] = m.walk(k, e)
				}
			}
		} else if obj, ok := v.(map[string]any); ok {
			m.walkArgs(obj)
		} else {
			v = m.walk("", v)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			text = string(bytes.TrimRight(b.Bytes(), "\n"))
		}
	} else if len(text) <= maxScanned {
		m.Secrets = append(m.Secrets, ValueSecrets(text)...)
	}
	shown, cut := RedactHead(text, MaxLogged, m.Secrets, false)
	if cut {
		shown += fmt.Sprintf(" ... (cut; %d bytes in all)", len(text))
	}
	return shown
}

// walkArgs masks the arguments of sensitive parameters in args, then
// walks the others.
func (m *LogMask) walkArgs(args map[string]any) {
	for k, e := range args {
		if m.Sensitive[k] {
			m.collect(e)
			args[k] = SensitiveMark
			continue
		}
		args[k] = m.walk(k, e)
	}
}

// walk returns v, under key, with what it holds of secrets masked.
func (m *LogMask) walk(key string, v any) any {
	return m.walkIn(key != "" && SensitiveName(key), v)
}

// walkIn masks v, or what it holds: the strings and numbers of a value
// under a key named like a credential (secret), itself or in a list, are
// masked, while an object's own keys decide for their values (a schema's
// "password" property is no password).
func (m *LogMask) walkIn(secret bool, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = m.walk(k, e)
		}
	case []any:
		for i, e := range x {
			x[i] = m.walkIn(secret, e)
		}
	case string:
		if secret && !plainWord(x) {
			m.Secrets = append(m.Secrets, x)
			return redactedMark
		}
		if len(x) <= maxScanned {
			m.Secrets = append(m.Secrets, ValueSecrets(x)...)
		}
	case json.Number:
		if secret {
			m.Secrets = append(m.Secrets, x.String())
			return redactedMark
		}
	}
	return v
}

// collect adds the strings v holds to the secrets masked elsewhere.
func (m *LogMask) collect(v any) {
	switch x := v.(type) {
	case string:
		m.Secrets = append(m.Secrets, x)
	case json.Number:
		m.Secrets = append(m.Secrets, x.String())
	case map[string]any:
		for _, e := range x {
			m.collect(e)
		}
	case []any:
		for _, e := range x {
			m.collect(e)
		}
	}
}
