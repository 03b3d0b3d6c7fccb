package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// The enums travel in JSON by NCCL's names and come back unchanged; an
// index (older files) is still read.
func TestEnumsJSON(t *testing.T) {
	d := Decision{Op: Op{Func: ReduceScatter, Count: 3, DataType: Bfloat16, RedOp: Avg}, Algo: AlgoNone, Proto: Simple}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"coll":"ReduceScatter"`, `"dtype":"ncclBfloat16"`, `"redop":"ncclAvg"`, `"algo":"none"`, `"proto":"Simple"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back Decision
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Op != d.Op || back.Algo != d.Algo || back.Proto != d.Proto {
		t.Errorf("round trip: %+v, want %+v", back, d)
	}
	var a Algo
	if err := json.Unmarshal([]byte(`4`), &a); err != nil || a != NVLS {
		t.Errorf("index 4: %v %v", a, err)
	}
	if err := json.Unmarshal([]byte(`"Ringo"`), &a); err == nil {
		t.Error(`"Ringo" accepted`)
	}
	if err := json.Unmarshal([]byte(`true`), &a); err == nil {
		t.Error("true accepted")
	}
}
