package tensorcast

import "fmt"

// kernelCase runs one hot conversion of a kernel table on raw bytes, so that
// tests (guard pages, lengths, offsets, fuzzing) can treat every kernel the
// same way. src holds n elements of from, dst receives to.Size(n) bytes.
type kernelCase struct {
	name     string
	from, to DataType
	opt      Options
	run      func(k *kernelSet, dst, src []byte, n int)
	tier     func(k *kernelSet) string
}

func kernelCases() []kernelCase {
	cs := []kernelCase{
		{"FLOAT->FLOAT16", Float, Float16, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f32ToF16.fn(view[uint16](d, n), view[float32](s, n)) },
			func(k *kernelSet) string { return k.f32ToF16.tier }},
		{"FLOAT16->FLOAT", Float16, Float, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f16ToF32.fn(view[float32](d, n), view[uint16](s, n)) },
			func(k *kernelSet) string { return k.f16ToF32.tier }},
		{"FLOAT->BFLOAT16", Float, BFloat16, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f32ToBF16.fn(view[uint16](d, n), view[float32](s, n)) },
			func(k *kernelSet) string { return k.f32ToBF16.tier }},
		{"BFLOAT16->FLOAT", BFloat16, Float, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.bf16ToF32.fn(view[float32](d, n), view[uint16](s, n)) },
			func(k *kernelSet) string { return k.bf16ToF32.tier }},
		{"FLOAT->FLOAT4E2M1", Float, Float4E2M1, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f32ToF4.fn(d[:(n+1)/2], view[float32](s, n)) },
			func(k *kernelSet) string { return k.f32ToF4.tier }},
		{"FLOAT4E2M1->FLOAT", Float4E2M1, Float, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f4ToF32.fn(view[float32](d, n), s[:(n+1)/2]) },
			func(k *kernelSet) string { return k.f4ToF32.tier }},
		{"INT8->INT4", Int8, Int4, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.i8ToI4.fn(d[:(n+1)/2], s[:n]) },
			func(k *kernelSet) string { return k.i8ToI4.tier }},
		{"INT4->INT8", Int4, Int8, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.i4ToI8.fn(d[:n], s[:(n+1)/2]) },
			func(k *kernelSet) string { return k.i4ToI8.tier }},
		{"UINT4->UINT8", Uint4, Uint8, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.u4ToU8.fn(d[:n], s[:(n+1)/2]) },
			func(k *kernelSet) string { return k.u4ToU8.tier }},
		{"FLOAT->INT4", Float, Int4, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f32ToI4.fn(d[:(n+1)/2], view[float32](s, n)) },
			func(k *kernelSet) string { return k.f32ToI4.tier }},
	}
	for _, t := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ} {
		for _, opt := range []Options{{}, {NoSaturate: true}} {
			p := float8ParamsFor(t, opt)
			cs = append(cs,
				kernelCase{fmt.Sprintf("FLOAT->%v sat=%v", t, !opt.NoSaturate), Float, t, opt,
					func(k *kernelSet, d, s []byte, n int) { k.f32ToF8.fn(d[:n], view[float32](s, n), p) },
					func(k *kernelSet) string { return k.f32ToF8.tier }},
				kernelCase{fmt.Sprintf("FLOAT16->%v sat=%v", t, !opt.NoSaturate), Float16, t, opt,
					func(k *kernelSet, d, s []byte, n int) { k.f16ToF8.fn(d[:n], view[uint16](s, n), p) },
					func(k *kernelSet) string { return k.f16ToF8.tier }},
				kernelCase{fmt.Sprintf("BFLOAT16->%v sat=%v", t, !opt.NoSaturate), BFloat16, t, opt,
					func(k *kernelSet, d, s []byte, n int) { k.bf16ToF8.fn(d[:n], view[uint16](s, n), p) },
					func(k *kernelSet) string { return k.bf16ToF8.tier }})
		}
	}
	for _, t := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0} {
		tab := widenTable(t)
		cs = append(cs, kernelCase{fmt.Sprintf("%v->FLOAT", t), t, Float, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f8ToF32.fn(view[float32](d, n), s[:n], tab) },
			func(k *kernelSet) string { return k.f8ToF32.tier }})
	}
	for _, rm := range []RoundMode{RoundUp, RoundDown, RoundNearest} {
		for _, opt := range []Options{{RoundMode: rm}, {RoundMode: rm, NoSaturate: true}} {
			p := e8m0ParamsFor(opt)
			cs = append(cs, kernelCase{fmt.Sprintf("FLOAT->FLOAT8E8M0 %v sat=%v", rm, !opt.NoSaturate), Float, Float8E8M0, opt,
				func(k *kernelSet, d, s []byte, n int) { k.f32ToE8M0.fn(d[:n], view[float32](s, n), p) },
				func(k *kernelSet) string { return k.f32ToE8M0.tier }})
		}
	}
	// The lookup kernels with a few of the tables the plans give them (every
	// table is swept through the plans in plan_test.go).
	for _, c := range []struct {
		from, to DataType
		opt      Options
	}{
		{Float8E5M2, Float8E4M3FN, Options{}}, {Float8E4M3FN, Float8E5M2FNUZ, Options{NoSaturate: true}},
		{Int8, Float8E4M3FN, Options{}}, {Float8E8M0, Uint8, Options{}},
	} {
		tab := (*[256]uint8)(tableFor(c.from, c.to, c.opt).b8)
		cs = append(cs, kernelCase{fmt.Sprintf("%v->%v (lut8)", c.from, c.to), c.from, c.to, c.opt,
			func(k *kernelSet, d, s []byte, n int) { k.lut8.fn(d[:n], s[:n], tab) },
			func(k *kernelSet) string { return k.lut8.tier }})
	}
	for _, c := range [][2]DataType{{Float8E4M3FN, BFloat16}, {Float8E5M2, Float16}, {Int8, Float16}, {Uint8, BFloat16}, {Float8E8M0, Float16}} {
		tab := (*[256]uint16)(tableFor(c[0], c[1], Options{}).b16)
		cs = append(cs, kernelCase{fmt.Sprintf("%v->%v (lut16)", c[0], c[1]), c[0], c[1], Options{},
			func(k *kernelSet, d, s []byte, n int) { k.lut16.fn(view[uint16](d, n), s[:n], tab) },
			func(k *kernelSet) string { return k.lut16.tier }})
	}
	cs = append(cs,
		kernelCase{"INT8->INT2", Int8, Int2, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.i8ToI2.fn(d[:(n+3)/4], s[:n]) },
			func(k *kernelSet) string { return k.i8ToI2.tier }},
		kernelCase{"FLOAT16->BFLOAT16", Float16, BFloat16, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.f16ToBF16.fn(view[uint16](d, n), view[uint16](s, n)) },
			func(k *kernelSet) string { return k.f16ToBF16.tier }},
		kernelCase{"BFLOAT16->FLOAT16", BFloat16, Float16, Options{},
			func(k *kernelSet, d, s []byte, n int) { k.bf16ToF16.fn(view[uint16](d, n), view[uint16](s, n)) },
			func(k *kernelSet) string { return k.bf16ToF16.tier }})
	return cs
}
