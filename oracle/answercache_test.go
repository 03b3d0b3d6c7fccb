package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestRequestFingerprint(t *testing.T) {
	const rest = `"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":4}`
	for _, c := range []struct {
		name, line string
		ok         bool
		key, id    string
	}{
		{"number id", `{"id":7,` + rest + `}`, true, `{"id":,` + rest + `}`, `7`},
		{"string id", ` {"id": "r-1" ,` + rest + "}\t", true, ` {"id":  ,` + rest + "}\t", `"r-1"`},
		{"id last", `{` + rest + `,"id":-1.5e3}`, true, `{` + rest + `,"id":}`, `-1.5e3`},
		{"no id", `{` + rest + `}`, true, `{` + rest + `}`, ``},
		{"empty object", `{}`, true, `{}`, ``},
		{"nested id is not the id", `{"system":{"id":1,"x":[1,{"id":2}]},"id":3}`, true, `{"system":{"id":1,"x":[1,{"id":2}]},"id":}`, `3`},
		{"escaped quote in a value", `{"env":{"A":"x\"id\":"},"id":3}`, true, `{"env":{"A":"x\"id\":"},"id":}`, `3`},
		{"ID folds to id", `{"ID":7,` + rest + `}`, false, "", ""},
		{"Id folds to id", `{"Id":7,` + rest + `}`, false, "", ""},
		{"two ids", `{"id":7,"id":8,` + rest + `}`, false, "", ""},
		{"id and ID", `{"id":7,"ID":8}`, false, "", ""},
		{"escaped key", `{"\u0069d":7,` + rest + `}`, false, "", ""},
		{"non-ASCII key", `{"ıd":7}`, false, "", ""},
		{"object id", `{"id":{"a":1},` + rest + `}`, false, "", ""},
		{"null id", `{"id":null,` + rest + `}`, false, "", ""},
		{"id with escape", `{"id":"a\"b",` + rest + `}`, false, "", ""},
		{"id with HTML character", `{"id":"a<b",` + rest + `}`, false, "", ""},
		{"bad number", `{"id":01,` + rest + `}`, false, "", ""},
		{"bad number 2", `{"id":1.,` + rest + `}`, false, "", ""},
		{"trailing data", `{"id":1} x`, false, "", ""},
		{"two objects", `{"id":1}{}`, false, "", ""},
		{"array", `[1]`, false, "", ""},
		{"unterminated", `{"id":1,"op":{"coll":"x"`, false, "", ""},
		{"missing colon", `{"id" 1}`, false, "", ""},
		{"trailing comma", `{"id":1,}`, false, "", ""},
		{"deep", `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, false, "", ""},
		{"control character in a string", "{\"a\":\"x\x01\"}", false, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			key, id, ok := requestFingerprint([]byte(c.line))
			if ok != c.ok {
				t.Fatalf("ok %v, want %v", ok, c.ok)
			}
			if ok && (key != c.key || string(id) != c.id) {
				t.Fatalf("key %q id %q, want %q %q", key, id, c.key, c.id)
			}
		})
	}
}

// FuzzRequestFingerprint: on any line the decoder accepts as an object, a
// fingerprint finds the id the decoder finds, and putting the id back
// into the key gives the line.
func FuzzRequestFingerprint(f *testing.F) {
	for _, l := range variedBatch(20, 17, false) {
		f.Add(l)
	}
	f.Add([]byte(`{"system":{"id":1},"id":"x"}`))
	f.Add([]byte(`{"ID":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		key, id, ok := requestFingerprint(line)
		if !ok {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return // the decoder's path answers it "invalid"; nothing is kept
		}
		var ids []string
		for k, v := range m {
			if strings.EqualFold(k, "id") {
				ids = append(ids, k+"="+string(v))
			}
		}
		switch {
		case id == nil && len(ids) > 0:
			t.Fatalf("no id found, the decoder has %v", ids)
		case id != nil && (len(ids) != 1 || ids[0] != "id="+string(id)):
			t.Fatalf("id %s, the decoder has %v", id, ids)
		}
		if id != nil {
			var want []byte
			if err := json.Unmarshal(id, new(any)); err != nil {
				t.Fatalf("id %s is not JSON: %v", id, err)
			}
			want, _ = json.Marshal(json.RawMessage(id))
			if !bytes.Equal(want, id) {
				t.Fatalf("id %s is written %s", id, want)
			}
		}
		if id == nil && key != string(line) {
			t.Fatalf("key %q of a line without id", key)
		}
	})
}

// TestKeptAnswersAreFresh asks a varied batch twice on one oracle, the
// second time under other ids (a string, none, the same), so that the
// answers come from the answer cache; each must be the bytes an oracle
// without the cache gives.
func TestKeptAnswersAreFresh(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	batch := variedBatch(n, 19, false)
	o := New(nil)
	answerBatch(o, batch)
	kept := o.answers.Len()
	if kept < n/2 {
		t.Fatalf("%d answers kept of %d requests: expected most", kept, n)
	}
	fresh := New(nil)
	fresh.answers = nil
	for i, l := range batch {
		again := l
		switch i % 3 {
		case 0:
			again = bytes.Replace(l, []byte(fmt.Sprintf(`"id":%d,`, i)), []byte(fmt.Sprintf(`"id":"again-%d",`, i)), 1)
		case 1:
			again = bytes.Replace(l, []byte(fmt.Sprintf(`"id":%d,`, i)), nil, 1)
		}
		got, want := o.HandleLine(again), fresh.HandleLine(again)
		if !bytes.Equal(got, want) {
			t.Fatalf("request %d (%s): kept answer\n%s\nfresh answer\n%s", i, again, got, want)
		}
	}
	// a setting the answer depends on is part of the key
	o.Trace, fresh.Trace = false, false
	for _, l := range batch[:10] {
		if got, want := o.HandleLine(l), fresh.HandleLine(l); !bytes.Equal(got, want) {
			t.Fatalf("without trace (%s): kept answer\n%s\nfresh answer\n%s", l, got, want)
		}
	}
}
