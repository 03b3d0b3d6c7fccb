package nccl

import (
	"fmt"
	"strings"
)

// Func is a collective function, in NCCL's ncclFunc_t index order
// (src/include/device.h). SendRecv is not gated by the cost table; it is
// listed so that schedules and hw runs can name it.
type Func int

const (
	Broadcast Func = iota
	Reduce
	AllGather
	ReduceScatter
	AllReduce
	NumFuncs = 5 // the functions of the cost table

	SendRecv Func = 5 // point-to-point, outside the cost table
	AllToAll Func = 6 // grouped send/recv, as nccl-tests runs it
)

var funcNames = [...]string{"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv", "AllToAll"}

// String is NCCL's ncclFuncStr name.
func (f Func) String() string {
	if f >= 0 && int(f) < len(funcNames) {
		return funcNames[f]
	}
	return fmt.Sprintf("Func(%d)", int(f))
}

// BusFactor is nccl-tests' busBw/algBw for f on nRanks ranks (its
// <Coll>GetBw): 2(n-1)/n for AllReduce, (n-1)/n for AllGather,
// ReduceScatter and AllToAll, 1 otherwise. It is blind to the algorithm on
// purpose, so that every busBw gatesim prints compares with nccl-tests.
func (f Func) BusFactor(nRanks int) float64 {
	n := float64(nRanks)
	switch f {
	case AllReduce:
		return 2 * (n - 1) / n
	case AllGather, ReduceScatter, AllToAll:
		return (n - 1) / n
	}
	return 1
}

// IsP2P reports the operations NCCL runs on its point-to-point path
// (grouped ncclSend/ncclRecv) instead of the cost table.
func (f Func) IsP2P() bool { return f == SendRecv || f == AllToAll }

// Funcs are the five functions of the cost table in index order.
var Funcs = [NumFuncs]Func{Broadcast, Reduce, AllGather, ReduceScatter, AllReduce}

// ParseFunc accepts NCCL's names case-insensitively, with or without an
// "nccl" prefix ("allreduce", "ncclAllReduce"), and "sendrecv", "alltoall".
func ParseFunc(s string) (Func, error) {
	t := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "nccl"))
	t = strings.TrimPrefix(t, "nccl")
	switch t {
	case "send", "recv", "p2p":
		return SendRecv, nil
	case "a2a", "all_to_all":
		return AllToAll, nil
	case "all_reduce":
		return AllReduce, nil
	case "all_gather":
		return AllGather, nil
	case "reduce_scatter":
		return ReduceScatter, nil
	}
	for i, n := range funcNames {
		if strings.EqualFold(t, n) {
			return Func(i), nil
		}
	}
	return 0, UnknownName("collective", s, FuncNames(AllFuncs))
}

// Algo is an NCCL algorithm, in NCCL_ALGO_* index order. PAT exists from
// 2.23.4; rulesets of older releases do not list it.
type Algo int

const (
	Tree Algo = iota
	Ring
	CollNetDirect
	CollNetChain
	NVLS
	NVLSTree
	PAT
	NumAlgos = 7
)

// AlgoNone marks "no algorithm" in a Decision.
const AlgoNone Algo = -1

var algoNames = [NumAlgos]string{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"}

// algoLogNames are the upper-case names of the 2.24+ per-operation TUNING line
// ("Algo COLLNET_DIRECT").
var algoLogNames = [NumAlgos]string{"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"}

// Algos lists every algorithm in index order.
var Algos = [NumAlgos]Algo{Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT}

// String is NCCL's ncclAlgoStr name (the name NCCL_ALGO accepts).
func (a Algo) String() string {
	if a >= 0 && int(a) < NumAlgos {
		return algoNames[a]
	}
	if a == AlgoNone {
		return "none"
	}
	return fmt.Sprintf("Algo(%d)", int(a))
}

// LogName is the name printed in "Algo %s" of the 2.24+ TUNING line.
func (a Algo) LogName() string {
	if a >= 0 && int(a) < NumAlgos {
		return algoLogNames[a]
	}
	return a.String()
}

// IsCollNet reports CollNetDirect and CollNetChain.
func (a Algo) IsCollNet() bool { return a == CollNetDirect || a == CollNetChain }

// IsNVLS reports NVLS and NVLSTree.
func (a Algo) IsNVLS() bool { return a == NVLS || a == NVLSTree }

// ParseAlgo accepts the NCCL_ALGO names and the log names, case-insensitively.
func ParseAlgo(s string) (Algo, error) {
	t := strings.TrimSpace(s)
	for i := range NumAlgos {
		if strings.EqualFold(t, algoNames[i]) || strings.EqualFold(t, algoLogNames[i]) {
			return Algo(i), nil
		}
	}
	return AlgoNone, UnknownName("algorithm", s, algoNames[:])
}

// Proto is an NCCL protocol, in NCCL_PROTO_* index order.
type Proto int

const (
	LL Proto = iota
	LL128
	Simple
	NumProtos = 3
)

// ProtoNone marks "no protocol decided" in a Decision.
const ProtoNone Proto = -1

var protoNames = [NumProtos]string{"LL", "LL128", "Simple"}
var protoLogNames = [NumProtos]string{"LL", "LL128", "SIMPLE"}

// Protos lists every protocol in index order.
var Protos = [NumProtos]Proto{LL, LL128, Simple}

func (p Proto) String() string {
	if p >= 0 && int(p) < NumProtos {
		return protoNames[p]
	}
	if p == ProtoNone {
		return "none"
	}
	return fmt.Sprintf("Proto(%d)", int(p))
}

// LogName is the name printed in "proto %s" of the 2.24+ TUNING line.
func (p Proto) LogName() string {
	if p >= 0 && int(p) < NumProtos {
		return protoLogNames[p]
	}
	return p.String()
}

// ParseProto accepts LL, LL128, Simple case-insensitively.
func ParseProto(s string) (Proto, error) {
	t := strings.TrimSpace(s)
	for i := range NumProtos {
		if strings.EqualFold(t, protoNames[i]) {
			return Proto(i), nil
		}
	}
	return ProtoNone, UnknownName("protocol", s, protoNames[:])
}

// DataType is ncclDataType_t.
type DataType int

const (
	Int8 DataType = iota
	Uint8
	Int32
	Uint32
	Int64
	Uint64
	Float16
	Float32
	Float64
	Bfloat16
	Float8e4m3 // from 2.24; releases before that do not accept it
	Float8e5m2
	NumDataTypes = 12
)

var dtypeNames = [NumDataTypes]string{"ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32", "ncclInt64", "ncclUint64",
	"ncclFloat16", "ncclFloat32", "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"}

// short names as nccl-tests prints them
var dtypeShort = [NumDataTypes]string{"int8", "uint8", "int32", "uint32", "int64", "uint64",
	"half", "float", "double", "bfloat16", "f8e4m3", "f8e5m2"}

var dtypeSize = [NumDataTypes]int{1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1}

// String is ncclDatatypeToString's name, as the selection WARN prints it.
func (d DataType) String() string {
	if d >= 0 && int(d) < NumDataTypes {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DataType(%d)", int(d))
}

// Short is the nccl-tests name (float, half, bfloat16, ...).
func (d DataType) Short() string {
	if d >= 0 && int(d) < NumDataTypes {
		return dtypeShort[d]
	}
	return d.String()
}

// Size is the element size in bytes.
func (d DataType) Size() int {
	if d >= 0 && int(d) < NumDataTypes {
		return dtypeSize[d]
	}
	return 0
}

// IsFloat reports the floating-point types.
func (d DataType) IsFloat() bool { return d >= Float16 && d != Int8 && d != Uint8 && d <= Float8e5m2 }

// IsFP8 reports the 8-bit float types.
func (d DataType) IsFP8() bool { return d == Float8e4m3 || d == Float8e5m2 }

// dtypeAliases are the names ParseDataType accepts (an immutable table).
var dtypeAliases = map[string]DataType{
	"int8": Int8, "char": Int8, "i8": Int8, "s8": Int8,
	"uint8": Uint8, "u8": Uint8,
	"int32": Int32, "int": Int32, "i32": Int32,
	"uint32": Uint32, "u32": Uint32,
	"int64": Int64, "i64": Int64,
	"uint64": Uint64, "u64": Uint64,
	"float16": Float16, "half": Float16, "fp16": Float16, "f16": Float16,
	"float32": Float32, "float": Float32, "fp32": Float32, "f32": Float32,
	"float64": Float64, "double": Float64, "fp64": Float64, "f64": Float64,
	"bfloat16": Bfloat16, "bf16": Bfloat16,
	"float8e4m3": Float8e4m3, "f8e4m3": Float8e4m3, "fp8e4m3": Float8e4m3, "e4m3": Float8e4m3,
	"float8e5m2": Float8e5m2, "f8e5m2": Float8e5m2, "fp8e5m2": Float8e5m2, "e5m2": Float8e5m2,
}

// ParseDataType accepts NCCL's names (ncclFloat32, float32, float, f32,
// bf16, fp16, half, e4m3 ...).
func ParseDataType(s string) (DataType, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "nccl")
	if d, ok := dtypeAliases[t]; ok {
		return d, nil
	}
	return 0, UnknownName("datatype", s, DataTypeNames())
}

// RedOp is ncclRedOp_t for the built-in operations, plus PreMulSum, which
// NCCL creates for ncclRedOpCreatePreMulSum and uses on the device for Avg.
type RedOp int

const (
	Sum RedOp = iota
	Prod
	Max
	Min
	Avg
	PreMulSum // a user-created pre-multiplied sum (ncclRedOpCreatePreMulSum)
	NumRedOps = 6
)

var redopNames = [NumRedOps]string{"ncclSum", "ncclProd", "ncclMax", "ncclMin", "ncclAvg", "ncclPreMulSum"}
var redopShort = [NumRedOps]string{"sum", "prod", "max", "min", "avg", "premulsum"}

func (r RedOp) String() string {
	if r >= 0 && int(r) < NumRedOps {
		return redopNames[r]
	}
	return fmt.Sprintf("RedOp(%d)", int(r))
}

// Short is the nccl-tests name (sum, prod, ...).
func (r RedOp) Short() string {
	if r >= 0 && int(r) < NumRedOps {
		return redopShort[r]
	}
	return r.String()
}

// ParseRedOp accepts sum, prod, max, min, avg, premulsum with or without "nccl".
func ParseRedOp(s string) (RedOp, error) {
	t := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "nccl"))
	t = strings.TrimPrefix(t, "nccl")
	for i, n := range redopShort {
		if t == n {
			return RedOp(i), nil
		}
	}
	return 0, UnknownName("reduction", s, redopShort[:])
}

// NetOp is the reduction the CollNet support matrix is looked up with: Avg
// becomes a PreMulSum or SumPostDiv on the device, and both are looked up as
// Sum (src/enqueue.cc getCollNetSupport).
func (r RedOp) NetOp() RedOp {
	if r == Avg || r == PreMulSum {
		return Sum
	}
	return r
}
