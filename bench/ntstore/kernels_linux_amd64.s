#include "textflag.h"

// Prototype kernels for measuring non-temporal (streaming) stores. Each
// converts n elements, n a multiple of 32; dst must be 64-byte aligned for
// the NT variants. They are not tensorcast's kernels (gen/amd64 generates
// those): just the two store strategies around the same conversion.

// func f32ToF16Store512(dst *uint16, src *float32, n int)
TEXT ·f32ToF16Store512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	VMOVUPS      (SI), Z1
	VMOVUPS      64(SI), Z2
	VCVTPS2PH    $0, Z1, Y0
	VCVTPS2PH    $0, Z2, Y3
	VINSERTI64X4 $1, Y3, Z0, Z0
	VMOVDQU64    Z0, (DI)
	ADDQ         $128, SI
	ADDQ         $64, DI
	SUBQ         $32, CX
	JNZ          loop
	VZEROUPPER
	RET

// func f32ToF16NT512(dst *uint16, src *float32, n int)
TEXT ·f32ToF16NT512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	VMOVUPS      (SI), Z1
	VMOVUPS      64(SI), Z2
	VCVTPS2PH    $0, Z1, Y0
	VCVTPS2PH    $0, Z2, Y3
	VINSERTI64X4 $1, Y3, Z0, Z0
	VMOVNTDQ     Z0, (DI)
	ADDQ         $128, SI
	ADDQ         $64, DI
	SUBQ         $32, CX
	JNZ          loop
	SFENCE
	VZEROUPPER
	RET

// func f16ToF32Store512(dst *float32, src *uint16, n int)
TEXT ·f16ToF32Store512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	VCVTPH2PS (SI), Z0
	VCVTPH2PS 32(SI), Z1
	VMOVUPS   Z0, (DI)
	VMOVUPS   Z1, 64(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	SUBQ      $32, CX
	JNZ       loop
	VZEROUPPER
	RET

// func f16ToF32NT512(dst *float32, src *uint16, n int)
TEXT ·f16ToF32NT512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	VCVTPH2PS (SI), Z0
	VCVTPH2PS 32(SI), Z1
	VMOVNTPS  Z0, (DI)
	VMOVNTPS  Z1, 64(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	SUBQ      $32, CX
	JNZ       loop
	SFENCE
	VZEROUPPER
	RET

// func f32ToF16Store256(dst *uint16, src *float32, n int)
TEXT ·f32ToF16Store256(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	VMOVUPS     (SI), Y1
	VMOVUPS     32(SI), Y2
	VCVTPS2PH   $0, Y1, X0
	VCVTPS2PH   $0, Y2, X3
	VINSERTI128 $1, X3, Y0, Y0
	VMOVDQU     Y0, (DI)
	ADDQ        $64, SI
	ADDQ        $32, DI
	SUBQ        $16, CX
	JNZ         loop
	VZEROUPPER
	RET

// func f32ToF16NT256(dst *uint16, src *float32, n int)
TEXT ·f32ToF16NT256(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	VMOVUPS     (SI), Y1
	VMOVUPS     32(SI), Y2
	VCVTPS2PH   $0, Y1, X0
	VCVTPS2PH   $0, Y2, X3
	VINSERTI128 $1, X3, Y0, Y0
	VMOVNTDQ    Y0, (DI)
	ADDQ        $64, SI
	ADDQ        $32, DI
	SUBQ        $16, CX
	JNZ         loop
	SFENCE
	VZEROUPPER
	RET
