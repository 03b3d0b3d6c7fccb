package nccl

// Ref is where a rule lives in NCCL's source at a release tag.
type Ref struct {
	Tag  string `json:"tag"`  // v2.28.9-1
	File string `json:"file"` // src/plugin/net.cc
	Func string `json:"func"` // ncclNetPluginLoad
}

func (r Ref) String() string {
	if r.Tag == "" && r.File == "" {
		return ""
	}
	return r.Tag + " " + r.File + " " + r.Func
}

// RuleID is a rule's stable identifier, such as G-NET-ABI-1: the name a
// gate, a tuning-model rule and a log line share.
type RuleID string

// String lets a RuleID print itself.
func (id RuleID) String() string { return string(id) }
