package diagnose

// Output is gatesim diagnose --json: the report, and the comparison with a
// prediction when there is one.
type Output struct {
	JSONReport
	Comparison *Comparison `json:"comparison,omitempty"`
}
