// Package nccl is the vocabulary of NCCL that every other package of
// gatesim shares: release identity (Version, the V2_xx_y constants,
// ParseVersion), where a fact lives in NCCL's source (Ref) and the ID of the
// rule that models it (RuleID), the enums in NCCL's index order (Func, Algo,
// Proto, DataType, RedOp) with their names and parsers, one collective call
// (Op) and what NCCL knows of its buffers (Buffers), ncclResult_t and an
// error NCCL returns (Result, NCCLError), the busBw factor nccl-tests
// reports (Func.BusFactor), and C number parsing as NCCL's environment
// readers see it (Strtoll, Atoi).
//
// It is a leaf: it imports nothing of gatesim, so spec, spec/topo,
// spec/params, algos, sim, the log reader, hw, diagnose and whatif can all
// build on it. It holds names and their parsing, never a rule: what a
// release does lives in spec, on its Release value. spec re-exports these
// names under their old spelling (spec/vocab.go).
package nccl
