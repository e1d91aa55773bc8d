package files

import (
	"io/fs"
	"runtime"
	"strings"
)

// windowsNames is true where file names follow Windows rules: there, a
// name that Windows rewrites or reads as something else than a plain file
// of the directory is refused by validName.
const windowsNames = runtime.GOOS == "windows"

// validName reports whether a client-supplied name may be looked up, by
// the rules of the system it runs on (see validNameOn).
func validName(name string) bool {
	return validNameOn(name, windowsNames)
}

// validNameOn reports whether a client-supplied name may be looked up: a
// relative slash-separated path of valid UTF-8 with no empty, "." or ".."
// segments, no backslash, no NUL byte, of a sane length, and, on every
// system, with no colon and no segment that is a Windows device name.
//
// The colon and the device names are refused everywhere because they are
// cheap to refuse and could not be served the same way on Windows: there a
// colon names an alternate data stream ("file.txt:secret",
// "file.txt::$DATA") or a drive ("C:x"), and a segment such as "NUL",
// "con.txt" or "COM1 .log" opens a device rather than a file. With
// windows set, a name is also refused when one of its segments:
//
//   - ends in a dot or a space, which Windows strips, so that "notes.md."
//     would be a second name for "notes.md";
//   - holds a character Windows file names cannot hold (< > " | ? * and
//     control characters), which Windows would refuse anyway;
//   - has the shape of an 8.3 short name ("PROGRA~1", "REPORT~2.PDF"):
//     a short name is a second name for a file of the same directory, so
//     it cannot lead out of the root, but it lets a client reach a file
//     under a name other than the one List shows and a template's pattern
//     was written for (a "{name}.txt" template reaching "SECRET~1.TXT", the
//     short name of "secret.txt.bak"). Such names are refused rather than
//     resolved; a file whose real name has that shape is not served on
//     Windows.
//
// UNC paths ("\\server\share") and "\\?\" prefixes are refused by the
// backslash rule, and drive-letter paths ("C:/x") by the colon rule.
func validNameOn(name string, windows bool) bool {
	if name == "" || len(name) > maxNameLen || name == "." ||
		!fs.ValidPath(name) || // valid UTF-8; no leading "/", empty, "." or ".." segment
		strings.ContainsAny(name, "\\:\x00") {
		return false
	}
	for seg := range strings.SplitSeq(name, "/") {
		if isDeviceName(seg) || windows && !validWindowsSegment(seg) {
			return false
		}
	}
	return true
}

// validWindowsSegment reports whether seg, one segment of a name, names the
// same file on Windows as it says: see validNameOn.
func validWindowsSegment(seg string) bool {
	if last := seg[len(seg)-1]; last == '.' || last == ' ' {
		return false
	}
	if strings.ContainsFunc(seg, func(r rune) bool {
		return r < 0x20 || strings.ContainsRune(`<>"|?*`, r)
	}) {
		return false
	}
	return !isShortName(seg)
}

// isShortName reports whether seg has the shape of an 8.3 short name that
// Windows generates: a base of at most eight characters holding a tilde
// followed by digits up to its end, and an extension of at most three
// characters.
func isShortName(seg string) bool {
	base, ext, hasExt := strings.Cut(seg, ".")
	if len(base) > 8 || hasExt && (len(ext) > 3 || strings.Contains(ext, ".")) {
		return false
	}
	i := strings.LastIndexByte(base, '~')
	if i < 0 || i == len(base)-1 {
		return false
	}
	for _, c := range base[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDeviceName reports whether seg names a Windows device: CON, PRN, AUX,
// NUL, CONIN$, CONOUT$, COM0 to COM9 and LPT0 to LPT9 (also with a
// superscript ¹, ² or ³), in any case, followed or not by an extension,
// spaces or dots ("nul.txt", "Con .md", "com1..").
func isDeviceName(seg string) bool {
	base, _, _ := strings.Cut(seg, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || base[:3] != "COM" && base[:3] != "LPT" {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}
