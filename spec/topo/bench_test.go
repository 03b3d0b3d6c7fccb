package topo

import "testing"

// The brief's scale target: graph search and channel count for 1,024 nodes
// of 8 GPUs (≤ 100 ms together with the tuning model). Identical hosts are
// searched once, so this measures one node's searches plus the per-node
// bookkeeping of 1,024 nodes.
func benchmarkSearch(b *testing.B, preset string, nodes int, p Params) {
	s := mustPreset(b, preset)
	hosts := nTimes(s, nodes)
	o := DefaultOptions()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Search(hosts, p, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch1024xDGXH100_2_28_9(b *testing.B) {
	benchmarkSearch(b, "dgx-h100", 1024, Params2_28_9())
}
func BenchmarkSearch1024xDGXH100_2_22_3(b *testing.B) {
	benchmarkSearch(b, "dgx-h100", 1024, Params2_22_3())
}
func BenchmarkSearch1024xDGXA100_2_28_9(b *testing.B) {
	benchmarkSearch(b, "dgx-a100", 1024, Params2_28_9())
}
func BenchmarkSearch1xDGXH100_2_28_9(b *testing.B) { benchmarkSearch(b, "dgx-h100", 1, Params2_28_9()) }
func BenchmarkSearch2xGB200_2_28_9(b *testing.B)   { benchmarkSearch(b, "gb200", 2, Params2_28_9()) }

// Distinct copies of one XML are recognised by content.
func BenchmarkSearch1024DistinctCopies(b *testing.B) {
	hosts := make([]*System, 1024)
	for i := range hosts {
		hosts[i] = mustPreset(b, "dgx-h100")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Search(hosts, Params2_28_9(), DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
