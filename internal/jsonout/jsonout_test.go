package jsonout

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestKey(t *testing.T) {
	cases := map[string]string{
		"nChannels": "n_channels", "typeIntra": "type_intra", "threadThresholds": "thread_thresholds", "Algo": "algo",
		"collNetAllGather": "coll_net_all_gather", "NVLSTree": "nvls_tree", "maxCompCap": "max_comp_cap",
		"time_us": "time_us", "NCCL_ALGO": "NCCL_ALGO", "net.ib.using": "net.ib.using", "NVLS": "NVLS", "sm90": "sm90",
		"bw2Inter": "bw2_inter", "": "",
	}
	for in, want := range cases {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalize(t *testing.T) {
	in := `{"nChannels":24,"timeUs":48.119998931884766,"big":4294967296,"list":[1.0000001,{"typeIntra":"NVL"},[],{}],"env":{"NCCL_ALGO":"Ring"},"tiny":1.5e-9,"neg":-0.30000000000000004,"s":"a\"b","n":null,"t":true}`
	out, err := Normalize([]byte(in), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":3,"n_channels":24,"time_us":48.12,"big":4294967296,"list":[1,{"type_intra":"NVL"},[],{}],"env":{"NCCL_ALGO":"Ring"},"tiny":1.5e-09,"neg":-0.3,"s":"a\"b","n":null,"t":true}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if !json.Valid(out) {
		t.Error("not JSON")
	}
	if _, err := Normalize([]byte(`[1,2]`), 1); err == nil {
		t.Error("an array at the top is not an output object")
	}
	var b bytes.Buffer
	if err := Write(&b, 2, struct {
		A []int `json:"aList"`
	}{}); err != nil || !bytes.Contains(b.Bytes(), []byte(`"schema": 2,`)) || !bytes.Contains(b.Bytes(), []byte(`"a_list": null`)) {
		t.Errorf("Write: %v %s", err, b.String())
	}
}

func TestSchemaAndValidate(t *testing.T) {
	type inner struct {
		NHops int     `json:"nHops"`
		Bw    float64 `json:"bw,omitempty"`
	}
	type out struct {
		Name  string            `json:"name"`
		Items []inner           `json:"items"`
		Ptr   *inner            `json:"ptr"`
		Env   map[string]string `json:"env,omitempty"`
		Set   *inner            `json:"set" schema:"nonnull"`
	}
	s := Schema("t", 2, reflect.TypeFor[out]())
	b, _ := json.Marshal(s)
	var back map[string]any
	json.Unmarshal(b, &back)
	var good bytes.Buffer
	Write(&good, 2, out{Name: "x", Items: []inner{{NHops: 3, Bw: 1.5}}, Env: map[string]string{"NCCL_ALGO": "Ring"}, Set: &inner{NHops: 1}})
	var doc any
	json.Unmarshal(good.Bytes(), &doc)
	if errs := Validate(back, doc); len(errs) > 0 {
		t.Errorf("a written output fails its schema: %v", errs)
	}
	cases := map[string]string{
		"extra field":      `{"schema":2,"name":"x","items":[],"ptr":null,"set":{"n_hops":1},"other":1}`,
		"missing required": `{"schema":2,"items":[],"ptr":null,"set":{"n_hops":1}}`,
		"wrong type":       `{"schema":2,"name":"x","items":[{"n_hops":1.5}],"ptr":null,"set":{"n_hops":1}}`,
		"camelCase key":    `{"schema":2,"name":"x","items":[{"nHops":1}],"ptr":null,"set":{"n_hops":1}}`,
		"wrong version":    `{"schema":1,"name":"x","items":[],"ptr":null,"set":{"n_hops":1}}`,
		"bad pointer":      `{"schema":2,"name":"x","items":[],"ptr":"p","set":{"n_hops":1}}`,
		"null nonnull":     `{"schema":2,"name":"x","items":[],"ptr":null,"set":null}`,
	}
	for name, js := range cases {
		var d any
		json.Unmarshal([]byte(js), &d)
		if errs := Validate(back, d); len(errs) == 0 {
			t.Errorf("%s: not caught", name)
		}
	}
}
