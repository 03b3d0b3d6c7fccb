package tuner

// The protocol between gatesim and its tuner child: one JSON request per
// line on the child's stdin, one JSON response per line on its stdout.
// Floats travel as their IEEE bit patterns so that NaN and the exact
// float32 values of NCCL's cost table survive the trip.

// request is one call into the tuner library.
type request struct {
	// Cmd is "open" (dlopen and list the symbols), "init", "coll",
	// "chunk" or "finalize".
	Cmd  string `json:"cmd"`
	Path string `json:"path,omitempty"`
	// ABI is the ncclTunerPlugin_vN version NCCL's loader accepted.
	ABI int `json:"abi,omitempty"`

	// init
	NRanks    int      `json:"nRanks,omitempty"`
	NNodes    int      `json:"nNodes,omitempty"`
	CommID    uint64   `json:"commId,omitempty"`
	NVL       [3]int   `json:"nvl,omitempty"`
	Constants []uint64 `json:"constants,omitempty"`

	// coll
	Func           int      `json:"func,omitempty"`
	NBytes         uint64   `json:"nBytes,omitempty"`
	NumPipeOps     int      `json:"numPipeOps,omitempty"`
	NumAlgo        int      `json:"numAlgo,omitempty"`
	NumProto       int      `json:"numProto,omitempty"`
	Table          []uint32 `json:"table,omitempty"`
	RegBuff        int      `json:"regBuff,omitempty"`
	CollNetSupport int      `json:"collNetSupport,omitempty"`
	NVLSSupport    int      `json:"nvlsSupport,omitempty"`

	// chunk (v6 getChunkSize): the chosen algorithm and protocol, the
	// channels and NCCL's chunk size in bytes.
	Algo      int    `json:"algo,omitempty"`
	Proto     int    `json:"proto,omitempty"`
	NChannels int    `json:"nChannels,omitempty"`
	ChunkSize uint64 `json:"chunkSize,omitempty"`
}

// response is the child's answer.
type response struct {
	// Err is set when the call could not be made (no library, no symbol).
	Err string `json:"err,omitempty"`
	// Result is the ncclResult_t the tuner returned.
	Result int `json:"result"`
	// Symbols lists N for every ncclTunerPlugin_vN the library exports,
	// Names the name field of each.
	Symbols []int          `json:"symbols,omitempty"`
	Names   map[int]string `json:"names,omitempty"`
	// Log is what the tuner logged through NCCL's logger during the call.
	Log       []string `json:"log,omitempty"`
	Constants []uint64 `json:"constants,omitempty"`
	Table     []uint32 `json:"table,omitempty"`
	Algo      int      `json:"algo"`
	Proto     int      `json:"proto"`
	NChannels int      `json:"nChannels"`
	// HasChunk says a v6 tuner set getChunkSize (init's answer);
	// ChunkSize is what getChunkSize left in its in/out argument.
	HasChunk  bool   `json:"hasChunk,omitempty"`
	ChunkSize uint64 `json:"chunkSize,omitempty"`
}

// Limits on what crosses the pipe, checked on both sides.
const (
	maxLine      = 1 << 20
	maxTable     = 64 // numAlgo × numProto
	maxConstants = 256
	minABI       = 2
	maxABI       = 6
)
