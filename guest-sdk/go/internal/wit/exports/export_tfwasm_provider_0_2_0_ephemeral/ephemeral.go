// Package export_tfwasm_provider_0_2_0_ephemeral is the ephemeral interface's exports, which the
// generated wit_exports calls; each one is internal/guest's.
package export_tfwasm_provider_0_2_0_ephemeral

import (
	"tfwasm.dev/go/internal/guest"
	eph "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_ephemeral"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

func ValidateEphemeralResourceConfig(ctx types.ProviderContext, req types.ValidateRequest) []types.Diagnostic {
	return guest.ValidateEphemeralResourceConfig(ctx, req)
}

func OpenEphemeralResource(ctx types.ProviderContext, req eph.OpenRequest) eph.OpenResponse {
	return guest.OpenEphemeralResource(ctx, req)
}

func RenewEphemeralResource(ctx types.ProviderContext, req eph.PrivateRequest) eph.RenewResponse {
	return guest.RenewEphemeralResource(ctx, req)
}

func CloseEphemeralResource(ctx types.ProviderContext, req eph.PrivateRequest) []types.Diagnostic {
	return guest.CloseEphemeralResource(ctx, req)
}
