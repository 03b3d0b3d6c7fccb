package hw

import "testing"

func TestParseFuncsAll(t *testing.T) {
	got, err := ParseFuncs("all,sendrecv,allreduce")
	if err != nil || len(got) != 6 {
		t.Errorf("ParseFuncs = %v, %v", got, err)
	}
}
