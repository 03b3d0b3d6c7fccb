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
