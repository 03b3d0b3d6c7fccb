// Package topo is NCCL's machine model inside gatesim: it reads NCCL's own
// topology XML (what NCCL_TOPO_DUMP_FILE writes and NCCL_TOPO_FILE reads) and
// graph XML (NCCL_GRAPH_DUMP_FILE / NCCL_GRAPH_FILE), synthesizes the same XML
// for presets, builds the node/link model per release, computes paths between
// devices, runs NCCL's graph search (ring, tree, CollNet chain/direct, NVLS)
// and sets the communicator's channel counts.
//
// Place in the data flow of DESIGN.md: spec.System → topo.System (one per
// host) → Search → Result (graphs agreed by all ranks, channel counts, the
// [GRAPH] log lines), which spec's tuning model and the algos schedule
// builders read.
//
// Usage:
//
//	s, err := topo.Synthesize(topo.PresetDGXH100())      // or LoadSystem(name, xml)
//	r, err := topo.Search([]*topo.System{s, s}, topo.Params2_28_9(), topo.DefaultOptions())
//	r.Graphs[topo.GraphRing].NChannels, r.NChannels, r.Log
//
// Releases are values: Params2_22_3() is the reference, Apply2_23_4 …
// Apply2_30_3 change a copy and the backward deltas Apply2_21_5 …
// Apply2_18_1 turn it into the older releases (spec's Release values chain
// them and set Params.Release); every field is one difference in NCCL's source,
// documented with its tag, file and function. The code reads those fields,
// never a version number.
//
// Pure: no files, no clocks, no globals, no goroutines; parsers take []byte
// and a name for errors. The port is faithful to NCCL's quirks (float
// bandwidths, SUB_ROUND, integer NET bandwidth, the NVSwitch neighbour rule,
// search budgets), so its answers match NCCL's, not an idealised search.
package topo
