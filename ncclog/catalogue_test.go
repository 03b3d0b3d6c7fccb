package ncclog

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec"
)

// TestCatalogueWellFormed checks the table the way go/analysis validates
// its registry: unique IDs, a reference and a release range on every NCCL
// form, an example that the form itself recognises and that no earlier
// form of another kind steals.
func TestCatalogueWellFormed(t *testing.T) {
	ids := map[string]bool{}
	kinds := map[Kind]bool{}
	for i, f := range Catalogue {
		if f.ID == "" || ids[f.ID] {
			t.Errorf("form %d: ID %q empty or duplicate", i, f.ID)
		}
		ids[f.ID] = true
		kinds[f.Kind] = true
		if f.Format == "" || f.Example == "" || f.re == nil {
			t.Errorf("%s: format, example and expression are required", f.ID)
		}
		if f.Ref.File == "" || f.Ref.Func == "" {
			t.Errorf("%s: no source reference", f.ID)
		}
		nccl := f.Ref.Tag != ""
		if nccl && f.Since == 0 {
			t.Errorf("%s: an NCCL form needs the first release that prints it", f.ID)
		}
		if f.Until != 0 && f.Until < f.Since {
			t.Errorf("%s: range %v..%v is empty", f.ID, f.Since, f.Until)
		}
		if nccl {
			if _, err := spec.ParseVersion(f.Ref.Tag); err != nil {
				t.Errorf("%s: ref tag %q: %v", f.ID, f.Ref.Tag, err)
			}
		}
		if !f.re.MatchString(strings.TrimLeft(f.Example, " ")) {
			t.Errorf("%s: example %q does not match %s", f.ID, f.Example, f.re)
			continue
		}
		got, _, ok := Match(f.Example)
		if !ok || got.Kind != f.Kind {
			t.Errorf("%s: example %q is taken by %s (kind %d), want kind %d", f.ID, f.Example, got.ID, got.Kind, f.Kind)
		}
	}
	for k := KindVersion; k < numKinds; k++ {
		if k == KindWarn {
			continue
		}
		if !kinds[k] {
			t.Errorf("kind %d has no form", k)
		}
	}
}

// TestCatalogueNonMatches pins messages that look close to a form but
// must not be taken by it.
func TestCatalogueNonMatches(t *testing.T) {
	for msg, notID := range map[string]string{
		"Channel 00/02 :    0   1   2":                                                           "transport.connect",
		"Ring 00 : 1 -> 0 -> 1":                                                                  "transport.connect",
		"NET/Plugin: Loaded net plugin NCCL RDMA Plugin v6 (v6)":                                 "net.plugin.openerror",
		"NET/Plugin: Could not find: libnccl-net.so":                                             "net.plugin.openerror",
		"Setting affinity for GPU 0 to ffffffff":                                                 "env.set",
		"Connected all rings, use ring PXN 0 GDR 1":                                              "",
		"P2P Chunksize set to 131072":                                                            "env.set.to",
		"NCCL_IB_DISABLE set by environment to 0.":                                               "env.set.to",
		"Error : no algorithm/protocol available for function AllGather with datatype ncclInt8.": "env.set",
		"TUNER/Plugin: Using internal tuner plugin.":                                             "tuner.using",
	} {
		f, _, ok := Match(msg)
		if ok && f.ID == notID {
			t.Errorf("%q was taken by %s", msg, notID)
		}
	}
}

// TestCatalogueRefsAtTags checks each NCCL reference against the source:
// the file exists at the tag and has each identifier named as a word
// (ncclmirror.Source.CheckRef). It needs the NVIDIA
// NCCL git mirror (ncclmirror.ForTest) and git; CI has neither and skips.
func TestCatalogueRefsAtTags(t *testing.T) {
	src := ncclmirror.OpenSource(t, ncclmirror.ForTest(t))
	check := func(id string, r spec.Ref) {
		if r.Tag == "" {
			return // a form a plugin prints: not NCCL's source
		}
		bad, err := src.CheckRef(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("%s %q: %s", id, r.String(), b)
		}
	}
	for _, f := range Catalogue {
		check(f.ID, f.Ref)
	}
	for _, r := range Rules {
		check(string(r.ID), r.Ref)
	}
}

// The INFO forms of a CUDA failure print file:line first, and from 2.30.7
// (INFO_LOC, v2.30.7-1 src/include/cudawrap.h CUCHECK) the function after
// it.
func TestCudaFailureInfoForms(t *testing.T) {
	for _, msg := range []string{
		"Cuda failure 1 'invalid argument'",
		"transport/nvls.cc:598 Cuda failure 1 'invalid argument'",
		"transport/nvls.cc:598 (tryRegisterBuffer) Cuda failure 1 'invalid argument'",
		"misc/strongstream.cc:424 (ncclStrongStreamSynchronize) Cuda failure 'unspecified launch failure'",
	} {
		if f, _, ok := Match(msg); !ok || f.ID != "cuda.failure" {
			t.Errorf("%q: matched %q (%v), want cuda.failure", msg, f.ID, ok)
		}
	}
}
