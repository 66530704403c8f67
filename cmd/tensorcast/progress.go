package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal. Tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress is the progress bar of a file conversion: bytes of the input
// done, rate and time left, on stderr when it is a terminal. A nil
// *progress shows nothing.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns the bar for total input bytes, or nil when w is not a
// terminal or quiet is set.
func newProgress(w io.Writer, total int64, desc string, quiet bool) *progress {
	if quiet || total <= 0 || !isTerminal(w) {
		return nil
	}
	return &progress{progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionFullWidth(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// add counts n more input bytes done.
func (p *progress) add(n int64) {
	if p != nil && n > 0 {
		p.bar.Add64(n)
	}
}

// finish removes the bar from the terminal, so that the summary or an
// error line follows on a clean line.
func (p *progress) finish(ok bool) {
	if p == nil {
		return
	}
	if ok {
		p.bar.Finish()
	}
	p.bar.Clear()
}
