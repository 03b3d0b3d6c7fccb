package browser

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// gatesim runs the binary make browser built.
func gatesim(t *testing.T, args ...string) []byte {
	t.Helper()
	bin := os.Getenv("GATESIM_BIN")
	if bin == "" {
		t.Fatal("GATESIM_BIN is not set: run make browser")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gatesim %v: %v", args, err)
	}
	return out
}

// page loads a file in headless Chromium and evaluates each expression
// once it has rendered (ints and strings); requests that leave the page
// (anything but the file itself and data: URLs) are returned.
func page(t *testing.T, path string, ints map[string]*int, strs map[string]*string) (left []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.NoSandbox)
	if p := os.Getenv("CHROMIUM"); p != "" {
		opts = append(opts, chromedp.ExecPath(p))
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	url := "file://" + path
	var mu sync.Mutex
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			u := e.Request.URL
			if u != url && !strings.HasPrefix(u, "data:") {
				mu.Lock()
				left = append(left, u)
				mu.Unlock()
			}
		}
	}); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for expr, dst := range ints {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		if err != nil {
			t.Fatalf("%s: %s: %v", path, expr, err)
		}
		*dst = v
	}
	for expr, dst := range strs {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %s: %v", path, expr, err)
		}
		*dst = v
	}
	mu.Lock()
	defer mu.Unlock()
	return left
}

// TestWhatifPage: the page renders its plots, its table holds every point
// of the sweep, and nothing is fetched.
func TestWhatifPage(t *testing.T) {
	dir := t.TempDir()
	args := []string{"whatif", "--system", "dgx-h100", "--system", "dgx-a100", "--nodes", "1,2,4,8", "--sizes", "4KiB:1GiB:x16", "--no-sim"}
	gatesim(t, append(args, "--out", dir)...)
	var sweep struct {
		Points []json.RawMessage `json:"points"`
	}
	if err := json.Unmarshal(gatesim(t, append(args, "--format", "json")...), &sweep); err != nil {
		t.Fatal(err)
	}
	var rows, svgs, drawn int
	var title string
	left := page(t, filepath.Join(dir, "index.html"), map[string]*int{
		`document.querySelectorAll('#points tbody tr').length`: &rows,
		`document.querySelectorAll('figure svg').length`:       &svgs,
		`[...document.querySelectorAll('figure svg')].filter(s => s.getBoundingClientRect().width > 100 && s.getBoundingClientRect().height > 100).length`: &drawn,
	}, map[string]*string{`document.title`: &title})
	t.Logf("whatif page: %d rows for %d points, %d plots (%d drawn), %d requests out", rows, len(sweep.Points), svgs, drawn, len(left))
	if rows != len(sweep.Points) || rows == 0 {
		t.Errorf("the table shows %d rows for %d points", rows, len(sweep.Points))
	}
	if svgs != 2 || drawn != 2 {
		t.Errorf("%d plots, %d of them drawn with a size; want 2", svgs, drawn)
	}
	if title != "gatesim whatif" {
		t.Errorf("title %q", title)
	}
	if len(left) > 0 {
		t.Errorf("the page fetched %v", left)
	}
}

// TestDiagnosePage: one evidence ladder per capability, the findings, and
// nothing fetched.
func TestDiagnosePage(t *testing.T) {
	html := filepath.Join(t.TempDir(), "d.html")
	gatesim(t, "diagnose", "examples/hgx-ring.log", "--html", html)
	var rep struct {
		Capabilities []json.RawMessage `json:"capabilities"`
		Findings     []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(gatesim(t, "diagnose", "examples/hgx-ring.log", "--json"), &rep); err != nil {
		t.Fatal(err)
	}
	var ladders, findings int
	var text string
	left := page(t, html, map[string]*int{
		`document.querySelectorAll('table.ladder').length`:   &ladders,
		`document.querySelectorAll('#findings > li').length`: &findings,
	}, map[string]*string{`document.body.innerText`: &text})
	t.Logf("diagnose page: %d ladders for %d capabilities, %d findings of %d, %d requests out", ladders, len(rep.Capabilities), findings, len(rep.Findings), len(left))
	if ladders == 0 || (len(rep.Capabilities) > 0 && ladders != len(rep.Capabilities)) {
		t.Errorf("%d ladders for %d capabilities", ladders, len(rep.Capabilities))
	}
	if findings != len(rep.Findings) || findings == 0 {
		t.Errorf("%d findings shown, %d in the report", findings, len(rep.Findings))
	}
	if !strings.Contains(text, "NCCL_ALGO=RING explains why NVLS") {
		t.Error("the page does not say which variable kept NVLS out")
	}
	if len(left) > 0 {
		t.Errorf("the page fetched %v", left)
	}
}

// TestRequestsAreSeen: a page that fetches something is caught (the check
// above is not vacuous).
func TestRequestsAreSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fetch.html")
	if err := os.WriteFile(path, []byte(`<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	var n int
	left := page(t, path, map[string]*int{`document.images.length`: &n}, nil)
	if n != 1 || len(left) == 0 {
		t.Errorf("%d images, requests out %v: the listener missed the fetch", n, left)
	}
}
