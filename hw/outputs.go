package hw

import "github.com/gatesim/gatesim/conformance"

// CompareOutput is gatesim hw compare --json.
type CompareOutput struct {
	Rows []conformance.CompareRow `json:"rows"`
}

// CheckOutput is gatesim hw check --json: one report per capture.
type CheckOutput struct {
	Configs []*conformance.CheckReport `json:"configs"`
}

// ReplayOutput is gatesim hw replay --json.
type ReplayOutput struct {
	Rows []ReplayRow `json:"rows"`
}
