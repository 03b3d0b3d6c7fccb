package spec

// The names below moved to package nccl, the leaf package of NCCL's
// vocabulary (release identity, source references and rule IDs, the enums,
// an operation, its buffers and NCCL's results, name parsing, C number
// parsing, the busBw factor). They are aliases and
// re-exports, not copies: each is defined once, in nccl, and spec keeps the
// old spelling so that callers move over when they are next touched.
// New code names nccl directly.

import "github.com/gatesim/gatesim/nccl"

type (
	Func     = nccl.Func
	Algo     = nccl.Algo
	Proto    = nccl.Proto
	DataType = nccl.DataType
	RedOp    = nccl.RedOp
	Ref      = nccl.Ref
	Version  = nccl.Version

	// an operation and its outcome (nccl/op.go, nccl/result.go, nccl/ref.go)
	Op        = nccl.Op
	Buffers   = nccl.Buffers
	Alloc     = nccl.Alloc
	Procs     = nccl.Procs
	Result    = nccl.Result
	NCCLError = nccl.NCCLError
	Abort     = nccl.Abort
	RuleID    = nccl.RuleID
)

const (
	// the enums (nccl/enums.go)
	Broadcast     = nccl.Broadcast
	Reduce        = nccl.Reduce
	AllGather     = nccl.AllGather
	ReduceScatter = nccl.ReduceScatter
	AllReduce     = nccl.AllReduce
	NumFuncs      = nccl.NumFuncs
	SendRecv      = nccl.SendRecv
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
	LL            = nccl.LL
	LL128         = nccl.LL128
	Simple        = nccl.Simple
	NumProtos     = nccl.NumProtos
	ProtoNone     = nccl.ProtoNone
	Int8          = nccl.Int8
	Uint8         = nccl.Uint8
	Int32         = nccl.Int32
	Uint32        = nccl.Uint32
	Int64         = nccl.Int64
	Uint64        = nccl.Uint64
	Float16       = nccl.Float16
	Float32       = nccl.Float32
	Float64       = nccl.Float64
	Bfloat16      = nccl.Bfloat16
	Float8e4m3    = nccl.Float8e4m3
	Float8e5m2    = nccl.Float8e5m2
	NumDataTypes  = nccl.NumDataTypes
	Sum           = nccl.Sum
	Prod          = nccl.Prod
	Max           = nccl.Max
	Min           = nccl.Min
	Avg           = nccl.Avg
	PreMulSum     = nccl.PreMulSum
	NumRedOps     = nccl.NumRedOps

	// buffers and results (nccl/op.go, nccl/result.go)
	BuffersUser        = nccl.BuffersUser
	BuffersRegistered  = nccl.BuffersRegistered
	BuffersWindow      = nccl.BuffersWindow
	NumBuffers         = nccl.NumBuffers
	AllocCuMem         = nccl.AllocCuMem
	AllocCudaMalloc    = nccl.AllocCudaMalloc
	AllocCuMemHost     = nccl.AllocCuMemHost
	AllocCuMemSegments = nccl.AllocCuMemSegments
	NumAllocs          = nccl.NumAllocs
	ProcsPerGPU        = nccl.ProcsPerGPU
	ProcsPerNode       = nccl.ProcsPerNode
	ProcsInitAll       = nccl.ProcsInitAll
	NumProcs           = nccl.NumProcs
	Success            = nccl.Success
	UnhandledCudaError = nccl.UnhandledCudaError
	SystemError        = nccl.SystemError
	InternalError      = nccl.InternalError
	InvalidArgument    = nccl.InvalidArgument
	InvalidUsage       = nccl.InvalidUsage
	InProgress         = nccl.InProgress

	// releases (nccl/version.go)
	V2_18_1 = nccl.V2_18_1
	V2_18_3 = nccl.V2_18_3
	V2_18_5 = nccl.V2_18_5
	V2_18_6 = nccl.V2_18_6
	V2_19_1 = nccl.V2_19_1
	V2_19_3 = nccl.V2_19_3
	V2_19_4 = nccl.V2_19_4
	V2_20_3 = nccl.V2_20_3
	V2_20_5 = nccl.V2_20_5
	V2_21_5 = nccl.V2_21_5
	V2_22_3 = nccl.V2_22_3
	V2_23_4 = nccl.V2_23_4
	V2_24_3 = nccl.V2_24_3
	V2_25_1 = nccl.V2_25_1
	V2_26_2 = nccl.V2_26_2
	V2_26_3 = nccl.V2_26_3
	V2_26_5 = nccl.V2_26_5
	V2_26_6 = nccl.V2_26_6
	V2_27_3 = nccl.V2_27_3
	V2_27_5 = nccl.V2_27_5
	V2_27_6 = nccl.V2_27_6
	V2_27_7 = nccl.V2_27_7
	V2_28_3 = nccl.V2_28_3
	V2_28_7 = nccl.V2_28_7
	V2_28_9 = nccl.V2_28_9
	V2_29_2 = nccl.V2_29_2
	V2_29_3 = nccl.V2_29_3
	V2_29_7 = nccl.V2_29_7
	V2_30_3 = nccl.V2_30_3
	V2_30_4 = nccl.V2_30_4
	V2_30_7 = nccl.V2_30_7
)

var (
	// the enums (nccl/enums.go)
	Funcs         = nccl.Funcs
	Algos         = nccl.Algos
	Protos        = nccl.Protos
	ParseFunc     = nccl.ParseFunc
	ParseAlgo     = nccl.ParseAlgo
	ParseProto    = nccl.ParseProto
	ParseDataType = nccl.ParseDataType
	ParseRedOp    = nccl.ParseRedOp
	ParseBuffers  = nccl.ParseBuffers
	ParseAlloc    = nccl.ParseAlloc
	ParseProcs    = nccl.ParseProcs

	// names and their parsing (nccl/names.go)
	AllFuncs       = nccl.AllFuncs
	CostTableFuncs = nccl.CostTableFuncs
	Closest        = nccl.Closest
	UnknownName    = nccl.UnknownName
	FuncNames      = nccl.FuncNames
	ParseFuncIn    = nccl.ParseFuncIn
	DataTypeNames  = nccl.DataTypeNames
	RedOpNames     = nccl.RedOpNames
	AlgoNames      = nccl.AlgoNames
	ProtoNames     = nccl.ProtoNames

	// releases (nccl/version.go)
	MakeVersion = nccl.MakeVersion
)

// algoNames and protoNames are NCCL's names in index order, for the
// cost-table parsers and printers here.
var (
	algoNames  = nccl.AlgoNames()
	protoNames = nccl.ProtoNames()
)

// SelectFuncs are the functions Select decides, in the order the CLI lists
// them: the cost table's five, and SendRecv and AllToAll on NCCL's p2p path.
var SelectFuncs = AllFuncs
