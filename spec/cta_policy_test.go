package spec

import "testing"

// TestCTAPolicyZeroBefore2_28: envConfigOverride accepts NCCL_CTA_POLICY up
// to EFFICIENCY (1) in 2.27.x, up to ZERO (2) from 2.28.3; a larger value is
// reset to DEFAULT ("CTAPolicy %d is not a valid value").
func TestCTAPolicyZeroBefore2_28(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v         Version
		val       string
		zero, eff bool
	}{
		{V2_27_3, "2", false, false}, {V2_27_7, "2", false, false}, {V2_27_7, "1", false, true},
		{V2_28_3, "2", true, false}, {V2_28_9, "2", true, false}, {V2_28_9, "3", false, false},
		// the mask of 2.29.2: envConfigOverride unsets EFFICIENCY beside
		// ZERO (its WARN "Both NCCL_CTA_POLICY_ZERO and ...")
		{V2_29_2, "ZERO|EFFICIENCY", true, false}, {V2_30_7, "efficiency|zero", true, false},
		{V2_29_2, "EFFICIENCY", false, true}, {V2_29_2, "9", false, false},
	} {
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_CTA_POLICY": tc.val})
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		in := c.Model.In
		if in.CTAPolicyZero != tc.zero || in.CTAPolicyEfficiency != tc.eff {
			t.Errorf("%s NCCL_CTA_POLICY=%s: ZERO %v EFFICIENCY %v, want %v %v", tc.v, tc.val, in.CTAPolicyZero, in.CTAPolicyEfficiency, tc.zero, tc.eff)
		}
	}
}
