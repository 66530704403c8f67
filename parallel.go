package tensorcast

import (
	"sync"
	"unsafe"
)

// parallelMinBytes is the least memory traffic (bytes read plus bytes
// written) worth a goroutine of its own: CastParallel gives each goroutine at
// least this much, so a conversion of less than twice it runs inline. At a
// few tens of GB/s a piece of 1 MiB takes tens of microseconds, well above
// the cost of starting a goroutine and waiting for it. A variable so that
// tests can split small inputs.
var parallelMinBytes = 1 << 20

// CastParallel is Cast split across goroutines, for large tensors: it
// converts n elements in up to `workers` contiguous pieces, runs all but the
// first on new goroutines and the first on the calling goroutine, and returns
// when every piece is done. Results, errors and guarantees are those of Cast
// (on error nothing is written and no goroutine is started), and it may be
// used wherever Cast is.
//
// The caller decides the parallelism: `workers` goroutines at most, fewer when
// the conversion is small (each piece gets at least about 1 MiB of memory
// traffic), none when workers <= 1 — then it is Cast. Piece boundaries fall
// on whole bytes of packed 2- and 4-bit types and, wherever dst's alignment
// allows, on 64-byte cache lines of dst, so no two goroutines write the same
// cache line. Unlike Cast, it allocates (a few small objects per goroutine).
//
// Conversions limited by memory bandwidth gain what the memory system gives
// a second core; conversions limited by computation (the element-wise
// paths, the generic tier) scale with the cores.
func CastParallel(dst []byte, to DataType, src []byte, from DataType, n int, opt Options, workers int) error {
	if workers <= 1 {
		return Cast(dst, to, src, from, n, opt)
	}
	if err := checkCastBytes(dst, to, src, from, n, opt); err != nil {
		return err
	}
	bounds := splitPoints(dst, to, from, n, workers)
	if len(bounds) <= 2 {
		castBytes(dst, to, src, from, n, opt)
		return nil
	}
	// Streaming stores are chosen for the whole tensor (stream.go): pieces
	// of a large conversion may each be below the threshold.
	ks := active
	if wantStream(from.Size(n), to.Size(n)) {
		ks = streamingKernels(ks)
	}
	var wg sync.WaitGroup
	for k := 1; k+1 < len(bounds); k++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			castPiece(ks, dst, to, src, from, lo, hi, opt)
		}(bounds[k], bounds[k+1])
	}
	castPiece(ks, dst, to, src, from, bounds[0], bounds[1], opt)
	wg.Wait()
	return nil
}

// castPiece converts elements [lo, hi) with the kernels of k; lo is a
// whole-byte boundary of both types (splitPoints guarantees it).
func castPiece(k *kernelSet, dst []byte, to DataType, src []byte, from DataType, lo, hi int, opt Options) {
	castBytesWith(k, dst[to.Size(lo):], to, src[from.Size(lo):], from, hi-lo, opt)
}

// splitPoints returns the piece boundaries 0 = b[0] < b[1] < … < b[k] = n,
// k ≤ workers, or nil when the conversion should run in one piece. Every
// interior boundary is a multiple of the elements in one 64-byte line of dst,
// counted from the first element that starts a cache line of dst when that
// element also starts a byte of src (else from element 0): so interior
// boundaries are whole bytes of both types and, when dst is aligned to its
// element size, start cache lines of dst.
func splitPoints(dst []byte, to, from DataType, n, workers int) []int {
	tb, fb := to.BitSize(), from.BitSize()
	if n <= 0 || tb == 0 || fb == 0 {
		return nil
	}
	traffic := int64(n) * int64(tb+fb) / 8 // int64: no overflow on 32-bit platforms
	w := int(min(int64(workers), traffic/int64(parallelMinBytes), int64(n)))
	if w <= 1 {
		return nil
	}
	line := 512 / tb // elements per 64-byte line of dst: 8 (64-bit) to 256 (2-bit)
	srcUnit := max(1, 8/fb)
	head := 0
	if mis := int(uintptr(unsafe.Pointer(unsafe.SliceData(dst))) % 64); mis != 0 {
		if hb := (64 - mis) * 8; hb%tb == 0 && (hb/tb)%srcUnit == 0 {
			head = hb / tb
		}
	}
	b := make([]int, 1, w+1)
	for k := 1; k < w; k++ {
		t := int(int64(n) * int64(k) / int64(w)) // the even split
		if t <= head {
			continue
		}
		p := head + (t-head+line/2)/line*line
		if p > b[len(b)-1] && p < n {
			b = append(b, p)
		}
	}
	if len(b) == 1 {
		return nil
	}
	return append(b, n)
}
