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
	// G-DEVCOMM-DESTROY-1: before calls, each outside a group; a destroy
	// in a group runs at its call, before the group's creations
	`{"nccl":"2.28.3","system":"dgx-h100","before":[{"coll":"devCommCreate","dev_comm":{"lsaBarrierCount":1}}],"op":{"coll":"devCommDestroy","dev_comm_nth":1}}`,
	`{"nccl":"2.28.7","system":"dgx-h100","env":{"NCCL_GIN_SIGNAL_POOL_SIZE":"100"},"before":[{"coll":"devCommCreate","dev_comm":{"ginSignalCount":60}},{"coll":"devCommDestroy","dev_comm_nth":1}],"op":{"coll":"devCommCreate","dev_comm":{"ginSignalCount":60}}}`,
	`{"nccl":"2.28.9","system":"dgx-h100","env":{"NCCL_GIN_SIGNAL_POOL_SIZE":"100"},"before":[{"coll":"devCommCreate","dev_comm":{"ginSignalCount":30}},{"coll":"devCommCreate","dev_comm":{"ginSignalCount":30}},{"coll":"devCommDestroy","dev_comm_nth":1}],"group":[{"coll":"devCommCreate","dev_comm":{"ginSignalCount":40}},{"coll":"devCommCreate","dev_comm":{"ginSignalCount":30}}]}`,
	`{"nccl":"2.29.3","system":"dgx-h100","nodes":2,"env":{"NCCL_GIN_COUNTER_POOL_SIZE":"10"},"before":[{"coll":"devCommCreate","dev_comm":{"ginCounterCount":8}}],"group":[{"coll":"devCommCreate","dev_comm":{"ginCounterCount":8}},{"coll":"devCommDestroy","dev_comm_nth":1}]}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"before":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":2,"ginExclusiveContexts":true}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":2,"ginExclusiveContexts":true}},{"coll":"devCommDestroy","dev_comm_nth":2}],"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":2,"ginExclusiveContexts":true}}}`,
	`{"nccl":"2.29.7","system":"dgx-h100","nodes":2,"before":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":2,"ginExclusiveContexts":true}},{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":2,"ginExclusiveContexts":true}},{"coll":"devCommDestroy","dev_comm_nth":1}],"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginContextCount":1,"ginExclusiveContexts":true}}}`,
	`{"nccl":"2.30.4","system":"dgx-h100","nodes":2,"before":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}},{"coll":"devCommDestroy","dev_comm_nth":1}],"op":{"coll":"devCommCreate"}}`,
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"before":[{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"rail"}},{"coll":"devCommDestroy","dev_comm_nth":1}],"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"rail"}}}`,
	// G-DEVCOMM-SIGNAL-1
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"plugins":[{"path":"/opt/g/libnccl-gin.so","in_loader_path":true,"gin_symbols":[14],"gin_name":"G14","gin":{"devices":1,"no_strong_signals":true}}],"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"plugins":[{"path":"/opt/g/libnccl-gin.so","in_loader_path":true,"gin_symbols":[14],"gin_name":"G14","gin":{"devices":1,"no_strong_signals":true}}],"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full","ginStrongSignalsRequired":false}}}`,
	`{"nccl":"2.30.7","system":"dgx-h100","nodes":2,"plugins":[{"path":"/opt/g/libnccl-gin.so","in_loader_path":true,"gin_symbols":[14],"gin_name":"G14","gin":{"devices":1,"no_va_signals":true}}],"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	// mixed GIN types: node 0's NIC is mlx5 (GDAKI), node 1's not (the
	// proxy); NCCL_GIN_TYPE=2 makes both the proxy
	`{"nccl":"2.29.2","system":` + mixedGin + `,"op":{"coll":"devCommCreate","dev_comm":{"ginSignalCount":1}}}`,
	`{"nccl":"2.29.7","system":` + mixedGin + `,"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	`{"nccl":"2.29.7","system":` + mixedGin + `,"env":{"NCCL_GIN_TYPE":"2"},"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	`{"nccl":"2.30.7","system":` + mixedGin + `,"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
	`{"nccl":"2.30.7","system":` + mixedGin + `,"env":{"NCCL_GIN_TYPE":"2"},"op":{"coll":"devCommCreate","dev_comm":{"ginConnectionType":"full"}}}`,
}

// mixedGin is two nodes of two NVLink-connected H100s and one NIC each: node 0's an mlx5
// port, so its internal GIN is GDAKI; node 1's a bnxt_re port, so its
// internal GIN is the proxy.
const mixedGin = `{"name":"mixed-gin","nodes":[` + mixedGinNode0 + `,` + mixedGinNode1 + `]}`

const mixedGinNode0 = `{"host":"n0","cpu":{"arch":"x86_64","vendor":"Intel","model":"srp","sockets":1},"driver":{"verbs":true,"cuda":12080,"cumem":true},` +
	`"gpus":[{"dev":0,"name":"NVIDIA H100","sm":90,"bus_id":"0000:10:00.0","nvlinks":18},{"dev":1,"name":"NVIDIA H100","sm":90,"bus_id":"0000:20:00.0","nvlinks":18}],"nics":[{"name":"mlx5_0","port":1,"link_layer":"IB","speed_mbps":400000,"active":true,"gdr":true,"bus_id":"0000:11:00.0"}],"ip_interfaces":["eth0"]}`

const mixedGinNode1 = `{"host":"n1","cpu":{"arch":"x86_64","vendor":"Intel","model":"srp","sockets":1},"driver":{"verbs":true,"cuda":12080,"cumem":true},` +
	`"gpus":[{"dev":0,"name":"NVIDIA H100","sm":90,"bus_id":"0000:10:00.0","nvlinks":18},{"dev":1,"name":"NVIDIA H100","sm":90,"bus_id":"0000:20:00.0","nvlinks":18}],"nics":[{"name":"bnxt_re0","port":1,"link_layer":"IB","speed_mbps":400000,"active":true,"gdr":true,"bus_id":"0000:11:00.0"}],"ip_interfaces":["eth0"]}`

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

// TestDevCommDestroyInvalid: a malformed devCommDestroy or before call is
// refused with the field it names.
func TestDevCommDestroyInvalid(t *testing.T) {
	o := New(nil)
	for _, tc := range []struct{ line, field, has string }{
		{`{"nccl":"2.28.7","system":"dgx-h100","op":{"coll":"devCommDestroy"}}`, "op.dev_comm_nth", "expected dev_comm_nth"},
		{`{"nccl":"2.28.7","system":"dgx-h100","op":{"coll":"devCommDestroy","dev_comm_nth":1,"bytes":"1MiB"}}`, "op.coll", "devCommDestroy takes dev_comm_nth only"},
		{`{"nccl":"2.28.7","system":"dgx-h100","op":{"coll":"allreduce","bytes":"1MiB","dev_comm_nth":1}}`, "op.dev_comm_nth", "belongs to coll devCommDestroy"},
		{`{"nccl":"2.28.7","system":"dgx-h100","before":[{"coll":"allreduce","bytes":"1MiB"}],"op":{"coll":"devCommCreate"}}`, "before[0].coll", "devCommCreate and devCommDestroy calls only"},
		{`{"nccl":"2.28.7","system":"dgx-h100","before":[{"coll":"devCommDestroy","dev_comm_nth":0}],"op":{"coll":"devCommCreate"}}`, "before[0].dev_comm_nth", "expected dev_comm_nth"},
		{`{"nccl":"2.27.7","system":"dgx-h100","op":{"coll":"devCommDestroy","dev_comm_nth":1}}`, "op.coll", "has no ncclDevCommDestroy"},
		{`{"nccl":"2.29.7","system":"dgx-h100","op":{"coll":"devCommCreate","dev_comm":{"ginStrongSignalsRequired":false}}}`, "op.dev_comm", "it appears in 2.30.7"},
	} {
		m := decode(t, o.HandleLine([]byte(tc.line)))
		inv, _ := m["invalid"].(map[string]any)
		if m["status"] != "invalid" || inv["field"] != tc.field || !strings.Contains(inv["message"].(string), tc.has) {
			t.Errorf("%s: got %v %v, want invalid %s saying %q", tc.line, m["status"], inv, tc.field, tc.has)
		}
		if msg, _ := inv["message"].(string); strings.Contains(msg, "group op") {
			t.Errorf("%s: %q names a group the request did not make", tc.line, msg)
		}
	}
	before := `{"nccl":"2.28.7","system":"dgx-h100","before":[` + strings.Repeat(`{"coll":"devCommCreate"},`, MaxBefore) + `{"coll":"devCommCreate"}],"op":{"coll":"devCommCreate"}}`
	if m := decode(t, o.HandleLine([]byte(before))); m["status"] != "invalid" {
		t.Errorf("%d before calls: got %v, want invalid", MaxBefore+1, m["status"])
	}
}

// TestDevCommDestroyUndefined: ncclDevCommDestroy of a device communicator
// that is not live (never made, made only at the group's end, destroyed
// already) is answered, not refused: NCCL checks nothing, so the call's
// release says it is undefined, at every release with the call.
func TestDevCommDestroyUndefined(t *testing.T) {
	o := New(nil)
	for _, tc := range []struct {
		line, at string
		k        int
		has      string
	}{
		{`{"nccl":"2.28.7","system":"dgx-h100","op":{"coll":"devCommDestroy","dev_comm_nth":1}}`, "ops", 0, "made 0 device communicator(s) before"},
		{`{"nccl":"2.28.7","system":"dgx-h100","group":[{"coll":"devCommCreate"},{"coll":"devCommDestroy","dev_comm_nth":1}]}`, "ops", 1, "made only at ncclGroupEnd"},
		{`{"nccl":"2.28.7","system":"dgx-h100","before":[{"coll":"devCommCreate"},{"coll":"devCommDestroy","dev_comm_nth":1},{"coll":"devCommDestroy","dev_comm_nth":1}],"op":{"coll":"devCommCreate"}}`, "before", 2, "destroyed already"},
		{`{"nccl":"2.30.7","system":"dgx-h100","before":[{"coll":"devCommCreate"},{"coll":"devCommDestroy","dev_comm_nth":1},{"coll":"devCommDestroy","dev_comm_nth":1}],"op":{"coll":"devCommCreate"}}`, "before", 2, "use after free"},
		{`{"nccl":"2.28.7","system":"dgx-h100","before":[{"coll":"devCommCreate"},{"coll":"devCommDestroy","dev_comm_nth":2}],"op":{"coll":"devCommCreate"}}`, "before", 1, "never filled"},
	} {
		m := decode(t, o.HandleLine([]byte(tc.line)))
		ops, _ := m[tc.at].([]any)
		if m["status"] != "ok" || len(ops) <= tc.k {
			t.Errorf("%s: got %v, want ok with %s[%d]", tc.line, m["status"], tc.at, tc.k)
			continue
		}
		op, _ := ops[tc.k].(map[string]any)
		rel, _ := op["dev_comm_release"].(map[string]any)
		if why, _ := rel["undefined"].(string); !strings.Contains(why, tc.has) || op["decided_by"] != "G-DEVCOMM-DESTROY-1" {
			t.Errorf("%s: %s[%d] = %v, want dev_comm_release.undefined saying %q", tc.line, tc.at, tc.k, op, tc.has)
		}
	}
}
