package hw

// CompareOutput is gatesim hw compare --json.
type CompareOutput struct {
	Rows []CompareRow `json:"rows"`
}

// CheckOutput is gatesim hw check --json: one report per capture.
type CheckOutput struct {
	Configs []*CheckReport `json:"configs"`
}

// ReplayOutput is gatesim hw replay --json.
type ReplayOutput struct {
	Rows []ReplayRow `json:"rows"`
}
