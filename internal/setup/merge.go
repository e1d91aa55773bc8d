package setup

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tailscale/hujson"
)

// FileError is a problem with an editor's config file that setup does not
// write over: it does not parse, or its shape is not an editor's config.
// The file is left as it was.
type FileError struct {
	Path         string
	Line, Column int // where the problem is, from 1; 0 when nowhere in particular
	Problem      string
	Fix          string
}

func (e *FileError) Error() string {
	place := e.Path
	if e.Line > 0 {
		place = fmt.Sprintf("%s:%d:%d", e.Path, e.Line, e.Column)
	}
	return fmt.Sprintf("%s: %s. %s", place, e.Problem, e.Fix)
}

// merge is the outcome of merging an entry into a file's content.
type merge struct {
	out []byte // the new content
	old []byte // the entry that was replaced, as it was; nil when added
	// unchanged: the file already has the same entry, and out is src.
	unchanged bool
	kept      []string // the settings of the entry replaced that it keeps
}

// replaced are the members of a server entry that setup writes, and those
// that say how to reach a server some other way (a remote one): an entry
// replaced loses them, and keeps the rest (env, disabled, autoApprove...).
var replaced = map[string]bool{"type": true, "command": true, "args": true, "url": true, "serverUrl": true, "headers": true, "transport": true}

// keepSettings adds to entry, the new entry, the members of old that the
// user set (env, disabled, ...), when old was a command's entry too: a
// replaced entry keeps its settings. It returns their names.
func keepSettings(entry *hujson.Object, old hujson.ValueTrimmed, indent, unit, nl string) []string {
	obj, ok := old.(*hujson.Object)
	if !ok || valueOf(obj, "command") == nil {
		return nil
	}
	var kept []string
	for _, mem := range obj.Members {
		lit, ok := mem.Name.Value.(hujson.Literal)
		if !ok || replaced[lit.String()] {
			continue
		}
		v := mem.Value.Clone()
		v.BeforeExtra, v.AfterExtra = nil, nil
		appendMember(entry, lit.String(), v, indent, indent+unit, unit != "", nl)
		kept = append(kept, lit.String())
	}
	return kept
}

// utf8BOM starts the files of some Windows editors; JSON parsers that
// accept it, editors' among them, skip it.
var utf8BOM = []byte("\xef\xbb\xbf")

// mergeEntry merges the server s, named name, into the servers object of
// e's config file whose content is src: it replaces the entry of that
// name when there is one, and adds it at the end of the object otherwise,
// creating the object when the file has none. Everything else in src is
// kept byte for byte: other servers and settings, comments, trailing
// commas, line endings, a byte order mark. New lines are indented as the
// file's are. An empty src is taken as an empty object.
func mergeEntry(src []byte, e Editor, name string, s Server) (merge, error) {
	if bytes.HasPrefix(src, []byte("\xff\xfe")) || bytes.HasPrefix(src, []byte("\xfe\xff")) {
		return merge{}, &FileError{Problem: "the file is in UTF-16 (as Windows PowerShell 5 writes with > or Out-File), which " + e.Title + " does not read",
			Fix: "Save it as UTF-8 (in PowerShell: Get-Content FILE | Set-Content -Encoding utf8 FILE; in an editor: Save with Encoding, UTF-8) and run setup again"}
	}
	body, bom := bytes.CutPrefix(src, utf8BOM)
	nl := "\n"
	if bytes.Contains(body, []byte("\r\n")) {
		nl = "\r\n"
	}
	empty := len(bytes.TrimSpace(body)) == 0
	if empty {
		body = []byte("{}" + nl)
	}
	root, err := hujson.Parse(body)
	if err != nil {
		line, col, msg := syntaxPlace(err)
		return merge{}, &FileError{Line: line, Column: col, Problem: "this is not valid JSON (" + msg + ")",
			Fix: "Fix it in an editor (" + e.Title + " ignores the file while it does not parse), or move it away to start a new one; setup never writes over a file it cannot read"}
	}
	top, ok := root.Value.(*hujson.Object)
	if !ok {
		line, col := lineColumn(body, root.StartOffset)
		return merge{}, &FileError{Line: line, Column: col, Problem: "the file holds " + kindName(root.Value.Kind()) + ", where " + e.Title + " expects an object (\"{...}\") with a \"" + e.ServersKey + "\" member",
			Fix: "Fix it by hand, or move it away to start a new one; setup never writes over a file it does not understand"}
	}
	serversValue := valueOf(top, e.ServersKey)
	if serversValue != nil && serversValue.Value.Kind() == 'n' {
		// "mcpServers": null, as a tool that empties the list may leave
		// it: no servers yet.
		serversValue.Value = &hujson.Object{}
	}
	if serversValue != nil && serversValue.Value.Kind() != '{' {
		line, col := lineColumn(body, serversValue.StartOffset)
		return merge{}, &FileError{Line: line, Column: col, Problem: fmt.Sprintf("%q is %s, where %s expects an object of servers by name", e.ServersKey, kindName(serversValue.Value.Kind()), e.Title),
			Fix: "Fix it by hand; setup never writes over a file it does not understand"}
	}
	unit := e.Indent
	topIndent, topMulti := layout(top, "", unit)
	if topMulti && topIndent != "" && len(top.Members) > 0 {
		unit = topIndent // the file's own indentation
	}
	var m merge
	if serversValue == nil {
		servers := &hujson.Object{}
		if topMulti {
			indent, _ := layout(servers, topIndent, unit)
			appendMember(servers, name, parseValue(s.marshal(indent, unit), nl), topIndent, indent, true, nl)
		} else {
			appendMember(servers, name, parseValue(s.marshal("", ""), nl), "", "", false, nl)
		}
		appendMember(top, e.ServersKey, hujson.Value{Value: servers}, "", topIndent, topMulti, nl)
	} else {
		servers := serversValue.Value.(*hujson.Object)
		indent, multi := layout(servers, topIndent, unit)
		if len(servers.Members) == 0 && !topMulti {
			multi = false // {"mcpServers": {}} stays on its line
		}
		if !multi {
			unit = ""
		}
		if old := valueOf(servers, name); old != nil {
			m.old = hujson.Value{Value: old.Value}.Pack()
			indent := memberIndent(servers, old, multi)
			v := parseValue(s.marshal(indent, unit), nl)
			m.kept = keepSettings(v.Value.(*hujson.Object), old.Value, indent, unit, nl)
			if sameJSON(m.old, v.Pack()) {
				return merge{out: src, old: m.old, unchanged: true}, nil
			}
			old.Value = v.Value
		} else {
			appendMember(servers, name, parseValue(s.marshal(indent, unit), nl), topIndent, indent, multi, nl)
		}
	}
	out := root.Pack()
	if empty && !bytes.HasSuffix(out, []byte(nl)) {
		out = append(out, nl...)
	}
	if bom {
		out = append(append([]byte{}, utf8BOM...), out...)
	}
	m.out = out
	return m, nil
}

// valueOf is the value of obj's member named name: the last one, as the
// editors' JSON parsers take it when a name is given twice.
func valueOf(obj *hujson.Object, name string) *hujson.Value {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// layout is how obj, whose own line is indented by indent, lays out its
// members: on lines of their own, indented by the returned indent (as its
// members are, or one unit more than obj when it has none), or all on one
// line (multi false). An empty object is laid out on lines.
func layout(obj *hujson.Object, indent, unit string) (childIndent string, multi bool) {
	if len(obj.Members) == 0 {
		return indent + unit, true
	}
	if !bytes.Contains(obj.Members[0].Name.BeforeExtra, []byte("\n")) {
		return "", false
	}
	return lastLineIndent(obj.Members[len(obj.Members)-1].Name.BeforeExtra), true
}

// memberIndent is the indentation of the line of obj's member whose value
// is v.
func memberIndent(obj *hujson.Object, v *hujson.Value, multi bool) string {
	if !multi {
		return ""
	}
	for i := range obj.Members {
		if &obj.Members[i].Value == v {
			return lastLineIndent(obj.Members[i].Name.BeforeExtra)
		}
	}
	return ""
}

// lastLineIndent is the white space that starts the last line of extra.
func lastLineIndent(extra hujson.Extra) string {
	line := extra[bytes.LastIndexByte(extra, '\n')+1:]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// appendMember adds name: v as the last member of obj, whose own line is
// indented by indent: on a line of its own indented by childIndent when
// multi, after the others on their line otherwise. Comments after the last
// member stay before the new one; a trailing comma stays at the end.
func appendMember(obj *hujson.Object, name string, v hujson.Value, indent, childIndent string, multi bool, nl string) {
	member := hujson.ObjectMember{Name: hujson.Value{Value: hujson.String(name)}, Value: v}
	member.Value.BeforeExtra = hujson.Extra(" ")
	n := len(obj.Members)
	if n > 0 {
		last := obj.Members[n-1]
		member.Value.BeforeExtra = append(hujson.Extra{}, last.Value.BeforeExtra...)
		if last.Value.AfterExtra != nil {
			member.Value.AfterExtra = hujson.Extra{} // the trailing comma
		}
	}
	if !multi {
		if n > 0 {
			member.Name.BeforeExtra = append(hujson.Extra{}, obj.Members[0].Name.BeforeExtra...)
		}
		obj.Members = append(obj.Members, member)
		return
	}
	// What follows the last member up to the closing brace: the comments
	// in it stay there, before the new member, and the brace keeps its
	// line.
	after := []byte(obj.AfterExtra)
	head, closing := after, []byte(nl+indent)
	if k := bytes.LastIndexByte(after, '\n'); k >= 0 && len(bytes.TrimLeft(after[k+1:], " \t")) == 0 {
		if k > 0 && after[k-1] == '\r' {
			k--
		}
		head, closing = after[:k], after[k:]
	}
	head = bytes.TrimRight(head, " \t")
	if len(bytes.TrimSpace(head)) == 0 {
		head = nil
	}
	member.Name.BeforeExtra = hujson.Extra(string(head) + nl + childIndent)
	obj.AfterExtra = append(hujson.Extra{}, closing...)
	obj.Members = append(obj.Members, member)
}

// parseValue parses JSON that marshal made, with its line breaks made nl.
func parseValue(b []byte, nl string) hujson.Value {
	if nl != "\n" {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte(nl))
	}
	v, err := hujson.Parse(b)
	if err != nil {
		panic("setup: marshalled JSON does not parse: " + err.Error())
	}
	return v
}

// sameJSON reports whether a and b are the same JSON text but for white
// space, comments and trailing commas.
func sameJSON(a, b []byte) bool {
	ma, err := hujson.Minimize(a)
	if err != nil {
		return false
	}
	mb, err := hujson.Minimize(b)
	return err == nil && bytes.Equal(ma, mb)
}

// hujsonPlace is how hujson starts its syntax errors, compiled at first
// use rather than at every start of toolhost.
var hujsonPlace = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)
})

// syntaxPlace splits a hujson syntax error into its line, column and
// message.
func syntaxPlace(err error) (line, col int, msg string) {
	sm := hujsonPlace().FindStringSubmatch(err.Error())
	if sm == nil {
		return 0, 0, strings.TrimPrefix(err.Error(), "hujson: ")
	}
	line, _ = strconv.Atoi(sm[1])
	col, _ = strconv.Atoi(sm[2])
	return line, col, sm[3]
}

// lineColumn is the line and column, from 1, of the byte at offset n.
func lineColumn(b []byte, n int) (line, col int) {
	line = 1 + bytes.Count(b[:n], []byte("\n"))
	return line, 1 + n - (bytes.LastIndexByte(b[:n], '\n') + 1)
}

// kindName names a JSON value's kind with its article, for messages.
func kindName(k hujson.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	default:
		return "null"
	}
}
