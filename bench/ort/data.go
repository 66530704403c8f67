package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/tensorcast/tensorcast"
)

// matrixTypes and genTyped are bench/matrix.go's (this is a separate module
// and bench is a main package): the numeric types, and realistic finite
// inputs for each.

func matrixTypes() []tensorcast.DataType {
	var ts []tensorcast.DataType
	for _, t := range tensorcast.AllTypes() {
		if t.Castable() && t != tensorcast.String {
			ts = append(ts, t)
		}
	}
	return ts
}

// genTyped fills b with n elements of type t: floats normally distributed
// (σ = 1, 10% scaled by 100), rounded with saturation to the narrower float
// types (FLOAT8E8M0 from their magnitudes); integers uniformly random over
// their whole range, packed ones included; BOOL 0 or 1.
func genTyped(b []byte, t tensorcast.DataType, n int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, uint64(t)))
	normal := func() float64 {
		v := rng.NormFloat64()
		if rng.IntN(10) == 0 {
			v *= 100
		}
		return v
	}
	b = b[:t.Size(n)]
	switch t {
	case tensorcast.Double:
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(normal()))
		}
	case tensorcast.Float:
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(normal())))
		}
	case tensorcast.Float16, tensorcast.BFloat16, tensorcast.Float8E4M3FN, tensorcast.Float8E4M3FNUZ,
		tensorcast.Float8E5M2, tensorcast.Float8E5M2FNUZ, tensorcast.Float4E2M1, tensorcast.Float8E8M0:
		f := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := float32(normal())
			if t == tensorcast.Float8E8M0 {
				v = float32(math.Abs(float64(v)))
			}
			binary.LittleEndian.PutUint32(f[4*i:], math.Float32bits(v))
		}
		if err := tensorcast.Cast(b, t, f, tensorcast.Float, n, tensorcast.Options{}); err != nil {
			panic(err)
		}
	case tensorcast.Bool:
		for i := range b {
			b[i] = byte(rng.IntN(2))
		}
	default:
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
}
