// Command go-pets is a terraform-plugin-framework provider served by tfwasm: `tfwasm
// build-go . -o go-pets.wasm` makes it a component; a native `go build` makes an ordinary
// provider binary of the same code.
package main

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"tfwasm.dev/go"

	"tfwasm.dev/samples/go-pets/internal/provider"
)

// version is set at release time.
var version = "0.1.0"

func main() {
	tfwasm.Serve(providerserver.NewProtocol6(provider.New(version)))
}
