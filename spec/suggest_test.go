package spec

import (
	"strings"
	"testing"
)

// TestValueTypos: every parser of a fixed list names the list and the
// closest entry; the lists name exactly what the parsers take.
func TestValueTypos(t *testing.T) {
	cases := []struct {
		err  error
		want []string
	}{
		{second(ParseFunc("allredcue")), []string{`unknown collective "allredcue"`, "did you mean allreduce?", "sendrecv"}},
		{second(ParseFuncIn("allredcue", SelectFuncs)), []string{"did you mean allreduce?", "expected one of allreduce, allgather, reducescatter, broadcast, reduce, sendrecv, alltoall"}},
		{second(ParseFuncIn("sendrecv", CostTableFuncs)), []string{"not accepted here", "expected one of allreduce, allgather, reducescatter, broadcast, reduce"}},
		{second(ParseDataType("flaot32")), []string{"unknown datatype", "did you mean float32?"}},
		{second(ParseRedOp("mx")), []string{"unknown reduction", "did you mean max?"}},
		{second(ParseAlgo("rign")), []string{"unknown algorithm", "did you mean Ring?"}},
		{second(ParseProto("simpel")), []string{"unknown protocol", "did you mean Simple?"}},
		{second(Preset("dgx-h10", PresetOptions{})), []string{"unknown system preset", "did you mean dgx-h100?"}},
		{second(ParseVersion("2.28")), []string{"2.28.3, 2.28.7, 2.28.9"}},
		{second(ParseVersion("2.26")), []string{"2.26.2, 2.26.3, 2.26.5, 2.26.6"}},
		{second(ParseVersion("2.17")), []string{"modelled: " + Releases[0].String() + ", "}},
	}
	for i, c := range cases {
		if c.err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(c.err.Error(), w) {
				t.Errorf("case %d: %q lacks %q", i, c.err, w)
			}
		}
		if strings.Contains(c.want[0], "not accepted") && strings.Contains(c.err.Error(), "sendrecv,") {
			t.Errorf("case %d: %q lists a collective it refuses", i, c.err)
		}
	}
	if err := second(ParseFuncIn("allredcue", CostTableFuncs)); strings.Contains(err.Error(), "sendrecv") || strings.Contains(err.Error(), "alltoall") {
		t.Errorf("%q lists collectives outside the cost table", err)
	}
	for _, n := range DataTypeNames() {
		if _, err := ParseDataType(n); err != nil {
			t.Errorf("DataTypeNames lists %q, which ParseDataType refuses: %v", n, err)
		}
	}
	if len(DataTypeNames()) != NumDataTypes {
		t.Errorf("DataTypeNames has %d names for %d types", len(DataTypeNames()), NumDataTypes)
	}
	for _, lists := range [][]string{RedOpNames(), AlgoNames(), ProtoNames(), FuncNames(AllFuncs), ReleaseNames()} {
		for _, n := range lists {
			var err error
			switch {
			case contains(RedOpNames(), n):
				_, err = ParseRedOp(n)
			case contains(AlgoNames(), n):
				_, err = ParseAlgo(n)
			case contains(ProtoNames(), n):
				_, err = ParseProto(n)
			case contains(ReleaseNames(), n):
				_, err = ParseVersion(n)
			default:
				_, err = ParseFunc(n)
			}
			if err != nil {
				t.Errorf("%q is listed but refused: %v", n, err)
			}
		}
	}
}

func second[T any](_ T, err error) error { return err }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestValueNames: every kind names a non-empty list, and no other kind
// names one.
func TestValueNames(t *testing.T) {
	for _, k := range []string{"system", "nccl", "coll", "colls", "algo", "proto", "dtype", "redop"} {
		if len(ValueNames(k)) == 0 {
			t.Errorf("ValueNames(%q) is empty", k)
		}
	}
	if got := ValueNames("nodes"); got != nil {
		t.Errorf("ValueNames(nodes) = %v", got)
	}
	if strings.Join(ValueNames("nccl"), ",") != strings.Join(ReleaseNames(), ",") {
		t.Error("ValueNames(nccl) is not the releases")
	}
}
