package main

import (
	"os"
	"testing"

	"github.com/gatesim/gatesim/tuner"
)

func TestMain(m *testing.M) {
	tuner.ServeIfChild()
	os.Exit(m.Run())
}
