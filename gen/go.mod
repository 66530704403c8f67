module github.com/tensorcast/tensorcast/gen

go 1.26.0

require github.com/mmcloughlin/avo v0.6.0 // indirect
