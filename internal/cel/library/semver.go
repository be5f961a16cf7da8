package library

import (
	"errors"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// semverDecls is Kubernetes' semver library at version 1 (1.33 on):
// semver(string[, normalize]), isSemver(string[, normalize]),
// comparisons and major/minor/patch.
func semverDecls() []cel.EnvOption {
	v, s, b := SemverType, cel.StringType, cel.BoolType
	cmp := func(name, id string, out *cel.Type, fn func(int) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{v, v}, out, cel.BinaryBinding(semverCompare(fn))))
	}
	part := func(name, id string, fn func(semver.Version) uint64) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{v}, cel.IntType, cel.UnaryBinding(func(arg ref.Val) ref.Val {
			sv, ok := arg.Value().(semver.Version)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return types.Int(fn(sv))
		})))
	}
	return []cel.EnvOption{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{s}, v, cel.UnaryBinding(func(a ref.Val) ref.Val { return toSemver(a, types.False) })),
			cel.Overload("string_bool_to_semver", []*cel.Type{s, b}, v, cel.BinaryBinding(toSemver))),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{s}, b, cel.UnaryBinding(func(a ref.Val) ref.Val { return isSemver(a, types.False) })),
			cel.Overload("is_semver_string_bool", []*cel.Type{s, b}, b, cel.BinaryBinding(isSemver))),
		cmp("isGreaterThan", "semver_is_greater_than", b, func(c int) ref.Val { return types.Bool(c == 1) }),
		cmp("isLessThan", "semver_is_less_than", b, func(c int) ref.Val { return types.Bool(c == -1) }),
		cmp("compareTo", "semver_compare_to", cel.IntType, func(c int) ref.Val { return types.Int(c) }),
		part("major", "semver_major", func(sv semver.Version) uint64 { return sv.Major }),
		part("minor", "semver_minor", func(sv semver.Version) uint64 { return sv.Minor }),
		part("patch", "semver_patch", func(sv semver.Version) uint64 { return sv.Patch }),
	}
}

func parseSemver(str, normalize ref.Val) (semver.Version, ref.Val) {
	s, ok := str.Value().(string)
	if !ok {
		return semver.Version{}, types.MaybeNoSuchOverloadErr(str)
	}
	n, ok := normalize.Value().(bool)
	if !ok {
		return semver.Version{}, types.MaybeNoSuchOverloadErr(str)
	}
	var v semver.Version
	var err error
	if n {
		v, err = normalizeSemver(s)
	} else {
		v, err = semver.Parse(s)
	}
	if err != nil {
		return semver.Version{}, types.WrapErr(err)
	}
	return v, nil
}

func toSemver(str, normalize ref.Val) ref.Val {
	v, errv := parseSemver(str, normalize)
	if errv != nil {
		return errv
	}
	return Semver{v}
}

func isSemver(str, normalize ref.Val) ref.Val {
	_, errv := parseSemver(str, normalize)
	if errv != nil && !types.IsError(errv) {
		return errv // not a string: no such overload
	}
	return types.Bool(errv == nil)
}

func semverCompare(fn func(int) ref.Val) func(ref.Val, ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		x, ok1 := a.Value().(semver.Version)
		y, ok2 := b.Value().(semver.Version)
		if !ok1 || !ok2 {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return fn(x.Compare(y))
	}
}

// normalizeSemver is upstream's tolerant form: a leading "v" dropped,
// leading zeros removed, missing minor and patch set to 0 (a short
// version may not carry pre-release or build data). Unlike
// semver.ParseTolerant it keeps surrounding spaces as errors.
func normalizeSemver(s string) (semver.Version, error) {
	parts := strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3)
	for i, p := range parts {
		if len(p) <= 1 {
			continue
		}
		p = strings.TrimLeft(p, "0")
		if p == "" || !strings.ContainsAny(p[:1], "0123456789") {
			p = "0" + p
		}
		parts[i] = p
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return semver.Version{}, errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return semver.Parse(strings.Join(parts, "."))
}
