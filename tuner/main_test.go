package tuner

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	ServeIfChild()
	os.Exit(m.Run())
}
