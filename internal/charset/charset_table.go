// Code generated from golang.org/x/text/encoding/htmlindex v0.43.0 (its
// nameMap in tables.go and encodings in map.go); see charset.go. The tables
// are Copyright 2015 The Go Authors, under the BSD-style license of
// golang.org/x/text.

package charset

import (
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// charsetLabelCount is the number of labels in charsetTable.
const charsetLabelCount = 228

// charsetTable returns the WHATWG encoding labels (lower case) and their
// encodings. It builds the map when called: see charsetByLabel.
func charsetTable() map[string]encoding.Encoding {
	m := make(map[string]encoding.Encoding, charsetLabelCount)
	for _, label := range []string{"unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"} {
		m[label] = unicode.UTF8
	}
	for _, label := range []string{"866", "cp866", "csibm866", "ibm866"} {
		m[label] = charmap.CodePage866
	}
	for _, label := range []string{"csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2", "iso_8859-2:1987", "l2", "latin2"} {
		m[label] = charmap.ISO8859_2
	}
	for _, label := range []string{"csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593", "iso_8859-3", "iso_8859-3:1988", "l3", "latin3"} {
		m[label] = charmap.ISO8859_3
	}
	for _, label := range []string{"csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594", "iso_8859-4", "iso_8859-4:1988", "l4", "latin4"} {
		m[label] = charmap.ISO8859_4
	}
	for _, label := range []string{"csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5", "iso88595", "iso_8859-5", "iso_8859-5:1988"} {
		m[label] = charmap.ISO8859_5
	}
	for _, label := range []string{"arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114", "iso-8859-6", "iso-8859-6-e", "iso-8859-6-i", "iso-ir-127", "iso8859-6", "iso88596", "iso_8859-6", "iso_8859-6:1987"} {
		m[label] = charmap.ISO8859_6
	}
	for _, label := range []string{"csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7", "iso-ir-126", "iso8859-7", "iso88597", "iso_8859-7", "iso_8859-7:1987", "sun_eu_greek"} {
		m[label] = charmap.ISO8859_7
	}
	for _, label := range []string{"csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e", "iso-ir-138", "iso8859-8", "iso88598", "iso_8859-8", "iso_8859-8:1988", "visual"} {
		m[label] = charmap.ISO8859_8
	}
	for _, label := range []string{"csiso88598i", "iso-8859-8-i", "logical"} {
		m[label] = charmap.ISO8859_8I
	}
	for _, label := range []string{"csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6"} {
		m[label] = charmap.ISO8859_10
	}
	for _, label := range []string{"iso-8859-13", "iso8859-13", "iso885913"} {
		m[label] = charmap.ISO8859_13
	}
	for _, label := range []string{"iso-8859-14", "iso8859-14", "iso885914"} {
		m[label] = charmap.ISO8859_14
	}
	for _, label := range []string{"csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"} {
		m[label] = charmap.ISO8859_15
	}
	for _, label := range []string{"iso-8859-16"} {
		m[label] = charmap.ISO8859_16
	}
	for _, label := range []string{"cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"} {
		m[label] = charmap.KOI8R
	}
	for _, label := range []string{"koi8-ru", "koi8-u"} {
		m[label] = charmap.KOI8U
	}
	for _, label := range []string{"csmacintosh", "mac", "macintosh", "x-mac-roman"} {
		m[label] = charmap.Macintosh
	}
	for _, label := range []string{"dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"} {
		m[label] = charmap.Windows874
	}
	for _, label := range []string{"cp1250", "windows-1250", "x-cp1250"} {
		m[label] = charmap.Windows1250
	}
	for _, label := range []string{"cp1251", "windows-1251", "x-cp1251"} {
		m[label] = charmap.Windows1251
	}
	for _, label := range []string{"ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"} {
		m[label] = charmap.Windows1252
	}
	for _, label := range []string{"cp1253", "windows-1253", "x-cp1253"} {
		m[label] = charmap.Windows1253
	}
	for _, label := range []string{"cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9", "iso_8859-9:1989", "l5", "latin5", "windows-1254", "x-cp1254"} {
		m[label] = charmap.Windows1254
	}
	for _, label := range []string{"cp1255", "windows-1255", "x-cp1255"} {
		m[label] = charmap.Windows1255
	}
	for _, label := range []string{"cp1256", "windows-1256", "x-cp1256"} {
		m[label] = charmap.Windows1256
	}
	for _, label := range []string{"cp1257", "windows-1257", "x-cp1257"} {
		m[label] = charmap.Windows1257
	}
	for _, label := range []string{"cp1258", "windows-1258", "x-cp1258"} {
		m[label] = charmap.Windows1258
	}
	for _, label := range []string{"x-mac-cyrillic", "x-mac-ukrainian"} {
		m[label] = charmap.MacintoshCyrillic
	}
	for _, label := range []string{"chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk"} {
		m[label] = simplifiedchinese.GBK
	}
	for _, label := range []string{"gb18030"} {
		m[label] = simplifiedchinese.GB18030
	}
	for _, label := range []string{"big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"} {
		m[label] = traditionalchinese.Big5
	}
	for _, label := range []string{"cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"} {
		m[label] = japanese.EUCJP
	}
	for _, label := range []string{"csiso2022jp", "iso-2022-jp"} {
		m[label] = japanese.ISO2022JP
	}
	for _, label := range []string{"csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"} {
		m[label] = japanese.ShiftJIS
	}
	for _, label := range []string{"cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949"} {
		m[label] = korean.EUCKR
	}
	for _, label := range []string{"csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement"} {
		m[label] = encoding.Replacement
	}
	for _, label := range []string{"unicodefffe", "utf-16be"} {
		m[label] = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	for _, label := range []string{"csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"} {
		m[label] = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	}
	for _, label := range []string{"x-user-defined"} {
		m[label] = charmap.XUserDefined
	}
	return m
}
