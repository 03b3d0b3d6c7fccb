package calibrate

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	t.Chdir("..")
	t0 := time.Now()
	rep, err := Run(Options{From: []string{"golden/testdata/captured", "hw/testdata"}, Exclude: []string{"run3/gs-g-*"}, System: "h200x2", Name: "h200x2", Workers: 2, NoCV: os.Getenv("CV") == ""})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(time.Since(t0))
	WriteMarkdown(os.Stdout, rep)
}

func TestScratchSize(t *testing.T) {
	t.Chdir("..")
	rep, err := Run(Options{From: []string{"golden/testdata/captured", "hw/testdata"}, Exclude: []string{"run3/gs-g-*"}, System: "h200x2", Name: "h200x2", NoCV: true})
	if err != nil {
		t.Fatal(err)
	}
	groupTable(os.Stdout, rep.Results, "func size", func(r *Result) string { return fmt.Sprintf("%s %s %12d", r.Func, r.Cell(), r.Bytes) })
}
