package oracle

import (
	"encoding/json"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestEncoderIsMarshal holds the answer encoder to json.Marshal's bytes
// on a varied batch (errors, fallbacks, discarded calls, point-to-point),
// groups, and answers with a trace.
func TestEncoderIsMarshal(t *testing.T) {
	lines := variedBatch(400, 13, false)
	for _, g := range []string{
		`{"id":"g1","nccl":"2.28.9","system":"dgx-h100","nodes":2,"group":[{"coll":"allreduce","bytes":1024},{"coll":"allgather","bytes":4096,"buffers":"registered"}]}`,
		`{"id":[1, 2, {"a": "<&>"}],"nccl":"2.28.9","system":"h200x2","launch":"graph","op":{"coll":"allreduce","bytes":"1MiB"}}`,
		`{"id":3,"nccl":"2.22.3","system":"v100x4","op":{"coll":"sendrecv","bytes":64}}`,
		// an AllToAll on the p2p path and one on the copy engines
		`{"id":4,"nccl":"2.28.9","system":"h200x2","env":{"NCCL_CTA_POLICY":"2"},"group":[{"coll":"alltoall","bytes":"1MiB"},{"coll":"alltoall","bytes":"1MiB","buffers":"window"}]}`,
		// symmetric kernels: per-block bytes
		`{"id":5,"nccl":"2.28.9","system":"h200x2","group":[{"coll":"allreduce","bytes":"64KiB","buffers":"window"},{"coll":"allreduce","bytes":"1MiB","buffers":"window"}]}`,
		// send/recv tasks after a collective, their channels spread by bit reversal (2.22.3)
		`{"id":6,"nccl":"2.22.3","system":"dgx-h100","group":[{"coll":"allreduce","bytes":"1MiB"},{"coll":"sendrecv","bytes":"64MiB"}]}`,
		// a CollNet-registered AllGather: the registered proxy op (G-REG-PROXY-1)
		`{"id":7,"nccl":"2.28.9","system":"dgx-h100","nodes":4,"sharp":true,"env":{"NCCL_COLLNET_ENABLE":"1","NCCL_ALGO":"CollNetDirect"},"op":{"coll":"allgather","bytes":"64MiB","buffers":"registered"}}`,
	} {
		lines = append(lines, []byte(g))
	}
	o := New(nil)
	encoded := 0
	for _, l := range lines {
		a, _, _, _ := o.answer(l)
		want, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("%s: json.Marshal: %v", l, err)
		}
		got, ok := appendAnswer(nil, a)
		if !ok {
			continue
		}
		encoded++
		if string(got) != string(want) {
			t.Fatalf("%s:\nencoder      %s\njson.Marshal %s", l, got, want)
		}
	}
	if encoded < len(lines)*3/4 {
		t.Fatalf("the encoder wrote %d of %d answers: expected it to write the ok and error answers", encoded, len(lines))
	}
}

func TestAppendStringIsMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune("<>&\"\\\b\f\n\r\t\x00\x1f\u2028\u2029é€a "))),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) })).Draw(t, "s")
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: encoder %s, json.Marshal %s", s, got, want)
		}
	})
}

func TestAppendFloatIsMarshal(t *testing.T) {
	check := func(f float64) {
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Fatalf("%v: encoder %s, json.Marshal %s", f, got, want)
		}
	}
	for _, f := range []float64{0, -0.0, 1, 1e-6, 9.99e-7, 1e-7, 1e21, 1e20, 123.456, -5e-9, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		check(f)
	}
	rapid.Check(t, func(t *rapid.T) { check(rapid.Float64().Draw(t, "f")) })
}
