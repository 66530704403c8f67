package tensorcast

import (
	"fmt"
	"strings"
)

// CheckOpset reports whether op ("Cast" or "CastLike"; in any case, like
// type names) at the given opset (1..25) accepts the type pair, following
// the type lists of each version of the operator's schema:
//
//	Cast-1, Cast-6:  FLOAT16, FLOAT, DOUBLE, INT8..INT64, UINT8..UINT64, BOOL
//	Cast-9:          + STRING
//	Cast-13:         + BFLOAT16            (CastLike-15 starts here)
//	Cast-19:         + the four FLOAT8 types (and the saturate attribute)
//	Cast-21:         + INT4, UINT4
//	Cast-23:         + FLOAT4E2M1
//	Cast-24:         + FLOAT8E8M0 (and the round_mode attribute)
//	Cast-25:         + INT2, UINT2
//
// An opset uses the newest version of the operator at or below it. Cast
// itself converts every pair at any opset; CheckOpset is for tools that must
// reject what a given opset does not allow.
func CheckOpset(op string, opset int, from, to DataType) error {
	switch {
	case strings.EqualFold(op, "Cast"):
		op = "Cast"
	case strings.EqualFold(op, "CastLike"):
		op = "CastLike"
		if opset < 15 {
			return fmt.Errorf("tensorcast: CastLike does not exist before opset 15 (got %d)", opset)
		}
	default:
		return fmt.Errorf("tensorcast: unknown operator %q (want Cast or CastLike, in any case)", op)
	}
	if opset < 1 || opset > 25 {
		return fmt.Errorf("tensorcast: opset %d is outside 1..25", opset)
	}
	for _, t := range [2]DataType{from, to} {
		first := t.Opset()
		if !t.Castable() || first == 0 {
			return fmt.Errorf("tensorcast: %s-%d does not accept %v", op, opset, t)
		}
		if opset < first {
			return fmt.Errorf("tensorcast: %s-%d does not accept %v (first accepted at opset %d)", op, opset, t, first)
		}
	}
	return nil
}
