package http

import (
	"compress/gzip"
	"fmt"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/charset"
	"github.com/toolhost/toolhost/internal/redact"
)

// decodeContent undoes the response's Content-Encoding. The transport
// asks for gzip and decodes it itself, unless the tool's headers set
// Accept-Encoding (copied from a browser or curl, say): then the body comes
// as the upstream encoded it. gzip is decoded here too, so that max_response
// counts decoded bytes; another encoding is an error that says to remove the
// header, never compressed bytes read as text.
func decodeContent(raw io.Reader, encoding, host string, askedEncoding bool) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return raw, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(raw)
		switch {
		case err == io.EOF:
			return strings.NewReader(""), nil // no body, as HEAD and 204 have
		case err != nil:
			return nil, notGzip(host, err, askedEncoding)
		}
		return zr, nil
	}
	return nil, fmt.Errorf("the response from %s is compressed with %q (Content-Encoding), which toolhost does not decode; remove Accept-Encoding from headers: toolhost asks for gzip itself and decodes it", host, encoding)
}

// notGzip is the error of a body that says Content-Encoding gzip and
// is not gzip. askedEncoding is set when the tool's headers set
// Accept-Encoding, which may be why the upstream compressed.
func notGzip(host string, err error, askedEncoding bool) error {
	fix := "the upstream labels a body it did not compress; check the upstream"
	if askedEncoding {
		fix = "remove Accept-Encoding from headers, or check the upstream"
	}
	return fmt.Errorf("the response from %s says Content-Encoding gzip but is not valid gzip (%v); %s", host, err, fix)
}

// binaryType reports whether a media type is bytes to pass on as they
// are: images, sounds, video, PDFs, archives.
func binaryType(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "image/") && mediaType != "image/svg+xml",
		strings.HasPrefix(mediaType, "audio/"), strings.HasPrefix(mediaType, "video/"),
		mediaType == "application/octet-stream", mediaType == "application/pdf",
		mediaType == "application/zip", mediaType == "application/gzip":
		return true
	}
	return false
}

// textualType reports whether a media type is text, whose body must decode to
// UTF-8. An undeclared type counts as text: toolhost reads it as text.
func textualType(mediaType string) bool {
	switch {
	case mediaType == "", strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/json", strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"),
		mediaType == "application/javascript", mediaType == "application/x-www-form-urlencoded":
		return true
	}
	return false
}

func mediaName(mediaType string) string {
	if mediaType == "" {
		return "upstream's"
	}
	return mediaType
}

// parseContentType returns the media type without parameters and the
// charset label of a Content-Type header.
func parseContentType(ct string) (mediaType, charset string) {
	if ct == "" {
		return "", ""
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		return strings.ToLower(strings.TrimSpace(mt)), ""
	}
	return mt, params["charset"]
}

// decodeCharset decodes body from the charset label to UTF-8. UTF-8 and
// an empty label leave the bytes as they are.
func decodeCharset(body []byte, label string) ([]byte, error) {
	if label == "" {
		return body, nil
	}
	enc, ok := charset.ByLabel(label)
	if !ok {
		if utf8.Valid(body) {
			return body, nil
		}
		return nil, fmt.Errorf("the response uses charset %q, which toolhost cannot decode; set charset in the http block to the charset the upstream really uses", label)
	}
	if charset.IsUTF8(enc) {
		return body, nil
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, fmt.Errorf("decoding the response from %s failed: %v", label, err)
	}
	return out, nil
}

// bomCharset returns the charset a byte order mark at the start of
// body stands for, or "".
func bomCharset(body []byte) string {
	switch {
	case len(body) >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF:
		return "utf-8"
	case len(body) >= 2 && body[0] == 0xFE && body[1] == 0xFF:
		return "utf-16be"
	case len(body) >= 2 && body[0] == 0xFF && body[1] == 0xFE:
		return "utf-16le"
	}
	return ""
}

// errorSnippet returns the start of an error response body for a message:
// decoded, with the secrets masked, at most errorSnippetBytes bytes, cut
// at a character boundary, trimmed. The secrets are masked before the cut
// (see RedactHead), so that an upstream that echoes one where the cut falls
// does not get part of it shown; cut says the body was cut at max_response.
func errorSnippet(body []byte, label string, cut bool, secrets []string) string {
	decoded, err := decodeCharset(body, label)
	if err != nil {
		decoded = body
	}
	s := strings.ToValidUTF8(string(decoded), "\uFFFD")
	s, _ = redact.RedactHead(s, errorSnippetBytes, secrets, cut)
	return strings.TrimSpace(s)
}
