// Package algostest holds the fixtures every schedule builder's tests
// iterate (gonum's shared-fixture style): communicator shapes and the
// collectives each algorithm supports on them.
package algostest

import "github.com/gatesim/gatesim/spec"

// Shape is a communicator: nodes × GPUs per node and collective channels.
type Shape struct {
	Name       string
	Nodes      int
	LocalRanks int
	Channels   int
}

// Shapes every builder runs on (the algorithms skip the shapes they do not
// support: NVLS needs two GPUs per node (and SHARP across nodes), NVLSTree
// and CollNet several nodes, PAT one GPU per node).
var Shapes = []Shape{
	{"1 node × 1 GPU", 1, 1, 2},
	{"1 node × 2 GPUs", 1, 2, 2},
	{"1 node × 4 GPUs", 1, 4, 2},
	{"1 node × 8 GPUs", 1, 8, 4},
	{"2 nodes × 1 GPU", 2, 1, 2},
	{"2 nodes × 2 GPUs", 2, 2, 2},
	{"3 nodes × 2 GPUs", 3, 2, 4},
	{"4 nodes × 1 GPU", 4, 1, 2},
	{"5 nodes × 1 GPU", 5, 1, 2},
	{"3 nodes × 3 GPUs", 3, 3, 2},
}

// Case is an algorithm with the collectives it implements.
type Case struct {
	Algo  spec.Algo
	Funcs []spec.Func
	Proto []spec.Proto
}

// Cases lists every (algorithm, collective) NCCL implements and the
// builders produce.
var Cases = []Case{
	{spec.Ring, []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce}, []spec.Proto{spec.LL, spec.LL128, spec.Simple}},
	{spec.Tree, []spec.Func{spec.AllReduce}, []spec.Proto{spec.LL, spec.LL128, spec.Simple}},
	{spec.CollNetDirect, []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter}, []spec.Proto{spec.Simple}},
	{spec.CollNetChain, []spec.Func{spec.AllReduce}, []spec.Proto{spec.Simple}},
	{spec.NVLS, []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter}, []spec.Proto{spec.Simple}},
	{spec.NVLSTree, []spec.Func{spec.AllReduce}, []spec.Proto{spec.Simple}},
	{spec.PAT, []spec.Func{spec.AllGather, spec.ReduceScatter}, []spec.Proto{spec.Simple}},
}

// Fits reports whether an algorithm runs on a shape as modelled.
func Fits(a spec.Algo, s Shape) bool {
	switch a {
	case spec.NVLS:
		return s.LocalRanks > 1 // across nodes with CollNet (SHARP)
	case spec.NVLSTree:
		return s.Nodes > 1
	case spec.CollNetDirect:
		return s.Nodes > 1 && s.LocalRanks <= 8
	case spec.CollNetChain:
		return s.Nodes > 1
	case spec.PAT:
		return s.LocalRanks == 1 && s.Nodes > 1
	}
	return true
}
