package whatif

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// ProgressBar is Run's progress callback drawing a bar of n points on w,
// and the function that ends the bar. The bar appears once the sweep has
// run for a second, whatever its point count: a simulated point can take
// that long, so a few slow points deserve one as much as thousands of
// cost-model points.
func ProgressBar(n int, w io.Writer) (progress func(done int), finish func()) {
	start := time.Now()
	var mu sync.Mutex
	var bar *progressbar.ProgressBar
	progress = func(done int) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			if time.Since(start) < time.Second {
				return
			}
			bar = progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("whatif"),
				progressbar.OptionThrottle(100e6), progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		if bar != nil {
			_ = bar.Finish()
		}
	}
	return progress, finish
}
