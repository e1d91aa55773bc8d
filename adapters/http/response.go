package http

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/charset"
	"github.com/toolhost/toolhost/internal/jsondepth"
	"github.com/toolhost/toolhost/internal/redact"
)

// readBody reads the response body, decoded from gzip when the upstream
// compressed it, up to max_response: over says there was more, and data
// holds the first max_response bytes. askedEncoding is set when the tool's
// headers set Accept-Encoding.
func (h *HTTP) readBody(resp *http.Response, raw io.Reader, host string, askedEncoding bool, parent, callCtx context.Context) (data []byte, over bool, err error) {
	content, err := decodeContent(raw, resp.Header.Get("Content-Encoding"), host, askedEncoding)
	if err != nil {
		if code := resp.StatusCode; code >= 200 && code <= 299 {
			return nil, false, err
		}
		content = strings.NewReader("") // the status says what happened
	}
	hint := int64(0)
	if content == io.Reader(raw) { // not decoded: the Content-Length is the body's
		hint = resp.ContentLength
	}
	data, err = readAll(content, hint, h.maxResponse+1)
	if err != nil {
		var corrupt flate.CorruptInputError
		if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
			return nil, false, notGzip(host, err, askedEncoding)
		}
		if resp.Uncompressed && len(data) == 0 && errors.Is(err, io.ErrUnexpectedEOF) && h.contextError(host, parent, callCtx) == nil {
			// The transport's gzip reader found less than a gzip header:
			// a short body that is not gzip at all, not one cut off.
			return nil, false, notGzip(host, errors.New("the body is shorter than a gzip header"), askedEncoding)
		}
		if cerr := h.contextError(host, parent, callCtx); cerr == nil && errors.Is(err, io.ErrUnexpectedEOF) {
			declared := ""
			if n := resp.ContentLength; n > 0 && content == io.Reader(raw) { // not decoded bytes
				declared = fmt.Sprintf(" (Content-Length %d, %d bytes came)", n, len(data))
			}
			return nil, false, fmt.Errorf("the response from %s was cut off: the connection closed before the whole body arrived%s; try again, and if it keeps happening, check the upstream", host, declared)
		}
		return nil, false, h.readError(err, host, parent, callCtx)
	}
	over = int64(len(data)) > h.maxResponse
	if over {
		data = data[:h.maxResponse]
	}
	return data, over, nil
}

// maxReadHint is the largest Content-Length readAll allocates for ahead,
// on the upstream's word: a larger body is read as it comes.
const maxReadHint = 4 << 20

// readAll reads r up to limit bytes, as io.ReadAll of an io.LimitReader
// does; when hint, the body's Content-Length, is known and under
// maxReadHint, into one buffer of that size (and the one more byte that
// tells a body over the limit), rather than in growing pieces copied
// together at the end.
func readAll(r io.Reader, hint, limit int64) ([]byte, error) {
	r = io.LimitReader(r, limit)
	if hint <= 0 || hint >= maxReadHint {
		return readUnknown(r)
	}
	b := make([]byte, 0, min(hint+1, limit))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than it said: grow
		}
	}
}

// readPool holds the buffers readUnknown reads into.
var readPool = sync.Pool{New: func() any { return new([readChunk]byte) }}

// readChunk is the size of readUnknown's pooled buffer: a body up to it
// (a chunked answer of a few KB) costs one allocation of its own size.
const readChunk = 16 << 10

// readUnknown is io.ReadAll for a body whose length is not known: it
// reads into a pooled buffer first and copies out what came, where
// io.ReadAll would allocate and copy as it grows from 512 bytes. A body
// longer than the buffer is left to io.ReadAll, from the buffer's bytes
// on.
func readUnknown(r io.Reader) ([]byte, error) {
	buf := readPool.Get().(*[readChunk]byte)
	defer readPool.Put(buf)
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return bytes.Clone(buf[:n]), nil
		}
		if err != nil {
			return bytes.Clone(buf[:n]), err
		}
	}
	return io.ReadAll(io.MultiReader(bytes.NewReader(buf[:n]), r))
}

// output turns a response's first bytes into the call's output: bytes as
// they are for a binary media type, else text decoded to UTF-8; a status
// other than 2xx is an error quoting the start of the body.
func (h *HTTP) output(resp *http.Response, data []byte, over bool, secrets *callSecrets) (*adapters.Output, error) {
	ct := resp.Header.Get("Content-Type")
	mediaType, label := parseContentType(ct)
	if h.charset != "" {
		label = h.charset
	}
	if bom := bomCharset(data); bom != "" {
		// A byte order mark says what the text is, whatever the label
		// (as browsers read it): a JSON file saved by Windows PowerShell 5
		// is UTF-16 and served with no charset, or a wrong one.
		label = bom
	}
	if mediaType == "application/octet-stream" && !over && !jsondepth.TooDeep(data, jsondepth.Max) && gjson.ValidBytes(data) {
		// "Some bytes": a server (or a static file server that cannot
		// tell) labels its JSON generically. JSON it is. (Nesting too deep
		// for JSON would overflow the validator's stack: bytes it stays.)
		mediaType = "application/json"
	}
	if binaryType(mediaType) && h.charset == "" {
		if code := resp.StatusCode; code >= 200 && code <= 299 {
			if over {
				return nil, fmt.Errorf("response body larger than %d bytes (max_response)", h.maxResponse)
			}
			return &adapters.Output{Body: data, MIMEType: mediaType, Binary: true}, nil
		}
	}

	if code := resp.StatusCode; code < 200 || code > 299 {
		msg := "upstream returned HTTP " + resp.Status
		if resp.Status == "" {
			msg = fmt.Sprintf("upstream returned HTTP %d", code)
		}
		if code == 429 || code == 503 {
			msg += retryAfterNote(resp.Header)
		}
		if snippet := errorSnippet(data, label, over, secrets.values()); snippet != "" {
			msg += ": " + snippet
		}
		return nil, errors.New(msg)
	}
	if over {
		return nil, fmt.Errorf("response body larger than %d bytes (max_response)", h.maxResponse)
	}
	decoded, err := decodeCharset(data, label)
	if err != nil {
		return nil, err
	}
	if textualType(mediaType) && !utf8.Valid(decoded) {
		declared := "its Content-Type declares no other charset"
		if label != "" {
			declared = fmt.Sprintf("its Content-Type declares charset %s, which it does not hold to", label)
		}
		return nil, fmt.Errorf("the %s response is not valid UTF-8, and %s; if the upstream sends GBK, GB18030, Big5 or similar, set charset = \"gbk\" (or the right one) in the http block", mediaName(mediaType), declared)
	}
	return &adapters.Output{Body: decoded, MIMEType: mediaType}, nil
}

// readError turns an error of reading the response body into a short
// message naming the host.
func (h *HTTP) readError(err error, host string, parent, callCtx context.Context) error {
	if cerr := h.contextError(host, parent, callCtx); cerr != nil {
		return cerr
	}
	return fmt.Errorf("reading the response from %s failed: %v", host, innermost(err))
}

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

// mediaName names a media type in a message: the type, or "upstream's"
// when the upstream declared none.
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
