package ref

import "errors"

// Format returns the string form of one element of kind k (rule 9 of the
// README's semantics table). PLACEHOLDER: being written.
func Format(k Kind, b uint64) string { return "" }

// Parse converts a string to one element of kind k (rule 10). PLACEHOLDER.
func Parse(k Kind, s string, opt Options) (uint64, error) { return 0, errors.New("unimplemented") }
