package oracle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
)

// devCommRequests are device communicator requests, one per case of
// G-DEVCOMM-SHARE-1, -QUEUE-1 and -GINTYPE-1 (spec's tests hold the same
// cases): a group of several devCommCreate calls is several device
// communicators on one communicator, created in call order.
var devCommRequests = []string{
	// G-DEVCOMM-QUEUE-1
	`{"nccl":"2.28.7","system":"dgx-h100","op":{"coll":"devCommCreate","dev_comm":{"ginForceEnable":true}}}`,
	`{"nccl":"2.28.9","system":"dgx-h100","env":{"NCCL_GIN_GDAKI_QP_DEPTH":"64"},"op":{"coll":"devCommCreate","dev_comm":{"ginForceEnable":true}}}`,
	`{"nccl":"2.28.7","system":"dgx-h100","env":{"NCCL_GIN_TYPE":"2","NCCL_GIN_PROXY_QUEUE_SIZE":"100"},"op":{"coll":"devCommCreate","dev_comm":{"ginForceEnable":true}}}`,
	`{"nccl":"2.29.2","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_TYPE":"2","NCCL_GIN_PROXY_QUEUE_SIZE":"64"},"op":{"coll":"devCommCreate","dev_comm":{"ginSignalCount":1}}}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_TYPE":"2","NCCL_GIN_PROXY_QUEUE_SIZE":"1024"},"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginQueueDepth":32}}}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_TYPE":"2"},"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginQueueDepth":32}}}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_TYPE":"2"},"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginQueueDepth":32}}]}`,
	`{"nccl":"2.30.3","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_TYPE":"2"},"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginQueueDepth":32}}]}`,
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_TYPE":"2"},"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginQueueDepth":32}}}`,
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginQueueDepth":32}}}`,
	// G-DEVCOMM-GINTYPE-1
	`{"nccl":"2.28.7","system":"dgx-h100","plugins":[` + netGinLib + `],"env":{"NCCL_GIN_TYPE":"2"},"op":{"coll":"devCommCreate","dev_comm":{"ginForceEnable":true}}}`,
	`{"nccl":"2.28.9","system":"dgx-h100","plugins":[` + netGinLib + `],"env":{"NCCL_GIN_TYPE":"3"},"op":{"coll":"devCommCreate","dev_comm":{"ginForceEnable":true}}}`,
	`{"nccl":"2.28.7","system":"dgx-h100","plugins":[` + netGinLib + `],"env":{"NCCL_GIN_TYPE":"2"},"group":[{"coll":"devCommCreate","dev_comm":{"ginForceEnable":true}},{"coll":"devCommCreate"}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"plugins":[{"path":"/opt/g/libnccl-gin-x.so","in_loader_path":true,"gin_symbols":[12],"gin_name":"G12"}],"env":{"NCCL_GIN_PLUGIN":"x","NCCL_GIN_TYPE":"2"},"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"plugins":[{"path":"/opt/g/libnccl-gin.so","in_loader_path":true,"gin_symbols":[13],"gin_name":"G13"}],"env":{"NCCL_GIN_TYPE":"2"},"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	// G-DEVCOMM-SHARE-1
	`{"nccl":"2.28.7","system":"dgx-h100","group":[{"coll":"devCommCreate","dev_comm":{"ginForceEnable":true}},{"coll":"devCommCreate","dev_comm":{"lsaBarrierCount":1}}]}`,
	`{"nccl":"2.28.7","system":"dgx-h100","env":{"NCCL_GIN_SIGNAL_POOL_SIZE":"100"},"group":[{"coll":"devCommCreate","dev_comm":{"ginSignalCount":60}},{"coll":"devCommCreate","dev_comm":{"ginSignalCount":60}}]}`,
	`{"nccl":"2.29.2","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_COUNTER_POOL_SIZE":"-5"},"group":[{"coll":"devCommCreate","dev_comm":{"ginCounterCount":65536}},{"coll":"devCommCreate","dev_comm":{"ginCounterCount":1}}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginSignalCount":307200}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginSignalCount":307200}}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":4,"ginExclusiveContexts":true}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":1,"ginExclusiveContexts":true}}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":3,"ginExclusiveContexts":true}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":4,"ginExclusiveContexts":true}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"rail"}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}]}`,
	`{"nccl":"2.30.3","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"rail"}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}]}`,
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"rail"}}}`,
	`{"nccl":"2.30.3","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":4,"ginExclusiveContexts":true}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":4,"ginExclusiveContexts":true}}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"group":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":0}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}]}`,
}

// netGinLib is a net plugin library whose ncclGinPlugin_v11 the network
// assigns with it (2.28.7–2.29.3).
const netGinLib = `{"path":"/opt/net/libnccl-net.so","in_loader_path":true,"net_symbols":[8],"net":{"name":"N8","devices":1},"gin_symbols":[11],"gin_name":"NetGin"}`

// TestDevCommAnswers holds the oracle's answers to devCommRequests in
// testdata/devcomm.golden: each request, then its answer with only the
// device communicator rules' verdicts of its trace and without its schema
// version (-update rewrites).
func TestDevCommAnswers(t *testing.T) {
	o := New(nil)
	var out strings.Builder
	for _, line := range devCommRequests {
		m := decode(t, o.HandleLine([]byte(line)))
		if m["status"] == "invalid" {
			t.Errorf("%s: invalid: %v", line, m["invalid"])
		}
		tr, _ := m["trace"].([]any)
		var kept []any
		for _, v := range tr {
			if id, _ := v.(map[string]any)["rule"].(string); strings.HasPrefix(id, "G-DEVCOMM-") {
				kept = append(kept, v)
			}
		}
		m["trace"] = kept
		// the answer's schema version is the batch golden's to pin
		delete(m, "schema")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(line + "\n" + string(b) + "\n\n")
	}
	goldenfile.Check(t, "testdata/devcomm.golden", out.String(), *update)
}
