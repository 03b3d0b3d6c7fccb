package oracle

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestAnswersEveryRelease: the oracle answers for every modelled release,
// names the release it answered for, and an AllGather with NCCL_ALGO=Tree
// runs on Ring where NCCL_ALGO cannot disable it (2.18.x) or the release
// has the Ring backup, and fails where it has neither (2.24.3's error).
func TestAnswersEveryRelease(t *testing.T) {
	o := New(nil)
	for _, v := range spec.Releases {
		req := fmt.Sprintf(`{"id":"tree-%s","nccl":"%s","system":"dgx-h100","env":{"NCCL_ALGO":"Tree"},"op":{"coll":"allgather","bytes":"1MiB"}}`, v, v)
		var ans struct {
			Status string `json:"status"`
			NCCL   string `json:"nccl"`
			Algo   string `json:"algo"`
		}
		if err := json.Unmarshal(o.HandleLine([]byte(req)), &ans); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		want := "error"
		if rs := spec.MustLoad(v); rs.Consts.RingBackup || rs.Tuning.RingKeptNonAllReduce {
			want = "ok"
		}
		if ans.NCCL != v.String() || ans.Status != want || (want == "ok" && ans.Algo != "Ring") {
			t.Errorf("%s: answered %+v, want status %s (Ring when ok)", v, ans, want)
		}
	}
}
