package nccl

import "fmt"

// Result is ncclResult_t.
type Result int

const (
	Success            Result = 0
	UnhandledCudaError Result = 1
	SystemError        Result = 2
	InternalError      Result = 3
	InvalidArgument    Result = 4
	InvalidUsage       Result = 5
	RemoteError        Result = 6
	InProgress         Result = 7
)

var resultNames = [...]string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
	"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"}

func (r Result) String() string {
	if r >= 0 && int(r) < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("ncclResult(%d)", int(r))
}

// ParseResult accepts "ncclInvalidUsage", "InvalidUsage" or the number.
func ParseResult(s string) (Result, error) {
	for i, n := range resultNames {
		if s == n || "nccl"+s == n {
			return Result(i), nil
		}
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err == nil && n >= 0 && n < len(resultNames) {
		return Result(n), nil
	}
	return 0, fmt.Errorf("unknown NCCL result %q: expected a name such as ncclInvalidUsage", s)
}

// NCCLError is an error NCCL returns from an API call, with the WARN text it
// printed. It is part of a Decision, not a Go error: "NCCL fails here" is a
// prediction, not a fault of gatesim.
type NCCLError struct {
	Result  Result `json:"result"`
	Message string `json:"message"`
	// Call is the API call that returns it: "ncclCommInitRank" when the
	// communicator cannot be created, "ncclGroupEnd" for a collective.
	Call string `json:"call,omitempty"`
	// Abort is set when NCCL logs the error but the call never returns
	// it: the process aborts on the way out.
	Abort *Abort `json:"abort,omitempty"`
}

// Abort is a process stopping inside an NCCL call instead of the call
// returning: the rule that says why and the line the process prints as it
// dies (the C library's, not NCCL's).
type Abort struct {
	Rule    RuleID `json:"rule"`
	Message string `json:"message"`
}

func (e *NCCLError) String() string {
	if e == nil {
		return ""
	}
	s := e.Result.String() + ": " + e.Message
	if a := e.Abort; a != nil {
		call := e.Call
		if call == "" {
			call = "the call"
		}
		s += "; " + call + " never returns it: the process aborts (" + a.Message + ", " + string(a.Rule) + ")"
	}
	return s
}
