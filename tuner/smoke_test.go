package tuner

import (
	"testing"

	"github.com/gatesim/gatesim/internal/tunertest"
	"github.com/gatesim/gatesim/spec"
)

func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	so := tunertest.Build(t, dir, 3, "force")
	lib, err := Load(so, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", lib)
	rs := spec.MustLoad(spec.V2_28_9)
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	s, err := lib.Attach(spec.Init, rs, sys, spec.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	op, _ := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	d, tr, err := s.Select(op)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range tr {
		if v.Rule == "G-TUNER-CALL-1" || v.Rule == "G-TUNER-INIT-1" || v.Rule == "G-TUNER-ABI-1" || v.Rule == "G-SEL-PICK-1" {
			t.Logf("%s %s %s %v", v.Rule, v.Outcome, v.Why, v.Log)
		}
	}
	t.Logf("%s/%s nch %d without %v edits %v", d.Algo, d.Proto, d.NChannels, d.Tuner.Without, d.Tuner.Edits)
}
