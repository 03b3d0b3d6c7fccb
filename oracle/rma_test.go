package oracle

import (
	"testing"
)

// TestOneSidedCalls: a one-sided call in a request is answered with its
// path or NCCL's error, and a malformed one is invalid, naming the field.
func TestOneSidedCalls(t *testing.T) {
	o := New(nil)
	cases := []struct {
		line, status, field, kernel string
	}{
		{`{"nccl":"2.29.2","system":"h200x2","group":[{"coll":"putSignal","bytes":"2GiB","peer":1,"buffers":"window"},{"coll":"allreduce","bytes":"1MiB"}]}`, "ok", "", "rma-ce"},
		{`{"nccl":"2.29.2","system":"h200x2","op":{"coll":"signal","peer":1,"flags":3}}`, "error", "", ""},
		{`{"nccl":"2.29.2","system":"h200x2","op":{"coll":"signal","peer":5}}`, "invalid", "op.peer", ""},
		{`{"nccl":"2.29.2","system":"h200x2","op":{"coll":"waitSignal"}}`, "invalid", "op.peer", ""},
		{`{"nccl":"2.29.2","system":"h200x2","op":{"coll":"signal","peer":1,"bytes":"4KiB"}}`, "invalid", "op.bytes", ""},
		{`{"nccl":"2.29.2","system":"h200x2","op":{"coll":"allreduce","bytes":"4KiB","op_cnt":2}}`, "invalid", "op.coll", ""},
		{`{"nccl":"2.28.9","system":"h200x2","op":{"coll":"signal","peer":1}}`, "invalid", "op", ""},
	}
	for _, tc := range cases {
		m := decode(t, o.HandleLine([]byte(tc.line)))
		if m["status"] != tc.status {
			t.Errorf("%s: status %v, want %s (%v)", tc.line, m["status"], tc.status, m)
			continue
		}
		if tc.field != "" {
			if inv, _ := m["invalid"].(map[string]any); inv == nil || inv["field"] != tc.field {
				t.Errorf("%s: invalid %v, want field %s", tc.line, m["invalid"], tc.field)
			}
		}
		if tc.kernel != "" {
			op := m["ops"].([]any)[0].(map[string]any)
			if op["kernel"] != tc.kernel || op["coll"] != "PutSignal" || op["rma"] == nil {
				t.Errorf("%s: op %v, want kernel %s with its rma path", tc.line, op, tc.kernel)
			}
		}
	}
}

// TestOneSidedPlans: the answer numbers a group's plans in launch order,
// the RMA plans first (ncclLaunchPrepare, 2.29.2–2.30.7): a put and a
// wait take plans 0 and 1, the AllReduce's kernel plan is 2 of 3.
func TestOneSidedPlans(t *testing.T) {
	o := New(nil)
	for _, v := range []string{"2.29.2", "2.30.7"} {
		line := `{"nccl":"` + v + `","system":"h200x2","group":[{"coll":"putSignal","bytes":"4KiB","peer":1,"buffers":"window"},{"coll":"allreduce","bytes":"64MiB"},{"coll":"waitSignal","peer":1}]}`
		m := decode(t, o.HandleLine([]byte(line)))
		ops, _ := m["ops"].([]any)
		if m["status"] != "ok" || len(ops) != 3 {
			t.Fatalf("%s: %v", v, m)
		}
		for i, want := range []float64{0, 2, 1} {
			if p := ops[i].(map[string]any)["plan"]; p != want {
				t.Errorf("%s: op %d plan %v, want %v", v, i, p, want)
			}
		}
		if m["plans"] != float64(3) {
			t.Errorf("%s: plans %v, want 3", v, m["plans"])
		}
	}
}
