// Package witrt is the runtime support the generated WIT bindings (internal/wit) call: memory
// handed to the host, the canonical ABI's realloc, and resource handles. It is the SDK's own,
// so a provider module needs nothing beyond tfwasm.dev/go and its Go dependencies.
// cabi_realloc exists only in wasip1 builds; the rest also compiles natively, so `go build
// ./...` and `go vet` work on any machine.
package witrt
