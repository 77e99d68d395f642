// Package protocol5 serves a protocol-5 provider (terraform-plugin-sdk/v2, or a
// terraform-plugin-framework provider served as protocol 5) as a tfwasm component: its
// server is upgraded to protocol 6 in-process by terraform-plugin-mux's tf5to6server.
//
//	func main() {
//		protocol5.Serve(providerserver.NewProtocol5(provider.New()))
//	}
package protocol5

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-mux/tf5to6server"

	tfwasm "tfwasm.dev/go"
)

// Serve is tfwasm.Serve for a protocol-5 server.
func Serve(factory func() tfprotov5.ProviderServer) {
	tfwasm.Serve(func() tfprotov6.ProviderServer {
		server, err := tf5to6server.UpgradeServer(context.Background(), factory)
		if err != nil {
			panic(fmt.Sprintf("upgrading the protocol-5 server to protocol 6: %v", err))
		}
		return server
	})
}
