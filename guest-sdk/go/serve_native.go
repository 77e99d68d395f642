//go:build !wasip1

package tfwasm

import (
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Serve, in a native build, serves factory's provider over gRPC behind the go-plugin
// handshake, as terraform-plugin-go does: the same main builds a native provider binary.
func Serve(factory func() tfprotov6.ProviderServer) {
	if err := tf6server.Serve("registry.terraform.io/tfwasm/provider", factory); err != nil {
		log.Fatal(err)
	}
}
