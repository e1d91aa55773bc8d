// Package redact keeps secrets out of the messages toolhost writes: it
// masks the values a call sent that must not be shown, and what is a
// credential by its name or its form (tokens, keys, URLs with passwords),
// before a message is cut to length, so that a cut never shows part of one.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"iter"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// minSecretLen is the shortest value redacted: shorter ones would blank out
// ordinary words of a message.
const minSecretLen = 4

// SensitiveName reports whether a header, query parameter, environment
// variable or connection-string key names a credential. The name is split
// into words, at every character that is not a letter or a digit, at case
// changes (apiKey, XAuthToken) and between letters and digits; it names a
// credential when a word is one of secretWords, or contains one of
// secretParts, or when two words in a row are one of secretPairs, or when
// the whole name is one of secretNames: Authorization, Cookie, X-Api-Key,
// access_token, GITHUB_PAT, X-Jwt, X-Pass, DB_PWD, MY_CREDS, sig, code,
// X-Pin, SSH_PRIVKEY, X-Csrf, AUTHORISATION, SEED_PHRASE, RECOVERY_CODES.
// Words are whole, so that PATH, PATTERN, KEYBOARD, PASSTHROUGH, SIGNAL,
// GIT_AUTHOR_NAME, PINNED and SPINE are not.
func SensitiveName(name string) bool {
	if len(name) <= len("code") && slices.Contains(secretNames, strings.ToLower(name)) {
		return true
	}
	prev := ""
	for w := range nameWords(name) {
		w = strings.ToLower(w)
		if slices.Contains(secretWords, w) || slices.Contains(secretPairs, prev+" "+w) {
			return true
		}
		for _, p := range secretParts {
			if strings.Contains(w, p) {
				return true
			}
		}
		prev = w
	}
	return false
}

// secretWords are the words that make a name a credential's: short ones,
// which would be found inside ordinary words (path, keyboard, signal).
var secretWords = []string{"auth", "authn", "authz", "pass", "pw", "pwd", "psw", "pswd", "pword", "pat", "jwt", "sig", "key", "keys",
	"cred", "creds", "sid", "otp", "totp", "hotp", "mfa", "psk", "dsn", "pin", "ticket"}

// secretParts make a name a credential's wherever they are in one of its
// words: access_token, clientsecret, passwd, Proxy-Authorization,
// Authorisation, csrftoken, privkey.
var secretParts = []string{"token", "secret", "passw", "passphrase", "passcode", "passkey", "credential", "cookie", "session",
	"signature", "apikey", "accesskey", "privatekey", "privkey", "sshkey", "hmac", "authoriz", "authoris", "authentic", "oauth",
	"bearer", "webhook", "csrf", "xsrf", "mnemonic", "seedphrase", "pincode", "recoverycode", "backupcode"}

// secretPairs are the two words in a row that make a name a credential's,
// where neither does alone: a wallet's seed phrase, an account's recovery
// codes, and not a random seed or a status code.
var secretPairs = []string{"seed phrase", "seed words", "recovery code", "recovery codes", "recovery phrase", "recovery seed",
	"backup code", "backup codes"}

// secretNames are the names that are a credential's only on their own: an
// OAuth callback's code, and not a country_code or a status_code.
var secretNames = []string{"code"}

// nameWords yields the words of a name (see SensitiveName), as they are
// written.
func nameWords(name string) iter.Seq[string] {
	const other, lower, upper, digit = 0, 1, 2, 3
	kind := func(r rune) int {
		switch {
		case unicode.IsLower(r):
			return lower
		case unicode.IsUpper(r):
			return upper
		case unicode.IsDigit(r):
			return digit
		}
		return other
	}
	return func(yield func(string) bool) {
		start, prev := -1, other
		for i, r := range name {
			k := kind(r)
			if start >= 0 {
				next := other
				if n, _ := utf8.DecodeRuneInString(name[i+utf8.RuneLen(r):]); n != utf8.RuneError {
					next = kind(n)
				}
				if k == other || prev == lower && k == upper || // apiKey
					(prev == digit) != (k == digit) || // key2, 2fa
					prev == upper && k == upper && next == lower { // XAuth, HTTPHeader
					if !yield(name[start:i]) {
						return
					}
					start = -1
				}
			}
			if start < 0 && k != other {
				start = i
			}
			prev = k
		}
		if start >= 0 {
			yield(name[start:])
		}
	}
}

// ValueSecrets returns the credentials inside a value that is not named
// like one, each once: those messageSecrets finds, and the values of the
// keys named like credentials (see SensitiveName) in a connection string,
// a query string or JSON (Server=db;Password=..., host=db password=...,
// ...?sv=...&sig=..., {"password": "..."}).
func ValueSecrets(v string) []string {
	out := messageSecrets(v)
	for _, kv := range keyValueRes {
		if !strings.ContainsAny(v, kv.markers) {
			continue
		}
		if kv.markers == spaceStyle && !strings.ContainsAny(v, " \t\n") && strings.ContainsAny(v, ";&?") {
			continue // a value of another style, without spaces
		}
		for _, m := range kv.re.get().FindAllStringSubmatch(v, -1) {
			if SensitiveName(strings.TrimSpace(m[1])) {
				if val := strings.Trim(m[2], `'"{}`); len(val) >= minSecretLen && !isMark(val) {
					out = append(out, val)
				}
			}
		}
	}
	return compactStrings(out)
}

// isMark reports whether v is what masking left in place of a value
// (SensitiveMark or redactedMark), or the start of one as a key=value
// pair split at spaces takes it: masked again, it would be mangled
// ("(redacted) value)").
func isMark(v string) bool {
	return strings.HasPrefix(SensitiveMark, v) || strings.HasPrefix(redactedMark, v)
}

// compactStrings drops the repeats from ss, keeping the first of each.
func compactStrings(ss []string) []string {
	seen := map[string]bool{}
	return slices.DeleteFunc(ss, func(s string) bool {
		dup := seen[s]
		seen[s] = true
		return dup
	})
}

// messageSecrets returns the credentials in s that are known by their
// form alone: the password of a URL's userinfo (postgres://app:PASSWORD@db),
// or its user name when there is no password and the name is long enough
// to be a key (https://TOKEN@host); the values of a URL's query parameters
// named like credentials (https://...?sv=...&sig=...); and the tokens of
// secretFormats (ghp_..., github_pat_..., xoxb-..., AKIA..., JWTs, Slack,
// Discord and Teams webhook URLs, the value after Bearer, an npmrc's
// _authToken, ya29...., hvs...., ...).
func messageSecrets(s string) []string {
	var out []string
	eachURL(s, func(authority, query string) {
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			user, pass, ok := strings.Cut(authority[:at], ":")
			switch {
			case ok && pass != "":
				out = append(out, pass)
			case !ok && len(user) >= minUserinfoKeyLen:
				out = append(out, user)
			}
		}
		for pair := range strings.SplitSeq(query, "&") {
			if k, v, ok := strings.Cut(pair, "="); ok && len(v) >= minSecretLen && SensitiveName(k) {
				out = append(out, v)
			}
		}
	})
	for _, f := range secretFormats {
		if !slices.ContainsFunc(f.markers, func(m string) bool { return strings.Contains(s, m) }) {
			continue
		}
		for _, m := range f.re.get().FindAllStringSubmatch(s, -1) {
			if f.check == nil || f.check(m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// eachURL calls f with the authority and the query of each URL in s: the
// text after a "://" up to a space, a quote or an angle bracket, the
// authority up to the first "/", "?" or "#", the query from a "?" to a
// "#".
func eachURL(s string, f func(authority, query string)) {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return
		}
		s = s[i+3:]
		end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(`"'<>`, r) })
		if end < 0 {
			end = len(s)
		}
		u := s[:end]
		authority, query := u, ""
		if j := strings.IndexAny(u, "/?#"); j >= 0 {
			authority = u[:j]
		}
		if q := strings.IndexByte(u, '?'); q >= 0 {
			query, _, _ = strings.Cut(u[q+1:], "#")
		}
		f(authority, query)
		s = s[end:]
	}
}

// lazyRe is a regular expression compiled when it is first used: the
// package's fifty take a millisecond to compile, which every process
// would pay at start-up, and most never redact a message.
type lazyRe struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// lazyRegexp returns pattern, to compile on first use.
func lazyRegexp(pattern string) *lazyRe { return &lazyRe{pattern: pattern} }

// get returns the compiled expression.
func (l *lazyRe) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}

// minUserinfoKeyLen is the shortest user name of a URL without a password
// taken for a key: shorter ones are user names (postgres://postgres@db).
const minUserinfoKeyLen = 16

var (
	// keyValueRes find the key=value pairs of a connection string in
	// each of its styles, when the value holds one of the markers: split
	// at ";", where a key may have spaces (User Id=app;Password=...) and
	// a value runs to the next ";" unless quoted or in braces; a query
	// string (?sv=...&sig=...); JSON ("password": "..."); and split at
	// spaces, where a value may be quoted (host=db password='...').
	keyValueRes = []struct {
		markers string
		re      *lazyRe
	}{
		{";", lazyRegexp(`(?:^|;)\s*([A-Za-z_][A-Za-z0-9 _.-]*?)\s*=\s*('[^']*'|"[^"]*"|\{[^}]*\}|[^;]*)`)},
		{"?&", lazyRegexp(`(?:^|[?&])([^=&?#\s]+)=([^&#\s]*)`)},
		{`":`, lazyRegexp(`"([^"\\]{1,64})"\s*:\s*"((?:[^"\\]|\\.)*)"`)},
		{spaceStyle, lazyRegexp(`(?:^|\s)([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*('[^']*'|"[^"]*"|[^\s;&]*)`)},
	}
)

// spaceStyle are the markers of key=value pairs split at spaces.
const spaceStyle = " \t\n="

// secretFormats are the formats of tokens known to be credentials; the
// first group of each is the secret, if check, when set, accepts it. A
// string holds one only if it contains one of the markers, which spares
// the regular expression.
var secretFormats = []struct {
	markers []string
	re      *lazyRe
	check   func(string) bool
}{
	{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, lazyRegexp(`\b(gh[pousr]_[A-Za-z0-9]{20,})`), nil},
	{[]string{"github_pat_"}, lazyRegexp(`\b(github_pat_[A-Za-z0-9_]{20,})`), nil},
	{[]string{"glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glimt-", "glft-", "glsoat-", "gloas-"},
		lazyRegexp(`\b(gl(?:pat|ptt|dt|rt|cbt|imt|ft|soat|oas)-[A-Za-z0-9_-]{20,})`), nil},
	{[]string{"xox", "xapp-"}, lazyRegexp(`\b(xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})`), nil},
	{[]string{"AKIA", "ASIA"}, lazyRegexp(`\b((?:AKIA|ASIA)[A-Z0-9]{16})\b`), nil},
	{[]string{"eyJ"}, lazyRegexp(`\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)`), nil},
	{[]string{"hooks.slack.com"}, lazyRegexp(`(https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+)`), nil},
	{[]string{"/api/webhooks/"}, lazyRegexp(`(https?://(?:[a-z]+\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]+)`), nil},
	{[]string{"_live_", "_test_", "sk-"}, lazyRegexp(`\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{20,})`), nil},
	{[]string{"AIza"}, lazyRegexp(`\b(AIza[A-Za-z0-9_-]{35})`), nil},
	{[]string{"Bearer", "bearer"}, lazyRegexp(`\b(?:B|b)earer\s+([A-Za-z0-9._~+/=-]{12,})`), tokenLike},
	{[]string{"npm_"}, lazyRegexp(`\b(npm_[A-Za-z0-9]{36})\b`), nil},
	{[]string{"pypi-"}, lazyRegexp(`\b(pypi-AgE[A-Za-z0-9_-]{50,})`), nil},
	{[]string{"hf_"}, lazyRegexp(`\b(hf_[A-Za-z0-9]{30,})`), nil},
	{[]string{"SG."}, lazyRegexp(`\b(SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})`), nil},
	{[]string{"shpat_", "shpca_", "shppa_", "shpss_"}, lazyRegexp(`\b(shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{32})`), nil},
	{[]string{"_v1_"}, lazyRegexp(`\b(do[opr]_v1_[a-f0-9]{64})`), nil},
	{[]string{"AGE-SECRET-KEY-"}, lazyRegexp(`(AGE-SECRET-KEY-1[0-9A-Z]{58})`), nil},
	{[]string{"webhook.office.com"}, lazyRegexp(`(https?://[A-Za-z0-9.-]*webhook\.office\.com/[^\s"'<>]+)`), nil},
	{[]string{"Basic", "basic"}, lazyRegexp(`\b(?:B|b)asic\s+([A-Za-z0-9+/]{6,}={0,2})`), basicCredentials},
	{[]string{"_auth", "_password"}, lazyRegexp(`(?:^|[\s:"'])_(?:authToken|auth|password)\s*=\s*["']?([^\s"';]{4,})`), notPlaceholder},
	{[]string{"ya29."}, lazyRegexp(`\b(ya29\.[A-Za-z0-9_-]{20,})`), nil},
	{[]string{"dckr_"}, lazyRegexp(`\b(dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,})`), nil},
	{[]string{"hvs.", "hvb.", "hvr."}, lazyRegexp(`\b(hv[sbr]\.[A-Za-z0-9_-]{20,})`), nil},
	{[]string{"glsa_", "glc_"}, lazyRegexp(`\b(glsa_[A-Za-z0-9_]{20,}|glc_[A-Za-z0-9+/]{30,}={0,2})`), nil},
	{[]string{"pat-na1-", "pat-eu1-"}, lazyRegexp(`\b(pat-(?:na|eu)1-[a-f0-9-]{36})`), nil},
	{[]string{"lin_api_"}, lazyRegexp(`\b(lin_api_[A-Za-z0-9]{32,})`), nil},
	{[]string{"PMAK-"}, lazyRegexp(`\b(PMAK-[A-Za-z0-9-]{40,})`), nil},
	{[]string{"ATATT"}, lazyRegexp(`\b(ATATT[A-Za-z0-9_=-]{50,})`), nil},
	{[]string{"pul-"}, lazyRegexp(`\b(pul-[a-f0-9]{40})\b`), nil},
	{[]string{"sntrys_", "sntryu_"}, lazyRegexp(`\b(sntry[su]_[A-Za-z0-9+/=_-]{30,})`), nil},
	{[]string{"dapi"}, lazyRegexp(`\b(dapi[a-f0-9]{32}(?:-[0-9])?)\b`), nil},
	{[]string{"NRAK-"}, lazyRegexp(`\b(NRAK-[A-Z0-9]{27})\b`), nil},
	{[]string{"whsec_"}, lazyRegexp(`\b(whsec_[A-Za-z0-9+/=]{24,})`), nil},
	{[]string{"sq0atp-", "sq0csp-"}, lazyRegexp(`\b(sq0(?:atp|csp)-[A-Za-z0-9_-]{22,})`), nil},
	{[]string{"figd_"}, lazyRegexp(`\b(figd_[A-Za-z0-9_-]{30,})`), nil},
	{[]string{"dp."}, lazyRegexp(`\b(dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,})`), nil},
	{[]string{".atlasv1."}, lazyRegexp(`\b([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,})`), nil},
	{[]string{"rubygems_"}, lazyRegexp(`\b(rubygems_[a-f0-9]{48})\b`), nil},
	{[]string{":AA"}, lazyRegexp(`(?:^|[^0-9])([0-9]{8,10}:AA[A-Za-z0-9_-]{33})(?:$|[^A-Za-z0-9_-])`), nil},
	{[]string{"key-"}, lazyRegexp(`\b(key-[a-f0-9]{32})\b`), nil},
	{[]string{"PRIVATE KEY"}, lazyRegexp(`(-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$))`), nil},
}

// Named returns the credentials among the values under name: all
// of them when the name is a credential's (see SensitiveName) or they are
// marked sensitive, else those inside them (see ValueSecrets). An empty
// name names nothing.
func Named(name string, values []string, marked bool) []string {
	if marked || (name != "" && SensitiveName(name)) {
		return values
	}
	var out []string
	for _, v := range values {
		out = append(out, ValueSecrets(v)...)
	}
	return out
}

// EnvSecretName is the name of an environment variable as namedSecrets
// judges it: "" for PWD and OLDPWD, which shells set to the working
// directory and are no password.
func EnvSecretName(name string) string {
	if strings.EqualFold(name, "PWD") || strings.EqualFold(name, "OLDPWD") {
		return ""
	}
	return name
}

// URLSecrets returns the credentials in a request's URL: the password of
// its userinfo, the values of its query parameters named like credentials
// (sig of an Azure SAS URL), as written and decoded, and those
// messageSecrets finds in it.
func URLSecrets(u *url.URL) []string {
	var out []string
	if p, ok := u.User.Password(); ok {
		out = append(out, p)
	}
	for pair := range strings.SplitSeq(u.RawQuery, "&") {
		if k, v, ok := strings.Cut(pair, "="); ok && v != "" && SensitiveName(k) {
			out = append(out, v)
			if d, err := url.QueryUnescape(v); err == nil && d != v {
				out = append(out, d)
			}
		}
	}
	return append(out, messageSecrets(u.String())...)
}

// notPlaceholder reports whether the value of an npmrc credential is
// one, and not a placeholder for a variable (${NPM_TOKEN}).
func notPlaceholder(s string) bool { return !strings.HasPrefix(s, "${") }

// tokenLike reports whether the word after Bearer is a token and not
// text such as "Bearer error=invalid_token": it has letters and digits.
func tokenLike(s string) bool {
	return strings.ContainsFunc(s, unicode.IsDigit) && strings.ContainsFunc(s, unicode.IsLetter)
}

// basicCredentials reports whether the word after Basic is HTTP basic
// credentials: base64 of a user and a password joined by ":".
func basicCredentials(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	return err == nil && utf8.Valid(b) && bytes.IndexByte(b, ':') > 0
}

// redactFormats masks in msg the credentials known by their form, whoever
// sent them (see messageSecrets).
func redactFormats(msg string) string {
	for _, s := range messageSecrets(msg) {
		if len(s) >= minSecretLen {
			msg = strings.ReplaceAll(msg, s, redactedMark)
		}
	}
	return msg
}

// Redact replaces every occurrence of the secrets in msg, and of each long
// word inside them (an upstream may echo the token of "Bearer <token>", or
// one cookie of several). Longer secrets go first.
//
// A secret is also found in the forms a message may quote it in: with the
// spaces and line ends around it trimmed (an environment variable read
// from a file often ends in a newline), Go- or JSON-escaped (a %q in a
// message, a JSON body), and URL-encoded (a query or a path). Then what is
// a credential by its form alone is masked, whoever sent it: the password
// in a URL's userinfo and tokens of known formats (see messageSecrets).
func Redact(msg string, secrets []string) string {
	return redactForms(msg, MaskedForms(secrets))
}

// MaskedForms returns the texts Redact replaces for secrets, longest
// first: each secret's forms (see secretForms), and those of its long
// words.
func MaskedForms(secrets []string) []string {
	var all []string
	add := func(s string, min int) {
		for _, form := range secretForms(s) {
			if len(form) >= min {
				all = append(all, form)
			}
		}
	}
	for _, s := range secrets {
		if len(strings.TrimSpace(s)) < minSecretLen || plainWord(s) {
			continue
		}
		add(s, minSecretLen)
		for _, w := range strings.FieldsFunc(s, func(r rune) bool {
			return r == ' ' || r == ';' || r == '=' || r == ',' || r == ':' || r == '\n' || r == '\r' || r == '\t'
		}) {
			if w != s {
				add(w, minSecretWordLen)
			}
		}
	}
	all = compactStrings(all)
	sort.SliceStable(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	return all
}

// plainWord reports whether s is a word a setting holds that is no
// secret whatever its name (AUTH_ENABLED=true, pin_memory=false), which
// masked would blank out the word in every message.
func plainWord(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "false", "yes", "none", "null", "enabled", "disabled", "required", "optional":
		return true
	}
	return false
}

// redactForms replaces in msg each of forms, longest first, then what is
// a credential by its form (see Redact).
func redactForms(msg string, forms []string) string {
	for _, s := range forms {
		msg = strings.ReplaceAll(msg, s, redactedMark)
	}
	return redactFormats(msg)
}

// redactedMark stands in a message for what was masked.
const redactedMark = "(redacted)"

// RedactHead returns the start of msg, at most n bytes of it, with the
// secrets masked (see Redact). The text is masked before it is cut, so
// that a secret the cut falls inside is masked whole: Redact reads the
// first n bytes and a lookahead past them as long as the longest secret
// (see redactLookahead). cut says that msg is itself the start of a
// longer text: then what it ends with of a secret cut there, however
// short, is masked as well, as is what ends the lookahead. The result is
// cut at a character and never inside a mask; shortened says it was cut.
func RedactHead(msg string, n int, secrets []string, cut bool) (_ string, shortened bool) {
	forms := MaskedForms(secrets)
	if end := n + redactLookahead(forms); len(msg) > end {
		msg, cut = msg[:RuneStartBefore(msg, end)], true
	}
	msg = redactForms(msg, forms)
	if cut {
		msg = maskCutToken(MaskCutEnd(msg, forms))
	}
	if len(msg) <= n {
		return msg, false
	}
	return msg[:markStartBefore(msg, RuneStartBefore(msg, n))], true
}

// RedactTail is RedactHead for the end of msg: it returns at most its last
// n bytes, with the secrets masked before the cut. cut says that msg is
// itself the end of a longer text (the kept tail of a command's output).
func RedactTail(msg string, n int, secrets []string, cut bool) (_ string, shortened bool) {
	forms := MaskedForms(secrets)
	if start := len(msg) - n - redactLookahead(forms); start > 0 {
		msg, cut = msg[runeStartAfter(msg, start):], true
	}
	msg = redactForms(msg, forms)
	if cut {
		msg = maskCutStart(msg, forms)
	}
	if len(msg) <= n {
		return msg, false
	}
	return msg[markEndAfter(msg, runeStartAfter(msg, len(msg)-n)):], true
}

// redactLookahead is how far past a cut RedactHead and RedactTail read:
// the longest of forms, at least minRedactLookahead (for the credentials
// known by their form, whose length is not known beforehand) and at most
// maxRedactLookahead. A longer secret the cut falls inside is still masked
// at the cut, as a secret cut at the end of the lookahead.
func redactLookahead(forms []string) int {
	n := minRedactLookahead
	if len(forms) > 0 {
		n = max(n, len(forms[0]))
	}
	return min(n, MaxLookahead)
}

const (
	// minRedactLookahead is the shortest lookahead past a cut: longer
	// than a token of secretFormats, and than most URLs.
	minRedactLookahead = 1 << 10
	// MaxLookahead bounds the lookahead past a cut, so that a
	// long secret does not make each cut text long to mask.
	MaxLookahead = 64 << 10
)

// MaskCutEnd masks the end of msg, the start of a longer text, where it
// is the start of one of forms: a secret cut there.
func MaskCutEnd(msg string, forms []string) string {
	longest := 0
	for _, f := range forms {
		longest = max(longest, overlap(msg, f))
	}
	if longest == 0 {
		return msg
	}
	return msg[:len(msg)-longest] + redactedMark
}

// maskCutToken masks the end of msg, the start of a longer text, where a
// token of secretFormats starts that the cut left too short for its
// format to be found (ghp_ and a few characters).
func maskCutToken(msg string) string {
	tail := msg[len(msg)-min(len(msg), maxCutToken):]
	at := -1
	for _, f := range secretFormats {
		for _, m := range f.markers {
			i := strings.LastIndex(tail, m)
			if i < 0 || strings.ContainsFunc(tail[i+len(m):], func(r rune) bool { return !tokenChar(r) }) {
				continue
			}
			if at < 0 || i < at {
				at = i
			}
		}
	}
	if at < 0 {
		return msg
	}
	return msg[:len(msg)-len(tail)+at] + redactedMark
}

// maxCutToken is how far from the end of a cut text maskCutToken looks
// for the start of a token: past the shortest token of each format.
const maxCutToken = 128

// tokenChar reports whether r may be part of a token of secretFormats.
func tokenChar(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-.+/=:~", r))
}

// maskCutStart masks the start of msg, the end of a longer text, where it
// is the end of one of forms: a secret cut there.
func maskCutStart(msg string, forms []string) string {
	longest := 0
	for _, f := range forms {
		head := msg[:min(len(msg), len(f)-1)]
		longest = max(longest, overlap(reverseString(head), reverseString(f)))
	}
	if longest == 0 {
		return msg
	}
	return redactedMark + msg[longest:]
}

// overlap returns the length of the longest end of a that is the start of
// b, and shorter than b: the part of b a cut after a leaves in a. It reads
// each byte once (Knuth-Morris-Pratt), so that a long secret costs no more
// than its length.
func overlap(a, b string) int {
	if len(b) < 2 {
		return 0
	}
	if len(a) > len(b)-1 {
		a = a[len(a)-(len(b)-1):]
	}
	fail := make([]int, len(b))
	for i, k := 1, 0; i < len(b); i++ {
		for k > 0 && b[i] != b[k] {
			k = fail[k-1]
		}
		if b[i] == b[k] {
			k++
		}
		fail[i] = k
	}
	k := 0
	for i := 0; i < len(a); i++ {
		for k > 0 && a[i] != b[k] {
			k = fail[k-1]
		}
		if a[i] == b[k] {
			k++
		}
	}
	return k
}

// reverseString returns the bytes of s in reverse order.
func reverseString(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// RuneStartBefore returns the start of the character at i in s, or i when
// a character starts there.
func RuneStartBefore(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeStartAfter returns the start of the first character at or after i
// in s.
func runeStartAfter(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// cutMarks are what the masking writes in a message: a cut inside one
// moves to its edge, so that no half of one is shown.
var cutMarks = []string{redactedMark, SensitiveMark}

// SensitiveMark stands in a message for the value of a parameter marked
// sensitive.
const SensitiveMark = "(sensitive value)"

// markStartBefore returns i, or the start of the mark of cutMarks in s
// that i falls inside.
func markStartBefore(s string, i int) int {
	for _, m := range cutMarks {
		for j := max(0, i-len(m)+1); j < i; j++ {
			if strings.HasPrefix(s[j:], m) {
				return j
			}
		}
	}
	return i
}

// markEndAfter returns i, or the end of the mark of cutMarks in s that i
// falls inside.
func markEndAfter(s string, i int) int {
	for _, m := range cutMarks {
		for j := max(0, i-len(m)+1); j < i; j++ {
			if strings.HasPrefix(s[j:], m) {
				return j + len(m)
			}
		}
	}
	return i
}

// secretForms returns s and the other ways a message may spell it.
func secretForms(s string) []string {
	forms := []string{s}
	seen := map[string]bool{s: true}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			forms = append(forms, f)
		}
	}
	for _, v := range []string{s, strings.TrimSpace(s)} {
		add(v)
		q := strconv.Quote(v)
		add(q[1 : len(q)-1])
		q = strconv.QuoteToASCII(v)
		add(q[1 : len(q)-1])
		if j, err := json.Marshal(v); err == nil {
			add(string(j[1 : len(j)-1]))
		}
		add(url.QueryEscape(v))
		add(url.PathEscape(v))
	}
	return forms
}

// minSecretWordLen is the shortest word of a secret redacted on its own,
// long enough to leave "Bearer" and cookie names alone.
const minSecretWordLen = 8

// redactedError is an error whose message had secrets removed; Unwrap keeps
// errors.Is working for the cause.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// Error removes the secrets from err's message, and what is a
// credential by its form (see Redact).
func Error(err error, secrets []string) error {
	if err == nil {
		return err
	}
	msg := Redact(err.Error(), secrets)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, cause: err}
}
