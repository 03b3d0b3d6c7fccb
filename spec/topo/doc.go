// Package topo is NCCL's machine model inside gatesim: it reads NCCL's own
// topology XML (what NCCL_TOPO_DUMP_FILE writes and NCCL_TOPO_FILE reads) and
// graph XML (NCCL_GRAPH_DUMP_FILE), synthesizes the same model for presets,
// computes paths between devices and runs NCCL's graph search (ring, tree,
// CollNet chain/direct, NVLS) per release.
//
// Place in the data flow: spec.System → topo.System → paths → Graph values,
// which spec's tuning model and the algos schedule builders read. Pure: no
// files, no clocks, no globals; parsers take []byte and a name for errors.
package topo
