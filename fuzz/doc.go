// Package fuzz holds tensorcast's differential fuzz targets: every target
// runs the library (on a tier the input chooses) and compares the result
// with the reference in internal/ref. Run one with, for example,
//
//	go test -run '^$' -fuzz '^FuzzCast$' -fuzztime 1m ./fuzz
//
// The seed corpus lives in testdata/fuzz and is committed.
package fuzz
