//go:build wasip1

package tfwasm

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"tfwasm.dev/go/internal/guest"
	"tfwasm.dev/go/internal/wasihttp"
	// The component's exports: linked in by being imported.
	_ "tfwasm.dev/go/internal/wit/exports/wit_exports"
)

// Serve makes factory's provider the component's: each call the host makes runs on a
// server it built. In a component, Serve returns at once; the host then calls the
// provider's exports.
func Serve(factory func() tfprotov6.ProviderServer) {
	guest.Register(factory)
}

// net/http goes out through wasi:http from the start, so package-level clients built from
// http.DefaultTransport are covered too.
func init() {
	wasihttp.Install()
}
