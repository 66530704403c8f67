// Package layout gives the generators the field offsets of the parameter
// structs that the kernels read (params.go in the repository root), taken
// from the Go declarations themselves, so no offset is written twice.
package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"runtime"
	"sync"
)

// paramsFile is the root package's params.go, found from this file's path
// (the generators run from the source tree).
func paramsFile() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "params.go")
}

var structs = sync.OnceValues(func() (map[string]*types.Struct, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, paramsFile(), nil, 0)
	if err != nil {
		return nil, err
	}
	// params.go alone: what it uses from the rest of the package and from
	// its imports is unresolved, which leaves the structs of basic-typed
	// fields (the ones that matter) complete; Offset checks that.
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check("tensorcast", fset, []*ast.File{f}, nil)
	m := map[string]*types.Struct{}
	for _, name := range pkg.Scope().Names() {
		if tn, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok {
			if s, ok := tn.Type().Underlying().(*types.Struct); ok {
				m[name] = s
			}
		}
	}
	return m, nil
})

type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	p := types.NewPackage(path, filepath.Base(path))
	p.MarkComplete()
	return p, nil
}

// sizes are those of both targets (amd64 and arm64 lay out these structs
// alike: 64-bit, naturally aligned).
var sizes = types.SizesFor("gc", "amd64")

// Offset returns the byte offset of field in the struct type typ of
// params.go; it panics if either is missing (a generator bug).
func Offset(typ, field string) int {
	fields := fieldsOf(typ)
	offs := sizes.Offsetsof(fields)
	for i, v := range fields {
		if v.Name() == field {
			return int(offs[i])
		}
	}
	panic("layout: no field " + field + " in " + typ)
}

// Size returns the size in bytes of the struct type typ of params.go,
// trailing padding included (none for the byte-only parameter blocks the
// kernels take as *[Size]uint8).
func Size(typ string) int {
	fields := fieldsOf(typ)
	return int(sizes.Sizeof(types.NewStruct(fields, nil)))
}

// fieldsOf returns the fields of the struct type typ of params.go, each of
// a basic type or an array of one.
func fieldsOf(typ string) []*types.Var {
	m, err := structs()
	if err != nil {
		panic(fmt.Sprintf("layout: reading %s: %v", paramsFile(), err))
	}
	s, ok := m[typ]
	if !ok {
		panic("layout: no struct " + typ + " in params.go")
	}
	fields := make([]*types.Var, s.NumFields())
	for i := range fields {
		fields[i] = s.Field(i)
		if !basic(fields[i].Type()) {
			panic(fmt.Sprintf("layout: %s.%s is not of a basic type or an array of one", typ, fields[i].Name()))
		}
	}
	return fields
}

// basic reports whether t is a basic type or an array of them (to any
// depth): types whose layout params.go alone determines.
func basic(t types.Type) bool {
	switch t := t.(type) {
	case *types.Basic:
		return true
	case *types.Array:
		return basic(t.Elem())
	}
	return false
}
