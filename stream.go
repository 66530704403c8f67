package tensorcast

import "math"

// Streaming (non-temporal) stores write around the caches. For a conversion
// whose data cannot stay in the last-level cache anyway they save the read of
// every destination line before it is written (and the eviction of other
// lines); for one that fits, they are slower, as whoever reads the result
// next must fetch it from memory. Measured on Zen 5 (32 MiB L3,
// bench/ntstore): FLOAT → FLOAT16 1.14–1.38× and FLOAT16 → FLOAT 1.22–1.38×
// faster from about the L3 size up, slower below. The rule that fits both
// directions: stream when srcBytes + 2·dstBytes ≥ the L3 size (the
// destination counts twice: without streaming stores it is read and written).
//
// The architecture files give the kernels that have streaming variants a
// test of wantStream, so every caller (typed API, Cast) gets them on large
// tensors. A caller that converts one tensor in pieces (CastParallel) must
// decide on the whole tensor instead, as a piece may be below the threshold
// when the tensor is not: it converts the pieces with streamingKernels.

// streamMinBytes is the threshold of the rule: the L3 size where the
// architecture file knows it (kernel_amd64.go sets it at init), else never. A
// variable so tests can lower it.
var streamMinBytes = math.MaxInt

// wantStream reports whether a conversion that reads srcBytes and writes
// dstBytes should use streaming stores.
func wantStream(srcBytes, dstBytes int) bool {
	return srcBytes+2*dstBytes >= streamMinBytes
}

// streamingSets maps a kernel table to its streaming twin, whose kernels use
// streaming stores at every size (where the destination's alignment allows):
// for the pieces of a conversion that is large as a whole. Filled at init by
// the architecture files for the tables that have streaming kernels.
var streamingSets = map[*kernelSet]*kernelSet{}

// streamingKernels returns the streaming twin of k, or k itself if it has
// none. A conversion of n elements decides on the whole tensor:
//
//	k := active
//	if wantStream(from.Size(n), to.Size(n)) {
//		k = streamingKernels(k)
//	}
//
// and converts every piece with k.
func streamingKernels(k *kernelSet) *kernelSet {
	if s := streamingSets[k]; s != nil {
		return s
	}
	return k
}
