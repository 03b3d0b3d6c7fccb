package oracle

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// An invalid answer names the field the request wrote ("op" or "group",
// group[i] for one operation of a group) and, in a stream, its line.
func TestInvalidNamesFieldAndLine(t *testing.T) {
	win := `{"coll":"allreduce","bytes":1024,"buffers":"window"}`
	for _, tc := range []struct {
		name, req, field, msg string
	}{
		{"window op at 2.22.3", `{"nccl":"2.22.3","system":"dgx-h100","op":` + win + `}`, "op", "line 2: buffers window at NCCL 2.22.3"},
		{"window in a group at 2.22.3", `{"nccl":"2.22.3","system":"dgx-h100","group":[{"coll":"allreduce","bytes":8},` + win + `]}`, "group[1]", "line 2: group op 1: buffers window at NCCL 2.22.3"},
		{"empty group", `{"nccl":"2.28.9","system":"dgx-h100","group":[]}`, "group", "line 2: 0 operations in one group: expected 1..4096"},
		{"neither", `{"nccl":"2.28.9","system":"dgx-h100"}`, "op", "line 2: missing"},
		{"group over the limit", `{"nccl":"2.28.9","system":"dgx-h100","group":[` + strings.Repeat(`{"coll":"allreduce","bytes":8},`, 4096) + `{"coll":"allreduce","bytes":8}]}`, "group", "line 2: 4097 operations in one group: expected 1..4096"},
		{"bad json", `{"nccl":`, "", "line 2: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := New(nil).Serve(strings.NewReader("# a comment\n"+tc.req+"\n"), &out, 0); err != nil {
				t.Fatal(err)
			}
			var a Answer
			if err := json.Unmarshal(out.Bytes(), &a); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if a.Status != "invalid" || a.Invalid == nil || a.Invalid.Field != tc.field || !strings.HasPrefix(a.Invalid.Message, tc.msg) {
				t.Fatalf("got %s\nwant field %q, message starting %q", out.String(), tc.field, tc.msg)
			}
		})
	}
}
