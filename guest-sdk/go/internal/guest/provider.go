package guest

import (
	"bytes"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

func failed(d types.Diagnostic) []types.Diagnostic { return []types.Diagnostic{d} }

// ValidateProviderConfig answers provider.validate-provider-config.
func ValidateProviderConfig(config []uint8) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		resp, err := provider().ValidateProviderConfig(background(), &tfprotov6.ValidateProviderConfigRequest{Config: dynamic(config)})
		return diagnostics(answered(resp, err, func(r *tfprotov6.ValidateProviderConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics }))
	}, failed)
}

// ConfigureProvider answers provider.configure-provider: the host keeps the configuration
// when this returns no error, and hands it to every later call.
func ConfigureProvider(pc types.ProviderContext) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		if pc.Config.IsSome() && configured != nil && !bytes.Equal(configured, pc.Config.Some()) {
			// A different configuration: configure a fresh server, as Terraform would a new
			// provider process.
			server, configured, storeServer = nil, nil, nil
		}
		_, diags := configuredFor(background(), pc)
		return diagnostics(diags)
	}, failed)
}
