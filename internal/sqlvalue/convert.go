package sqlvalue

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	sjson "github.com/segmentio/encoding/json"
)

// maxExact is the largest integer magnitude below which a double holds
// every integer exactly: 2^53.
const maxExact = 1 << 53

// appendValue appends v, a value of a column of kind k (whose arrays'
// elements are of kind elem), as JSON.
func appendValue(dst []byte, k, elem kind, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case int64:
		if k == kindBool && (v == 0 || v == 1) {
			return strconv.AppendBool(dst, v == 1)
		}
		return appendInt(dst, v)
	case uint64:
		if v < maxExact {
			return strconv.AppendUint(dst, v, 10)
		}
		return strconv.AppendQuote(dst, strconv.FormatUint(v, 10))
	case int:
		return appendInt(dst, int64(v))
	case float32:
		return appendFloat(dst, float64(v), 32)
	case float64:
		if k == kindFloat32 {
			return appendFloat(dst, v, 32)
		}
		return appendFloat(dst, v, 64)
	case time.Time:
		return appendTime(dst, k, v)
	case []byte:
		return appendBytes(dst, k, elem, v)
	case string:
		return appendText(dst, k, elem, v)
	}
	// Not a type database/sql drivers give; encoding/json says what it
	// can of it.
	b, err := json.Marshal(v)
	if err != nil {
		return appendString(dst, err.Error())
	}
	return append(dst, b...)
}

// appendInt appends n: a number up to 2^53 in magnitude, a string beyond.
func appendInt(dst []byte, n int64) []byte {
	if n > -maxExact && n < maxExact {
		return strconv.AppendInt(dst, n, 10)
	}
	return strconv.AppendQuote(dst, strconv.FormatInt(n, 10))
}

// appendFloat appends f, of bits precision, as encoding/json writes a
// float; NaN and the infinities, which JSON has no number for, are the
// strings "NaN", "Infinity" and "-Infinity".
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if len(dst)-start >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// appendTime appends t as a column of kind k: a date, a wall-clock time,
// or an instant in UTC.
func appendTime(dst []byte, k kind, t time.Time) []byte {
	dst = append(dst, '"')
	switch k {
	case kindDate:
		dst = t.AppendFormat(dst, time.DateOnly)
	case kindTimestamp:
		dst = t.AppendFormat(dst, "2006-01-02T15:04:05.999999999")
	default:
		dst = t.UTC().AppendFormat(dst, time.RFC3339Nano)
	}
	return append(dst, '"')
}

// appendBytes appends b, a value of kind k, as JSON: bytes are base64,
// and text that drivers give as bytes (MySQL's) is read as its kind.
func appendBytes(dst []byte, k, elem kind, b []byte) []byte {
	switch k {
	case kindBytes:
		return appendBase64(dst, b)
	case kindBit:
		var n big.Int
		n.SetBytes(b)
		if n.IsUint64() {
			return appendValue(dst, k, elem, n.Uint64())
		}
		return strconv.AppendQuote(dst, n.String())
	case kindAny:
		// SQLite's BLOB storage class.
		return appendBase64(dst, b)
	}
	return appendText(dst, k, elem, string(b))
}

// appendBase64 appends b as a string of its standard base64.
func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// appendText appends s, the text of a value of kind k, as JSON of that
// kind; text that does not read as its kind is a string.
func appendText(dst []byte, k, elem kind, s string) []byte {
	switch k {
	case kindInt, kindBigint, kindBit:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return appendInt(dst, n)
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return appendValue(dst, k, elem, n)
		}
	case kindFloat32, kindFloat64:
		bits := 64
		if k == kindFloat32 {
			bits = 32
		}
		if f, err := strconv.ParseFloat(s, bits); err == nil {
			return appendFloat(dst, f, bits)
		}
	case kindDecimal:
		return appendDecimal(dst, s)
	case kindBool:
		switch s {
		case "t", "true", "1":
			return append(dst, "true"...)
		case "f", "false", "0":
			return append(dst, "false"...)
		}
	case kindJSON:
		if json.Valid([]byte(s)) {
			return append(dst, s...)
		}
	case kindBytes:
		// bytea's text form, as in an array's elements: \x and hex.
		if h, ok := strings.CutPrefix(s, `\x`); ok {
			if b, err := hex.DecodeString(h); err == nil {
				return appendBase64(dst, b)
			}
		}
	case kindTimestampTZ:
		return appendInstant(dst, s)
	case kindTimestamp:
		return appendString(dst, wallClock(s))
	case kindInterval:
		return appendString(dst, isoInterval(s))
	case kindArray:
		return appendArray(dst, elem, s)
	case kindSet:
		return appendSet(dst, s)
	}
	return appendString(dst, s)
}

// appendString appends s as a JSON string, without escaping HTML.
func appendString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return sjson.AppendEscape(dst, s, 0)
}

// appendDecimal appends s, an exact decimal's text: a JSON number of its
// digits when it has at most 15 significant ones (which a double reads
// back the same) and is a JSON number, else a string of it.
func appendDecimal(dst []byte, s string) []byte {
	if exactNumber(s) {
		return append(dst, s...)
	}
	switch strings.ToLower(s) {
	case "nan":
		return append(dst, `"NaN"`...)
	case "infinity", "+infinity", "inf":
		return append(dst, `"Infinity"`...)
	case "-infinity", "-inf":
		return append(dst, `"-Infinity"`...)
	}
	return appendString(dst, s)
}

// exactNumber reports whether s is a JSON number without an exponent
// whose digits, from the first to the last that is not zero, are at most
// 15, and whose magnitude is within a double's range: a double holds it
// close enough to read it back the same.
func exactNumber(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	whole, frac, dot := strings.Cut(digits, ".")
	if whole == "" || len(whole) > 1 && whole[0] == '0' || dot && frac == "" {
		return false
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
		}
	}
	if len(whole) > 300 || whole == "0" && len(frac)-len(strings.TrimLeft(frac, "0")) > 300 {
		// Past what a double holds: it would read as infinity or zero.
		return false
	}
	significant := strings.Trim(whole+frac, "0")
	return len(significant) <= 15
}

// appendInstant appends s, PostgreSQL's text of a timestamptz (in an
// array) or MySQL's of a TIMESTAMP in a UTC session, as RFC 3339 in UTC;
// text that does not read as one (infinity, a zero date) is kept.
func appendInstant(dst []byte, s string) []byte {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return appendTime(dst, kindTimestampTZ, t)
		}
	}
	if !strings.HasPrefix(s, "0000-00-00") {
		if t, err := time.Parse("2006-01-02 15:04:05.999999999", s); err == nil {
			return appendTime(dst, kindTimestampTZ, t)
		}
	}
	return appendString(dst, s)
}

// wallClock is s, the text of a timestamp without a time zone ("2024-01-02
// 03:04:05.5"), with a T between the date and the time, as RFC 3339 has
// it; other text (infinity) is kept.
func wallClock(s string) string {
	if len(s) > 10 && s[10] == ' ' && s[4] == '-' {
		return s[:10] + "T" + s[11:]
	}
	return s
}
