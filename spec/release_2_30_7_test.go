package spec

import (
	"strings"
	"testing"
)

// TestMLOPartPreset: an MLOPart preset has two ranks per GPU; 2.30.4,
// which reads no mlopart, sees two ranks on one bus id and fails init
// (G-DEV-DUP-1, NVLS not reached); 2.30.7 splits each GPU, and NVLS is off
// because the last two ranks share an NVML device (hasMultiRankNvml),
// NCCL_NVLS_ENABLE=1 then being ncclInvalidUsage; a whole-GPU preset
// keeps NVLS.
// Ref: v2.30.7-1 src/init.cc initTransportsRank; src/transport/nvls.cc
// ncclNvlsInit; src/graph/topo.cc ncclTopoAddGpuSub
func TestMLOPartPreset(t *testing.T) {
	for _, tc := range []struct {
		v       Version
		mlopart bool
		env     Env
		err     string // Init's error
		nvls    Outcome
		commErr string
	}{
		{V2_30_4, true, Env{}, "", Skip, "Multiple ranks detected using the same GPU on this node"},
		{V2_30_7, true, Env{}, "", Fail, ""},
		{V2_30_7, true, Env{"NCCL_NVLS_ENABLE": "1"}, "", Fail, "multiple ranks using the same NVML device"},
		{V2_30_7, true, Env{"NCCL_NVLS_ENABLE": "0"}, "", Skip, ""},
		{V2_30_7, false, Env{}, "", Pass, ""},
	} {
		sys, err := Preset("dgx-b200", PresetOptions{MLOPart: tc.mlopart})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 8, true: 16}[tc.mlopart]; len(sys.Nodes[0].GPUs) != want {
			t.Fatalf("mlopart %v: %d ranks, want %d", tc.mlopart, len(sys.Nodes[0].GPUs), want)
		}
		comm, err := Init(MustLoad(tc.v), sys, tc.env)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one naming %q", tc.v, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s mlopart %v: %v", tc.v, tc.mlopart, err)
		}
		var got Outcome = -1
		for _, vd := range comm.Trace {
			if vd.Rule == "G-NVLS-EARLY-1" {
				got = vd.Outcome
				break
			}
		}
		if got != tc.nvls {
			t.Errorf("%s mlopart %v %v: G-NVLS-EARLY-1 %v, want %v", tc.v, tc.mlopart, tc.env, got, tc.nvls)
		}
		switch {
		case tc.commErr == "" && comm.Err != nil:
			t.Errorf("%s %v: communicator error %v", tc.v, tc.env, comm.Err)
		case tc.commErr != "" && (comm.Err == nil || !strings.Contains(comm.Err.Message, tc.commErr)):
			t.Errorf("%s %v: communicator error %v, want one naming %q", tc.v, tc.env, comm.Err, tc.commErr)
		}
	}
}

// TestMLOPartSystemFile: a system file states MLOPart GPUs as the preset
// option "mlopart" or as partitions 0 and 1 of one dev in a node's gpus;
// a partition alone, a bad index or a dev listed both whole and as a
// partition is refused with the field at fault.
func TestMLOPartSystemFile(t *testing.T) {
	for _, tc := range []struct{ doc, err string }{
		{`{"preset": "dgx-b200", "mlopart": true}`, ""},
		{`{"nodes": [{"gpus": [{"dev": 0, "sm": 100, "mlopart": 0}, {"dev": 0, "sm": 100, "mlopart": 1}, {"dev": 1, "sm": 100}]}]}`, ""},
		{`{"nodes": [{"gpus": [{"dev": 0, "sm": 100, "mlopart": 0}, {"dev": 1, "sm": 100}]}]}`, "mlopart 0 of dev 0 alone"},
		{`{"nodes": [{"gpus": [{"dev": 0, "sm": 100, "mlopart": 2}, {"dev": 0, "sm": 100, "mlopart": 1}]}]}`, "mlopart 2: expected 0 or 1"},
		{`{"nodes": [{"gpus": [{"dev": 0, "sm": 100, "mlopart": 0}, {"dev": 0, "sm": 100, "mlopart": 0}]}]}`, "mlopart 0 of dev 0 alone"},
		{`{"nodes": [{"gpus": [{"dev": 0, "sm": 100, "mlopart": 0}, {"dev": 0, "sm": 100, "mlopart": 1}, {"dev": 0, "sm": 100}]}]}`, "dev 0 is listed both as a whole GPU and as an MLOPart partition"},
	} {
		sys, err := ParseSystem("sys.json", []byte(tc.doc))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one naming %q", tc.doc, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.doc, err)
			continue
		}
		comm, err := Init(MustLoad(V2_30_7), sys, Env{})
		if err != nil {
			t.Errorf("%s: %v", tc.doc, err)
			continue
		}
		if n := len(sys.Nodes[0].GPUs); comm.NRanks != n {
			t.Errorf("%s: %d ranks, want %d", tc.doc, comm.NRanks, n)
		}
	}
}
