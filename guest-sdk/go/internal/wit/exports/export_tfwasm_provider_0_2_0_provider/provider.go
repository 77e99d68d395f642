// Package export_tfwasm_provider_0_2_0_provider is the provider interface's exports, which the
// generated wit_exports calls; each one is internal/guest's.
package export_tfwasm_provider_0_2_0_provider

import (
	"tfwasm.dev/go/internal/guest"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

func GetSchema() types.ProviderSchema { return guest.GetSchema() }

func ValidateProviderConfig(config []uint8) []types.Diagnostic {
	return guest.ValidateProviderConfig(config)
}

func ConfigureProvider(ctx types.ProviderContext) []types.Diagnostic {
	return guest.ConfigureProvider(ctx)
}
