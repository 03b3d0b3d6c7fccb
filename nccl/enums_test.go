package nccl

import "testing"

func TestEnumRoundTrip(t *testing.T) {
	for _, a := range Algos {
		if b, err := ParseAlgo(a.String()); err != nil || b != a {
			t.Errorf("algo %v does not round-trip: %v %v", a, b, err)
		}
		if b, err := ParseAlgo(a.LogName()); err != nil || b != a {
			t.Errorf("algo log name %s does not parse: %v %v", a.LogName(), b, err)
		}
	}
	for _, p := range Protos {
		if q, err := ParseProto(p.String()); err != nil || q != p {
			t.Errorf("proto %v does not round-trip", p)
		}
	}
	for f := Broadcast; f <= AllToAll; f++ {
		if g, err := ParseFunc(f.String()); err != nil || g != f {
			t.Errorf("func %v does not round-trip: %v %v", f, g, err)
		}
	}
	for d := DataType(0); d < NumDataTypes; d++ {
		for _, s := range []string{d.String(), d.Short()} {
			if e, err := ParseDataType(s); err != nil || e != d {
				t.Errorf("datatype %q does not parse to %v: %v %v", s, d, e, err)
			}
		}
		if d.Size() == 0 {
			t.Errorf("datatype %v has no size", d)
		}
	}
	for r := RedOp(0); r < NumRedOps; r++ {
		for _, s := range []string{r.String(), r.Short()} {
			if q, err := ParseRedOp(s); err != nil || q != r {
				t.Errorf("redop %q does not parse: %v %v", s, q, err)
			}
		}
	}
	// NCCL's fixed indices, which cost tables and logs use numerically.
	if Tree != 0 || Ring != 1 || CollNetDirect != 2 || CollNetChain != 3 || NVLS != 4 || NVLSTree != 5 || PAT != 6 {
		t.Error("algorithm indices differ from NCCL_ALGO_*")
	}
	if Float32 != 7 || Bfloat16 != 9 || Float8e5m2 != 11 || Avg != 4 {
		t.Error("datatype or redop indices differ from nccl.h")
	}
	for _, bad := range []string{"", "ringg", "all reduce"} {
		if _, err := ParseAlgo(bad); err == nil {
			t.Errorf("ParseAlgo(%q) accepted", bad)
		}
		if _, err := ParseFunc(bad); err == nil {
			t.Errorf("ParseFunc(%q) accepted", bad)
		}
	}
}
