// Package export_tfwasm_provider_0_3_0_config_generation is the config-generation
// interface's export, which the generated wit_exports calls; it is internal/guest's.
package export_tfwasm_provider_0_3_0_config_generation

import (
	"tfwasm.dev/go/internal/guest"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	cg "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_config_generation"
)

func GenerateResourceConfig(ctx types.ProviderContext, req cg.GenerateRequest) cg.GenerateResponse {
	return guest.GenerateResourceConfig(ctx, req)
}
