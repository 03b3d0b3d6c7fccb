package calibrate

import (
	"os"
	"testing"
	"time"
	"fmt"
)

func TestScratch(t *testing.T) {
	t.Chdir("..")
	t0 := time.Now()
	rep, err := Run(Options{From: []string{"golden/testdata/captured", "hw/testdata"}, Exclude: []string{"run3/gs-g-*"}, System: "h200x2", Name: "h200x2", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(time.Since(t0))
	WriteMarkdown(os.Stdout, rep)
}
