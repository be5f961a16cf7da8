package rest

import (
	utilrand "k8s.io/apimachinery/pkg/util/rand"
)

// NameGenerator turns metadata.generateName into a name. A create strategy
// may implement it to change how names are made; SimpleNameGenerator is used
// otherwise.
type NameGenerator interface {
	GenerateName(base string) string
}

const (
	// maxNameLength is the longest DNS label, the tightest name rule of the
	// built-in resources; generated names must fit it.
	maxNameLength = 63
	// randomLength is how many random characters follow the prefix.
	randomLength = 5
	// MaxGeneratedNameLength is the longest prefix kept from generateName.
	MaxGeneratedNameLength = maxNameLength - randomLength
)

// SimpleNameGenerator appends five random characters from the alphabet of
// apimachinery's rand.String (no vowels, no look-alike digits) to the
// prefix, cut to MaxGeneratedNameLength so the result fits 63 characters.
type SimpleNameGenerator struct{}

var _ NameGenerator = SimpleNameGenerator{}

// GenerateName returns base (cut to MaxGeneratedNameLength) plus a random
// suffix.
func (SimpleNameGenerator) GenerateName(base string) string {
	if len(base) > MaxGeneratedNameLength {
		base = base[:MaxGeneratedNameLength]
	}
	return base + utilrand.String(randomLength)
}

// nameGeneratorFor prefers the strategy's own generator.
func nameGeneratorFor(strategy any) NameGenerator {
	if g, ok := strategy.(NameGenerator); ok {
		return g
	}
	return SimpleNameGenerator{}
}
