package tuning

// The model is written in NCCL's vocabulary, unqualified, as the source it
// follows is. The names below are package nccl's (aliases, not copies: each
// is defined once, in nccl).

import "github.com/gatesim/gatesim/nccl"

type (
	Func      = nccl.Func
	Algo      = nccl.Algo
	Proto     = nccl.Proto
	DataType  = nccl.DataType
	RedOp     = nccl.RedOp
	Op        = nccl.Op
	Buffers   = nccl.Buffers
	Result    = nccl.Result
	NCCLError = nccl.NCCLError
	Ref       = nccl.Ref
	RuleID    = nccl.RuleID
)

const (
	Broadcast     = nccl.Broadcast
	Reduce        = nccl.Reduce
	AllGather     = nccl.AllGather
	ReduceScatter = nccl.ReduceScatter
	AllReduce     = nccl.AllReduce
	NumFuncs      = nccl.NumFuncs
	AllToAll      = nccl.AllToAll

	Tree          = nccl.Tree
	Ring          = nccl.Ring
	CollNetDirect = nccl.CollNetDirect
	CollNetChain  = nccl.CollNetChain
	NVLS          = nccl.NVLS
	NVLSTree      = nccl.NVLSTree
	PAT           = nccl.PAT
	NumAlgos      = nccl.NumAlgos
	AlgoNone      = nccl.AlgoNone

	LL        = nccl.LL
	LL128     = nccl.LL128
	Simple    = nccl.Simple
	NumProtos = nccl.NumProtos
	ProtoNone = nccl.ProtoNone

	Int8         = nccl.Int8
	Uint8        = nccl.Uint8
	Int32        = nccl.Int32
	Uint32       = nccl.Uint32
	Int64        = nccl.Int64
	Uint64       = nccl.Uint64
	Float16      = nccl.Float16
	Float32      = nccl.Float32
	Float64      = nccl.Float64
	Bfloat16     = nccl.Bfloat16
	Float8e4m3   = nccl.Float8e4m3
	Float8e5m2   = nccl.Float8e5m2
	NumDataTypes = nccl.NumDataTypes

	Sum       = nccl.Sum
	Prod      = nccl.Prod
	Max       = nccl.Max
	Min       = nccl.Min
	Avg       = nccl.Avg
	NumRedOps = nccl.NumRedOps

	BuffersUser       = nccl.BuffersUser
	BuffersRegistered = nccl.BuffersRegistered
	BuffersWindow     = nccl.BuffersWindow

	InternalError   = nccl.InternalError
	InvalidArgument = nccl.InvalidArgument
	InvalidUsage    = nccl.InvalidUsage
)

var (
	Funcs = nccl.Funcs
)
