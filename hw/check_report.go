package hw

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// ReadCaptureTree reads every capture under dir: each directory holding a
// config.json, at any depth up to maxCaptureDepth (a capture set such as
// golden/testdata/captured/h200x2-2.28.9, a directory of sets, or
// hw/testdata/device with its release folders), in name order. A
// capture's own subdirectories are not searched. No capture is an error
// naming dir.
func ReadCaptureTree(dir string) ([]*conformance.Capture, error) {
	var set []*conformance.Capture
	var walk func(d string, depth int) error
	walk = func(d string, depth int) error {
		ents, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			sub := filepath.Join(d, e.Name())
			if _, err := os.Stat(filepath.Join(sub, conformance.CaptureConfig)); err == nil {
				c, err := ReadCapture(sub)
				if err != nil {
					return err
				}
				set = append(set, c)
			} else if depth < maxCaptureDepth {
				if err := walk(sub, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(dir, 1); err != nil {
		return nil, err
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("%s: no capture directories (none holds %s within %d levels)", dir, conformance.CaptureConfig, maxCaptureDepth)
	}
	return set, nil
}

// maxCaptureDepth bounds how deep ReadCaptureTree looks: a set's release
// folders under a device folder are three levels down.
const maxCaptureDepth = 4

// ParseFuncs reads a comma-separated list; "all" stands for the five
// collectives of the cost table.
func ParseFuncs(s string) ([]spec.Func, error) {
	var out []spec.Func
	seen := map[spec.Func]bool{}
	add := func(f spec.Func) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, p := range strings.Split(s, ",") {
		if strings.TrimSpace(p) == "all" {
			for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce} {
				add(f)
			}
			continue
		}
		f, err := spec.ParseFunc(p)
		if err != nil {
			return nil, err
		}
		add(f)
	}
	return out, nil
}

// ReadCaptureDirs reads the captures each directory names: a capture
// holding a config.json, or a tree of them (ReadCaptureTree).
func ReadCaptureDirs(dirs []string) ([]*conformance.Capture, error) {
	var caps []*conformance.Capture
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, conformance.CaptureConfig)); err == nil {
			cp, err := ReadCapture(dir)
			if err != nil {
				return nil, err
			}
			caps = append(caps, cp)
			continue
		}
		set, err := ReadCaptureTree(dir)
		if err != nil {
			return nil, err
		}
		caps = append(caps, set...)
	}
	return caps, nil
}

// WriteProbe prints what Probe found: the libraries, NCCL's version and
// the release it maps to, the driver and the GPUs.
func WriteProbe(w io.Writer, p *ProbeResult) {
	fmt.Fprintf(w, "nccl     %s\nversion  %s (code %d)\n", p.NCCL, p.Version, p.Version.Code())
	if p.Modelled {
		fmt.Fprintf(w, "release  %s (modelled release used for predictions)\n", p.Release)
	} else {
		fmt.Fprintf(w, "release  none: %s is older than every modelled release\n", p.Version)
	}
	fmt.Fprintf(w, "cudart   %s (runtime %d, driver %d)\n", p.CUDART, p.CUDARuntime, p.CUDADriver)
	if p.DriverNote != "" {
		fmt.Fprintf(w, "driver   %s\n", p.DriverNote)
	}
	for _, dev := range p.Devices {
		fmt.Fprintf(w, "gpu %d    %s %s\n", dev.Dev, dev.BusID, dev.Name)
	}
}
