// Package types holds the generic WIT types the generated bindings use: option, result,
// tuples and unit.
package types

// Option tags.
const (
	OptionNone = 0
	OptionSome = 1
)

// Option is a WIT option<T>.
type Option[T any] struct {
	tag   uint8
	value T
}

// Some is an option holding value.
func Some[T any](value T) Option[T] { return Option[T]{tag: OptionSome, value: value} }

// None is an empty option.
func None[T any]() Option[T] { return Option[T]{} }

// Tag says which case the option is.
func (o Option[T]) Tag() uint8 { return o.tag }

// IsSome says whether it holds a value.
func (o Option[T]) IsSome() bool { return o.tag == OptionSome }

// IsNone says whether it is empty.
func (o Option[T]) IsNone() bool { return o.tag == OptionNone }

// Some returns the value; it panics on an empty option.
func (o Option[T]) Some() T {
	if o.tag != OptionSome {
		panic("types: Some() of an empty option")
	}
	return o.value
}

// SomeOr returns the value, or fallback when empty.
func (o Option[T]) SomeOr(fallback T) T {
	if o.tag != OptionSome {
		return fallback
	}
	return o.value
}

// Result tags.
const (
	ResultOk  = 0
	ResultErr = 1
)

// Result is a WIT result<T, E>.
type Result[T any, E any] struct {
	tag uint8
	ok  T
	err E
}

// Ok is a successful result.
func Ok[T any, E any](value T) Result[T, E] { return Result[T, E]{tag: ResultOk, ok: value} }

// Err is a failed result.
func Err[T any, E any](err E) Result[T, E] { return Result[T, E]{tag: ResultErr, err: err} }

// Tag says which case the result is.
func (r Result[T, E]) Tag() uint8 { return r.tag }

// IsOk says whether it succeeded.
func (r Result[T, E]) IsOk() bool { return r.tag == ResultOk }

// IsErr says whether it failed.
func (r Result[T, E]) IsErr() bool { return r.tag == ResultErr }

// Ok returns the value; it panics on a failed result.
func (r Result[T, E]) Ok() T {
	if r.tag != ResultOk {
		panic("types: Ok() of a failed result")
	}
	return r.ok
}

// Err returns the error; it panics on a successful result.
func (r Result[T, E]) Err() E {
	if r.tag != ResultErr {
		panic("types: Err() of a successful result")
	}
	return r.err
}

// Tuple2 is a WIT tuple<T0, T1>.
type Tuple2[T0 any, T1 any] struct {
	F0 T0
	F1 T1
}

// Unit is the empty type (a result with no value).
type Unit struct{}
