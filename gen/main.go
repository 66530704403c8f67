// Command gen writes tensorcast's assembly kernels: kernel_amd64.s and its Go
// stubs (through avo), and kernel_arm64.s and its Go stubs (through the small
// arm64 emitter in package arm64), and kernelset.go, the kernel table type
// and its Kernels listing (package kernelset). Run it with `go generate ./...` at the
// repository root; never edit its outputs by hand.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/tensorcast/tensorcast/gen/amd64"
	"github.com/tensorcast/tensorcast/gen/arm64"
	"github.com/tensorcast/tensorcast/gen/kernelset"
)

func main() {
	// A flag set of our own: avo's build package registers its flags
	// (-out among them) on flag.CommandLine.
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("out", "..", "directory of the tensorcast package")
	fs.Parse(os.Args[1:])
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	if err := amd64.Generate(*out); err != nil {
		log.Fatal(err)
	}
	if err := arm64.Generate(*out); err != nil {
		log.Fatal(err)
	}
	if err := kernelset.Generate(*out); err != nil {
		log.Fatal(err)
	}
}
