package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// chunkReader returns its data n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(r.n, len(p), len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// events decodes everything from r and describes each frame and skip.
func events(t testing.TB, r io.Reader, maxFrame int) []string {
	d := NewDecoder(r, maxFrame)
	var out []string
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatal("the decoder does not make progress")
		}
		f, err := d.Next()
		var se *SkipError
		switch {
		case errors.As(err, &se):
			out = append(out, fmt.Sprintf("skip@%d+%d: %s", se.Offset, se.Len, se.Reason))
		case errors.Is(err, io.EOF):
			return out
		case err != nil:
			t.Fatalf("unexpected error: %v", err)
		default:
			out = append(out, describe(f))
		}
	}
}

func describe(f Frame) string {
	seq := f.Seq
	if f.Bracketed {
		seq = "[" + seq + "]"
	}
	return fmt.Sprintf("%02x %s %s %s", f.Type, f.TaskID, seq, f.Payload)
}

// The seed document's frames, with its "\x06" written as the byte.
const (
	seedRegister = "##START\x06mcp00001[0000]{\n\"type\": \"register\",\n\"data\": {\n\"services\": {\n\"get_current_time\": {\n\"description\": \"获取当前时间\",\n\"parameters\": {\n\"type\": \"object\",\n\"properties\": {\n\"format\": {\n\"type\": \"string\",\n\"enum\": [\"simple\", \"detailed\"]\n}\n}\n}\n}\n}\n}\n}##END"
	seedText     = "##START\x04task12340000现在几点了?##END"
	seedEnd      = "##START\x03task12340001##END"
)

func TestDecode(t *testing.T) {
	big := `{"pad":"` + strings.Repeat("x", 200) + `"}`
	for _, tc := range []struct {
		name  string
		in    string
		max   int
		want  []string // a "skip@" entry matches by prefix
		wantN int      // when want is nil: the number of events
	}{
		{name: "seed register", in: seedRegister, want: []string{"06 mcp00001 [0000] " + seedRegister[len("##START\x06mcp00001[0000]"):len(seedRegister)-len("##END")]}},
		{name: "seed text and end", in: seedText + seedEnd, want: []string{"04 task1234 0000 现在几点了?", "03 task1234 0001 "}},
		{name: "bare sequence on an MCP frame", in: "##START\x06mcp000010007{\"type\":\"call\"}##END", want: []string{`06 mcp00001 0007 {"type":"call"}`}},
		{name: "bracketed sequence on a text frame", in: "##START\x04task1234[12]hi##END", want: []string{"04 task1234 [12] hi"}},
		{name: "##END inside a JSON string", in: "##START\x06mcp00001[0000]{\"a\":\"x##END y\",\"b\":[\"##START\"]}##END", want: []string{`06 mcp00001 [0000] {"a":"x##END y","b":["##START"]}`}},
		{name: "escaped quote before ##END", in: `##START` + "\x06" + `mcp00001[0000]{"a":"\"##END\\"}##END`, want: []string{`06 mcp00001 [0000] {"a":"\"##END\\"}`}},
		{name: "braces inside strings", in: "##START\x06mcp00001[0000]{\"a\":\"}}}{\"}##END", want: []string{`06 mcp00001 [0000] {"a":"}}}{"}`}},
		{name: "whitespace around the JSON", in: "##START\x06mcp00001[0000] \n{\"a\":1}\r\n##END", want: []string{`06 mcp00001 [0000] {"a":1}`}},
		{name: "array payload", in: "##START\x06mcp00001[0000][1,{\"a\":null}]##END", want: []string{`06 mcp00001 [0000] [1,{"a":null}]`}},
		{name: "two frames in one read", in: seedText + "##START\x06mcp00001[0001]{}##END", want: []string{"04 task1234 0000 现在几点了?", "06 mcp00001 [0001] {}"}},
		{name: "newlines between frames are not junk", in: "\r\n" + seedText + "\n\n" + seedEnd + "\n", want: []string{"04 task1234 0000 现在几点了?", "03 task1234 0001 "}},
		{name: "junk before a frame", in: "hello " + seedEnd, want: []string{"skip@0+6: bytes outside a frame", "03 task1234 0001 "}},
		{name: "junk at the end", in: seedEnd + "##STA", want: []string{"03 task1234 0001 ", "skip@25+5: bytes outside a frame"}},
		{name: "non-JSON MCP payload is passed on", in: "##START\x06mcp00001[0000]hello##END", want: []string{"06 mcp00001 [0000] hello"}},
		{name: "empty MCP payload", in: "##START\x06mcp00001[0000]##END", want: []string{"06 mcp00001 [0000] "}},
		{name: "unknown type", in: "##START\x01task12340000abc##END", want: []string{"01 task1234 0000 abc"}},
		{name: "malformed JSON then a good frame", in: "##START\x06mcp00001[0000]{\"a\":1##END" + seedEnd, want: []string{"skip@0+0: the JSON payload is malformed: unexpected byte '#'", "03 task1234 0001 "}},
		{name: "unterminated string runs into the next frame", in: "##START\x06mcp00001[0000]{\"a\":\"x##END" + seedEnd, want: []string{"skip@0+0: the JSON payload is malformed: control byte 0x03", "03 task1234 0001 "}},
		{name: "text after the JSON", in: "##START\x06mcp00001[0000]{}x##END" + seedEnd, want: []string{"skip@0+0: the JSON payload is not followed by ##END", "03 task1234 0001 "}},
		{name: "short task id", in: "##START\x06mcp1[0000]{}##END" + seedEnd, want: []string{"skip@0+0: the task id is not 8 printable characters", "03 task1234 0001 "}},
		{name: "bad bracketed sequence", in: "##START\x06mcp00001[00a0]{}##END" + seedEnd, want: []string{"skip@0+0: the sequence number is not [digits]", "03 task1234 0001 "}},
		{name: "empty brackets", in: "##START\x06mcp00001[]{}##END" + seedEnd, want: []string{"skip@0+0: the sequence number is not [digits]", "03 task1234 0001 "}},
		{name: "bad bare sequence", in: "##START\x04task123400x0hi##END" + seedEnd, want: []string{"skip@0+0: the sequence number is not 4 digits", "03 task1234 0001 "}},
		{name: "oversized JSON frame", max: 128, in: "##START\x06mcp00001[0000]" + big + "##END" + seedEnd, want: []string{"skip@0+0: the frame is larger than 128 bytes", "03 task1234 0001 "}},
		{name: "oversized text frame", max: 128, in: "##START\x04task12340000" + strings.Repeat("y", 300) + "##END" + seedEnd, want: []string{"skip@0+0: the frame is larger than 128 bytes", "03 task1234 0001 "}},
		{name: "a frame exactly at the cap", max: 64, in: "##START\x04task12340000" + strings.Repeat("y", 64-25) + "##END", want: []string{"04 task1234 0000 " + strings.Repeat("y", 39)}},
		{name: "a frame one byte over the cap", max: 64, in: "##START\x04task12340000" + strings.Repeat("y", 65-25) + "##END", want: []string{"skip@0+0: the frame is larger than 64 bytes"}},
		{name: "truncated at the end of the stream", in: seedEnd + "##START\x06mcp00001[0000]{\"a\"", want: []string{"03 task1234 0001 ", "skip@25+0: the stream ended inside the frame"}},
		{name: "start marker inside a frame header", in: "##START\x06mc##START" + "\x03task12340001##END", want: []string{"skip@0+0: the task id", "03 task1234 0001 "}},
		{name: "type written as text", in: `##START\x06mcp00001[0000]{}##END` + seedEnd, want: []string{`skip@0+0: the type is written as text (such as \x06) instead of as one byte`, "03 task1234 0001 "}},
		{name: "empty input", in: "", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunk := range []int{1 << 20, 1, 2, 3, 7} {
				got := events(t, &chunkReader{data: []byte(tc.in), n: chunk}, tc.max)
				if len(got) != len(tc.want) {
					t.Fatalf("chunk %d: got %d events %q, want %q", chunk, len(got), got, tc.want)
				}
				for i := range got {
					w := tc.want[i]
					if strings.HasPrefix(w, "skip@") && strings.HasPrefix(got[i], w) || got[i] == w {
						continue
					}
					t.Errorf("chunk %d: event %d = %q, want %q", chunk, i, got[i], w)
				}
			}
		})
	}
}

func TestEncodeFrame(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       Frame
		want    string
		wantErr string
	}{
		{name: "MCP frames bracket the sequence", f: Frame{Type: TypeMCP, TaskID: "mcp00001", Seq: "0000", Payload: []byte(`{"a":"##END"}`)}, want: "##START\x06mcp00001[0000]{\"a\":\"##END\"}##END"},
		{name: "text frames do not", f: Frame{Type: TypeText, TaskID: "task1234", Seq: "0000", Payload: []byte("现在几点了?")}, want: seedText},
		{name: "end frame", f: Frame{Type: TypeEnd, TaskID: "task1234", Seq: "0001"}, want: seedEnd},
		{name: "short task id", f: Frame{Type: TypeMCP, TaskID: "mcp1", Seq: "0000"}, wantErr: "exactly 8"},
		{name: "task id with a bracket", f: Frame{Type: TypeMCP, TaskID: "mcp0000]", Seq: "0000"}, wantErr: "printable"},
		{name: "sequence not digits", f: Frame{Type: TypeMCP, TaskID: "mcp00001", Seq: "x"}, wantErr: "digits"},
		{name: "bare sequence of another width", f: Frame{Type: TypeText, TaskID: "task1234", Seq: "12"}, wantErr: "must be 4 digits"},
		{name: "##END in a text payload", f: Frame{Type: TypeText, TaskID: "task1234", Seq: "0000", Payload: []byte("a##END")}, wantErr: "cannot contain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := EncodeFrame(tc.f)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("got %q, want %q", b, tc.want)
			}
		})
	}
}

// FuzzDecode checks that decoding never depends on how the input is split
// into reads, that it always ends, that no frame exceeds the cap, and that
// every frame decoded re-encodes to a frame that decodes the same.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		seedRegister, seedText + seedEnd, "junk" + seedEnd + "\n",
		"##START\x06mcp00001[0000]{\"a\":\"x##END\"}##END",
		"##START\x06mcp00001[0000]{\"a\":\"x##END" + seedEnd,
		"##START\x06mcp000010000{\"a\":[1,2,{\"b\":\"\\\"\"}]}##END##START",
		"##START##START\x06mcp00001[99]{}##END",
	} {
		f.Add([]byte(s), uint8(1), uint16(0))
		f.Add([]byte(s), uint8(5), uint16(40))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, capHint uint16) {
		maxFrame := MinMaxFrame + int(capHint)%2048
		whole := events(t, bytes.NewReader(data), maxFrame)
		pieces := events(t, &chunkReader{data: data, n: int(chunk)%13 + 1}, maxFrame)
		if strings.Join(whole, "\x00") != strings.Join(pieces, "\x00") {
			t.Fatalf("split reads changed the result:\nwhole  %q\npieces %q", whole, pieces)
		}
		d := NewDecoder(bytes.NewReader(data), maxFrame)
		for {
			fr, err := d.Next()
			var se *SkipError
			if errors.As(err, &se) {
				continue
			}
			if err != nil {
				break
			}
			if len(fr.TaskID) != TaskIDLen || len(fr.Payload) > maxFrame {
				t.Fatalf("bad frame %q", describe(fr))
			}
			enc, err := EncodeFrame(fr)
			if err != nil {
				continue // e.g. a bracketed sequence of another width on a text frame
			}
			again := events(t, bytes.NewReader(enc), len(enc)+MinMaxFrame)
			want := fr
			want.Bracketed = fr.Type == TypeMCP
			if len(again) != 1 || again[0] != describe(want) {
				t.Fatalf("round trip of %q gave %q", describe(fr), again)
			}
		}
	})
}

// TestSkipErrorHead: a frame skipped for its size keeps its header and the
// bytes of its payload the frame cap let the decoder read in the
// SkipError, and one skipped for a fault in its JSON the bytes before the
// fault; bytes outside frames have no head.
func TestSkipErrorHead(t *testing.T) {
	big := "##START\x06task1234[0009]{\"type\":\"call\",\"data\":{\"call_id\":\"c\",\"params\":\"" + strings.Repeat("x", 10000) + "\"}}##END"
	d := NewDecoder(strings.NewReader(big+"##START\x06mcp00001[0000]{\"type\":\"call\",##END\n##START\x06mcp00001[0000]x##END junk"), 4096)
	_, err := d.Next()
	se, ok := err.(*SkipError)
	if !ok || se.Head == nil || !se.TooLarge {
		t.Fatalf("Next = %v, want a SkipError with a head", err)
	}
	if se.Head.Type != TypeMCP || se.Head.TaskID != "task1234" || se.Head.Seq != "0009" || !se.Head.Bracketed {
		t.Errorf("head = %+v", se.Head)
	}
	if n := len(se.Head.Payload); n != 4096-len("##START\x06task1234[0009]") || !strings.HasPrefix(string(se.Head.Payload), `{"type":"call","data":{"call_id":"c"`) {
		t.Errorf("head payload: %d bytes, %.40q", len(se.Head.Payload), se.Head.Payload)
	}
	_, err = d.Next()
	if se, ok := err.(*SkipError); !ok || se.Head == nil || se.TooLarge || string(se.Head.Payload) != `{"type":"call",` || se.Head.TaskID != "mcp00001" {
		t.Fatalf("the malformed frame after it: %v, head %+v", err, se)
	}
	if _, err = d.Next(); err != nil {
		t.Fatalf("the frame after them: %v", err)
	}
	_, err = d.Next()
	if junk, ok := err.(*SkipError); !ok || junk.Head != nil || junk.Len == 0 {
		t.Fatalf("the junk after them: %v", err)
	}
}

// TestHeadCall finds a call's call_id, exactly as it came, in the first
// bytes of its payload, and only a call's.
func TestHeadCall(t *testing.T) {
	for _, tc := range []struct {
		head, id, method string
		ok               bool
	}{
		{`{"type":"call","data":{"call_id":"a","method":"m","params":{"x":"trunc`, `"a"`, "m", true},
		{`{"data":{"params":[1,{"y":[2]}],"call_id":5,"method":"m"},"type":"call"}`, `5`, "m", true},
		{`{"type":"call","data":{"call_id":12345,"method":"m","params":{"x":"trunc`, `12345`, "m", true},
		// A number the bytes end in may have been cut short.
		{`{"type":"call","data":{"method":"m","params":{"x":1},"call_id":12345`, "", "", false},
		// Sent back as it came: escapes and all, objects too.
		{`{"type":"call","data":{"call_id":"<a>\u00e9\ud800","params":"x`, `"<a>\u00e9\ud800"`, "", true},
		{`{"type":"call","data":{"call_id":{"k":[1]},"params":"x`, `{"k":[1]}`, "", true},
		// data before type (maps marshalled in key order): a later type
		// that is not "call" is no call; with no type in the bytes, a
		// method marks a call.
		{`{"data":{"call_id":"r2"},"type":"result","pad":"xxx`, "", "", false},
		{`{"data":{"call_id":"r1","result":{"x":"trunc`, "", "", false},
		{`{"data":{"call_id":"c","method":"m","params":{"x":"trunc`, `"c"`, "m", true},
		{`{"type":"call","data":{"method":"m","params":{"x":"trunc`, "", "", false},
		{`{"type":"result","data":{"call_id":"a"}}`, "", "", false},
		{`{"type":"call","data":{"call_id":null}}`, "", "", false},
		{`[1,2]`, "", "", false},
		{`{"type":"call","data":"x"}`, "", "", false},
		{``, "", "", false},
		// As the full message's handling decides: the last duplicate wins,
		// top-level keys match in any case, bad JSON is no message, and a
		// method must be a string.
		{`{"type":"call","data":{"call_id":"a","call_id":null,"p":"x`, "", "", false},
		{`{"type":"call","data":{"call_id":"a","params":{},"call_id":"xxxx`, "", "", false},
		{`{"type":"call","data":{"call_id":"a"},"data":{"call_id":"b","p":"x`, `"b"`, "", true},
		{`{"Type":"result","data":{"call_id":"r","method":"m","p":"x`, "", "", false},
		{`{"data":{"call_id":"r","method":"m"},"Type":"result","p":"x`, "", "", false},
		{`{"TYPE":"call","DATA":{"call_id":"c","p":"x`, `"c"`, "", true},
		{`{"type":"call","data":{"call_id":"a","params":nope`, "", "", false},
		{`{"type":"call","data":{"call_id":"a"}}xxx`, "", "", false},
		{`{"type":"call","data":{"call_id":"a"}}  `, `"a"`, "", true},
		{`{"data":{"call_id":"r","method":null,"p":"x`, "", "", false},
		{`{"type":7,"data":{"call_id":"r","p":"x`, "", "", false},
		// No type, or an empty one, in a message whose end is in the
		// bytes, or read whole: no call, method or not.
		{`{"data":{"call_id":1,"method":"m"}}`, "", "", false},
		{`{"type":"","data":{"call_id":1,"method":"m","p":"x`, "", "", false},
		{`{"type":null,"data":{"call_id":1,"method":"m","p":"x`, "", "", false},
		// A key in data cut short may be a later call_id.
		{`{"type":"call","data":{"call_id":1,"call_i`, "", "", false},
		// A string, object or literal that ends with the bytes is whole;
		// only a number may go on.
		{`{"type":"call","data":{"method":"m","call_id":"abc"`, `"abc"`, "m", true},
		// Params nested deeper than encoding/json decodes do not hide a
		// call_id after them.
		{`{"type":"call","data":{"params":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `,"call_id":"d","method":"m","x":"trunc`, `"d"`, "m", true},
		{`{"type":"call","data":{"params":{"a":` + strings.Repeat("[{\"b\":", 6000) + `1` + strings.Repeat("}]", 6000) + `},"call_id":"d"}}`, `"d"`, "", true},
	} {
		id, method, ok := headCall([]byte(tc.head))
		if ok != tc.ok || string(id) != tc.id || method != tc.method {
			t.Errorf("headCall(%.60q) = %s, %q, %v; want %s, %q, %v", tc.head, id, method, ok, tc.id, tc.method, tc.ok)
		}
	}
}

// FuzzHeadCall: headCall and undecodedCall never panic, and a call_id they
// find is valid JSON, not null, and appears in the bytes as it is; for a
// payload that decodes, headCall and lenientCall find the call_id that
// handle reads, or none when handle finds none.
func FuzzHeadCall(f *testing.F) {
	deep := strings.Repeat("[", 30) + strings.Repeat("]", 30)
	for _, s := range []string{
		`{"type":"call","data":{"call_id":"a","method":"m","params":{"x":"trunc`,
		`{"data":{"call_id":5,"method":"m"},"type":"call"}`,
		`{"type":"call","data":{"call_id":12345`,
		`{"data":{"call_id":"r"},"type":"result"}`,
		`{"type":"call","data":{"params":` + deep + `,"call_id":"d","method":"m"}}`,
		`{"TYPE":"call","data":{"params":{"a":"\q"},"call_id":{"k":[1]},"method":"m"}}`,
		`{"type":"call","data":{"call_id":"a","call_id":null}}`,
		`{"Data":{"call_id":1},"type":"call","data":{"call_id":2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		found := func(what string, id json.RawMessage, ok bool) {
			if ok && (!json.Valid(id) || string(id) == "null" || !bytes.Contains(head, id)) {
				t.Fatalf("%s(%q) found call_id %q", what, head, id)
			}
		}
		id, _, ok := headCall(head)
		found("headCall", id, ok)
		var m message
		err := json.Unmarshal(head, &m)
		uid, _, uok := undecodedCall(head, err)
		found("undecodedCall", uid, uok)
		if err != nil {
			return
		}
		// As handle reads a payload that decodes.
		var want json.RawMessage
		var data map[string]json.RawMessage
		if m.Type == "call" && json.Unmarshal(m.Data, &data) == nil && data != nil {
			if v := bytes.TrimSpace(data["call_id"]); len(v) > 0 && string(v) != "null" {
				want = v
			}
		}
		lid, _, lok := lenientCall(head)
		for what, got := range map[string]json.RawMessage{"headCall": id, "lenientCall": lid} {
			if !bytes.Equal(got, want) {
				t.Fatalf("%s(%q) found call_id %q (ok %v, %v); handle reads %q", what, head, got, ok, lok, want)
			}
		}
	})
}
