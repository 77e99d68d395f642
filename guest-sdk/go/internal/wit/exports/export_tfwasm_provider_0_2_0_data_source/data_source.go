// Package export_tfwasm_provider_0_2_0_data_source is the data-source interface's exports, which
// the generated wit_exports calls; each one is internal/guest's.
package export_tfwasm_provider_0_2_0_data_source

import (
	"tfwasm.dev/go/internal/guest"
	ds "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_data_source"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

func ValidateDataResourceConfig(ctx types.ProviderContext, req types.ValidateRequest) []types.Diagnostic {
	return guest.ValidateDataResourceConfig(ctx, req)
}

func ReadDataSource(ctx types.ProviderContext, req ds.ReadDataRequest) ds.ReadDataResponse {
	return guest.ReadDataSource(ctx, req)
}
