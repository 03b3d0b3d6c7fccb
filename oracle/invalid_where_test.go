package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// An invalid answer names the field the request wrote (op.buffers, or
// group[i].buffers for one operation of a group) and, in a stream, its
// line.
func TestInvalidNamesFieldAndLine(t *testing.T) {
	win := `{"coll":"allreduce","bytes":1024,"buffers":"window"}`
	for _, tc := range []struct {
		name, req, field, msg string
	}{
		{"window op at 2.22.3", `{"nccl":"2.22.3","system":"dgx-h100","op":` + win + `}`, "op.buffers", "line 2: buffers window at NCCL 2.22.3"},
		{"window in a group at 2.22.3", `{"nccl":"2.22.3","system":"dgx-h100","group":[{"coll":"allreduce","bytes":8},` + win + `]}`, "group[1].buffers", "line 2: group op 1: buffers window at NCCL 2.22.3"},
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

// An invalid answer names the member the user wrote, whether the request
// parser or spec refuses it, for a lone op, an operation of a group and
// a call before them.
func TestInvalidNamesMember(t *testing.T) {
	o := New(nil)
	const h100 = `"system":"dgx-h100"`
	for _, tc := range []struct{ name, req, field, has string }{
		{"root out of range", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"broadcast","bytes":1024,"root":8}}`, "op.root", "root 8 out of range"},
		{"negative root", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"reduce","bytes":1024,"root":-1}}`, "op.root", "root -1 out of range"},
		{"unknown buffers", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"allreduce","bytes":1024,"buffers":"pinned"}}`, "op.buffers", "expected one of"},
		{"window before windows", `{"nccl":"2.22.3",` + h100 + `,"op":{"coll":"allreduce","bytes":1024,"buffers":"window"}}`, "op.buffers", "no ncclCommWindowRegister"},
		{"count over the limit", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"allreduce","count":1099511627776}}`, "op.count", "exceeds 1 TiB"},
		{"negative count", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"allreduce","count":-1}}`, "op.count", "negative count"},
		{"bytes not whole elements", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"allreduce","bytes":1023}}`, "op.bytes", "whole number"},
		{"fp8 before 2.24", `{"nccl":"2.22.3",` + h100 + `,"op":{"coll":"allreduce","bytes":1024,"dtype":"float8e4m3"}}`, "op.dtype", "does not exist in NCCL 2.22.3"},
		{"unknown redop", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"allreduce","bytes":1024,"redop":"xor"}}`, "op.redop", "xor"},
		{"host window before 2.30.3", `{"nccl":"2.28.9",` + h100 + `,"op":{"coll":"allreduce","bytes":1024,"buffers":"window","alloc":"cumem-host"}}`, "op.alloc", "not modelled before NCCL 2.30.3"},
		{"one-sided peer", `{"nccl":"2.30.7",` + h100 + `,"op":{"coll":"signal","peer":8}}`, "op.peer", "peer 8"},
		{"devCommCreate before 2.28.3", `{"nccl":"2.27.7",` + h100 + `,"op":{"coll":"devCommCreate"}}`, "op.coll", "has no ncclDevCommCreate"},
		{"group root", `{"nccl":"2.28.9",` + h100 + `,"group":[{"coll":"allreduce","bytes":8},{"coll":"broadcast","bytes":8,"root":9}]}`, "group[1].root", "root 9 out of range"},
		{"group count", `{"nccl":"2.28.9",` + h100 + `,"group":[{"coll":"allreduce","bytes":8},{"coll":"allreduce","bytes":8},{"coll":"allgather","count":1099511627776}]}`, "group[2].count", "exceeds 1 TiB"},
		{"group alloc", `{"nccl":"2.28.9",` + h100 + `,"group":[{"coll":"allreduce","bytes":8,"buffers":"window","alloc":"cumem-host"}]}`, "group[0].alloc", "host memory"},
		{"before coll", `{"nccl":"2.27.7",` + h100 + `,"before":[{"coll":"devCommCreate"}],"op":{"coll":"allreduce","bytes":8}}`, "before[0].coll", "call 0 before the group: NCCL 2.27.7 has no ncclDevCommCreate"},
		{"before dev_comm", `{"nccl":"2.28.3",` + h100 + `,"before":[{"coll":"devCommCreate"},{"coll":"devCommCreate"},{"coll":"devCommCreate","dev_comm":{"ginSignalCount":4}}],"op":{"coll":"allreduce","bytes":8}}`, "before[2].dev_comm", "call 2 before the group: ncclDevCommRequirements ginSignalCount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := decode(t, o.HandleLine([]byte(tc.req)))
			inv, _ := m["invalid"].(map[string]any)
			msg, _ := inv["message"].(string)
			if m["status"] != "invalid" || inv["field"] != tc.field || !strings.Contains(msg, tc.has) {
				t.Fatalf("got %v %v, want invalid %s saying %q", m["status"], inv, tc.field, tc.has)
			}
		})
	}
}

// invalidAt reads the call a before error names from its type, not from
// its wording: an error that says nothing of "before" still names it.
func TestInvalidAtBeforeErrorTyped(t *testing.T) {
	req := &Request{Before: []*OpRequest{{Coll: "devCommCreate"}, {Coll: "devCommCreate"}}, Op: &OpRequest{Coll: "allreduce"}}
	for _, tc := range []struct {
		err   error
		field string
	}{
		{&spec.BeforeError{Call: 1, Err: errors.New("refused")}, "before[1]"},
		{&spec.BeforeError{Call: 0, Err: &spec.ArgError{Arg: spec.ArgDevComm, Err: errors.New("refused")}}, "before[0].dev_comm"},
		{errors.New("call 1 before the group: refused"), "op"},
		{&spec.ArgError{Arg: spec.ArgRoot, Err: errors.New("refused")}, "op.root"},
	} {
		if a := invalidAt(req, tc.err); a.Invalid == nil || a.Invalid.Field != tc.field {
			t.Errorf("%#v: got %+v, want field %s", tc.err, a.Invalid, tc.field)
		}
	}
}
